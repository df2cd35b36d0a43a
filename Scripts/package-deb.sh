#!/usr/bin/env bash
# Builds unitool's Debian package: a release binary with the Swift runtime and Foundation linked
# in (it needs no Swift toolchain), stripped, with the bundled recipes, man pages and shell
# completions, depending on Debian's own libraries only.
#
#   ./Scripts/package-deb.sh            # writes build/unitool_<version>_<arch>.deb, prints its path
#   sudo dpkg -i build/unitool_*.deb    # then: unitool --portal demo grades
#
# It is the release build every script makes (the quick start's, install.sh's, bench.sh's); a
# first one takes 8 to 11 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

# --disable-local-rpath: no RUNPATH $ORIGIN in the binaries. In /usr/bin it would have the
# loader look for libraries beside them first, a folder the package does not own.
swift build -c release --static-swift-stdlib --disable-local-rpath --product unitool >&2
bin="$(swift build -c release --static-swift-stdlib --disable-local-rpath --show-bin-path)"
binary="$bin/unitool"
version="$("$binary" --version | head -1 | awk '{print $2}')"
arch="$(dpkg --print-architecture)"

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
# mktemp makes its folder 0700, and the package's root entry ./ would carry that mode.
chmod 0755 "$root"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/unitool" "$root/usr/share/man/man1" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/unitool"
strip -o "$root/usr/bin/unitool" "$binary"
chmod 0755 "$root/usr/bin/unitool"
cp -R Recipes "$root/usr/share/unitool/Recipes"
for page in docs/man/*.1; do gzip -9nc "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done
# The translations: the catalogs (share/locale) and the man pages in each language.
./Scripts/build-catalogs.sh "$root/usr/share/locale"
for po in po/*.po; do
    language="$(basename "$po" .po)"
    install -d "$root/usr/share/man/$language/man1"
    for page in "docs/man/$language"/*.1; do gzip -9nc "$page" > "$root/usr/share/man/$language/man1/$(basename "$page").gz"; done
done
"$root/usr/bin/unitool" completions bash > "$root/usr/share/bash-completion/completions/unitool"
"$root/usr/bin/unitool" completions zsh > "$root/usr/share/zsh/vendor-completions/_unitool"
"$root/usr/bin/unitool" completions fish > "$root/usr/share/fish/vendor_completions.d/unitool.fish"
install -m 0644 README.md SECURITY.md "$root/usr/share/doc/unitool/"
find "$root/usr" -type d -exec chmod 0755 {} +
find "$root/usr/share" -type f -exec chmod 0644 {} +

size="$(du -sk "$root/usr" | cut -f1)"
# libc6 2.36 or later: the binary's relative relocations are packed (DT_RELR, see Package.swift),
# which older loaders cannot read.
cat > "$root/DEBIAN/control" <<CONTROL
Package: unitool
Version: $version
Architecture: $arch
Maintainer: unitool developers <unitool@example.invalid>
Installed-Size: $size
Depends: libc6 (>= 2.36), libgcc-s1, libstdc++6, libxml2, libsecret-1-0, libgcrypt20, libglib2.0-0, libpsl5 | libpsl5t64, libsqlite3-0, libcurl4 | libcurl4t64, zlib1g
Recommends: gnome-keyring
Section: utils
Priority: optional
Homepage: https://github.com/unitool/unitool
Description: your university's web portal from the command line
 unitool logs in through the university's single sign-on (SAML, CAS, Keycloak), reads grades,
 courses, loans and news into tables, JSON or CSV, keeps a history of what changed, exports a
 calendar, and serves the portal to scripts (JSON-RPC) and AI assistants (MCP). Passwords stay
 in the keyring. A bundled demo university needs no account: unitool --portal demo grades
CONTROL

mkdir -p build
out="build/unitool_${version}_${arch}.deb"
# xz at its strongest: the binary is most of the package, and it packs 4 to 1.
dpkg-deb -Zxz -z9 --build --root-owner-group "$root" "$out" >&2
echo "$PWD/$out"
