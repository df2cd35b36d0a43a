#!/usr/bin/env bash
# Writes the man pages under docs/man/ from the built-in commands' help. Run it after changing
# a command's help; a test fails until the committed pages match.
#
#   ./Scripts/update-man.sh            # uses the debug build, building it if needed
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product unitool >&2
binary="$(swift build --show-bin-path)/unitool"
# An empty home: only the bundled recipes appear in the pages, never the reader's own.
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
rm -f docs/man/*.1
env -i PATH="$PATH" HOME="$home" "$binary" __man docs/man
echo "wrote $(ls docs/man/*.1 | wc -l) pages in docs/man/" >&2
# The same pages in each language unitool is translated to, from the same catalogs
# (docs/man/LANG/, installed under share/man/LANG/man1).
catalogs="$home/locale"
./Scripts/build-catalogs.sh "$catalogs"
for po in po/*.po; do
    language="$(basename "$po" .po)"
    mkdir -p "docs/man/$language"
    rm -f "docs/man/$language"/*.1
    env -i PATH="$PATH" HOME="$home" LANG="$language.UTF-8" UNITOOL_LOCALEDIR="$catalogs" "$binary" __man "docs/man/$language"
    echo "wrote $(ls "docs/man/$language"/*.1 | wc -l) pages in docs/man/$language/" >&2
done
