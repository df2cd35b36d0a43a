"""The demo's SAML login and one grades page with requests + lxml, as a hand-written script would
do it. With --cookies FILE the session is saved and reused, like unitool's. Prints JSON."""
import argparse, json, os, pickle, sys, time
import lxml.html
import requests

def form_fields(form):
    fields = {}
    for element in form.xpath(".//input[@name]"):
        kind = (element.get("type") or "text").lower()
        if kind in ("submit", "button", "image") or (kind in ("checkbox", "radio") and element.get("checked") is None):
            continue
        fields[element.get("name")] = element.get("value") or ""
    return fields

def submit(session, page, form, extra, button=None):
    fields = form_fields(form)
    fields.update(extra)
    if button is not None:
        fields[button] = ""
    target = requests.compat.urljoin(page.url, form.get("action") or page.url)
    return session.post(target, data=fields)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("--user", default="alice")
    parser.add_argument("--password", default="wonderland")
    parser.add_argument("--cookies")
    args = parser.parse_args()
    session = requests.Session()
    if args.cookies and os.path.exists(args.cookies):
        session.cookies.update(pickle.load(open(args.cookies, "rb")))
    count = 0
    start = time.perf_counter()
    page = session.get(args.base + "/grades?term=2026-spring")
    count += len(page.history) + 1
    for _ in range(10):
        document = lxml.html.fromstring(page.content)
        if document.xpath("//table[@id='grades']"):
            break
        if (form := (document.xpath("//form[@id='login-id']") or [None])[0]) is not None:
            page = submit(session, page, form, {"j_username": args.user}, "_eventId_proceed")
        elif (form := (document.xpath("//form[@id='login-password']") or [None])[0]) is not None:
            page = submit(session, page, form, {"j_password": args.password}, "_eventId_proceed")
        elif (form := (document.xpath("//form[.//input[@name='SAMLResponse']]") or [None])[0]) is not None:
            page = submit(session, page, form, {})
        else:
            sys.exit("unknown page: " + page.url)
        count += len(page.history) + 1
    rows = lxml.html.fromstring(page.content).xpath("//table[@id='grades']/tbody/tr")
    seconds = time.perf_counter() - start
    if args.cookies:
        pickle.dump(session.cookies, open(args.cookies, "wb"))
    print(json.dumps({"seconds": seconds, "requests": count, "records": len(rows)}))

if __name__ == "__main__":
    main()
