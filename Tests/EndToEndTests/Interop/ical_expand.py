"""Reads an iCalendar file with the icalendar library and expands its recurrences with
recurring_ical_events (both from Debian), as a calendar app would, for unitool's tests.

usage: ical_expand.py FILE FROM TO   (dates as YYYY-MM-DD; TO is exclusive)
Prints a JSON object: the file's time zones, and every occurrence between the dates with its
UID, summary, location, start and end (ISO 8601 with offset, or a date for all-day events) and
the triggers of its alarms.
"""
import datetime
import json
import sys

import icalendar
import recurring_ical_events


def iso(value):
    return value.isoformat()


def main():
    path, start, end = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path, "rb") as handle:
        calendar = icalendar.Calendar.from_ical(handle.read())
    zones = [str(zone["TZID"]) for zone in calendar.walk("VTIMEZONE")]
    occurrences = recurring_ical_events.of(calendar).between(
        datetime.date.fromisoformat(start), datetime.date.fromisoformat(end)
    )
    events = []
    for event in occurrences:
        begin = event["DTSTART"].dt
        finish = event["DTEND"].dt
        events.append(
            {
                "uid": str(event["UID"]),
                "summary": str(event["SUMMARY"]),
                "location": str(event.get("LOCATION", "")),
                "description": str(event.get("DESCRIPTION", "")),
                "start": iso(begin),
                "end": iso(finish),
                "all_day": not isinstance(begin, datetime.datetime),
                "tzid": str(begin.tzinfo) if isinstance(begin, datetime.datetime) else "",
                "alarms": [str(alarm["TRIGGER"].to_ical(), "ascii") for alarm in event.walk("VALARM")],
            }
        )
    print(json.dumps({"zones": zones, "events": events}, ensure_ascii=False))


if __name__ == "__main__":
    main()
