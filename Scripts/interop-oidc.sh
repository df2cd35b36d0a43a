#!/usr/bin/env bash
# An interop test peer: a real OpenID Connect provider, django-oidc-provider 0.9.0 (PyPI) with
# Django's users and Django's own login view, and a small portal behind it that signs in with
# Authlib's Flask client (PyPI) by the authorization-code flow, as a university puts a portal
# behind its OP. Everything listens on 127.0.0.1 only.
#
#   interop-oidc.sh start DIR OP_PORT PORTAL_PORT [query|form_post]
#                                  write a database into DIR, start the OP (Django's runserver)
#                                  and the portal (Flask, asking for the response mode given,
#                                  query by default), wait until both answer;
#                                  PIDs in DIR/op.pid, DIR/portal.pid
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
#   http://127.0.0.1:PORTAL_PORT/              the portal: its home (a#logout), /grades (a table
#                                              of the user's grades, from grades.json),
#                                              /api/terms (JSON, behind the login), /logout, and
#                                              POST /test/forget-sessions (test only: a new secret
#                                              key, so every portal session ends); the same pages
#                                              under /form-post/, /query/ (that response mode),
#                                              /fresh-login/ (prompt=login), /max-age/ (max_age=0)
#
# The OP knows one client, the portal, with one redirect address (/auth/callback). The Django
# project (settings, URLs, setup) and the portal are in Tests/EndToEndTests/Interop/oidc/.
# Needs python3 and python3-venv (Scripts/install-deps.sh --tests); the Python packages come from
# PyPI into a venv of their own, apart from the interop clients' (Scripts/interop-venv.sh) and
# django-cas-server's: this is a server with its own pins.
set -euo pipefail

project_dir="$(cd "$(dirname "$0")/.." && pwd)"
app_dir="$project_dir/Tests/EndToEndTests/Interop/oidc"
venv="$project_dir/.build/oidc-venv"
python=${UNITOOL_OIDC_PYTHON:-$venv/bin/python}

usage() {
    echo "usage: $0 start DIR OP_PORT PORTAL_PORT [query|form_post] | stop DIR | fetch" >&2
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

op_pid() { running_pid "$1/op.pid" "runserver 127.0.0.1:$(cut -d' ' -f1 "$1/ports" 2>/dev/null || true) "; }
portal_pid() { running_pid "$1/portal.pid" "portal.py $(cut -d' ' -f2 "$1/ports" 2>/dev/null || true) "; }

# The HTTP status of GET PATH on PORT, or nothing.
status_of() {
    local port=$1 path=$2
    (exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
        printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3
        IFS= read -r -t 2 line <&3 && printf '%s' "$line" | cut -d' ' -f2) 2>/dev/null || true
}

# Both answer: the OP's discovery document (200), the portal's home (a redirect to the OP).
answers() {
    [ "$(status_of "$1" /openid/.well-known/openid-configuration)" = 200 ] && [ "$(status_of "$2" /)" = 302 ]
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

start_servers() {
    local dir=$1 op_port=$2 portal_port=$3 mode=$4 pid i
    [ -x "$python" ] && "$python" -c "import oidc_provider, django, authlib, flask, requests" 2>/dev/null \
        || { echo "error: no venv with django-oidc-provider at $python: run $0 fetch" >&2; exit 1; }

    if [ -n "$(op_pid "$dir")" ] && [ -n "$(portal_pid "$dir")" ] && [ "$(cat "$dir/ports")" = "$op_port $portal_port $mode" ] \
        && answers "$op_port" "$portal_port"; then
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
    export UNITOOL_OIDC_DIR=$dir UNITOOL_OIDC_SITE_URL="http://127.0.0.1:$op_port" DJANGO_SETTINGS_MODULE=op_settings \
        PYTHONPATH=$app_dir PYTHONDONTWRITEBYTECODE=1
    "$python" -m django migrate --noinput >"$dir/log/migrate.log" 2>&1 \
        || { echo "error: manage.py migrate failed; $dir/log/migrate.log ends:" >&2; tail -n 5 "$dir/log/migrate.log" >&2; exit 1; }
    "$python" "$app_dir/op_setup.py" "http://127.0.0.1:$portal_port/" "$(cat "$dir/client-secret")" >>"$dir/log/migrate.log" 2>&1 \
        || { echo "error: op_setup.py failed; $dir/log/migrate.log ends:" >&2; tail -n 5 "$dir/log/migrate.log" >&2; exit 1; }

    echo "$op_port $portal_port $mode" > "$dir/ports"
    # runserver --insecure serves the admin's static files (the login page's styles) with DEBUG off.
    "$python" -m django runserver "127.0.0.1:$op_port" --noreload --insecure </dev/null >>"$dir/log/op.log" 2>&1 &
    echo $! > "$dir/op.pid"
    "$python" "$app_dir/portal.py" "$portal_port" "http://127.0.0.1:$op_port/openid" "$(cat "$dir/client-secret")" \
        --response-mode "$mode" </dev/null >>"$dir/log/portal.log" 2>&1 &
    echo $! > "$dir/portal.pid"

    for i in $(seq 1 150); do
        if answers "$op_port" "$portal_port"; then
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
    echo "error: the OP (127.0.0.1:$op_port) and the portal (127.0.0.1:$portal_port) did not answer within 15 s" >&2
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
        [ $# -eq 4 ] || [ $# -eq 5 ] || usage
        for port in "$3" "$4"; do
            [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || { echo "error: bad port: $port" >&2; exit 2; }
        done
        mode=${5:-query}
        [ "$mode" = query ] || [ "$mode" = form_post ] || { echo "error: bad response mode: $mode (query or form_post)" >&2; exit 2; }
        (umask 077; mkdir -p "$dir")
        dir=$(cd "$dir" && pwd -P)
        start_servers "$dir" "$3" "$4" "$mode"
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
