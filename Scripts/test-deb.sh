#!/usr/bin/env bash
# Checks the Debian package as a user would meet it: installs it with dpkg (as root, or with
# sudo), and runs the demo from it with no Swift toolchain on the library path and no source
# tree to fall back on; then removes it again.
set -euo pipefail
cd "$(dirname "$0")/.."
deb="$(./Scripts/package-deb.sh)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo dpkg -i "$deb" >&2
trap '$sudo dpkg -r unitool >/dev/null 2>&1 || true' EXIT

# No Swift runtime from the toolchain: the binary must carry its own.
if ldd /usr/bin/unitool | grep -E 'libswift|libFoundation|/opt/swift' >&2; then
    echo "error: /usr/bin/unitool still links the toolchain's Swift libraries" >&2
    exit 1
fi
# unitool does without libcurl (Foundation's networking): MCP is served by its own JSON-RPC core.
if ldd /usr/bin/unitool | grep -q libcurl; then
    echo "error: /usr/bin/unitool links libcurl" >&2
    exit 1
fi
# libsecret is loaded when the keyring is first needed, not at start (Sources/CLibSecret/secret.c).
if ldd /usr/bin/unitool | grep -E 'libsecret|libglib|libgio' >&2; then
    echo "error: /usr/bin/unitool links libsecret or GLib; it should load them on first use" >&2
    exit 1
fi
home="$(mktemp -d)"
trap 'rm -rf "$home"; $sudo dpkg -r unitool >/dev/null 2>&1 || true' EXIT
# The package's root entry becomes the system's / as dpkg unpacks it: 0755, and nothing in the
# package is writable by group or others. (Listings go to files before grep, as below.)
dpkg-deb -c "$deb" > "$home/contents.txt"
root_entry="$(awk '$6 == "./" { print $1 }' "$home/contents.txt")"
if [ "$root_entry" != "drwxr-xr-x" ]; then
    echo "error: the package's root entry ./ has mode ${root_entry:-(none)}; it must be drwxr-xr-x (0755)" >&2
    exit 1
fi
if awk '$1 !~ /^l/ && substr($1, 6, 1) == "w" || $1 !~ /^l/ && substr($1, 9, 1) == "w" { print }' "$home/contents.txt" \
    > "$home/writable.txt" && [ -s "$home/writable.txt" ]; then
    cat "$home/writable.txt" >&2
    echo "error: the package holds entries writable by group or others" >&2
    exit 1
fi
# No run path that has the loader look for libraries beside the binary ($ORIGIN is /usr/bin),
# nor in a toolchain's folder: the binary loads Debian's libraries only.
readelf -d /usr/bin/unitool > "$home/dynamic.txt"
if grep -E '\((RPATH|RUNPATH)\)' "$home/dynamic.txt" >&2; then
    echo "error: /usr/bin/unitool carries a run path (above); the package's binary must have none" >&2
    exit 1
fi
cd "$home"
run() { env -i HOME="$home" PATH=/usr/bin:/bin LD_LIBRARY_PATH= XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    XDG_STATE_HOME="$home/state" XDG_CACHE_HOME="$home/cache" NO_COLOR=1 /usr/bin/unitool "$@"; }
run --version
run --portal demo terms accept >&2
run --portal demo grades --term current --json > grades.json
grep -q '"MATH-301"' grades.json
# The recipes are the package's, not a source tree's this machine happens to have.
# (Answers go to files before grep: grep -q leaving early would break the writer's pipe, which
# pipefail counts as a failure.)
run recipes list --json > recipes.json
grep -q '"/usr/share/unitool/Recipes/demo/portal.yaml"' recipes.json
man -w unitool >/dev/null
# The translations: the catalogs and the man pages in each language are the package's, and the
# installed binary finds them (LANG alone, no generated locale needed).
for language in ja hu; do
    grep -q "usr/share/locale/$language/LC_MESSAGES/unitool.mo" "$home/contents.txt"
    grep -q "usr/share/man/$language/man1/unitool.1.gz" "$home/contents.txt"
    man -w -L "$language" unitool | grep -q "/usr/share/man/$language/"
    run_in() { env -i HOME="$home" PATH=/usr/bin:/bin LANG="$1" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
        XDG_STATE_HOME="$home/state" XDG_CACHE_HOME="$home/cache" NO_COLOR=1 /usr/bin/unitool --portal demo grades --trem current; }
    status=0
    run_in "$language.UTF-8" 2> "mistake.$language.txt" || status=$?
    [ "$status" = 64 ]
    grep -q -- "--trem" "mistake.$language.txt"
    if grep -q "unknown option" "mistake.$language.txt"; then
        echo "test-deb: LANG=$language.UTF-8 still gives English:" >&2
        cat "mistake.$language.txt" >&2
        exit 1
    fi
done
# 'unitool mcp' answers MCP's initialize, also when its input ends right after the request, as a
# one-shot client's does: every request read is answered before the server exits.
request='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test-deb","version":"1"}}}'
printf '%s\n' "$request" | run --portal demo mcp > mcp.json
grep -q '"serverInfo"' mcp.json
echo "ok: $(basename "$deb") ($(du -h /usr/bin/unitool | cut -f1) binary) installs and runs the demo without a Swift toolchain"
