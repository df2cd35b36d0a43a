#!/usr/bin/env bash
# An interop test peer: a real CAS server, django-cas-server 3.1.0 (PyPI) with its own templates
# and Django's users, and a small portal behind it that signs in with python-cas (PyPI, CASClient),
# as a university puts a portal behind its CAS. Everything listens on 127.0.0.1 only.
#
#   interop-djangocas.sh start DIR CAS_PORT PORTAL_PORT
#                                  write a database into DIR, start the CAS server (Django's
#                                  runserver) and the portal (Flask), wait until both answer;
#                                  PIDs in DIR/cas.pid, DIR/portal.pid
#   interop-djangocas.sh stop DIR  stop what was started in DIR
#   interop-djangocas.sh fetch     make the venv (.build/djangocas-venv) if need be; print its python
#
# All are safe to run again: start on a DIR already running on the same ports does nothing.
# Nothing outside DIR (and .build for the venv) is written.
#
#   http://127.0.0.1:CAS_PORT/cas/login        django-cas-server's login page (CAS protocol 3:
#                                              /cas/login?service=, /cas/p3/serviceValidate,
#                                              /cas/logout); users jdoe/cas-pass-2026,
#                                              mlee/other-pass-2026
#   http://127.0.0.1:PORTAL_PORT/              the portal: its home (a#logout), /grades (a table
#                                              of the user's grades, from grades.json), /loans
#                                              (loans.json, a renew form per row), /logout, and
#                                              POST /test/forget-sessions (it forgets its sessions)
#
# The CAS server lets tickets go to the portal's addresses only, all but /unregistered/…, which
# stand for a service nobody registered, and /staff/… to mlee alone (cas_setup.py). The
# Django project (settings, URLs, setup) and the portal are in Tests/EndToEndTests/Interop/djangocas/.
# Needs python3 and python3-venv (Scripts/install-deps.sh --tests); the Python packages come from
# PyPI into a venv of their own, apart from the interop clients' (Scripts/interop-venv.sh): this
# is a server with its own pins (Django 5.2, which django-cas-server 3.1.0 supports).
set -euo pipefail

project_dir="$(cd "$(dirname "$0")/.." && pwd)"
app_dir="$project_dir/Tests/EndToEndTests/Interop/djangocas"
venv="$project_dir/.build/djangocas-venv"
python=${UNITOOL_DJANGOCAS_PYTHON:-$venv/bin/python}

usage() {
    echo "usage: $0 start DIR CAS_PORT PORTAL_PORT | stop DIR | fetch" >&2
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
    if ! "$venv/bin/python" -c "import cas_server, django, cas, flask" 2>/dev/null; then
        pip_install "django-cas-server==3.1.0" "Django==5.2.19" "python-cas==1.7.2" "Flask==3.1.3"
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

cas_pid() { running_pid "$1/cas.pid" "runserver 127.0.0.1:$(cut -d' ' -f1 "$1/ports" 2>/dev/null || true) "; }
portal_pid() { running_pid "$1/portal.pid" "portal.py $(cut -d' ' -f2 "$1/ports" 2>/dev/null || true) "; }

# The HTTP status of GET PATH on PORT, or nothing.
status_of() {
    local port=$1 path=$2
    (exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
        printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3
        IFS= read -r -t 2 line <&3 && printf '%s' "$line" | cut -d' ' -f2) 2>/dev/null || true
}

# Both answer: the CAS login page (200), the portal's home (a redirect to the CAS server).
answers() {
    [ "$(status_of "$1" /cas/login)" = 200 ] && [ "$(status_of "$2" /)" = 302 ]
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
    stop_one "$(cas_pid "$dir")"
    rm -f "$dir/cas.pid" "$dir/portal.pid" "$dir/ports"
}

start_servers() {
    local dir=$1 cas_port=$2 portal_port=$3 pid i
    [ -x "$python" ] && "$python" -c "import cas_server, django, cas, flask" 2>/dev/null \
        || { echo "error: no venv with django-cas-server at $python: run $0 fetch" >&2; exit 1; }

    if [ -n "$(cas_pid "$dir")" ] && [ -n "$(portal_pid "$dir")" ] && [ "$(cat "$dir/ports")" = "$cas_port $portal_port" ] \
        && answers "$cas_port" "$portal_port"; then
        exit 0 # already running here
    fi
    stop_servers "$dir"
    for port in "$cas_port" "$portal_port"; do
        if [ -n "$(status_of "$port" /)" ]; then
            echo "error: something else already answers on 127.0.0.1:$port" >&2
            exit 1
        fi
    done

    # A new database each start (no session, no ticket left over); a new secret key.
    mkdir -p "$dir/log"
    rm -f "$dir/cas.sqlite3"
    (umask 077; "$python" -c "import secrets; print(secrets.token_urlsafe(50))" > "$dir/secret-key")
    export UNITOOL_DJANGOCAS_DIR=$dir DJANGO_SETTINGS_MODULE=cas_settings PYTHONPATH=$app_dir PYTHONDONTWRITEBYTECODE=1
    "$python" -m django migrate --noinput >"$dir/log/migrate.log" 2>&1 \
        || { echo "error: manage.py migrate failed; $dir/log/migrate.log ends:" >&2; tail -n 5 "$dir/log/migrate.log" >&2; exit 1; }
    "$python" "$app_dir/cas_setup.py" "http://127.0.0.1:$portal_port/" >>"$dir/log/migrate.log" 2>&1 \
        || { echo "error: cas_setup.py failed; $dir/log/migrate.log ends:" >&2; tail -n 5 "$dir/log/migrate.log" >&2; exit 1; }

    echo "$cas_port $portal_port" > "$dir/ports"
    # runserver --insecure serves cas_server's static files (its logo, its scripts) with DEBUG off.
    "$python" -m django runserver "127.0.0.1:$cas_port" --noreload --insecure </dev/null >>"$dir/log/cas.log" 2>&1 &
    echo $! > "$dir/cas.pid"
    "$python" "$app_dir/portal.py" "$portal_port" "http://127.0.0.1:$cas_port/cas/" </dev/null >>"$dir/log/portal.log" 2>&1 &
    echo $! > "$dir/portal.pid"

    for i in $(seq 1 150); do
        if answers "$cas_port" "$portal_port"; then
            exit 0
        fi
        for which in cas portal; do
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
    echo "error: the CAS server (127.0.0.1:$cas_port) and the portal (127.0.0.1:$portal_port) did not answer within 15 s" >&2
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
        [ $# -eq 4 ] || usage
        for port in "$3" "$4"; do
            [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || { echo "error: bad port: $port" >&2; exit 2; }
        done
        (umask 077; mkdir -p "$dir")
        dir=$(cd "$dir" && pwd -P)
        start_servers "$dir" "$3" "$4"
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
