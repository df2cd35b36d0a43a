#!/usr/bin/env bash
# Builds unitool in release mode and installs it, with its recipes, man pages and shell
# completions, under PREFIX (default: ~/.local).
#
#   ./Scripts/install.sh              # ~/.local/bin/unitool, ~/.local/share/...
#   sudo ./Scripts/install.sh /usr/local
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-$HOME/.local}"

./Scripts/install-deps.sh
swift build -c release --product unitool
# swift-argument-parser's generate-manual plugin reads the command tree from
# 'unitool --experimental-dump-help' and writes one page per command.
swift package plugin generate-manual --multi-page --configuration release >&2

binary="$(swift build -c release --show-bin-path)/unitool"
install -d "$prefix/bin" "$prefix/share/unitool" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$binary" "$prefix/bin/unitool"
rm -rf "$prefix/share/unitool/Recipes"
cp -R Recipes "$prefix/share/unitool/Recipes"
install -m 0644 .build/plugins/GenerateManual/outputs/UniToolCLI/*.1 "$prefix/share/man/man1/"
"$prefix/bin/unitool" completions bash > "$prefix/share/bash-completion/completions/unitool"
"$prefix/bin/unitool" completions zsh > "$prefix/share/zsh/site-functions/_unitool"
"$prefix/bin/unitool" completions fish > "$prefix/share/fish/vendor_completions.d/unitool.fish"

echo "Installed unitool in $prefix/bin, recipes in $prefix/share/unitool/Recipes," >&2
echo "man pages (man unitool) and completions for bash, zsh and fish." >&2
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "Add $prefix/bin to your PATH to run it." >&2 ;;
esac
