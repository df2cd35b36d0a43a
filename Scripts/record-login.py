#!/usr/bin/env python3
"""Records a login and a few page visits into a HAR file with a real browser, as a student's
DevTools "Save all as HAR" would: Debian's chromium driven by Playwright (PyPI, `playwright`,
never `playwright install`: the system browser is used).

It plays the person: on each page it does what a person would do there and nothing a recipe
tells it, because the point is a recording of the real pages, made without knowing them.
  - a form with a password field: the user name into the text field beside it (if any), the
    password, then the form's submit button;
  - a form with one text field named like a code (token, otp, code) or marked
    autocomplete=one-time-code: a TOTP code from --totp-secret;
  - a form with one text field: the user name;
  - a choice of radio buttons (attribute release): the one that does not remember the choice,
    or the first;
  - a page matching a --click selector (a "log in" link, "remind me later"): clicked.
Pages that post or move on by themselves (SAML POST, local storage, meta refresh) are waited for.
The login ends when --done matches; then each --then address is opened in turn, and each
--then-fill (`CSS=VALUE`: a field typed into) and --then-click (`CSS`: a link or button pressed, as
a person renews a loan or sends a form) is done where it stands among them, in the order given.
With --wrong the password given is a wrong one: the recording ends when the login page comes back
(with the portal's message) after it was sent, as a person's recording of one failed login does.

The password is read from standard input, never from the command line.

    printf 'wonderland' | record-login.py --start http://127.0.0.1:8080/home --user alice \\
        --done 'a#logout' --then /grades --har login.har
"""
import argparse
import base64
import hashlib
import hmac
import struct
import sys
import time
from urllib.parse import urljoin

from playwright.sync_api import sync_playwright

CODE_NAMES = ("token", "otp", "code")


def totp(secret, period=30, digits=6):
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = struct.pack(">Q", int(time.time()) // period)
    digest = hmac.new(key, counter, hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10 ** digits).zfill(digits)


def settled(page, done, clicks):
    """Whether the page waits for the person: it shows the done marker, something to click, or a
    form with a field to fill or a choice to make. A form of hidden fields only is posting itself."""
    try:
        if page.evaluate("document.readyState") != "complete":
            return False
        if page.locator(done).count():
            return True
        if any(page.locator(css).count() for css in clicks):
            return True
        return page.locator(
            "form input:visible:not([type=hidden]), form select:visible, form textarea:visible").count() > 0
    except Exception:
        # The page navigated away while it was looked at.
        return False


def wait_until_settled(page, done, clicks, seconds=15):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if settled(page, done, clicks):
            return
        page.wait_for_timeout(100)
    # The page's text, its control characters escaped: a page may echo what it was sent.
    shown = page.content()[:2000].encode("unicode_escape").decode("ascii")
    raise SystemExit(f"record-login: the page at {page.url} neither moved on nor asked for anything in {seconds} s:\n" + shown)


REFUSING = ("reject", "decline", "cancel", "deny", "abbrechen", "ablehnen", "refuser", "elutasít", "拒否")


def wait_until_still(page, seconds=15):
    """Waits until the page stays where it is: a service's sign-on passes through pages that post
    themselves (SAML) after their load event, which is all that goto() waits for."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            page.wait_for_load_state("networkidle")
            address = page.url
            page.wait_for_timeout(300)
            if page.url == address and page.evaluate("document.readyState") == "complete":
                return
        except Exception:
            # The page navigated away while it was looked at.
            continue
    raise SystemExit(f"record-login: {page.url} kept moving for {seconds} s")


def submit(page, form):
    """Presses the button a person would: the first that does not refuse (Reject, Cancel)."""
    buttons = form.locator("button[type=submit]:visible, input[type=submit]:visible, button:not([type]):visible")
    chosen = None
    for index in range(buttons.count()):
        button = buttons.nth(index)
        words = " ".join(filter(None, [button.inner_text() if button.evaluate("b => b.tagName") == "BUTTON" else "",
                                       button.get_attribute("value"), button.get_attribute("name")])).lower()
        if not any(word in words for word in REFUSING):
            chosen = button
            break
    with page.expect_navigation():
        if chosen is not None:
            chosen.click()
        else:
            form.evaluate("f => f.requestSubmit()")


def act(page, args, password, clicks):
    for css in clicks:
        target = page.locator(css)
        if target.count():
            with page.expect_navigation():
                target.first.click()
            return f"clicked {css}"
    secret_field = page.locator("form input[type=password]:visible")
    text_fields = "input:visible:not([type=hidden]):not([type=password]):not([type=radio]):not([type=checkbox])" \
                  ":not([type=submit]):not([type=button])"
    if secret_field.count():
        form = secret_field.first.locator("xpath=ancestor::form[1]")
        texts = form.locator(text_fields)
        if texts.count():
            texts.first.fill(args.user)
        secret_field.first.fill(password)
        submit(page, form)
        return "password"
    texts = page.locator("form " + text_fields)
    if texts.count() == 1:
        field = texts.first
        name = (field.get_attribute("name") or "").lower()
        if field.get_attribute("autocomplete") == "one-time-code" or any(part in name for part in CODE_NAMES):
            if not args.totp_secret:
                raise SystemExit(f"record-login: {page.url} asks for a one-time code; give --totp-secret")
            field.fill(totp(args.totp_secret, args.totp_period))
            submit(page, field.locator("xpath=ancestor::form[1]"))
            return "one-time code"
        field.fill(args.user)
        submit(page, field.locator("xpath=ancestor::form[1]"))
        return "user name"
    radios = page.locator("form input[type=radio]:visible")
    if radios.count():
        chosen = page.locator("form input[type=radio][value*='doNotRemember']")
        (chosen.first if chosen.count() else radios.first).check()
        submit(page, radios.first.locator("xpath=ancestor::form[1]"))
        return "choice"
    raise SystemExit(f"record-login: nothing to do on {page.url}; give --click for it")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", required=True, help="the address the login starts at")
    parser.add_argument("--user", required=True)
    parser.add_argument("--done", required=True, help="a CSS selector that shows the login is over")
    parser.add_argument("--then", action="append", dest="steps", default=[], type=lambda value: ("open", value),
                        help="an address (or path) to open after the login")
    parser.add_argument("--then-fill", action="append", dest="steps", type=lambda value: ("fill", value),
                        help="CSS=VALUE: after the login, type VALUE into the field CSS selects")
    parser.add_argument("--then-click", action="append", dest="steps", type=lambda value: ("click", value),
                        help="after the login, press the link or button CSS selects and wait for the page it opens")
    parser.add_argument("--click", action="append", default=[], help="a CSS selector to click where it appears")
    parser.add_argument("--totp-secret")
    parser.add_argument("--totp-period", type=int, default=30)
    parser.add_argument("--har", required=True, help="the HAR file to write")
    parser.add_argument("--browser", default="/usr/bin/chromium")
    parser.add_argument("--wrong", action="store_true", help="the password is wrong: stop when the login page comes back")
    args = parser.parse_args()
    password = sys.stdin.readline().rstrip("\r\n")

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.browser, headless=True)
        context = browser.new_context(record_har_path=args.har, record_har_content="embed")
        page = context.new_page()
        try:
            page.goto(args.start)
            sent = False
            for _ in range(20):
                wait_until_settled(page, args.done, args.click)
                if page.locator(args.done).count():
                    if args.wrong:
                        raise SystemExit("record-login: --wrong, but the login got through")
                    break
                if args.wrong and sent and page.locator("form input[type=password]:visible").count():
                    break
                did = act(page, args, password, args.click)
                sent = sent or did == "password"
                print("record-login:", did, file=sys.stderr)
            else:
                raise SystemExit("record-login: the login did not end in 20 pages")
            for kind, value in args.steps:
                if kind == "fill":
                    css, _, text = value.partition("=")
                    page.locator(css).first.fill(text)
                    continue
                if kind == "click":
                    with page.expect_navigation():
                        page.locator(value).first.click()
                else:
                    # As a person opens it from the portal's page (a link, an address typed there):
                    # with that page as its Referer, which is how unitool tells a service of the
                    # portal from a site the portal merely passed through.
                    page.goto(urljoin(page.url, value), referer=page.url)
                wait_until_still(page)
        finally:
            # The HAR is written when the context closes, also after a failure (to see why).
            context.close()
            browser.close()


if __name__ == "__main__":
    main()
