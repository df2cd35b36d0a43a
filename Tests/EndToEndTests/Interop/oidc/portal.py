"""A small portal behind an OpenID Connect provider, as a university puts one behind its OP:
Flask, with Authlib's Flask client as the relying party (authorization-code flow). Authlib keeps
the login's state (state, nonce, redirect address) in Flask's session, which is a signed cookie:
a second request sent to the login while the first is under way gets a new cookie that no longer
holds the first one's state. Test material for Scripts/interop-oidc.sh.

    /                   the home page: the user's name, a link to the grades, a logout link
                        (a#logout)
    /grades             a table of the user's grades (grades.json beside this file)
    /api/terms          the terms of use's version, as JSON ({"version", "url"}), behind the login
    /terms              the terms' text (public)
    /auth/callback      the OP's answer (GET with response_mode=query, POST with form_post)
    /logout             ends the portal's session
    /test/forget-sessions   (POST, test only) a new secret key: every portal session cookie
                        handed out so far is no longer valid, as when the portal's sessions expire

A request without a session goes to the OP's authorization endpoint. The response mode is the
portal's (`--response-mode`), or a path's: under /form-post/ and /query/ the same pages are
served with that mode (/form-post/grades, /query/grades). Under /fresh-login/ the OP is asked to
authenticate again (prompt=login), under /max-age/ if the last login is older than an hour
(max_age=3600).

    python portal.py PORT OP_ISSUER CLIENT_SECRET [--response-mode query|form_post]
"""
import html
import json
import secrets
import sys
from pathlib import Path

from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.flask_client import OAuth
from flask import Flask, jsonify, redirect, request, session

PORT = int(sys.argv[1])
ISSUER = sys.argv[2].rstrip("/")
CLIENT_SECRET = sys.argv[3]
DEFAULT_MODE = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--response-mode" else "query"
ORIGIN = f"http://127.0.0.1:{PORT}"
GRADES = json.loads((Path(__file__).parent / "grades.json").read_text(encoding="utf-8"))
TERMS_VERSION = "2026-09"
# The path prefixes that choose how the OP is asked, and what they ask.
PREFIXES = {
    "/form-post": {"response_mode": "form_post"},
    "/query": {"response_mode": "query"},
    "/fresh-login": {"prompt": "login"},
    "/max-age": {"max_age": "3600"},
}

app = Flask(__name__)
app.secret_key = secrets.token_bytes(32)
app.config["SESSION_COOKIE_NAME"] = "portal_session"

oauth = OAuth(app)
oauth.register(
    "op",
    client_id="portal",
    client_secret=CLIENT_SECRET,
    server_metadata_url=ISSUER + "/.well-known/openid-configuration",
    client_kwargs={"scope": "openid"},
)


def split_prefix(path):
    """The prefix of PREFIXES the path starts with (or "") and the rest of it."""
    for prefix in PREFIXES:
        if path == prefix or path.startswith(prefix + "/"):
            return prefix, path[len(prefix):] or "/"
    return "", path


def page(title, body, status=200):
    user = session.get("user")
    header = "<header><a href=\"/\">Campus Portal</a> · <a href=\"/grades\">Grades</a>"
    if user:
        header += f" · <a id=\"logout\" href=\"/logout\">Log out {html.escape(user)}</a>"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)} – Campus Portal</title></head><body>{header}</header>"
        f"<main><h1>{html.escape(title)}</h1>{body}</main></body></html>",
        status,
    )


@app.before_request
def sign_in():
    """Every page but the callback, the terms' text, /logout and the test hook needs the login:
    without a session, go to the OP, remembering where to come back to."""
    if request.path in ("/auth/callback", "/logout", "/terms", "/test/forget-sessions") or "user" in session:
        return None
    prefix, _ = split_prefix(request.path)
    options = {"response_mode": DEFAULT_MODE}
    options.update(PREFIXES.get(prefix, {}))
    if options["response_mode"] == "query":
        del options["response_mode"]  # the code flow's default, as most RPs send it
    session["next"] = request.full_path.rstrip("?")
    return oauth.op.authorize_redirect(ORIGIN + "/auth/callback", **options)


@app.route("/auth/callback", methods=["GET", "POST"])
def callback():
    try:
        token = oauth.op.authorize_access_token()
    except OAuthError as error:
        return page("Sign-in failed", f"<p id=\"error\">{html.escape(error.error or '')}: {html.escape(error.description or '')}</p>", 400)
    session["user"] = token["userinfo"]["sub"]
    return redirect(session.pop("next", "/"))


def home():
    return page("Welcome", f"<p>Signed in as <span id=\"user\">{html.escape(session['user'])}</span>.</p><p><a href=\"/grades\">Your grades</a></p>")


def grades():
    rows = "".join(
        "<tr>" + "".join(f"<td class=\"{key}\">{html.escape(str(record[key]))}</td>" for key in ("term", "course", "code", "credits", "grade")) + "</tr>"
        for record in GRADES.get(session["user"], [])
    )
    table = (
        "<table id=\"grades\"><thead><tr><th>Term</th><th>Course</th><th>Code</th><th>Credits</th><th>Grade</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    return page("Grades", table)


def terms_api():
    return jsonify({"version": TERMS_VERSION, "url": ORIGIN + "/terms"})


PAGES = {"/": home, "/grades": grades, "/api/terms": terms_api}


@app.get("/terms")
def terms():
    return page("Terms of use", f"<div id=\"terms\"><p>Version {TERMS_VERSION}.</p><p>Use the portal for your studies.</p></div>")


@app.get("/")
@app.get("/<path:path>")
def any_page(path=""):
    _, rest = split_prefix("/" + path)
    view = PAGES.get(rest)
    if view is None:
        return page("Not found", "<p>No such page.</p>", 404)
    return view()


@app.get("/logout")
def logout():
    session.clear()
    return redirect("/")


@app.post("/test/forget-sessions")
def forget_sessions():
    """Test only: a new secret key, so that no portal session cookie handed out so far is
    accepted (the OP's session is untouched)."""
    app.secret_key = secrets.token_bytes(32)
    return ("", 204)


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=PORT, threaded=True, use_reloader=False)
