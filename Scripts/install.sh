#!/usr/bin/env bash
# Installs unitool (building it in release mode if no release build exists), with its recipes, man pages and shell
# completions, under PREFIX (default: ~/.local).
#
#   ./Scripts/install.sh              # ~/.local/bin/unitool, ~/.local/share/...
#   sudo ./Scripts/install.sh /usr/local
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-$HOME/.local}"

# An existing release build (the quick start's) is installed as it is; only without one is
# unitool built, which takes about 8 minutes on 2 cores.
binary="$(swift build -c release --show-bin-path)/unitool"
if [ ! -x "$binary" ]; then
    ./Scripts/install-deps.sh
    echo "building unitool (release; about 8 minutes on 2 cores)..." >&2
    swift build -c release --product unitool
fi

install -d "$prefix/bin" "$prefix/share/unitool" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$binary" "$prefix/bin/unitool"
rm -rf "$prefix/share/unitool/Recipes"
cp -R Recipes "$prefix/share/unitool/Recipes"
# The man pages are committed (docs/man/, kept current by the test suite).
install -m 0644 docs/man/*.1 "$prefix/share/man/man1/"
"$prefix/bin/unitool" completions bash > "$prefix/share/bash-completion/completions/unitool"
"$prefix/bin/unitool" completions zsh > "$prefix/share/zsh/site-functions/_unitool"
"$prefix/bin/unitool" completions fish > "$prefix/share/fish/vendor_completions.d/unitool.fish"

echo "Installed unitool in $prefix/bin, recipes in $prefix/share/unitool/Recipes," >&2
echo "man pages (man unitool) and completions for bash, zsh and fish." >&2
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "Add $prefix/bin to your PATH to run it." >&2 ;;
esac
