#!/usr/bin/env bash
# An interop test peer: a real SimpleSAMLphp identity provider (Debian's simplesamlphp 1.19) and a
# small SAML-protected portal, both served on 127.0.0.1 by PHP's built-in web server.
#
#   interop-simplesamlphp.sh start DIR PORT   write a configuration into DIR, start the server,
#                                             wait until it answers, write its PID to DIR/php.pid
#   interop-simplesamlphp.sh stop DIR         stop the server started in DIR
#   interop-simplesamlphp.sh fetch            print the SimpleSAMLphp folder to use, unpacking
#                                             Debian's package into .build/simplesamlphp if need be
#
# Both are safe to run again. Nothing outside DIR is written: SimpleSAMLphp reads DIR/config
# through SIMPLESAMLPHP_CONFIG_DIR, never /etc/simplesamlphp.
#
#   http://127.0.0.1:PORT/simplesaml/   the IdP (users student/studentpass, ayaka/sakura-2026)
#   http://127.0.0.1:PORT/portal/       the portal (SP 'default-sp', its SAML endpoints under
#                                       /portal/saml/), /portal/api/terms, /portal/logout
#
# The IdP and the SP are two SimpleSAMLphp instances with separate session cookies (IdPSession,
# PortalSession), as on two hosts. The portal's PHP files are in
# Tests/EndToEndTests/Interop/simplesamlphp/. Needs php-cli, php-xml, php-mbstring and openssl
# (Scripts/install-deps.sh). SimpleSAMLphp itself is Debian's simplesamlphp package, installed, or
# only unpacked by `fetch`: installing it would pull in a web server that runs as a service, for
# PHP files that `php -S` serves just as well.
set -euo pipefail

project_dir="$(cd "$(dirname "$0")/.." && pwd)"
unpacked="$project_dir/.build/simplesamlphp/usr/share/simplesamlphp"
if [ -n "${UNITOOL_SSP_ROOT:-}" ]; then
    ssp_root=$UNITOOL_SSP_ROOT
elif [ -f /usr/share/simplesamlphp/lib/_autoload.php ]; then
    ssp_root=/usr/share/simplesamlphp
else
    ssp_root=$unpacked
fi
app_dir="$project_dir/Tests/EndToEndTests/Interop/simplesamlphp"

usage() {
    echo "usage: $0 start DIR PORT | stop DIR | fetch" >&2
    exit 2
}

# Prints the SimpleSAMLphp folder, unpacking the Debian package (not installing it) if no copy exists.
fetch() {
    if [ ! -f "$ssp_root/lib/_autoload.php" ]; then
        local work
        work=$(mktemp -d)
        trap 'rm -rf "$work"' RETURN
        echo "unpacking Debian's simplesamlphp into .build/simplesamlphp" >&2
        if ! (cd "$work" && apt-get download -qq simplesamlphp >/dev/null 2>&1); then
            apt-get update -qq >&2
            (cd "$work" && apt-get download -qq simplesamlphp >/dev/null 2>&1)
        fi
        mkdir -p "$project_dir/.build/simplesamlphp"
        dpkg-deb -x "$work"/simplesamlphp_*.deb "$project_dir/.build/simplesamlphp"
        ssp_root=$unpacked
    fi
    echo "$ssp_root"
}

# The PID in DIR/php.pid if that process is still our php -S server, else nothing.
running_pid() {
    local dir=$1 pid
    [ -f "$dir/php.pid" ] || return 0
    pid=$(tr -dc '0-9' < "$dir/php.pid")
    [ -n "$pid" ] || return 0
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "-S 127.0.0.1:"; then
        echo "$pid"
    fi
}

# True if the portal's public API answers 200 on PORT.
answers() {
    local port=$1 status
    status=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
        printf 'GET /portal/api/terms HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
        IFS= read -r -t 2 line <&3 && printf '%s' "$line") 2>/dev/null) || return 1
    [[ $status == HTTP/1.?" 200"* ]]
}

stop_server() {
    local dir=$1 pid i
    pid=$(running_pid "$dir")
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        for i in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/php.pid" "$dir/port"
}

write_config() {
    local dir=$1 port=$2 salt admin
    rm -rf "$dir/config" "$dir/metadata" "$dir/sessions" "$dir/tmp"
    mkdir -p "$dir/config" "$dir/metadata" "$dir/cert" "$dir/log" "$dir/data" \
        "$dir/sessions/idp" "$dir/sessions/sp" "$dir/tmp/idp" "$dir/tmp/sp" "$dir/htdocs"

    # A new key pair for the IdP and for the SP, unless DIR already has them.
    local who
    for who in idp sp; do
        if [ ! -s "$dir/cert/$who.key" ] || [ ! -s "$dir/cert/$who.crt" ]; then
            openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
                -subj "/CN=unitool interop $who" \
                -keyout "$dir/cert/$who.key" -out "$dir/cert/$who.crt" >/dev/null 2>&1
        fi
    done
    chmod 600 "$dir/cert/"*.key

    # The values that differ per start: where, and the secrets (never printed).
    salt=$(openssl rand -hex 32)
    admin=$(openssl rand -hex 16)
    (umask 077
    cat > "$dir/config/instance.php" <<EOF
<?php
// Written by interop-simplesamlphp.sh start. Secrets: keep this file private.
return [
    'origin' => 'http://127.0.0.1:$port',
    'dir' => '$dir',
    'secretsalt' => '$salt',
    'adminpassword' => '$admin',
];
EOF
    )

    cat > "$dir/config/config.php" <<'EOF'
<?php
// SimpleSAMLphp 1.19 configuration for the unitool interop peer (interop-simplesamlphp.sh).
// One configuration, two instances: router.php sets UNITOOL_SSP_ROLE to 'idp' for /simplesaml/
// and to 'sp' for /portal/, so each has its own base URL, session cookies and session files.
$instance = require __DIR__ . '/instance.php';
$role = getenv('UNITOOL_SSP_ROLE') === 'sp' ? 'sp' : 'idp';
$dir = $instance['dir'];
$cookie = $role === 'sp' ? 'Portal' : 'IdP';

$config = [
    'baseurlpath' => $instance['origin'] . ($role === 'sp' ? '/portal/saml/' : '/simplesaml/'),
    'application' => ['baseURL' => $instance['origin'] . '/'],
    'certdir' => $dir . '/cert/',
    'loggingdir' => $dir . '/log/',
    'datadir' => $dir . '/data/',
    'tempdir' => $dir . '/tmp/' . $role,
    'metadatadir' => $dir . '/metadata/',

    'technicalcontact_name' => 'unitool interop',
    'technicalcontact_email' => 'nobody@example.invalid',
    'timezone' => 'UTC',

    'secretsalt' => $instance['secretsalt'],
    'auth.adminpassword' => $instance['adminpassword'],
    'admin.protectindexpage' => true,
    'admin.protectmetadata' => false,
    'admin.checkforupdates' => false,
    'trusted.url.domains' => [parse_url($instance['origin'], PHP_URL_HOST) . ':' . parse_url($instance['origin'], PHP_URL_PORT)],

    'debug' => ['saml' => false, 'backtraces' => true, 'validatexml' => false],
    'showerrors' => true,
    'errorreporting' => false,
    'logging.level' => SimpleSAML\Logger::NOTICE,
    'logging.handler' => 'file',
    'logging.logfile' => $role . '.log',
    'statistics.out' => [],

    'enable.saml20-idp' => true,
    'enable.shib13-idp' => false,
    'enable.adfs-idp' => false,
    'module.enable' => ['core' => true, 'saml' => true, 'admin' => true, 'exampleauth' => true],

    'store.type' => 'phpsession',
    'session.phpsession.savepath' => $dir . '/sessions/' . $role,
    'session.phpsession.cookiename' => $cookie . 'Session',
    'session.phpsession.httponly' => true,
    'session.cookie.name' => $cookie . 'SessionID',
    'session.authtoken.cookiename' => $cookie . 'AuthToken',
    'session.cookie.path' => '/',
    'session.cookie.domain' => null,
    'session.cookie.secure' => false,
    'session.cookie.samesite' => null,
    'session.cookie.lifetime' => 0,
    'session.duration' => 8 * 60 * 60,
    'session.datastore.timeout' => 4 * 60 * 60,
    'session.state.timeout' => 60 * 60,
    'session.rememberme.enable' => false,

    'language.default' => 'en',
    'language.available' => ['en', 'ja'],
    'language.parameter.setcookie' => false,
    'language.cookie.secure' => false,
    'language.cookie.samesite' => null,

    'theme.use' => 'default',
    'template.auto_reload' => false,
    'production' => true,
];
EOF

    cat > "$dir/config/authsources.php" <<'EOF'
<?php
// Authentication sources: the IdP's users (exampleauth:UserPass) and the portal's SP.
$instance = require __DIR__ . '/instance.php';
$origin = $instance['origin'];

$config = [
    'admin' => ['core:AdminPassword'],

    'student-login' => [
        'exampleauth:UserPass',
        'student:studentpass' => [
            'uid' => ['student'],
            'displayName' => ['Sam Student'],
            'eduPersonAffiliation' => ['student', 'member'],
        ],
        'ayaka:sakura-2026' => [
            'uid' => ['ayaka'],
            'displayName' => ['佐藤 彩花'],
            'eduPersonAffiliation' => ['student', 'member'],
        ],
    ],

    'default-sp' => [
        'saml:SP',
        'entityID' => $origin . '/portal/saml/module.php/saml/sp/metadata.php/default-sp',
        'idp' => $origin . '/simplesaml/saml2/idp/metadata.php',
        'privatekey' => 'sp.key',
        'certificate' => 'sp.crt',
    ],
];
EOF

    cat > "$dir/metadata/saml20-idp-hosted.php" <<'EOF'
<?php
// The IdP that this installation runs.
$instance = require dirname(__DIR__) . '/config/instance.php';

$metadata[$instance['origin'] . '/simplesaml/saml2/idp/metadata.php'] = [
    'host' => '__DEFAULT__',
    'privatekey' => 'idp.key',
    'certificate' => 'idp.crt',
    'auth' => 'student-login',
];
EOF

    cat > "$dir/metadata/saml20-sp-remote.php" <<'EOF'
<?php
// The portal's SP, as the IdP knows it.
$instance = require dirname(__DIR__) . '/config/instance.php';
$sp = $instance['origin'] . '/portal/saml/module.php/saml/sp/';

$metadata[$sp . 'metadata.php/default-sp'] = [
    'AssertionConsumerService' => [[
        'Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
        'Location' => $sp . 'saml2-acs.php/default-sp',
        'index' => 0,
    ]],
    'SingleLogoutService' => [[
        'Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
        'Location' => $sp . 'saml2-logout.php/default-sp',
    ]],
    'certificate' => 'sp.crt',
    'attributes' => ['uid', 'displayName', 'eduPersonAffiliation'],
];
EOF

    cat > "$dir/metadata/saml20-idp-remote.php" <<'EOF'
<?php
// The IdP, as the portal's SP knows it.
$instance = require dirname(__DIR__) . '/config/instance.php';
$idp = $instance['origin'] . '/simplesaml/saml2/idp/';

$metadata[$idp . 'metadata.php'] = [
    'SingleSignOnService' => [[
        'Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
        'Location' => $idp . 'SSOService.php',
    ]],
    'SingleLogoutService' => [[
        'Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
        'Location' => $idp . 'SingleLogoutService.php',
    ]],
    'certificate' => 'idp.crt',
];
EOF
}

start_server() {
    local dir=$1 port=$2 pid i
    for f in "$ssp_root/lib/_autoload.php" "$app_dir/router.php" "$app_dir/portal.php"; do
        if [ ! -f "$f" ]; then
            echo "error: $f is missing (install the Debian packages simplesamlphp php-cli php-xml php-mbstring)" >&2
            exit 1
        fi
    done
    command -v php >/dev/null 2>&1 || { echo "error: php is not installed (php-cli)" >&2; exit 1; }
    command -v openssl >/dev/null 2>&1 || { echo "error: openssl is not installed" >&2; exit 1; }
    local missing
    missing=$(php -m | tr 'A-Z' 'a-z' | awk '{m[$1]=1} END {n=split("dom openssl mbstring json session zlib", e, " "); for (i=1;i<=n;i++) if (!m[e[i]]) printf "%s ", e[i]}')
    if [ -n "$missing" ]; then
        echo "error: PHP lacks the extensions: $missing(install php-xml php-mbstring)" >&2
        exit 1
    fi

    pid=$(running_pid "$dir")
    if [ -n "$pid" ]; then
        if [ "$(cat "$dir/port" 2>/dev/null)" = "$port" ] && answers "$port"; then
            exit 0 # already running here
        fi
        stop_server "$dir"
    fi
    if answers "$port"; then
        echo "error: something else already answers on 127.0.0.1:$port" >&2
        exit 1
    fi

    write_config "$dir" "$port"

    SIMPLESAMLPHP_CONFIG_DIR="$dir/config" UNITOOL_SSP_ROOT="$ssp_root" \
        php -S "127.0.0.1:$port" -t "$dir/htdocs" \
        -d display_errors=0 -d log_errors=1 -d error_log="$dir/log/php-errors.log" \
        -d 'error_reporting=E_ALL & ~E_DEPRECATED & ~E_STRICT' \
        -d session.gc_probability=0 \
        "$app_dir/router.php" </dev/null >>"$dir/log/server.log" 2>&1 &
    pid=$!
    echo "$pid" > "$dir/php.pid"
    echo "$port" > "$dir/port"

    for i in $(seq 1 150); do
        if answers "$port"; then
            exit 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "error: php -S on 127.0.0.1:$port exited; its log ($dir/log/server.log) ends:" >&2
            tail -n 5 "$dir/log/server.log" >&2
            rm -f "$dir/php.pid" "$dir/port"
            exit 1
        fi
        sleep 0.1
    done
    echo "error: php -S on 127.0.0.1:$port did not answer within 15 s" >&2
    stop_server "$dir"
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
        [ $# -eq 3 ] || usage
        port=$3
        [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || { echo "error: bad port: $port" >&2; exit 2; }
        (umask 077; mkdir -p "$dir")
        dir=$(cd "$dir" && pwd -P)
        case "$dir" in *"'"*|*'\'*) echo "error: DIR must not contain ' or \\: $dir" >&2; exit 2 ;; esac
        start_server "$dir" "$port"
        ;;
    stop)
        [ $# -eq 2 ] || usage
        [ -d "$dir" ] || exit 0
        dir=$(cd "$dir" && pwd -P)
        stop_server "$dir"
        ;;
    *)
        usage
        ;;
esac
