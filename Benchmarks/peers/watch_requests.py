"""The loop of a Python grade bot, as unitool's watch is measured: each cycle loads the saved
cookies, fetches the grades page (logging in the first time), reads the rows with lxml, compares
them by (term, code) with the previous cycle's, and saves the cookies. Reports resident memory
after a warm-up and at the end, and CPU and wall time per cycle. Prints JSON.

Usage: watch_requests.py BASE CYCLES DIR"""
import json, os, pickle, resource, sys, time
import lxml.html
import requests

sys.path.insert(0, os.path.dirname(__file__))
from login_requests import submit  # the same login steps as the login rows


def resident_kb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cycle(base, cookies, previous):
    session = requests.Session()
    if os.path.exists(cookies):
        session.cookies.update(pickle.load(open(cookies, "rb")))
    page = session.get(base + "/grades?term=2026-fall")
    for _ in range(10):
        document = lxml.html.fromstring(page.content)
        if document.xpath("//table[@id='grades']"):
            break
        if (form := (document.xpath("//form[@id='login-id']") or [None])[0]) is not None:
            page = submit(session, page, form, {"j_username": "alice"}, "_eventId_proceed")
        elif (form := (document.xpath("//form[@id='login-password']") or [None])[0]) is not None:
            page = submit(session, page, form, {"j_password": "wonderland"}, "_eventId_proceed")
        elif (form := (document.xpath("//form[.//input[@name='SAMLResponse']]") or [None])[0]) is not None:
            page = submit(session, page, form, {})
        else:
            sys.exit("unknown page: " + page.url)
    records = {}
    for row in lxml.html.fromstring(page.content).xpath("//table[@id='grades']/tbody/tr"):
        cells = {cell.get("class"): cell.text_content().strip() for cell in row.xpath("td")}
        records[("2026-fall", cells.get("code"))] = cells
    changes = sum(1 for key, record in records.items() if previous.get(key) not in (None, record))
    pickle.dump(session.cookies, open(cookies, "wb"))
    session.close()
    return records, changes


def main():
    base, cycles, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(folder, exist_ok=True)
    cookies = os.path.join(folder, "cookies.pickle")
    warm_up = min(100, cycles // 10)
    previous, rss_warm, cpu_warm, started = {}, 0, 0.0, time.perf_counter()
    for index in range(cycles):
        if index == warm_up:
            rss_warm, cpu_warm, started = resident_kb(), cpu_seconds(), time.perf_counter()
        previous, _ = cycle(base, cookies, previous)
    measured = cycles - warm_up
    print(json.dumps({
        "cycles": cycles, "rss_after_warm_up_kb": rss_warm, "rss_end_kb": resident_kb(),
        "cpu_ms_per_cycle": (cpu_seconds() - cpu_warm) / measured * 1000,
        "wall_ms_per_cycle": (time.perf_counter() - started) / measured * 1000,
    }))


if __name__ == "__main__":
    main()
