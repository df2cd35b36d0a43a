#!/usr/bin/env bash
# Installs the Debian packages unitool needs to build and test, if any is missing.
# Needs root or sudo. Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(libxml2-dev libsecret-1-dev zlib1g-dev libpsl-dev publicsuffix pkg-config gnome-keyring libsecret-tools dbus libxml2-utils python3 python3-venv openssl tmux php-cli php-xml php-mbstring zsh fish man-db libsqlite3-dev libglib2.0-bin python3-dbus python3-gi systemd python3-icalendar python3-recurring-ical-events libcurl4-openssl-dev wrk binutils time)

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
$sudo apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

if ! command -v swift >/dev/null 2>&1; then
    echo "error: the Swift toolchain (6.1 or later) is not on PATH; see https://www.swift.org/install/linux/" >&2
    exit 1
fi
