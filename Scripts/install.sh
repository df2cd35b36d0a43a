#!/usr/bin/env bash
# Installs unitool (building it in release mode if no release build exists), with its recipes, man pages and shell
# completions, under PREFIX (default: ~/.local).
#
#   ./Scripts/install.sh              # ~/.local/bin/unitool, ~/.local/share/...
#   sudo ./Scripts/install.sh /usr/local
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-$HOME/.local}"

# The release build (the quick start's, if there is one) is brought up to date: the Swift
# runtime linked in, as in the .deb, so the installed binaries need no toolchain. A first build
# takes about 8 minutes on 2 cores. unitool-mcp is the MCP server that 'unitool mcp' runs.
./Scripts/install-deps.sh
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)"
for product in unitool unitool-mcp; do
    swift build -c release --static-swift-stdlib --product "$product" >&2
done
binary="$bin/unitool"

install -d "$prefix/bin" "$prefix/share/unitool" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
# Stripped: the symbols are for debugging a build, not for running it (a third of the size).
for product in unitool unitool-mcp; do
    strip -o "$prefix/bin/$product.new" "$bin/$product"
    chmod 0755 "$prefix/bin/$product.new"
    mv -f "$prefix/bin/$product.new" "$prefix/bin/$product"
done
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
