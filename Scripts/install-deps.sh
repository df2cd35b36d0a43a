#!/usr/bin/env bash
# Installs the Debian packages unitool needs to build and run, if any is missing; with --tests,
# also those its test suite needs. Needs root or sudo. Safe to run again: it installs only what
# is missing.
#
#   ./Scripts/install-deps.sh           # the quick start and install.sh
#   ./Scripts/install-deps.sh --tests   # Scripts/test.sh
#   ./Scripts/install-deps.sh [--tests] --list   # print the packages, install nothing
set -euo pipefail

# What building and running unitool needs: the libraries it links (libxml2, libsecret, libgcrypt, zlib,
# libpsl, SQLite), the keyring it keeps passwords in,
# gdbus for desktop notifications, strip for install.sh, man for the man pages.
packages=(libxml2-dev libsecret-1-dev libgcrypt20-dev zlib1g-dev libpsl-dev publicsuffix pkg-config libsqlite3-dev libcurl4-openssl-dev
    gnome-keyring libsecret-tools dbus libglib2.0-bin binutils man-db
    # gettext: msgfmt compiles the translations (po/) into the catalogs unitool reads.
    gettext)

# With --tests (Scripts/test.sh, bench.sh, fuzz.sh): the peers the tests run unitool against.
if [ "${1:-}" = "--tests" ]; then
    packages+=(libxml2-utils python3 python3-venv openssl tmux php-cli php-xml php-mbstring zsh fish python3-dbus python3-gi
        # locales: localedef and the sources of ja_JP, hu_HU and de_DE, for the tests of dates in a person's locale.
        locales
        # khal: the calendar app the docs' iCalendar steps are tested with.
        systemd python3-icalendar python3-recurring-ical-events wrk time khal
        # The LemonLDAP::NG + Shibboleth SP interop peer (Scripts/interop-lemonldap.sh says what each is for).
        liblemonldap-ng-portal-perl lemonldap-ng-fastcgi-server liblasso-perl libconvert-base32-perl
        libdigest-hmac-perl libxml-simple-perl libio-string-perl libgd-securityimage-perl libimage-magick-perl
        starman apache2-bin libapache2-mod-shib oathtool curl
        # LemonLDAP::NG's OpenID Connect issuer, the form_post OP of Scripts/interop-oidc.sh.
        libstring-random-perl
        # LemonLDAP::NG's WebAuthn second factor (interop-lemonldap.sh's webauthn variant).
        libauthen-webauthn-perl
        # The browser that records logins for the tests of 'recipes new --from-har' (driven by
        # Playwright from PyPI, Scripts/interop-venv.sh; never 'playwright install'), and that
        # unitool itself drives in the tests of 'auth login --browser' and 'recipes new --record';
        # iproute2's ss shows that it opens no port; xvfb gives the default, headed, browser a
        # display of its own.
        chromium iproute2 xvfb
        # The foreign portals of the recordings' test (../shared/foreign, Scripts/foreign-portals.sh):
        # each makes a venv of its own (python3-venv); saml-peer runs Debian's SimpleSAMLphp under
        # php -S and signs with xmlsec1 (php-cli, php-xml, php-mbstring and openssl are above).
        simplesamlphp xmlsec1)
fi

# --list: print the packages this would make sure of, and install nothing.
if [ "${1:-}" = "--list" ] || [ "${2:-}" = "--list" ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "error: these packages are missing and you are not root: ${missing[*]}" >&2
        echo "hint: install them as root: apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi
# Installing shibd, LLNG's FastCGI server and the like must not start them as services (nothing here
# uses them: the interop peers run their own copies from a private folder). A policy-rc.d that
# answers 101 keeps invoke-rc.d from starting them; one that was there already is left as it was.
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# Written by unitool'"'"'s Scripts/install-deps.sh for its apt-get install; removed after.\nexit 101\n' \
        | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    made_policy=yes
    trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
if [ -n "$made_policy" ]; then
    $sudo rm -f "$policy"
    trap - EXIT
fi
# Nor start them at the next boot.
if command -v systemctl >/dev/null 2>&1; then
    for unit in shibd.service lemonldap-ng-fastcgi-server.service; do
        if [ -e "/lib/systemd/system/$unit" ]; then
            $sudo systemctl disable --quiet "$unit" >/dev/null 2>&1 || true
        fi
    done
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "error: the Swift toolchain (6.1 or later) is not on PATH; see https://www.swift.org/install/linux/" >&2
    exit 1
fi
