#!/usr/bin/env bash
# An interop test peer: a real LemonLDAP::NG 2.16 SAML 2.0 identity provider (Debian's packages,
# its stock bootstrap login pages) and a real Shibboleth SP 3 (mod_shib + shibd) in a private
# Apache 2.4, protecting a small portal. Everything listens on 127.0.0.1 only.
#
#   interop-lemonldap.sh start DIR IDP_PORT SP_PORT
#                                  write a configuration into DIR, start LLNG, shibd and Apache,
#                                  wait until the portal answers; PIDs in DIR/idp.pid,
#                                  DIR/shibd.pid, DIR/apache2.pid
#   interop-lemonldap.sh start DIR IDP_PORT SP_PORT webauthn
#                                  the same, with LLNG's WebAuthn second factor (below)
#   interop-lemonldap.sh stop DIR  stop what was started in DIR
#
# With `webauthn`, LLNG's portal is https://localhost/ (TLS on 127.0.0.1:IDP_PORT, a self-signed
# certificate for localhost in DIR/idp/tls.crt), because WebAuthn takes its relying party from
# the portal's host, which must be a name (not an IP address) and, in LLNG 2.16, carry no port;
# a browser reaches it with --host-resolver-rules="MAP localhost:443 127.0.0.1:IDP_PORT". msmith
# then has a registered security key (a P-256 key made per start: the persistent session's
# _2fDevices holds its public key as LLNG stores a registered one), and must use it after the
# password; DIR/webauthn-credentials.json holds its private key as Chromium's DevTools
# WebAuthn.addCredential takes it, for a virtual authenticator to answer with.
#
# Both are safe to run again: start on a DIR already running on the same ports and variant does
# nothing.
# Nothing outside DIR is written. LLNG reads DIR/idp/lemonldap-ng.ini through LLNG_DEFAULTCONFFILE
# (never /etc/lemonldap-ng), its configuration is DIR/idp/conf/lmConf-1.json (backend "File"), its
# sessions are Apache::Session::File folders in DIR/idp. shibd and mod_shib read
# DIR/sp/shibboleth2.xml (shibd -c, ShibConfig) and, through SHIBSP_CFGDIR/SHIBSP_RUNDIR/
# SHIBSP_LOGDIR, find their templates, socket and logs in DIR/sp, never /etc/shibboleth or /var.
# Apache runs as `apache2 -f DIR/sp/apache2.conf`, never /etc/apache2.
#
#   http://127.0.0.1:IDP_PORT/               LLNG's portal (login page), entity ID
#                                            http://127.0.0.1:IDP_PORT/saml/metadata
#   http://127.0.0.1:SP_PORT/portal/         the portal, behind the SSO (AuthType shibboleth):
#        /portal/grades                      a table of the user's grades
#        /portal/terms, /portal/api/terms    the terms; the API answers JSON, also behind the SSO
#        /Shibboleth.sso/Logout?return=/     ends the SP's session only (local logout; the
#                                            IdP's session stays, so the next visit signs in
#                                            with no password)
#        /Shibboleth.sso/Session             the SP session's attributes
#
# Each start begins with no session (LLNG's and shibd's are wiped); the key pairs and the TOTP
# secret are kept. Users (LLNG's "Demo" backend): dwho/dwho, msmith/msmith, and rtyler/rtyler
# with a TOTP second factor whose base32 secret (new per DIR, kept across restarts) is in
# DIR/totp-secret
# (oathtool --totp -b "$(cat DIR/totp-secret)" gives the code). The SAML attributes released to
# the SP are uid, cn and mail. Tests/EndToEndTests/Interop/lemonldap/check.sh walks it with curl.
#
# Debian packages (Scripts/install-deps.sh):
#   liblemonldap-ng-portal-perl   LLNG's portal, its templates and static files (pulls in
#                                 liblemonldap-ng-common/handler-perl, libplack-perl)
#   lemonldap-ng-fastcgi-server   satisfies the portal package's web-server dependency without
#                                 pulling in apache2's service; not run here
#   liblasso-perl                 Lasso, which LLNG's SAML issuer needs
#   libconvert-base32-perl,       base32 and HMAC-SHA1, which LLNG's TOTP needs
#   libdigest-hmac-perl
#   libxml-simple-perl,           modules the SAML issuer loads (Lemonldap::NG::Portal::Lib::SAML,
#   libio-string-perl             ::Main::Issuer) that the portal package only recommends
#   libgd-securityimage-perl,     the captcha module, which the portal loads at start even with
#   libimage-magick-perl          captchas off (it fails to start without them)
#   starman                       the PSGI server that runs LLNG's portal
#   apache2-bin                   the Apache 2.4 binary and modules (no /etc/apache2, no service)
#   libapache2-mod-shib           mod_shib, and shibd (shibboleth-sp-utils)
#   openssl, curl                 key pairs; fetching the IdP's metadata
#   oathtool                      TOTP codes for check.sh
set -euo pipefail

project_dir="$(cd "$(dirname "$0")/.." && pwd)"
app_dir="$project_dir/Tests/EndToEndTests/Interop/lemonldap"
apache_modules=/usr/lib/apache2/modules

usage() {
    echo "usage: $0 start DIR IDP_PORT SP_PORT [webauthn] | stop DIR" >&2
    exit 2
}

# The PID in DIR/NAME.pid if that process still runs a command line containing PATTERN.
running_pid() {
    local file=$1 pattern=$2 pid
    [ -f "$file" ] || return 0
    pid=$(tr -dc '0-9' < "$file")
    [ -n "$pid" ] || return 0
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$pattern"; then
        echo "$pid"
    fi
}

idp_pid() {
    local port suffix=" "
    port=$(cut -d' ' -f1 "$1/ports" 2>/dev/null || true)
    [ "$(cut -d' ' -f3 "$1/ports" 2>/dev/null || true)" = webauthn ] && suffix=":ssl "
    running_pid "$1/idp.pid" "starman master --listen 127.0.0.1:$port$suffix"
}

# The IdP's status for PATH: over TLS in the webauthn variant (its certificate is self-signed).
idp_status() {
    local port=$1 path=$2
    if [ "$mode" = webauthn ]; then
        # curl says 000 when nothing answers: nothing, as status_of says it.
        curl -ks -o /dev/null -w '%{http_code}' --max-time 5 "https://127.0.0.1:$port$path" 2>/dev/null | grep -v '^000$' || true
    else
        status_of "$port" "$path"
    fi
}

# The IdP's base address, as the browser and the SP's metadata name it.
idp_url() {
    if [ "$mode" = webauthn ]; then echo "https://localhost"; else echo "http://127.0.0.1:$1"; fi
}
shibd_pid() { running_pid "$1/shibd.pid" "shibd -F -f -c $1/sp/shibboleth2.xml "; }
apache_pid() { running_pid "$1/apache2.pid" "apache2 -f $1/sp/apache2.conf "; }

# The status code of GET PATH on 127.0.0.1:PORT, or nothing if nothing answers.
status_of() {
    local port=$1 path=$2
    ( exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
      printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3
      IFS=' ' read -r -t 5 _ code _ <&3 && printf '%s' "$code" ) 2>/dev/null || true
}

# True if the whole chain answers: the IdP's metadata, and the portal's redirect to the IdP
# (which needs Apache, mod_shib and shibd).
answers() {
    local idp_port=$1 sp_port=$2
    [ "$(idp_status "$idp_port" /saml/metadata)" = 200 ] &&
        [ "$(status_of "$sp_port" /portal/api/terms)" = 302 ]
}

# Stops the given processes together (each takes about 2 s to finish its children), by SIGTERM,
# then SIGKILL after 10 s.
stop_pids() {
    local pid i alive
    [ $# -gt 0 ] || return 0
    kill "$@" 2>/dev/null || true
    for i in $(seq 1 100); do
        alive=""
        for pid in "$@"; do
            kill -0 "$pid" 2>/dev/null && alive=yes
        done
        [ -n "$alive" ] || return 0
        sleep 0.1
    done
    kill -9 "$@" 2>/dev/null || true
}

stop_all() {
    local dir=$1
    # shellcheck disable=SC2046 # word splitting wanted: the PIDs found, none if none
    stop_pids $(apache_pid "$dir") $(shibd_pid "$dir") $(idp_pid "$dir")
    rm -f "$dir/apache2.pid" "$dir/shibd.pid" "$dir/idp.pid" "$dir/ports" "$dir/sp/run/shibd.sock"
}

# A PEM file's body as one JSON string (newlines escaped).
json_pem() {
    awk 'BEGIN { printf "\"" } { printf "%s\\n", $0 } END { printf "\"" }' "$1"
}

json_string() {
    perl -MJSON::PP -e 'print JSON::PP->new->allow_nonref->encode(do { local $/; <STDIN> })'
}

write_idp_config() {
    local dir=$1 idp_port=$2 sp_port=$3
    local idp sp="http://127.0.0.1:$sp_port" host=127.0.0.1 secured=0 webauthn=""
    idp=$(idp_url "$idp_port")
    if [ "$mode" = webauthn ]; then
        host=localhost
        secured=1
        webauthn='"webauthn2fActivation": "1", "webauthn2fSelfRegistration": 0, "webauthn2fUserVerification": "preferred", "webauthnRpName": "Interop University",'
    fi
    rm -rf "$dir/idp/conf" "$dir/idp/sessions" "$dir/idp/psessions" "$dir/idp/cache" "$dir/idp/notifications"
    mkdir -p "$dir/idp/conf" "$dir/idp/sessions/lock" "$dir/idp/psessions/lock" "$dir/idp/cache" \
        "$dir/idp/notifications"

    cat > "$dir/idp/lemonldap-ng.ini" <<EOF
; LemonLDAP::NG for the unitool interop peer (interop-lemonldap.sh). Read through
; LLNG_DEFAULTCONFFILE; every path is in this folder.
[all]
logLevel = notice
checkTime = 1

[configuration]
type = File
dirName = $dir/idp/conf
prettyPrint = 1
localStorage = Cache::FileCache
localStorageOptions = { 'namespace' => 'lemonldap-ng-config', 'default_expires_in' => 600, 'directory_umask' => 077, 'cache_root' => '$dir/idp/cache', 'cache_depth' => 3 }

[portal]
staticPrefix = /static
templateDir = /usr/share/lemonldap-ng/portal/templates
languages = en, fr

[handler]
status = 0
EOF

    # The SP, registered from its metadata (what shibd's /Shibboleth.sso/Metadata would list).
    local sp_cert
    sp_cert=$(sed -e '/-----/d' "$dir/sp/sp.crt")
    cat > "$dir/sp/sp-metadata.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="$sp/shibboleth">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" AuthnRequestsSigned="false" WantAssertionsSigned="true">
    <md:KeyDescriptor>
      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>
$sp_cert
      </ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="$sp/Shibboleth.sso/SLO/Redirect"/>
    <md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="$sp/Shibboleth.sso/SLO/POST"/>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:transient</md:NameIDFormat>
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="$sp/Shibboleth.sso/SAML2/POST" index="1" isDefault="true"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>
EOF

    local now sp_xml idp_key idp_crt
    now=$(date +%s)
    sp_xml=$(json_string < "$dir/sp/sp-metadata.xml")
    idp_key=$(json_pem "$dir/idp/idp.key")
    idp_crt=$(json_pem "$dir/idp/idp.crt")
    local uri=urn:oasis:names:tc:SAML:2.0:attrname-format:uri
    (umask 077
    cat > "$dir/idp/conf/lmConf-1.json" <<EOF
{
  "cfgNum": 1,
  "cfgAuthor": "interop-lemonldap.sh",
  "cfgDate": "$now",
  "cfgVersion": "2.16.1",
  "cfgLog": "unitool interop peer",

  "portal": "$idp/",
  "domain": "$host",
  "cookieName": "lemonldap",
  "securedCookie": $secured,
  "httpOnly": 1,
  "sameSite": "Lax",
  "timeout": 72000,
  "trustedDomains": "$host",

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
    "Directory": "$dir/idp/sessions",
    "LockDirectory": "$dir/idp/sessions/lock",
    "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256"
  },
  "persistentStorage": "Apache::Session::File",
  "persistentStorageOptions": {
    "Directory": "$dir/idp/psessions",
    "LockDirectory": "$dir/idp/psessions/lock"
  },
  "localSessionStorage": "Cache::FileCache",
  "localSessionStorageOptions": {
    "cache_depth": 3,
    "cache_root": "$dir/idp/cache",
    "default_expires_in": 600,
    "directory_umask": 63,
    "namespace": "lemonldap-ng-sessions"
  },

  "portalSkin": "bootstrap",
  "portalDisplayRegister": 0,
  "portalDisplayResetPassword": 0,
  "notification": 0,
  "notificationStorage": "File",
  "notificationStorageOptions": { "dirName": "$dir/idp/notifications" },
  "loginHistoryEnabled": 1,
  "locationRules": { "$host": { "default": "accept" } },
  "applicationList": {},

  $webauthn
  "totp2fActivation": "\$uid eq \"rtyler\"",
  "totp2fSelfRegistration": 0,
  "totp2fUserCanRemoveKey": 0,

  "issuerDBSAMLActivation": 1,
  "issuerDBSAMLPath": "^/saml/",
  "issuerDBSAMLRule": 1,
  "samlEntityID": "#PORTAL#/saml/metadata",
  "samlServicePrivateKeySig": $idp_key,
  "samlServicePrivateKeySigPwd": "",
  "samlServicePublicKeySig": $idp_crt,
  "samlServiceSignatureMethod": "RSA_SHA256",
  "samlIDPSSODescriptorWantAuthnRequestsSigned": 0,
  "samlOrganizationDisplayName": "Interop University",
  "samlOrganizationName": "Interop University",
  "samlOrganizationURL": "$idp/",
  "samlSPMetaDataXML": { "portal": { "samlSPMetaDataXML": $sp_xml } },
  "samlSPMetaDataExportedAttributes": {
    "portal": {
      "uid": "1;urn:oid:0.9.2342.19200300.100.1.1;$uri;uid",
      "cn": "0;urn:oid:2.5.4.3;$uri;cn",
      "mail": "0;urn:oid:0.9.2342.19200300.100.1.3;$uri;mail"
    }
  },
  "samlSPMetaDataOptions": {
    "portal": {
      "samlSPMetaDataOptionsNameIDFormat": "transient",
      "samlSPMetaDataOptionsSignSSOMessage": 1,
      "samlSPMetaDataOptionsCheckSSOMessageSignature": 0,
      "samlSPMetaDataOptionsSignSLOMessage": 1,
      "samlSPMetaDataOptionsCheckSLOMessageSignature": 0,
      "samlSPMetaDataOptionsEncryptionMode": "none",
      "samlSPMetaDataOptionsSignatureMethod": "RSA_SHA256",
      "samlSPMetaDataOptionsOneTimeUse": 0,
      "samlSPMetaDataOptionsNotOnOrAfterTimeout": 72000,
      "samlSPMetaDataOptionsSessionNotOnOrAfterTimeout": 72000,
      "samlSPMetaDataOptionsForceUTF8": 1,
      "samlSPMetaDataOptionsEnableIDPInitiatedURL": 0
    }
  }
}
EOF
    )
}

# rtyler's TOTP device, stored as LLNG stores a registered one: the persistent session (id
# md5_hex of the _whatToTrace value, Lemonldap::NG::Common::Util::getPSessionID) holds
# _2fDevices, a JSON list of {type, name, _secret, epoch}. Written through LLNG's own session
# class, so the file's format is LLNG's.
write_totp_device() {
    local dir=$1 secret=$2
    LLNG_DEFAULTCONFFILE="$dir/idp/lemonldap-ng.ini" UNITOOL_TOTP_SECRET="$secret" \
        UNITOOL_PSESSIONS="$dir/idp/psessions" perl -e '
        use strict;
        use JSON qw(to_json);
        use Lemonldap::NG::Common::Session;
        use Lemonldap::NG::Common::Util qw(getPSessionID);
        my $uid = "rtyler";
        my $devices = to_json([{
            type => "TOTP", name => "interop", epoch => time(),
            _secret => $ENV{UNITOOL_TOTP_SECRET},
        }]);
        my $ps = Lemonldap::NG::Common::Session->new({
            storageModule => "Apache::Session::File",
            storageModuleOptions => {
                Directory => $ENV{UNITOOL_PSESSIONS},
                LockDirectory => "$ENV{UNITOOL_PSESSIONS}/lock",
            },
            id => getPSessionID($uid), force => 1, kind => "Persistent",
            info => { _session_uid => $uid, _2fDevices => $devices },
        });
        die "cannot write the persistent session: " . ($ps->error // "?") . "\n" if $ps->error;
    '
}

# msmith's security key, registered as LLNG 2.16 stores one (Lib/WebAuthn.pm): the persistent
# session's _2fDevices holds {type WebAuthn, _credentialId, _credentialPublicKey (a COSE_Key,
# base64url), _signCount}, and _webAuthnUserHandle the user handle. The private key goes to
# DIR/webauthn-credentials.json for the test's virtual authenticator.
write_webauthn_device() {
    local dir=$1 key="$dir/idp/webauthn-key.pem"
    openssl ecparam -name prime256v1 -genkey -noout -out "$key" 2>/dev/null
    chmod 600 "$key"
    local private point credential handle
    private=$(openssl pkcs8 -topk8 -nocrypt -in "$key" -outform DER | base64 -w0)
    # The public key's DER ends with the uncompressed point: 0x04, then x and y (32 bytes each).
    point=$(openssl ec -in "$key" -pubout -outform DER 2>/dev/null | tail -c 64 | od -An -v -tx1 | tr -d ' \n')
    credential=$(openssl rand -hex 32)
    handle=$(openssl rand -hex 32)
    LLNG_DEFAULTCONFFILE="$dir/idp/lemonldap-ng.ini" UNITOOL_POINT="$point" UNITOOL_CREDENTIAL="$credential" \
        UNITOOL_HANDLE="$handle" UNITOOL_PRIVATE="$private" UNITOOL_PSESSIONS="$dir/idp/psessions" \
        UNITOOL_CREDENTIALS="$dir/webauthn-credentials.json" perl -e '
        use strict;
        use JSON qw(to_json);
        use MIME::Base64 qw(encode_base64 encode_base64url);
        use Lemonldap::NG::Common::Session;
        use Lemonldap::NG::Common::Util qw(getPSessionID);
        my $uid = "msmith";
        my $point = pack("H*", $ENV{UNITOOL_POINT});
        my ($x, $y) = (substr($point, 0, 32), substr($point, 32, 32));
        # COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}, canonical CBOR.
        my $cose = pack("H*", "a50102032620012158") . chr(0x20) . $x . pack("H*", "225820") . $y;
        my $credential = pack("H*", $ENV{UNITOOL_CREDENTIAL});
        my $handle = pack("H*", $ENV{UNITOOL_HANDLE});
        my $devices = to_json([{
            type => "WebAuthn", name => "interop key", epoch => time(),
            _credentialId => encode_base64url($credential), _credentialPublicKey => encode_base64url($cose),
            _signCount => 0,
        }]);
        my $ps = Lemonldap::NG::Common::Session->new({
            storageModule => "Apache::Session::File",
            storageModuleOptions => {
                Directory => $ENV{UNITOOL_PSESSIONS},
                LockDirectory => "$ENV{UNITOOL_PSESSIONS}/lock",
            },
            id => getPSessionID($uid), force => 1, kind => "Persistent",
            info => { _session_uid => $uid, _2fDevices => $devices, _webAuthnUserHandle => encode_base64url($handle) },
        });
        die "cannot write the persistent session: " . ($ps->error // "?") . "\n" if $ps->error;
        open(my $out, ">", $ENV{UNITOOL_CREDENTIALS}) or die "cannot write the credentials: $!\n";
        print $out to_json([{
            credentialId => encode_base64($credential, ""), isResidentCredential => JSON::false, rpId => "localhost",
            privateKey => $ENV{UNITOOL_PRIVATE}, signCount => 0,
        }]);
        close($out);
    '
    chmod 600 "$dir/webauthn-credentials.json"
}

write_sp_config() {
    local dir=$1 idp_port=$2 sp_port=$3
    local idp sp="http://127.0.0.1:$sp_port"
    idp=$(idp_url "$idp_port")
    local sp_dir="$dir/sp"
    rm -rf "$sp_dir/run" "$sp_dir/cgi" "$sp_dir/htdocs"
    mkdir -p "$sp_dir/run" "$sp_dir/cgi" "$sp_dir/htdocs" "$dir/log"
    cp "$app_dir/portal.cgi" "$sp_dir/cgi/portal.cgi"
    chmod 755 "$sp_dir/cgi/portal.cgi"

    cat > "$sp_dir/htdocs/index.html" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Interop University Portal</title></head>
<body><h1>Interop University Portal</h1><p id="signed-out">You are not signed in to the portal.</p>
<p><a href="/portal/">Sign in</a></p></body></html>
EOF

    cat > "$sp_dir/shibboleth2.xml" <<EOF
<SPConfig xmlns="urn:mace:shibboleth:3.0:native:sp:config"
    xmlns:conf="urn:mace:shibboleth:3.0:native:sp:config" clockSkew="180">
    <!-- Shibboleth SP 3 for the unitool interop peer (interop-lemonldap.sh). Every path is in
         $sp_dir. -->
    <UnixListener address="$sp_dir/run/shibd.sock"/>
    <StorageService type="Memory" id="mem" cleanupInterval="900"/>
    <SessionCache type="StorageService" StorageService="mem" cacheAssertions="false"
                  cacheAllowance="900" inprocTimeout="900" cleanupInterval="900"/>
    <ReplayCache StorageService="mem"/>

    <ApplicationDefaults entityID="$sp/shibboleth" REMOTE_USER="uid">
        <Sessions lifetime="28800" timeout="3600" relayState="ss:mem"
                  checkAddress="false" handlerSSL="false" cookieProps="; path=/; HttpOnly"
                  redirectLimit="exact">
            <SSO entityID="$idp/saml/metadata">SAML2</SSO>
            <!-- Local only: /Shibboleth.sso/Logout ends the SP's session, not the IdP's. -->
            <Logout>Local</Logout>
            <Handler type="MetadataGenerator" Location="/Metadata" signing="false"/>
            <Handler type="Status" Location="/Status" acl="127.0.0.1 ::1"/>
            <Handler type="Session" Location="/Session" showAttributeValues="true"/>
        </Sessions>
        <Errors supportContact="nobody@example.invalid"
                session="$sp_dir/sessionError.html" metadata="$sp_dir/sessionError.html"
                access="$sp_dir/sessionError.html" ssl="$sp_dir/sessionError.html"
                localLogout="$sp_dir/localLogout.html" partialLogout="$sp_dir/localLogout.html"
                globalLogout="$sp_dir/localLogout.html"/>
        <MetadataProvider type="XML" validate="true" path="$sp_dir/idp-metadata.xml"/>
        <AttributeExtractor type="XML" validate="true" reloadChanges="false" path="$sp_dir/attribute-map.xml"/>
        <CredentialResolver type="File" key="$sp_dir/sp.key" certificate="$sp_dir/sp.crt"/>
    </ApplicationDefaults>

    <SecurityPolicyProvider type="XML" validate="true" path="$sp_dir/security-policy.xml"/>
    <ProtocolProvider type="XML" validate="true" reloadChanges="false" path="$sp_dir/protocols.xml"/>
</SPConfig>
EOF

    cat > "$sp_dir/attribute-map.xml" <<'EOF'
<Attributes xmlns="urn:mace:shibboleth:2.0:attribute-map">
    <!-- What LemonLDAP::NG releases (samlSPMetaDataExportedAttributes), by OID. -->
    <Attribute name="urn:oid:0.9.2342.19200300.100.1.1" id="uid"/>
    <Attribute name="urn:oid:2.5.4.3" id="cn"/>
    <Attribute name="urn:oid:0.9.2342.19200300.100.1.3" id="mail"/>
</Attributes>
EOF

    cat > "$sp_dir/protocols.xml" <<'EOF'
<Protocols xmlns="urn:mace:shibboleth:2.0:native:sp:protocols">
    <Protocol id="SAML2">
        <Service id="SSO">
            <Initiator id="SAML2"/>
            <Binding id="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" path="/SAML2/POST"/>
        </Service>
        <Service id="Logout">
            <Initiator id="SAML2"/>
            <Binding id="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" path="/SLO/Redirect"/>
            <Binding id="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" path="/SLO/POST"/>
        </Service>
    </Protocol>
    <Protocol id="Local">
        <Service id="Logout">
            <Initiator id="Local"/>
        </Service>
    </Protocol>
</Protocols>
EOF

    cat > "$sp_dir/security-policy.xml" <<'EOF'
<SecurityPolicies xmlns="urn:mace:shibboleth:3.0:native:sp:config">
    <Policy id="default" validate="false">
        <PolicyRule type="MessageFlow" checkReplay="true" expires="60"/>
        <PolicyRule type="Conditions">
            <PolicyRule type="Audience"/>
        </PolicyRule>
        <PolicyRule type="ClientCertAuth" errorFatal="true"/>
        <PolicyRule type="XMLSigning" errorFatal="true"/>
        <PolicyRule type="SimpleSigning" errorFatal="true"/>
    </Policy>
    <ExcludedAlgorithms excludeDefaults="true"/>
</SecurityPolicies>
EOF

    cat > "$sp_dir/sessionError.html" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Portal sign-in error</title></head>
<body><h1>Portal sign-in error</h1>
<p id="sp-error">The portal could not sign you in: <shibmlp errorType/>: <shibmlp errorText/></p>
</body></html>
EOF

    cat > "$sp_dir/localLogout.html" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Signed out of the portal</title></head>
<body><h1>Signed out of the portal</h1>
<p id="sp-logout">Your portal session has ended. The university login may still know you.</p>
</body></html>
EOF

    cat > "$sp_dir/shibd.logger" <<EOF
log4j.rootCategory=INFO, shibd_log
log4j.category.Shibboleth-TRANSACTION=INFO, tran_log
log4j.additivity.Shibboleth-TRANSACTION=false
log4j.appender.shibd_log=org.apache.log4j.FileAppender
log4j.appender.shibd_log.fileName=$dir/log/shibd.log
log4j.appender.shibd_log.layout=org.apache.log4j.PatternLayout
log4j.appender.shibd_log.layout.ConversionPattern=%d{%Y-%m-%d %H:%M:%S} %p %c %x: %m%n
log4j.appender.tran_log=org.apache.log4j.FileAppender
log4j.appender.tran_log.fileName=$dir/log/shibd-transaction.log
log4j.appender.tran_log.layout=org.apache.log4j.PatternLayout
log4j.appender.tran_log.layout.ConversionPattern=%d{%Y-%m-%d %H:%M:%S}|%c|%m%n
EOF
    # mod_shib logs through Apache's child processes, into Apache's error log.
    cat > "$sp_dir/native.logger" <<EOF
log4j.rootCategory=WARN, native_log
log4j.appender.native_log=org.apache.log4j.ConsoleAppender
log4j.appender.native_log.layout=org.apache.log4j.PatternLayout
log4j.appender.native_log.layout.ConversionPattern=mod_shib %p %c %x: %m%n
EOF

    local user_lines=""
    if [ "$(id -u)" -eq 0 ]; then
        # Apache refuses to serve as root: its children run as daemon, which may read the
        # portal's files and reach shibd's socket, not the keys or LLNG's sessions.
        user_lines=$'User daemon\nGroup daemon'
    fi
    cat > "$sp_dir/apache2.conf" <<EOF
# Apache 2.4 for the unitool interop peer (interop-lemonldap.sh): the portal behind mod_shib.
ServerRoot "$sp_dir"
PidFile "$dir/apache2.pid"
DefaultRuntimeDir "$sp_dir/run"
Mutex file:$sp_dir/run default
Listen 127.0.0.1:$sp_port
ServerName 127.0.0.1:$sp_port
UseCanonicalName On
$user_lines

LoadModule mpm_prefork_module $apache_modules/mod_mpm_prefork.so
LoadModule authn_core_module $apache_modules/mod_authn_core.so
LoadModule authz_core_module $apache_modules/mod_authz_core.so
LoadModule mime_module $apache_modules/mod_mime.so
LoadModule alias_module $apache_modules/mod_alias.so
LoadModule dir_module $apache_modules/mod_dir.so
LoadModule cgi_module $apache_modules/mod_cgi.so
LoadModule mod_shib $apache_modules/mod_shib.so

StartServers 2
MinSpareServers 1
MaxSpareServers 4
MaxRequestWorkers 16
Timeout 30
KeepAlive On

ErrorLog "$dir/log/apache2-error.log"
LogLevel warn
LogFormat "%h %l %u %t \"%r\" %>s %b" common
CustomLog "$dir/log/apache2-access.log" common
TypesConfig /dev/null
AddType text/html .html
AddDefaultCharset utf-8

ShibConfig "$sp_dir/shibboleth2.xml"
ShibCompatValidUser Off

DocumentRoot "$sp_dir/htdocs"
DirectoryIndex index.html
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "$sp_dir/htdocs">
    Require all granted
</Directory>

<Location /Shibboleth.sso>
    SetHandler shib
    Require all granted
</Location>

ScriptAlias /portal "$sp_dir/cgi/portal.cgi"
<Directory "$sp_dir/cgi">
    Options +ExecCGI
    Require all granted
</Directory>
<Location /portal>
    AuthType shibboleth
    ShibRequestSetting requireSession 1
    ShibUseEnvironment On
    ShibUseHeaders Off
    Require valid-user
</Location>
EOF
}

start_all() {
    local dir=$1 idp_port=$2 sp_port=$3 i
    local f
    for f in /usr/share/perl5/Lemonldap/NG/Portal/Main.pm /usr/bin/starman /usr/sbin/apache2 \
        "$apache_modules/mod_shib.so" /usr/sbin/shibd "$app_dir/idp.psgi" "$app_dir/portal.cgi"; do
        if [ ! -e "$f" ]; then
            echo "error: $f is missing (run Scripts/install-deps.sh: liblemonldap-ng-portal-perl liblasso-perl libconvert-base32-perl starman apache2-bin libapache2-mod-shib)" >&2
            exit 1
        fi
    done
    perl -MLasso -e 1 2>/dev/null || { echo "error: Perl's Lasso is missing (liblasso-perl)" >&2; exit 1; }
    perl -MConvert::Base32 -e 1 2>/dev/null || { echo "error: Perl's Convert::Base32 is missing (libconvert-base32-perl)" >&2; exit 1; }
    command -v openssl >/dev/null 2>&1 || { echo "error: openssl is not installed" >&2; exit 1; }
    command -v curl >/dev/null 2>&1 || { echo "error: curl is not installed" >&2; exit 1; }
    # A Unix socket's path is at most 107 bytes.
    if [ ${#dir} -gt 80 ]; then
        echo "error: DIR's path is too long for shibd's socket (at most 80 characters): $dir" >&2
        exit 2
    fi

    if [ -n "$(idp_pid "$dir")$(shibd_pid "$dir")$(apache_pid "$dir")" ]; then
        if [ "$(cat "$dir/ports" 2>/dev/null)" = "$idp_port $sp_port $mode" ] && answers "$idp_port" "$sp_port"; then
            exit 0 # already running here
        fi
        stop_all "$dir"
    fi
    local port
    for port in "$idp_port" "$sp_port"; do
        if [ -n "$(status_of "$port" /)" ]; then
            echo "error: something else already answers on 127.0.0.1:$port" >&2
            exit 1
        fi
    done

    # Key pairs for the IdP and the SP and rtyler's TOTP secret, kept if DIR already has them.
    mkdir -p "$dir/idp" "$dir/sp" "$dir/log"
    local who
    for who in idp sp; do
        if [ ! -s "$dir/$who/$who.key" ] || [ ! -s "$dir/$who/$who.crt" ]; then
            openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
                -subj "/CN=unitool interop $who" \
                -keyout "$dir/$who/$who.key" -out "$dir/$who/$who.crt" >/dev/null 2>&1
        fi
        chmod 600 "$dir/$who/$who.key"
    done
    if ! grep -qE '^[A-Z2-7]{32}$' "$dir/totp-secret" 2>/dev/null; then
        (umask 077; openssl rand 20 | base32 | tr -d '=\n' > "$dir/totp-secret"; echo >> "$dir/totp-secret")
    fi
    chmod 600 "$dir/totp-secret"

    write_sp_config "$dir" "$idp_port" "$sp_port"
    write_idp_config "$dir" "$idp_port" "$sp_port"
    write_totp_device "$dir" "$(tr -d '\n' < "$dir/totp-secret")"
    local listen="127.0.0.1:$idp_port" tls=()
    if [ "$mode" = webauthn ]; then
        perl -MAuthen::WebAuthn -e 1 2>/dev/null || { echo "error: Perl's Authen::WebAuthn is missing (libauthen-webauthn-perl)" >&2; exit 1; }
        if [ ! -s "$dir/idp/tls.key" ] || [ ! -s "$dir/idp/tls.crt" ]; then
            openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=localhost" \
                -addext "subjectAltName=DNS:localhost" -keyout "$dir/idp/tls.key" -out "$dir/idp/tls.crt" >/dev/null 2>"$dir/log/openssl.err" || {
                echo "error: openssl could not make the IdP's TLS certificate:" >&2
                cat "$dir/log/openssl.err" >&2
                exit 1
            }
        fi
        write_webauthn_device "$dir"
        listen="$listen:ssl"
        tls=(--ssl-cert "$dir/idp/tls.crt" --ssl-key "$dir/idp/tls.key")
    fi
    echo "$idp_port $sp_port $mode" > "$dir/ports"

    # 1. LemonLDAP::NG's portal under Starman.
    LLNG_DEFAULTCONFFILE="$dir/idp/lemonldap-ng.ini" \
        starman --listen "$listen" "${tls[@]}" --workers 2 --preload-app \
        "$app_dir/idp.psgi" </dev/null >>"$dir/log/idp.log" 2>&1 &
    echo $! > "$dir/idp.pid"
    local code
    for i in $(seq 1 300); do
        code=$(idp_status "$idp_port" /saml/metadata)
        [ "$code" = 200 ] && break
        if [ -n "$code" ]; then
            echo "error: LemonLDAP::NG on 127.0.0.1:$idp_port answers $code for its SAML metadata; $dir/log/idp.log ends:" >&2
            grep -v 'Use of uninitialized value' "$dir/log/idp.log" | tail -n 15 >&2
            stop_all "$dir"
            exit 1
        fi
        if ! kill -0 "$(cat "$dir/idp.pid")" 2>/dev/null; then
            echo "error: LemonLDAP::NG (starman on 127.0.0.1:$idp_port) exited; $dir/log/idp.log ends:" >&2
            tail -n 15 "$dir/log/idp.log" >&2
            stop_all "$dir"
            exit 1
        fi
        sleep 0.1
    done
    local scheme=http
    [ "$mode" = webauthn ] && scheme=https
    if ! curl -fsSk -o "$dir/sp/idp-metadata.xml" "$scheme://127.0.0.1:$idp_port/saml/metadata"; then
        echo "error: LemonLDAP::NG on 127.0.0.1:$idp_port gave no SAML metadata in 30 s; $dir/log/idp.log ends:" >&2
        tail -n 15 "$dir/log/idp.log" >&2
        stop_all "$dir"
        exit 1
    fi

    # 2. shibd, then Apache with mod_shib. The SHIBSP_* variables keep both away from
    # /etc/shibboleth, /var/run/shibboleth and /var/log/shibboleth.
    export SHIBSP_CFGDIR="$dir/sp" SHIBSP_RUNDIR="$dir/sp/run" SHIBSP_LOGDIR="$dir/log" \
        SHIBSP_CACHEDIR="$dir/sp/run" SHIBSP_CONFIG="$dir/sp/shibboleth2.xml"
    rm -f "$dir/sp/run/shibd.sock"
    SHIBSP_LOGGING="$dir/sp/shibd.logger" \
        shibd -F -f -c "$dir/sp/shibboleth2.xml" -p "$dir/shibd.pid" -w 30 \
        </dev/null >>"$dir/log/shibd.out" 2>&1 &
    echo $! > "$dir/shibd.pid"
    for i in $(seq 1 300); do
        [ -S "$dir/sp/run/shibd.sock" ] && break
        if ! kill -0 "$(cat "$dir/shibd.pid")" 2>/dev/null; then
            echo "error: shibd exited; $dir/log/shibd.out and shibd.log end:" >&2
            tail -n 10 "$dir/log/shibd.out" "$dir/log/shibd.log" >&2 2>/dev/null || true
            stop_all "$dir"
            exit 1
        fi
        sleep 0.1
    done
    if [ "$(id -u)" -eq 0 ]; then
        # Apache's children (daemon) reach the socket through these folders only.
        chmod 711 "$dir" "$dir/sp" "$dir/sp/run"
        chmod 755 "$dir/sp/cgi" "$dir/sp/htdocs"
        chmod 644 "$dir/sp/htdocs/index.html" "$dir/sp/shibboleth2.xml" "$dir/sp/attribute-map.xml" \
            "$dir/sp/protocols.xml" "$dir/sp/security-policy.xml" "$dir/sp/idp-metadata.xml" \
            "$dir/sp/sessionError.html" "$dir/sp/localLogout.html" "$dir/sp/native.logger"
        chmod 777 "$dir/sp/run/shibd.sock"
    fi

    SHIBSP_LOGGING="$dir/sp/native.logger" \
        /usr/sbin/apache2 -f "$dir/sp/apache2.conf" -k start </dev/null >>"$dir/log/apache2.out" 2>&1 || {
        echo "error: apache2 did not start; $dir/log/apache2.out and apache2-error.log end:" >&2
        tail -n 10 "$dir/log/apache2.out" "$dir/log/apache2-error.log" >&2 2>/dev/null || true
        stop_all "$dir"
        exit 1
    }
    for i in $(seq 1 300); do
        if answers "$idp_port" "$sp_port"; then
            exit 0
        fi
        sleep 0.1
    done
    echo "error: the portal on 127.0.0.1:$sp_port did not redirect to the IdP within 30 s; logs in $dir/log" >&2
    tail -n 10 "$dir/log/apache2-error.log" "$dir/log/shibd.log" >&2 2>/dev/null || true
    stop_all "$dir"
    exit 1
}

[ $# -ge 2 ] || usage
mode=plain
command=$1
dir=$2
case "$command" in
    start)
        [ $# -eq 4 ] || [ $# -eq 5 ] || usage
        mode=${5:-plain}
        [ "$mode" = plain ] || [ "$mode" = webauthn ] || usage
        for port in "$3" "$4"; do
            [[ $port =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || { echo "error: bad port: $port" >&2; exit 2; }
        done
        [ "$3" != "$4" ] || { echo "error: the IdP and the SP need two ports" >&2; exit 2; }
        (umask 077; mkdir -p "$dir")
        dir=$(cd "$dir" && pwd -P)
        case "$dir" in *[\'\"\\\ \$\`\<\>\&]*) echo "error: DIR must not contain spaces, quotes, \\, \$, \`, <, > or &: $dir" >&2; exit 2 ;; esac
        umask 077
        start_all "$dir" "$3" "$4"
        ;;
    stop)
        [ $# -eq 2 ] || usage
        [ -d "$dir" ] || exit 0
        dir=$(cd "$dir" && pwd -P)
        stop_all "$dir"
        ;;
    *)
        usage
        ;;
esac
