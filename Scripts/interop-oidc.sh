#!/usr/bin/env bash
# An interop test peer: a real OpenID Connect provider, django-oidc-provider 0.9.0 (PyPI) with
# Django's users and Django's own login view, and a small portal behind it that signs in with
# Authlib's Flask client (PyPI) by the authorization-code flow, as a university puts a portal
# behind its OP. Everything listens on 127.0.0.1 only.
#
#   interop-oidc.sh start DIR OP_PORT PORTAL_PORT [query|form_post [django|lemonldap]]
#                                  write a database into DIR, start the OP (Django's runserver)
#                                  and the portal (Flask, asking for the response mode given,
#                                  query by default), wait until both answer;
#                                  PIDs in DIR/op.pid, DIR/portal.pid. With `lemonldap`, the OP
#                                  is LemonLDAP::NG 2.16's OpenID Connect issuer instead (Debian's
#                                  packages, as Scripts/interop-lemonldap.sh runs them, under
#                                  Starman): django-oidc-provider 0.9.0 does not read
#                                  response_mode, LemonLDAP::NG answers form_post as asked
#   interop-oidc.sh stop DIR       stop what was started in DIR
#   interop-oidc.sh fetch          make the venv (.build/oidc-venv) if need be; print its python
#
# All are safe to run again: start on a DIR already running on the same ports (and mode) does
# nothing. Nothing outside DIR (and .build for the venv) is written.
#
#   http://127.0.0.1:OP_PORT/openid/           django-oidc-provider: .well-known/openid-
#                                              configuration, authorize, token, userinfo, jwks;
#                                              its login page is Django's LoginView at
#                                              /accounts/login/ with the admin's login template;
#                                              users jdoe/oidc-pass-2026, mlee/other-pass-2026
#   http://127.0.0.1:OP_PORT/                  with `lemonldap`: LemonLDAP::NG's portal (its own
#                                              bootstrap login page), its OIDC issuer under
#                                              /oauth2/ (.well-known/openid-configuration at the
#                                              root); its Demo users dwho/dwho, msmith/msmith
#   http://127.0.0.1:PORTAL_PORT/              the portal: its home (a#logout), /grades (a table
#                                              of the user's grades, from grades.json),
#                                              /api/terms (JSON, behind the login), /logout, and
#                                              POST /test/forget-sessions (test only: a new secret
#                                              key, so every portal session ends); the same pages
#                                              under /form-post/, /query/ (that response mode),
#                                              /fresh-login/ (prompt=login), /max-age/ (max_age=3600)
#
# The OP knows one client, the portal, with one redirect address (/auth/callback). The Django
# project (settings, URLs, setup) and the portal are in Tests/EndToEndTests/Interop/oidc/.
# Needs python3 and python3-venv (Scripts/install-deps.sh --tests); the Python packages come from
# PyPI into a venv of their own, apart from the interop clients' (Scripts/interop-venv.sh) and
# django-cas-server's: this is a server with its own pins. The `lemonldap` OP needs Debian's
# liblemonldap-ng-portal-perl, starman and libstring-random-perl (install-deps.sh --tests too).
set -euo pipefail

project_dir="$(cd "$(dirname "$0")/.." && pwd)"
app_dir="$project_dir/Tests/EndToEndTests/Interop/oidc"
venv="$project_dir/.build/oidc-venv"
python=${UNITOOL_OIDC_PYTHON:-$venv/bin/python}

usage() {
    echo "usage: $0 start DIR OP_PORT PORTAL_PORT [query|form_post [django|lemonldap]] | stop DIR | fetch" >&2
    exit 2
}

pip_install() {
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2
}

# Makes the venv with the pinned packages, unless they are there; prints its python.
fetch() {
    if [ ! -x "$venv/bin/python" ]; then
        mkdir -p "$project_dir/.build"
        python3 -m venv "$venv" >&2 || { echo "error: python3 -m venv failed; install python3-venv (Scripts/install-deps.sh)" >&2; exit 1; }
    fi
    if ! "$venv/bin/python" -c "import oidc_provider, django, authlib, flask, requests" 2>/dev/null; then
        pip_install "django-oidc-provider==0.9.0" "Django==5.2.19" "Authlib==1.9.10" "Flask==3.1.3" "requests==2.32.5"
    fi
    echo "$venv/bin/python"
}

# The PID in FILE if that process still runs a command line containing PATTERN.
running_pid() {
    local file=$1 pattern=$2 pid
    [ -f "$file" ] || return 0
    pid=$(tr -dc '0-9' < "$file")
    [ -n "$pid" ] || return 0
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$pattern"; then
        echo "$pid"
    fi
}

op_pid() {
    local port
    port=$(cut -d' ' -f1 "$1/ports" 2>/dev/null || true)
    if [ "$(cut -d' ' -f4 "$1/ports" 2>/dev/null || true)" = lemonldap ]; then
        running_pid "$1/op.pid" "starman master --listen 127.0.0.1:$port "
    else
        running_pid "$1/op.pid" "runserver 127.0.0.1:$port "
    fi
}
portal_pid() { running_pid "$1/portal.pid" "portal.py $(cut -d' ' -f2 "$1/ports" 2>/dev/null || true) "; }

# The HTTP status of GET PATH on PORT, or nothing.
status_of() {
    local port=$1 path=$2
    (exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
        printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3
        IFS= read -r -t 2 line <&3 && printf '%s' "$line" | cut -d' ' -f2) 2>/dev/null || true
}

# The OP's issuer path (its discovery document is under it).
issuer_path() {
    if [ "$1" = lemonldap ]; then echo ""; else echo /openid; fi
}

# Both answer: the OP's discovery document (200), the portal's home (a redirect to the OP).
answers() {
    [ "$(status_of "$1" "$(issuer_path "$3")/.well-known/openid-configuration")" = 200 ] && [ "$(status_of "$2" /)" = 302 ]
}

stop_one() {
    local pid=$1 i
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
}

stop_servers() {
    local dir=$1
    stop_one "$(portal_pid "$dir")"
    stop_one "$(op_pid "$dir")"
    rm -f "$dir/op.pid" "$dir/portal.pid" "$dir/ports"
}

# A PEM file's body as one JSON string (newlines escaped).
json_pem() {
    awk 'BEGIN { printf "\"" } { printf "%s\\n", $0 } END { printf "\"" }' "$1"
}

# LemonLDAP::NG's OpenID Connect issuer: its configuration in DIR/llng (the File backend, read
# through LLNG_DEFAULTCONFFILE, never /etc/lemonldap-ng), a signing key pair made once per DIR,
# the portal as its one relying party (consent bypassed, as for a university's own portal), the
# Demo users; then LLNG's portal under Starman, as Scripts/interop-lemonldap.sh runs it (its
# idp.psgi).
start_lemonldap() {
    local dir=$1 op_port=$2 portal_port=$3
    local llng=$dir/llng f
    for f in /usr/share/perl5/Lemonldap/NG/Portal/Main.pm /usr/bin/starman /usr/share/perl5/String/Random.pm; do
        [ -e "$f" ] || { echo "error: $f is missing (Scripts/install-deps.sh: liblemonldap-ng-portal-perl starman libstring-random-perl)" >&2; exit 1; }
    done
    rm -rf "$llng/conf" "$llng/sessions" "$llng/psessions" "$llng/cache"
    mkdir -p "$llng/conf" "$llng/sessions/lock" "$llng/psessions/lock" "$llng/cache"
    if [ ! -s "$llng/oidc.key" ]; then
        (umask 077; openssl genrsa -out "$llng/oidc.key" 2048 2>/dev/null)
        openssl rsa -in "$llng/oidc.key" -pubout -out "$llng/oidc.pub" 2>/dev/null
    fi
    cat > "$llng/lemonldap-ng.ini" <<EOF
; LemonLDAP::NG as the OpenID Connect provider of the unitool interop peer (interop-oidc.sh).
; Read through LLNG_DEFAULTCONFFILE; every path is in this folder.
[all]
logLevel = notice
checkTime = 1

[configuration]
type = File
dirName = $llng/conf
prettyPrint = 1
localStorage = Cache::FileCache
localStorageOptions = { 'namespace' => 'lemonldap-ng-config', 'default_expires_in' => 600, 'directory_umask' => 077, 'cache_root' => '$llng/cache', 'cache_depth' => 3 }

[portal]
staticPrefix = /static
templateDir = /usr/share/lemonldap-ng/portal/templates
languages = en, fr

[handler]
status = 0
EOF
    local op="http://127.0.0.1:$op_port" portal="http://127.0.0.1:$portal_port"
    (umask 077
    cat > "$llng/conf/lmConf-1.json" <<EOF
{
  "cfgNum": 1,
  "cfgAuthor": "interop-oidc.sh",
  "cfgDate": "$(date +%s)",
  "cfgVersion": "2.16.1",
  "cfgLog": "unitool OIDC interop peer",

  "portal": "$op/",
  "domain": "127.0.0.1",
  "cookieName": "lemonldap",
  "securedCookie": 0,
  "httpOnly": 1,
  "sameSite": "Lax",
  "timeout": 72000,
  "trustedDomains": "127.0.0.1",

  "authentication": "Demo",
  "userDB": "Same",
  "passwordDB": "Demo",
  "registerDB": "Null",
  "demoExportedVars": { "cn": "cn", "mail": "mail", "uid": "uid" },
  "exportedVars": {},
  "macros": { "_whatToTrace": "lc(\$_user)" },
  "whatToTrace": "_whatToTrace",
  "groups": {},

  "globalStorage": "Apache::Session::File",
  "globalStorageOptions": {
    "Directory": "$llng/sessions",
    "LockDirectory": "$llng/sessions/lock",
    "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256"
  },
  "persistentStorage": "Apache::Session::File",
  "persistentStorageOptions": { "Directory": "$llng/psessions", "LockDirectory": "$llng/psessions/lock" },
  "localSessionStorage": "Cache::FileCache",
  "localSessionStorageOptions": {
    "cache_depth": 3, "cache_root": "$llng/cache", "default_expires_in": 600, "directory_umask": 63,
    "namespace": "lemonldap-ng-sessions"
  },

  "portalSkin": "bootstrap",
  "portalDisplayRegister": 0,
  "portalDisplayResetPassword": 0,
  "notification": 0,
  "loginHistoryEnabled": 0,
  "locationRules": { "127.0.0.1": { "default": "accept" } },
  "applicationList": {},

  "issuerDBOpenIDConnectActivation": 1,
  "issuerDBOpenIDConnectPath": "^/oauth2/",
  "issuerDBOpenIDConnectRule": 1,
  "oidcServiceMetaDataIssuer": "$op",
  "oidcServicePrivateKeySig": $(json_pem "$llng/oidc.key"),
  "oidcServicePublicKeySig": $(json_pem "$llng/oidc.pub"),
  "oidcServiceKeyIdSig": "interop",
  "oidcServiceAllowAuthorizationCodeFlow": 1,
  "oidcRPMetaDataExportedVars": { "portal": { "name": "cn", "email": "mail", "preferred_username": "uid" } },
  "oidcRPMetaDataOptions": {
    "portal": {
      "oidcRPMetaDataOptionsDisplayName": "Campus Portal",
      "oidcRPMetaDataOptionsClientID": "portal",
      "oidcRPMetaDataOptionsClientSecret": "$(cat "$dir/client-secret")",
      "oidcRPMetaDataOptionsPublic": 0,
      "oidcRPMetaDataOptionsRedirectUris": "$portal/auth/callback",
      "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256",
      "oidcRPMetaDataOptionsBypassConsent": 1,
      "oidcRPMetaDataOptionsIDTokenExpiration": 3600,
      "oidcRPMetaDataOptionsAccessTokenExpiration": 3600
    }
  }
}
EOF
    )
    LLNG_DEFAULTCONFFILE="$llng/lemonldap-ng.ini" \
        starman --listen "127.0.0.1:$op_port" --workers 2 --preload-app \
        "$project_dir/Tests/EndToEndTests/Interop/lemonldap/idp.psgi" </dev/null >>"$dir/log/op.log" 2>&1 &
    echo $! > "$dir/op.pid"
}

start_servers() {
    local dir=$1 op_port=$2 portal_port=$3 mode=$4 op=$5 pid i
    [ -x "$python" ] && "$python" -c "import oidc_provider, django, authlib, flask, requests" 2>/dev/null \
        || { echo "error: no venv with django-oidc-provider at $python: run $0 fetch" >&2; exit 1; }

    if [ -n "$(op_pid "$dir")" ] && [ -n "$(portal_pid "$dir")" ] && [ "$(cat "$dir/ports")" = "$op_port $portal_port $mode $op" ] \
        && answers "$op_port" "$portal_port" "$op"; then
        exit 0 # already running here
    fi
    stop_servers "$dir"
    for port in "$op_port" "$portal_port"; do
        if [ -n "$(status_of "$port" /)" ]; then
            echo "error: something else already answers on 127.0.0.1:$port" >&2
            exit 1
        fi
    done

    # A new database each start (no session, no code left over); a new secret key and client
    # secret.
    mkdir -p "$dir/log"
    rm -f "$dir/op.sqlite3"
    (umask 077
        "$python" -c "import secrets; print(secrets.token_urlsafe(50))" > "$dir/secret-key"
        "$python" -c "import secrets; print(secrets.token_urlsafe(32))" > "$dir/client-secret")
    echo "$op_port $portal_port $mode $op" > "$dir/ports"
    if [ "$op" = lemonldap ]; then
        start_lemonldap "$dir" "$op_port" "$portal_port"
    else
        export UNITOOL_OIDC_DIR=$dir UNITOOL_OIDC_SITE_URL="http://127.0.0.1:$op_port" DJANGO_SETTINGS_MODULE=op_settings \
            PYTHONPATH=$app_dir PYTHONDONTWRITEBYTECODE=1
        "$python" -m django migrate --noinput >"$dir/log/migrate.log" 2>&1 \
            || { echo "error: manage.py migrate failed; $dir/log/migrate.log ends:" >&2; tail -n 5 "$dir/log/migrate.log" >&2; exit 1; }
        "$python" "$app_dir/op_setup.py" "http://127.0.0.1:$portal_port/" "$(cat "$dir/client-secret")" >>"$dir/log/migrate.log" 2>&1 \
            || { echo "error: op_setup.py failed; $dir/log/migrate.log ends:" >&2; tail -n 5 "$dir/log/migrate.log" >&2; exit 1; }
        # runserver --insecure serves the admin's static files (the login page's styles) with DEBUG off.
        "$python" -m django runserver "127.0.0.1:$op_port" --noreload --insecure </dev/null >>"$dir/log/op.log" 2>&1 &
        echo $! > "$dir/op.pid"
    fi
    "$python" "$app_dir/portal.py" "$portal_port" "http://127.0.0.1:$op_port$(issuer_path "$op")" "$(cat "$dir/client-secret")" \
        --response-mode "$mode" </dev/null >>"$dir/log/portal.log" 2>&1 &
    echo $! > "$dir/portal.pid"

    # 60 s: LemonLDAP::NG's Starman preloads its whole application, and the third pass of
    # Scripts/test.sh runs it beside chromium on a machine of two cores.
    for i in $(seq 1 600); do
        if answers "$op_port" "$portal_port" "$op"; then
            exit 0
        fi
        for which in op portal; do
            pid=$(tr -dc '0-9' < "$dir/$which.pid")
            if ! kill -0 "$pid" 2>/dev/null; then
                echo "error: the $which server exited; its log ($dir/log/$which.log) ends:" >&2
                tail -n 5 "$dir/log/$which.log" >&2
                stop_servers "$dir"
                exit 1
            fi
        done
        sleep 0.1
    done
    echo "error: the OP (127.0.0.1:$op_port) and the portal (127.0.0.1:$portal_port) did not answer within 60 s" >&2
    stop_servers "$dir"
    exit 1
}

if [ "${1:-}" = fetch ]; then
    fetch
    exit 0
fi
[ $# -ge 2 ] || usage
command=$1
dir=$2
case "$command" in
    start)
        [ $# -ge 4 ] && [ $# -le 6 ] || usage
        for port in "$3" "$4"; do
            [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || { echo "error: bad port: $port" >&2; exit 2; }
        done
        mode=${5:-query}
        [ "$mode" = query ] || [ "$mode" = form_post ] || { echo "error: bad response mode: $mode (query or form_post)" >&2; exit 2; }
        op=${6:-django}
        [ "$op" = django ] || [ "$op" = lemonldap ] || { echo "error: bad OP: $op (django or lemonldap)" >&2; exit 2; }
        (umask 077; mkdir -p "$dir")
        dir=$(cd "$dir" && pwd -P)
        start_servers "$dir" "$3" "$4" "$mode" "$op"
        ;;
    stop)
        [ $# -eq 2 ] || usage
        [ -d "$dir" ] || exit 0
        dir=$(cd "$dir" && pwd -P)
        stop_servers "$dir"
        ;;
    *)
        usage
        ;;
esac
