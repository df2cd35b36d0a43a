#!/usr/bin/env bash
# Walks the LemonLDAP::NG + Shibboleth SP peer (Scripts/interop-lemonldap.sh) as a browser would,
# with curl and a cookie jar: the portal's redirect to LLNG, LLNG's login form, a wrong password,
# the right one, the SAML auto-POST back to the SP, the grades page; a TOTP user; a second visit
# with the IdP's session only (no password); LLNG's answer to a JSON client.
#
#   check.sh DIR [SAVE]   DIR is the one given to `interop-lemonldap.sh start`; with SAVE (a
#                         folder), the raw pages are written there (pages/*.html in this folder
#                         were made so). Prints one line per step, "N passed, N failed" last,
#                         and exits non-zero on any failure.
#
# Needs curl, oathtool (or python3) and perl (for HTML form fields).
set -uo pipefail

dir=${1:?usage: check.sh DIR [SAVE]}
save=${2:-}
read -r idp_port sp_port < "$dir/ports" || { echo "error: $dir/ports is missing: is the peer running?" >&2; exit 2; }
idp="http://127.0.0.1:$idp_port"
sp="http://127.0.0.1:$sp_port"
work=$(mktemp -d "$dir/check.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -n "$save" ] && mkdir -p "$save"

browser_accept='Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
user_agent='User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'
passed=0
failed=0

ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# request JAR METHOD URL [curl args...]: one request, no redirect followed. Sets $status, $location,
# $ctype; the body is in $work/body, the headers in $work/headers.
request() {
    local jar=$1 method=$2 url=$3
    shift 3
    local out
    out=$(curl -sS -X "$method" -o "$work/body" -D "$work/headers" -c "$jar" -b "$jar" \
        -H "$browser_accept" -H "$user_agent" -H 'Accept-Language: en' \
        -w '%{http_code}|%{content_type}|%{redirect_url}' "$@" "$url") || { status=000; location=; ctype=; return 1; }
    IFS='|' read -r status ctype location <<< "$out"
    return 0
}

# follow JAR: follows Location headers with GET (as a browser does after a 302/303), at most 10.
follow() {
    local jar=$1 i
    for i in $(seq 1 10); do
        case "$status" in
            301|302|303|307) [ -n "$location" ] || return 0; current=$location; request "$jar" GET "$location" ;;
            *) return 0 ;;
        esac
    done
}

keep() { # keep NAME: saves the last body as SAVE/NAME
    [ -n "$save" ] && cp "$work/body" "$save/$1"
    return 0
}

# field NAME: the value of the input named NAME in the last body (HTML-unescaped).
field() {
    perl -0777 -ne '
        BEGIN { $n = quotemeta shift @ARGV }
        while (/<input\b([^>]*)>/gis) {
            my $a = $1;
            next unless $a =~ /\bname\s*=\s*"$n"/i;
            my ($v) = $a =~ /\bvalue\s*=\s*"([^"]*)"/i;
            $v //= "";
            $v =~ s/&quot;/"/g; $v =~ s/&lt;/</g; $v =~ s/&gt;/>/g; $v =~ s/&#39;/\x27/g; $v =~ s/&amp;/&/g;
            print $v; exit;
        }' "$1" "$work/body"
}

# form_action: the action of the first form in the last body, resolved against $current.
form_action() {
    local action
    action=$(perl -0777 -ne 'if (/<form\b[^>]*\baction\s*=\s*"([^"]*)"/is) { my $a = $1; $a =~ s/&amp;/&/g; print $a }' "$work/body")
    case "$action" in
        ''|'#'*) echo "${current%%#*}" ;;
        http://*|https://*) echo "$action" ;;
        /*) echo "${current%%://*}://$(echo "${current#*://}" | cut -d/ -f1)$action" ;;
        *) echo "${current%/*}/$action" ;;
    esac
}

totp_code() {
    local secret
    secret=$(tr -d '\n' < "$dir/totp-secret")
    if command -v oathtool >/dev/null 2>&1; then
        oathtool --totp -b "$secret"
    else
        python3 -c 'import base64,hmac,hashlib,struct,sys,time
k=base64.b32decode(sys.argv[1]); h=hmac.new(k,struct.pack(">Q",int(time.time())//30),hashlib.sha1).digest()
o=h[-1]&15; print("%06d"%((struct.unpack(">I",h[o:o+4])[0]&0x7fffffff)%1000000))' "$secret"
    fi
}

# post_login JAR USER PASSWORD: posts LLNG's login form (the last body) with its hidden fields.
post_login() {
    local jar=$1 user=$2 password=$3 target
    target=$(form_action)
    request "$jar" POST "$target" -H "Origin: $idp" -H "Referer: $current" \
        --data-urlencode "url=$(field url)" --data-urlencode "timezone=0" \
        --data-urlencode "skin=$(field skin)" --data-urlencode "token=$(field token)" \
        --data-urlencode "user=$user" --data-urlencode "password=$password"
    current=$target
}

# post_saml JAR: posts the SAML auto-POST form (the last body) to the SP, then follows redirects.
post_saml() {
    local jar=$1 target
    target=$(form_action)
    request "$jar" POST "$target" -H "Origin: $idp" -H "Referer: $idp/" \
        --data-urlencode "SAMLResponse=$(field SAMLResponse)" --data-urlencode "RelayState=$(field RelayState)"
    current=$target
    follow "$jar"
}

is_login_page() { grep -q 'id="lform"' "$work/body" && grep -q 'name="password"' "$work/body"; }
is_saml_post() { grep -q 'name="SAMLResponse"' "$work/body"; }
is_grades() { grep -q 'id="grades"' "$work/body"; }

# 1. dwho: portal -> LLNG login -> wrong password -> right password -> SAML POST -> grades.
jar1=$work/jar1
current="$sp/portal/grades"
request "$jar1" GET "$current"
if [ "$status" = 302 ] && [[ $location == "$idp/saml/singleSignOn?SAMLRequest="* ]]; then
    ok "the portal redirects to LLNG's SSO endpoint (HTTP-Redirect binding)"
else
    fail "GET /portal/grades: expected a 302 to $idp/saml/singleSignOn, got $status $location"
fi
follow "$jar1"
keep login.html
if [ "$status" = 200 ] && is_login_page && [ -n "$(field token)" ]; then
    ok "LLNG shows its login form (token $(field token), url $(field url), skin $(field skin))"
else
    fail "expected LLNG's login form, got $status $ctype at $current"
fi

used_token=$(field token)
login_page_url=$current
post_login "$jar1" dwho not-the-password
keep login-error.html
if [ "$status" = 200 ] && is_login_page && grep -q 'class="message message-negative alert"' "$work/body" \
    && grep -q 'trmsg="5"' "$work/body"; then
    ok "a wrong password gives the login form again with the error div (trmsg 5: Wrong credentials)"
else
    fail "wrong password: expected the login form with message-negative trmsg=5, got $status"
fi

# The token is for one POST only (and 120 s, LLNG's formTimeout): sent again, it is refused.
cp "$work/body" "$work/error-page"
request "$jar1" POST "$login_page_url" -H "Origin: $idp" -H "Referer: $login_page_url" \
    --data-urlencode "url=$(field url)" --data-urlencode "timezone=0" --data-urlencode "skin=bootstrap" \
    --data-urlencode "token=$used_token" --data-urlencode "user=dwho" --data-urlencode "password=dwho"
keep login-token-reused.html
if [ "$status" = 200 ] && is_login_page && grep -q 'trmsg="82"' "$work/body"; then
    ok "a token already used gives the login form with trmsg 82 (Exceeded authentication timeout)"
else
    fail "a reused token: expected the login form with trmsg=82, got $status"
fi

post_login "$jar1" dwho dwho
keep saml-post.html
if [ "$status" = 200 ] && is_saml_post && [ "$(form_action)" = "$sp/Shibboleth.sso/SAML2/POST" ]; then
    ok "the right password gives the SAML auto-POST form to $(form_action)"
else
    fail "right password: expected the SAML POST form, got $status $ctype"
fi
post_saml "$jar1"
keep grades-dwho.html
if [ "$status" = 200 ] && is_grades && grep -q 'Doctor Who' "$work/body"; then
    ok "the SP takes the assertion and shows dwho's grades (cn Doctor Who)"
else
    fail "after the SAML POST: expected the grades page, got $status at $current"
fi

current="$sp/portal/api/terms"
request "$jar1" GET "$current" -H 'Accept: application/json'
keep terms-api.json
if [ "$status" = 200 ] && grep -q '"version":"2026-04"' "$work/body"; then
    ok "the terms API answers JSON behind the SSO: $(cat "$work/body")"
else
    fail "GET /portal/api/terms with the SP session: got $status $ctype"
fi

# LLNG's own portal with its session: the menu page, and {"result":1} for a JSON client.
current="$idp/"
request "$jar1" GET "$current"
keep idp-menu.html
if [ "$status" = 200 ] && grep -q 'id="menu"' "$work/body"; then
    ok "LLNG's portal, with its session cookie, shows its menu page"
else
    fail "GET $idp/ with LLNG's session: expected the menu page, got $status"
fi
request "$jar1" GET "$current" -H 'Accept: application/json'
keep idp-json-session.json
if [ "$status" = 200 ] && grep -q '"result":1' "$work/body"; then
    ok "and answers a JSON client with $(cat "$work/body")"
else
    fail "GET $idp/ with LLNG's session and Accept: application/json: got $status $ctype"
fi

# 2. Dropping the SP's cookie: the next visit goes through LLNG with its session, no password.
grep -v '_shibsession_' "$jar1" > "$jar1.new" && mv "$jar1.new" "$jar1"
current="$sp/portal/grades"
request "$jar1" GET "$current"
follow "$jar1"
keep saml-post-sso.html
if [ "$status" = 200 ] && is_saml_post; then
    ok "with the SP's cookie gone, LLNG's session cookie alone gives the SAML POST form (no password)"
else
    fail "second visit: expected the SAML POST form straight away, got $status $ctype at $current"
fi
post_saml "$jar1"
if [ "$status" = 200 ] && is_grades; then
    ok "and the grades page again"
else
    fail "second visit: expected the grades page, got $status"
fi

# SP local logout: the SP's session ends, LLNG's stays.
current="$sp/Shibboleth.sso/Logout?return=$sp/"
request "$jar1" GET "$current"
follow "$jar1"
logout_status=$status
logout_page=$(grep -c 'id="signed-out"' "$work/body")
current="$sp/portal/grades"
request "$jar1" GET "$current"
if [ "$logout_status" = 200 ] && [ "$logout_page" = 1 ] && [ "$status" = 302 ] \
    && [[ $location == "$idp/saml/singleSignOn?"* ]]; then
    ok "/Shibboleth.sso/Logout?return=/ ends the SP session (public page; the portal asks LLNG again)"
else
    fail "SP logout: got $logout_status, then /portal/grades gave $status $location"
fi
follow "$jar1"
if [ "$status" = 200 ] && is_saml_post; then
    ok "LLNG's session outlived the SP's logout: SAML POST form with no password"
else
    fail "after the SP logout: expected LLNG's SAML POST form, got $status $ctype"
fi

# 3. rtyler: login -> TOTP form -> code -> SAML POST -> grades.
jar2=$work/jar2
current="$sp/portal/grades"
request "$jar2" GET "$current"
follow "$jar2"
post_login "$jar2" rtyler rtyler
keep totp.html
if [ "$status" = 200 ] && grep -q 'name="code"' "$work/body"; then
    ok "rtyler's password gives the TOTP form (action $(form_action | sed "s#$idp##"), token $(field token))"
else
    fail "rtyler: expected the TOTP form, got $status $ctype"
fi
totp_target=$(form_action)
totp_token=$(field token)
request "$jar2" POST "$totp_target" -H "Origin: $idp" -H "Referer: $current" \
    --data-urlencode "token=$totp_token" --data-urlencode "code=$(totp_code)"
current=$totp_target
follow "$jar2"
keep saml-post-totp.html
if [ "$status" = 200 ] && is_saml_post; then
    ok "the TOTP code gives the SAML POST form"
else
    fail "after the TOTP code: expected the SAML POST form, got $status $ctype"
fi
post_saml "$jar2"
if [ "$status" = 200 ] && is_grades && grep -q 'Rose Tyler' "$work/body"; then
    ok "and rtyler's grades"
else
    fail "rtyler: expected the grades page, got $status"
fi

# The pending SAML request is in LLNG's lemonldappdata cookie, not in the form: without it, the
# right password gives an error page (trmsg 51, SAML single sign-on error), no SAML POST.
jar5=$work/jar5
current="$sp/portal/grades"
request "$jar5" GET "$current"
follow "$jar5"
grep -v 'lemonldappdata' "$jar5" > "$jar5.new" && mv "$jar5.new" "$jar5"
post_login "$jar5" dwho dwho
keep login-without-pdata.html
if [ "$status" = 200 ] && ! is_saml_post && grep -q 'id="errorcontent"' "$work/body" && grep -q 'trmsg="51"' "$work/body"; then
    ok "without the lemonldappdata cookie, the right password gives LLNG's error page (trmsg 51), no SAML POST"
else
    fail "without lemonldappdata: expected the error page with trmsg=51, got $status"
fi

# A wrong TOTP code.
jar3=$work/jar3
current="$sp/portal/grades"
request "$jar3" GET "$current"
follow "$jar3"
post_login "$jar3" rtyler rtyler
totp_target=$(form_action)
request "$jar3" POST "$totp_target" -H "Origin: $idp" -H "Referer: $current" \
    --data-urlencode "token=$(field token)" --data-urlencode "code=000000"
current=$totp_target
follow "$jar3"
keep totp-error.html
if grep -q 'message-negative' "$work/body"; then
    ok "a wrong TOTP code gives an error page ($status, $(grep -o 'trmsg="[0-9]*"' "$work/body" | head -1))"
else
    fail "wrong TOTP code: expected an error, got $status $ctype"
fi

# 4. A JSON client at LLNG's portal: 401 and a JSON body.
jar4=$work/jar4
current="$idp/"
request "$jar4" GET "$current" -H 'Accept: application/json'
keep idp-json-401.json
if [ "$status" = 401 ] && [[ $ctype == application/json* ]]; then
    ok "LLNG answers a JSON Accept with 401 $ctype: $(cat "$work/body")"
else
    fail "GET $idp/ with Accept: application/json: expected 401 JSON, got $status $ctype"
fi
current="$sp/portal/api/terms"
request "$jar4" GET "$current" -H 'Accept: application/json'
current=$location
request "$jar4" GET "$current" -H 'Accept: application/json'
keep idp-sso-json-401.json
if [ "$status" = 401 ] && [[ $ctype == application/json* ]]; then
    ok "so does its SSO endpoint, reached from the terms API with Accept: application/json: $(cat "$work/body")"
else
    fail "the SSO endpoint with Accept: application/json: expected 401 JSON, got $status $ctype"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
