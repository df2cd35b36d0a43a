"""A small portal behind CAS, as a university puts one behind its CAS server: Flask, with
python-cas's CASClient as the CAS client (protocol 3). Test material for
Scripts/interop-djangocas.sh.

    /           the home page: the user's name, a link to the grades, a logout link
    /grades     a table of the user's grades (grades.json beside this file)
    /logout     ends the portal's session and the CAS server's (CAS /logout?service=)

A request without a session goes to CAS /login?service=<this address>; the CAS server comes back
with ?ticket=ST-…, which is validated (/p3/serviceValidate) before the session is kept and the
ticket taken off the address.

    python portal.py PORT CAS_URL
"""
import html
import json
import os
import secrets
import sys
from pathlib import Path

from cas import CASClient
from flask import Flask, redirect, request, session

PORT = int(sys.argv[1])
CAS_URL = sys.argv[2].rstrip("/") + "/"
ORIGIN = f"http://127.0.0.1:{PORT}"
GRADES = json.loads((Path(__file__).parent / "grades.json").read_text(encoding="utf-8"))

app = Flask(__name__)
app.secret_key = secrets.token_bytes(32)
app.config["SESSION_COOKIE_NAME"] = "portal_session"


def cas(service):
    return CASClient(version=3, service_url=service, server_url=CAS_URL)


def page(title, body):
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)} – Campus Portal</title></head><body>"
        "<header><a href=\"/\">Campus Portal</a> · <a href=\"/grades\">Grades</a> · "
        f"<a id=\"logout\" href=\"/logout\">Log out {html.escape(session['user'])}</a></header>"
        f"<main><h1>{html.escape(title)}</h1>{body}</main></body></html>"
    )


@app.before_request
def sign_in():
    """Every page but /logout needs the CAS login: with a ticket, validate it; without a
    session, go to the CAS server."""
    if request.path == "/logout" or "user" in session:
        return None
    service = ORIGIN + request.path
    ticket = request.args.get("ticket")
    if ticket:
        user, _attributes, _pgtiou = cas(service).verify_ticket(ticket)
        if user:
            session["user"] = user
            return redirect(request.path)
        return ("The CAS ticket was not valid.", 403)
    return redirect(cas(service).get_login_url())


@app.get("/")
def home():
    return page("Welcome", f"<p>Signed in as {html.escape(session['user'])}.</p><p><a href=\"/grades\">Your grades</a></p>")


@app.get("/grades")
def grades():
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(record[key]))}</td>" for key in ("term", "course", "code", "credits", "grade")) + "</tr>"
        for record in GRADES.get(session["user"], [])
    )
    table = (
        "<table id=\"grades\"><thead><tr><th>Term</th><th>Course</th><th>Code</th><th>Credits</th><th>Grade</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    return page("Grades", table)


@app.get("/logout")
def logout():
    session.clear()
    return redirect(cas(ORIGIN + "/").get_logout_url(ORIGIN + "/"))


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=PORT, threaded=True, use_reloader=False)
