#!/usr/bin/env bash
# Fuzzes unitool's parsers of untrusted input with libFuzzer.
#
#   ./Scripts/fuzz.sh                 # every target, 600 s each
#   ./Scripts/fuzz.sh rpc 60          # one target for 60 s
#
# Targets: extraction, recipe, rpc, cookie, form (Sources/UniToolFuzzTargets).
# The runner in Fuzz/ is built in release mode with --sanitize=fuzzer into Fuzz/.build (the
# first build takes about 10 minutes). Seeds come from Fuzz/Corpus/<target>/ (committed); what the
# fuzzer learns goes to Fuzz/.build/corpus/<target>/ (not committed). An input that crashes or
# breaks an invariant is written to Fuzz/Findings/<target>/: commit it with the fix, and the
# test suite replays it from then on (Tests/UniToolFuzzTargetsTests).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(extraction recipe rpc cookie form)
choice="${1:-all}"
seconds="${2:-600}"
if [[ "$choice" != all ]]; then
    if [[ ! " ${targets[*]} " =~ " $choice " ]]; then
        echo "error: unknown fuzz target '$choice'" >&2
        echo "hint: one of: ${targets[*]} (or all)" >&2
        exit 64
    fi
    targets=("$choice")
fi

./Scripts/install-deps.sh --tests
(cd Fuzz && swift build -c release --sanitize=fuzzer >&2)
runner="Fuzz/.build/release/FuzzUniTool"

status=0
for target in "${targets[@]}"; do
    mkdir -p "Fuzz/.build/corpus/$target" "Fuzz/Findings/$target"
    log="Fuzz/.build/fuzz-$target.log"
    echo "fuzzing $target for $seconds s (log: $log)" >&2
    started=$SECONDS
    # -timeout: an input that takes longer than 10 s is a hang, and a finding.
    # SWIFT_BACKTRACE off: Swift's crash reporter would exit before libFuzzer saves the input.
    if ! SWIFT_BACKTRACE=enable=no UNITOOL_FUZZ_TARGET="$target" "$runner" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="Fuzz/Findings/$target/" \
        "Fuzz/.build/corpus/$target" "Fuzz/Corpus/$target" "Fuzz/Findings/$target" >"$log" 2>&1; then
        echo "FINDING in $target: see $log and Fuzz/Findings/$target/" >&2
        status=1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    echo "$target: ${runs:-?} executions in $((SECONDS - started)) s" >&2
done
exit "$status"
