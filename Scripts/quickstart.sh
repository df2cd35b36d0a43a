#!/usr/bin/env bash
# The README's first command: install what is missing, build, and show the demo university's
# grades for the current term. No account, keyring or password needed.
set -euo pipefail
cd "$(dirname "$0")/.."

./Scripts/install-deps.sh
echo "building unitool (the first build takes a few minutes)..." >&2
swift build -c release --product unitool >&2
bin="$(swift build -c release --show-bin-path)/unitool"

# Step 1, shown on its own: the demo, like every portal, has terms of use, and unitool acts for
# you only under the version you accepted. Read them with: unitool --portal demo terms show
echo >&2
echo "\$ unitool --portal demo terms accept" >&2
"$bin" --portal demo terms accept

# Step 2: the main job.
echo >&2
echo "\$ unitool --portal demo grades --term current" >&2
"$bin" --portal demo grades --term current
echo >&2
echo "unitool is at $bin; try: $bin --help" >&2
