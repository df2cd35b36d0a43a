#!/usr/bin/env bash
# Measures unitool against its peers (lxml, BeautifulSoup, requests, xmllint, wrk) side by side and writes
# BENCHMARKS.md. Builds in release mode and installs the Python peers into .build/bench-venv.
#
#   ./Scripts/bench.sh           # the full run
#   ./Scripts/bench.sh --quick   # fewer runs, for a smoke test
set -euo pipefail
cd "$(dirname "$0")/.."

./Scripts/install-deps.sh --tests
# The release build as it is installed: the Swift runtime linked in (as quickstart.sh,
# install.sh and package-deb.sh build it).
for product in unitool bench-unitool; do
    swift build -c release --static-swift-stdlib --product "$product" >&2
done
# The linker's order of the functions commands run (Linker/README.md) drifts as the code changes,
# and a stale one costs a watch megabytes: written anew from these builds, then linked again.
if command -v valgrind >/dev/null; then
    ./Scripts/hot-functions.py
    for product in unitool bench-unitool; do
        swift build -c release --static-swift-stdlib --product "$product" >&2
    done
else
    echo "bench: valgrind is missing (apt install valgrind), so Linker/hot-functions.order is not written anew" >&2
fi
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"

venv=.build/bench-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || { echo "error: python3 -m venv failed; install python3-venv" >&2; exit 1; }
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check lxml beautifulsoup4 requests >&2

# The Debian package as it is shipped, for its size (the same release build, relinked without
# a local rpath).
deb="$(./Scripts/package-deb.sh)"

exec python3 Benchmarks/run.py --unitool "$bin/unitool" --bench "$bin/bench-unitool" --python "$venv/bin/python" --deb "$deb" "$@"
