"""A small portal behind CAS, as a university puts one behind its CAS server: Flask, with
python-cas's CASClient as the CAS client (protocol 3). Test material for
Scripts/interop-djangocas.sh.

    /           the home page: the user's name, a link to the grades, a logout link
    /grades     a table of the user's grades (grades.json beside this file)
    /loans      the user's loans (loans.json beside this file), a renew form on each row: a POST
                that moves the due date by 14 days, at most twice, as a library's portal does
    /unregistered/grades
                the grades again, at an address the CAS server's service pattern leaves out
                (cas_setup.py): a service nobody registered, which CAS refuses a ticket
    /staff/grades
                the grades again, at an address CAS lets only mlee into (cas_setup.py)
    /logout     ends the portal's session and the CAS server's (CAS /logout?service=)
    POST /test/forget-sessions
                forgets every portal session (a new secret key signs the session cookies), as
                a portal restarted or expired does; the CAS server's session stays. Test-only.

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
from datetime import date, timedelta
from pathlib import Path

from cas import CASClient
from flask import Flask, redirect, request, session

PORT = int(sys.argv[1])
CAS_URL = sys.argv[2].rstrip("/") + "/"
ORIGIN = f"http://127.0.0.1:{PORT}"
GRADES = json.loads((Path(__file__).parent / "grades.json").read_text(encoding="utf-8"))
# Each run starts from the file; renewals change only this copy.
LOANS = json.loads((Path(__file__).parent / "loans.json").read_text(encoding="utf-8"))
MAX_RENEWALS = 2

app = Flask(__name__)
app.secret_key = secrets.token_bytes(32)
app.config["SESSION_COOKIE_NAME"] = "portal_session"


def cas(service):
    return CASClient(version=3, service_url=service, server_url=CAS_URL)


def page(title, body):
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)} – Campus Portal</title></head><body>"
        "<header><a href=\"/\">Campus Portal</a> · <a href=\"/grades\">Grades</a> · <a href=\"/loans\">Loans</a> · "
        f"<a id=\"logout\" href=\"/logout\">Log out {html.escape(session['user'])}</a></header>"
        f"<main><h1>{html.escape(title)}</h1>{body}</main></body></html>"
    )


@app.before_request
def sign_in():
    """Every page but /logout needs the CAS login: with a ticket, validate it; without a
    session, go to the CAS server."""
    if request.path in ("/logout", "/test/forget-sessions") or "user" in session:
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
@app.get("/unregistered/grades")
@app.get("/staff/grades")
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


def loans_page(notice=""):
    """The loans table; each row's renew form carries the session's token, as Django's and
    Koha's do, so that only this page can renew."""
    token = session.setdefault("csrf", secrets.token_urlsafe(16))
    rows = "".join(
        f"<tr><td class=\"barcode\">{html.escape(loan['barcode'])}</td><td class=\"title\">{html.escape(loan['title'])}</td>"
        f"<td class=\"due\">{html.escape(loan['due'])}</td><td class=\"renewals\">{loan['renewals']}</td><td>"
        "<form method=\"post\" action=\"/loans/renew\">"
        f"<input type=\"hidden\" name=\"csrf\" value=\"{token}\">"
        f"<input type=\"hidden\" name=\"barcode\" value=\"{html.escape(loan['barcode'])}\">"
        "<button type=\"submit\">Renew</button></form></td></tr>"
        for loan in LOANS.get(session["user"], [])
    )
    table = (
        "<table id=\"loans\"><thead><tr><th>Barcode</th><th>Title</th><th>Due</th><th>Renewals</th><th></th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    return page("Loans", notice + table)


@app.get("/loans")
def loans():
    return loans_page()


@app.post("/loans/renew")
def renew():
    if request.form.get("csrf") != session.get("csrf"):
        return ("The form has expired; open the loans page again.", 400)
    loan = next((item for item in LOANS.get(session["user"], []) if item["barcode"] == request.form.get("barcode")), None)
    if loan is None:
        return loans_page("<p id=\"refused\">No such loan.</p>")
    if loan["renewals"] >= MAX_RENEWALS:
        return loans_page(f"<p id=\"refused\">{html.escape(loan['title'])} cannot be renewed again.</p>")
    loan["due"] = (date.fromisoformat(loan["due"]) + timedelta(days=14)).isoformat()
    loan["renewals"] += 1
    return loans_page(f"<p id=\"renewed\">Renewed {html.escape(loan['title'])}: now due <strong>{loan['due']}</strong>.</p>")


@app.post("/test/forget-sessions")
def forget_sessions():
    app.secret_key = secrets.token_bytes(32)
    return ("", 204)


@app.get("/logout")
def logout():
    session.clear()
    return redirect(cas(ORIGIN + "/").get_logout_url(ORIGIN + "/"))


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=PORT, threaded=True, use_reloader=False)
