#!/usr/bin/env bash
# The README's first command: install what is missing (only what running unitool needs; the test
# suite installs its own tools), build, install into ~/.local, and show the demo university's
# grades for the current term. No account, keyring or password needed.
#
# It says what it is doing in a line or two, and keeps the long output of apt and the compiler
# in a log file that it names, so that the last screen is the result.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir="${XDG_STATE_HOME:-$HOME/.local/state}/unitool"
mkdir -p "$log_dir"
log="$log_dir/quickstart.log"
: > "$log"

# Runs a step with its output in the log; on failure, shows the log's end and where the rest is.
step() {
    local title="$1"
    shift
    printf '%s... ' "$title" >&2
    local started=$SECONDS
    if "$@" >>"$log" 2>&1; then
        printf 'done (%ds)\n' $((SECONDS - started)) >&2
    else
        local status=$?
        printf 'failed\n\n' >&2
        tail -n 30 "$log" >&2
        printf '\nquickstart: error: %s failed (exit %d)\n  hint: the whole output is in %s\n' "$title" "$status" "$log" >&2
        exit "$status"
    fi
}

step "checking and installing system packages" ./Scripts/install-deps.sh
# Release builds link the Swift runtime statically (the binary runs without the toolchain, and
# starts faster), with the flags install.sh and the .deb use, so that they share this build.
flags=(-c release --static-swift-stdlib --disable-local-rpath)
bin="$(swift build "${flags[@]}" --show-bin-path 2>>"$log")"
if [ -x "$bin/unitool" ]; then
    step "updating the build" swift build "${flags[@]}" --product unitool
else
    step "building unitool (8 to 11 minutes on 2 cores)" swift build "${flags[@]}" --product unitool
fi
# Installed under ~/.local as install.sh does it (the binaries, recipes, man pages, completions),
# so that every example in the README runs as written, and 'watch install' names this path.
prefix="$HOME/.local"
step "installing into $prefix/bin" env UNITOOL_INSTALL_BINARIES="$bin" ./Scripts/install.sh "$prefix"
echo "the full output of these steps is in $log" >&2
unitool="$prefix/bin/unitool"

# Step 1, shown on its own: the demo, like every portal, has terms of use, and unitool acts for
# you only under the version you accepted. Read them with: unitool --portal demo terms show
echo >&2
echo "\$ unitool --portal demo terms accept" >&2
"$unitool" --portal demo terms accept

# Step 2: the main job.
echo >&2
echo "\$ unitool --portal demo grades --term current" >&2
"$unitool" --portal demo grades --term current
echo >&2
case ":$PATH:" in
*":$prefix/bin:"*)
    echo "unitool is installed in $prefix/bin; try: unitool --help, or man unitool" >&2
    ;;
*)
    echo "unitool is installed in $prefix/bin, which is not on your PATH yet. Add it, for this shell and the next:" >&2
    echo "  export PATH=\"$prefix/bin:\$PATH\"" >&2
    echo "  echo 'export PATH=\"\$HOME/.local/bin:\$PATH\"' >> ~/.profile" >&2
    echo "then try: unitool --help, or man unitool" >&2
    ;;
esac
