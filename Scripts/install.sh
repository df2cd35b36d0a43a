#!/usr/bin/env bash
# Installs unitool (building it in release mode if no release build exists), with its recipes, man pages and shell
# completions, under PREFIX (default: ~/.local).
#
#   ./Scripts/install.sh              # ~/.local/bin/unitool, ~/.local/share/...
#   sudo ./Scripts/install.sh /usr/local
#
# UNITOOL_INSTALL_BINARIES=DIR installs the unitool already built in DIR instead
# of building a release (the test suite installs its debug build that way).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-$HOME/.local}"

if [ -n "${UNITOOL_INSTALL_BINARIES:-}" ]; then
    bin="$UNITOOL_INSTALL_BINARIES"
else
    # The release build (the quick start's, if there is one) is brought up to date: the Swift
    # runtime linked in, as in the .deb, so the installed binaries need no toolchain, and no
    # $ORIGIN run path (--disable-local-rpath), so they load no library from beside themselves.
    # A first build takes 8 to 11 minutes on 2 cores.
    ./Scripts/install-deps.sh
    bin="$(swift build -c release --static-swift-stdlib --disable-local-rpath --show-bin-path)"
    swift build -c release --static-swift-stdlib --disable-local-rpath --product unitool >&2
fi

install -d "$prefix/bin" "$prefix/share/unitool" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
# Under ~/.local, share/unitool is also unitool's data folder ($XDG_DATA_HOME/unitool), where the
# history of your grades and loans lives: it is yours alone (0700, as SECURITY.md says), also
# when an earlier install left it open. Anywhere else (/usr/local) others must read the recipes.
data_folder="${XDG_DATA_HOME:-$HOME/.local/share}/unitool"
if [ "$(realpath -m "$prefix/share/unitool")" = "$(realpath -m "$data_folder")" ]; then
    chmod 0700 "$prefix/share/unitool"
fi
# Stripped: the symbols are for debugging a build, not for running it (a third of the size).
strip -o "$prefix/bin/unitool.new" "$bin/unitool"
chmod 0755 "$prefix/bin/unitool.new"
mv -f "$prefix/bin/unitool.new" "$prefix/bin/unitool"
# unitool mcp is a command of unitool now: a server binary an earlier install left is removed.
rm -f "$prefix/bin/unitool-mcp"
rm -rf "$prefix/share/unitool/Recipes"
cp -R Recipes "$prefix/share/unitool/Recipes"
# The man pages are committed (docs/man/, kept current by the test suite).
install -m 0644 docs/man/*.1 "$prefix/share/man/man1/"
# The translations: catalogs under share/locale, and the man pages in each language.
./Scripts/build-catalogs.sh "$prefix/share/locale"
for po in po/*.po; do
    language="$(basename "$po" .po)"
    install -d "$prefix/share/man/$language/man1"
    install -m 0644 "docs/man/$language"/*.1 "$prefix/share/man/$language/man1/"
done
"$prefix/bin/unitool" completions bash > "$prefix/share/bash-completion/completions/unitool"
"$prefix/bin/unitool" completions zsh > "$prefix/share/zsh/site-functions/_unitool"
"$prefix/bin/unitool" completions fish > "$prefix/share/fish/vendor_completions.d/unitool.fish"

echo "Installed unitool in $prefix/bin, recipes in $prefix/share/unitool/Recipes," >&2
echo "man pages (man unitool) and completions for bash, zsh and fish." >&2
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "Add $prefix/bin to your PATH to run it." >&2 ;;
esac
