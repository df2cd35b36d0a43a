#!/usr/bin/env bash
# Compiles the translations (po/LANG.po) into the catalogs unitool reads, with msgfmt's checks:
# the format of every field (`python-brace-format`: a translation keeps each {0}), the header,
# and the plural forms. A catalog that fails a check fails the script.
#
#   ./Scripts/build-catalogs.sh            # into .build/locale/LANG/LC_MESSAGES/unitool.mo, where
#                                          # a unitool built from this tree finds them
#   ./Scripts/build-catalogs.sh DIR        # into DIR/LANG/LC_MESSAGES/unitool.mo (share/locale)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/locale}"
for po in po/*.po; do
    language="$(basename "$po" .po)"
    mkdir -p "$out/$language/LC_MESSAGES"
    msgfmt --check --output-file="$out/$language/LC_MESSAGES/unitool.mo.tmp" "$po"
    mv "$out/$language/LC_MESSAGES/unitool.mo.tmp" "$out/$language/LC_MESSAGES/unitool.mo"
done
