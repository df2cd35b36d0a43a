#!/usr/bin/env bash
# The README's second command: the whole test suite, against the real demo university on
# loopback and a real gnome-keyring inside a private D-Bus session.
#
# The keyring lives in a temporary XDG_DATA_HOME, so no test ever touches your own login keyring.
set -euo pipefail
cd "$(dirname "$0")/.."

./Scripts/install-deps.sh --tests
# One layout (.swift-format): a finding fails the run, as a failing test does.
swift format lint --strict --recursive Sources Tests Package.swift Benchmarks/UniToolBench Fuzz/Sources Fuzz/Package.swift >&2
# The outside JSON-RPC client library of the interop test (pip, into .build/interop-venv).
UNITOOL_INTEROP_PYTHON="$(./Scripts/interop-venv.sh)"
export UNITOOL_INTEROP_PYTHON
# The third-party IdP of the SAML interop tests: SimpleSAMLphp, from Debian's package.
UNITOOL_SSP_ROOT="$(./Scripts/interop-simplesamlphp.sh fetch)"
export UNITOOL_SSP_ROOT
# The CAS server of the recorded-login interop test: django-cas-server and its python-cas portal
# (pip, into .build/djangocas-venv), run from a private folder by Scripts/interop-djangocas.sh.
UNITOOL_DJANGOCAS_PYTHON="$(./Scripts/interop-djangocas.sh fetch)"
export UNITOOL_DJANGOCAS_PYTHON
# The OpenID Connect provider of the OIDC interop tests: django-oidc-provider and its Authlib
# portal (pip, into .build/oidc-venv), run from a private folder by Scripts/interop-oidc.sh.
UNITOOL_OIDC_PYTHON="$(./Scripts/interop-oidc.sh fetch)"
export UNITOOL_OIDC_PYTHON
# The LemonLDAP::NG IdP and the Shibboleth SP of the other SAML interop tests: Debian's packages,
# installed by install-deps.sh, run from a private folder by Scripts/interop-lemonldap.sh.
export UNITOOL_LLNG_INTEROP=1
swift build --build-tests >&2
# The translations, checked by msgfmt and compiled where the built unitool finds them.
./Scripts/build-catalogs.sh

sandbox="$(mktemp -d)"
trap 'rm -rf "$sandbox"' EXIT
mkdir -p "$sandbox/data" "$sandbox/config" "$sandbox/state" "$sandbox/cache" "$sandbox/runtime"
chmod 700 "$sandbox/runtime"

export XDG_DATA_HOME="$sandbox/data" XDG_CONFIG_HOME="$sandbox/config" XDG_STATE_HOME="$sandbox/state"
export XDG_CACHE_HOME="$sandbox/cache" XDG_RUNTIME_DIR="$sandbox/runtime"
export UNITOOL_TEST_SANDBOX="$sandbox"

# gnome-keyring-daemon --unlock reads the new keyring's password from stdin and prints the
# variables that point libsecret at it.
#
# The whole suite runs in three parts: everything but the suites whose peers take both cores
# while they start, then the LemonLDAP::NG interop (a Perl IdP, shibd and Apache) alone, then the
# foreign portals, django-cas-server, the Chromium recordings of the demo and unitool's own
# browser login and recording (Python venvs set up from PyPI, portals, chromium). The timing tests
# beside them would measure those instead of unitool, and the JSON-RPC tests' 30 s answers waited
# behind the browsers.
dbus-run-session -- sh -c '
    eval "$(printf "test-keyring-password" | gnome-keyring-daemon --unlock --components=secrets)"
    export GNOME_KEYRING_CONTROL
    if [ "$#" -gt 0 ]; then
        exec swift test --skip-build "$@"
    fi
    browser="RecordedLoginTests|RecordedActionsTests|RecordedAjaxEndToEndTests|RecordedDayTests|RecordedFailureAndUpdateTests"
    # unitool driving Chromium itself: the driver and the browser login (--record on the foreign
    # portals is part of ForeignRecordingsTests, which starts the same portals).
    browser="$browser|ChromiumTests|BrowserLoginTests"
    swift test --skip-build --skip "LemonLDAPInteropTests|ForeignRecordingsTests|DjangoCASInteropTests|DjangoCASLiveTests|OIDCInteropTests|$browser"
    first=$?
    swift test --skip-build --filter LemonLDAPInteropTests
    second=$?
    swift test --skip-build --filter "ForeignRecordingsTests|DjangoCASInteropTests|DjangoCASLiveTests|OIDCInteropTests|$browser"
    third=$?
    [ "$first" -ne 0 ] && exit "$first"
    [ "$second" -ne 0 ] && exit "$second"
    exit "$third"
' sh "$@"

# The Debian package as a user meets it: the release build with the Swift runtime linked in,
# installed with dpkg and run with no toolchain on the library path (Scripts/test-deb.sh). Only
# for the whole suite, and as root, as CI runs it; a first release build takes 8 to 11 minutes on 2 cores.
if [ "$#" -eq 0 ] && [ "${UNITOOL_SKIP_PACKAGE:-0}" != 1 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "checking the Debian package (a release build first; UNITOOL_SKIP_PACKAGE=1 skips this)" >&2
        ./Scripts/test-deb.sh >&2
    else
        echo "note: the Debian package check (Scripts/test-deb.sh) installs with dpkg, so it runs as root only; skipped" >&2
    fi
fi
