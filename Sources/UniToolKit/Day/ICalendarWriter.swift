import Foundation

/// Writes events as an iCalendar file (RFC 5545) that calendar apps import: times local to the
/// portal's zone with a `VTIMEZONE` for it, weekly series with `RRULE` and `EXDATE`, text
/// escaped, lines folded at 75 octets and ended with CRLF.
public struct ICalendarWriter: Sendable {
    /// The zone the portal's times are in: every timed event names it (`TZID`).
    public var timeZone: TimeZone
    /// The calendar's name, as apps show it (`X-WR-CALNAME`).
    public var name: String
    /// When the file was made: every event's `DTSTAMP`.
    public var stamp: Date

    public init(timeZone: TimeZone, name: String, stamp: Date = Date()) {
        self.timeZone = timeZone
        self.name = name
        self.stamp = stamp
    }

    public func render(_ events: [CalendarEvent]) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//unitool//unitool \(UniToolVersion.current)//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", "X-WR-CALNAME:\(Self.text(name))", "X-WR-TIMEZONE:\(timeZone.identifier)",
        ]
        let days = events.flatMap { [$0.timing.day] + ($0.weeklyUntil.map { [$0] } ?? []) }
        if events.contains(where: { if case .timed = $0.timing { return true } else { return false } }),
            let first = days.min(), let last = days.max()
        {
            lines += timeZoneLines(from: first.components.year - 1, through: last.components.year + 1)
        }
        for event in events { lines += eventLines(event) }
        lines.append("END:VCALENDAR")
        return lines.map(Self.fold).joined(separator: "\r\n") + "\r\n"
    }

    func eventLines(_ event: CalendarEvent) -> [String] {
        var lines = ["BEGIN:VEVENT", "UID:\(Self.text(event.uid))", "DTSTAMP:\(Self.utc(stamp))"]
        let zone = "TZID=\(timeZone.identifier)"
        switch event.timing {
        case .allDay(let day):
            lines.append("DTSTART;VALUE=DATE:\(day.basic)")
            // DTEND is exclusive: the day after the last (RFC 5545 3.6.1).
            lines.append("DTEND;VALUE=DATE:\((event.lastDay ?? day).adding(days: 1).basic)")
        case .timed(let day, let start, let end):
            lines.append("DTSTART;\(zone):\(Self.local(day, start))")
            // An end past midnight (`22:00–24:00`) is the next day's, as the clock reads it.
            let endDay = day.adding(days: end / 1440)
            lines.append("DTEND;\(zone):\(Self.local(endDay, end % 1440))")
        }
        if let until = event.weeklyUntil {
            // UNTIL is inclusive, and must be UTC when DTSTART has a zone (RFC 5545 3.3.10): the
            // last moment of the last day, there.
            let untilText: String
            switch event.timing {
            case .allDay: untilText = until.basic
            case .timed: untilText = Self.utc(until.adding(days: 1).moment(atMinute: 0, in: timeZone).addingTimeInterval(-1))
            }
            lines.append("RRULE:FREQ=WEEKLY;BYDAY=\(event.timing.day.weekday.iCalendar);UNTIL=\(untilText)")
            for day in event.exceptions {
                switch event.timing {
                case .allDay: lines.append("EXDATE;VALUE=DATE:\(day.basic)")
                case .timed(_, let start, _): lines.append("EXDATE;\(zone):\(Self.local(day, start))")
                }
            }
        }
        lines.append("SUMMARY:\(Self.text(event.summary))")
        if let location = event.location { lines.append("LOCATION:\(Self.text(location))") }
        if let description = event.description { lines.append("DESCRIPTION:\(Self.text(description))") }
        if let url = event.url, let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http" {
            lines.append("URL:\(Self.uri(parsed.absoluteString))")
        }
        lines.append("CATEGORIES:\(Self.text(event.category))")
        if case .allDay = event.timing { lines.append("TRANSP:TRANSPARENT") }
        if let alarm = event.alarm {
            lines += [
                "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(Self.text(event.summary))", "TRIGGER:-\(Self.duration(alarm))",
                "END:VALARM",
            ]
        }
        lines.append("END:VEVENT")
        return lines
    }

    /// The zone's offsets and their changes over the years the events span: one `STANDARD` or
    /// `DAYLIGHT` part per change, each starting at the local time it happens, so that any app
    /// reads the same offsets Foundation's zone database gives.
    func timeZoneLines(from firstYear: Int, through lastYear: Int) -> [String] {
        var lines = ["BEGIN:VTIMEZONE", "TZID:\(timeZone.identifier)"]
        let start = CalendarDay(year: firstYear, month: 1, day: 1).moment(atMinute: 0, in: TimeZone.gmt)
        let end = CalendarDay(year: lastYear + 1, month: 1, day: 1).moment(atMinute: 0, in: TimeZone.gmt)
        func part(at moment: Date, from before: Int, to after: Int) -> [String] {
            let kind = timeZone.isDaylightSavingTime(for: moment) ? "DAYLIGHT" : "STANDARD"
            // DTSTART is the local time just before the change, in the offset it changes from.
            let local = Int(moment.timeIntervalSince1970) + before
            let day = CalendarDay(ordinal: Int((Double(local) / 86_400).rounded(.down)))
            let seconds = local - day.ordinal * 86_400
            var part = [
                "BEGIN:\(kind)",
                "DTSTART:\(day.basic)T\(Civil.pad(seconds / 3600, 2))\(Civil.pad(seconds / 60 % 60, 2))\(Civil.pad(seconds % 60, 2))",
                "TZOFFSETFROM:\(Self.offset(before))", "TZOFFSETTO:\(Self.offset(after))",
            ]
            if let abbreviation = timeZone.abbreviation(for: moment), !abbreviation.isEmpty {
                part.append("TZNAME:\(Self.text(abbreviation))")
            }
            part.append("END:\(kind)")
            return part
        }
        let initial = timeZone.secondsFromGMT(for: start)
        lines += part(at: start, from: initial, to: initial)
        var moment = start
        while let change = timeZone.nextDaylightSavingTimeTransition(after: moment), change < end {
            lines += part(
                at: change, from: timeZone.secondsFromGMT(for: change.addingTimeInterval(-1)), to: timeZone.secondsFromGMT(for: change))
            moment = change
        }
        lines.append("END:VTIMEZONE")
        return lines
    }

    /// `20261124T100000`: a local date-time.
    static func local(_ day: CalendarDay, _ minute: Int) -> String {
        "\(day.basic)T\(Civil.pad(minute / 60, 2))\(Civil.pad(minute % 60, 2))00"
    }

    /// `20261124T090000Z`.
    static func utc(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = CalendarDay(ordinal: Int((Double(seconds) / 86_400).rounded(.down)))
        let rest = seconds - day.ordinal * 86_400
        return "\(day.basic)T\(Civil.pad(rest / 3600, 2))\(Civil.pad(rest / 60 % 60, 2))\(Civil.pad(rest % 60, 2))Z"
    }

    /// `+0100`, `-0330`.
    static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        return "\(sign)\(Civil.pad(magnitude / 3600, 2))\(Civil.pad(magnitude / 60 % 60, 2))"
    }

    /// `P1D`, `PT15M`, `PT1H30M`: an RFC 5545 duration.
    static func duration(_ seconds: Int) -> String {
        if seconds % 86_400 == 0 { return "P\(seconds / 86_400)D" }
        var text = "PT"
        if seconds >= 3600 { text += "\(seconds / 3600)H" }
        if seconds % 3600 >= 60 { text += "\(seconds % 3600 / 60)M" }
        if seconds % 60 != 0 { text += "\(seconds % 60)S" }
        return text
    }

    /// A TEXT value (RFC 5545 3.3.11): backslash, semicolon, comma and line breaks escaped, and
    /// the other control characters a portal might send left out.
    static func text(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n": escaped += "\\n"
            case "\t": escaped += " "
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" { continue }
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A URI value (RFC 5545 3.3.13), such as `URL`'s: written as it is, since a URI is not TEXT
    /// and a backslash before its `;` or `,` would become part of the address. Only what a URI
    /// can never hold, and a content line must not, is left out: control characters and spaces
    /// (an address from `URL` has them percent-encoded already).
    static func uri(_ value: String) -> String {
        var kept = ""
        for scalar in value.unicodeScalars where !TerminalText.isControl(scalar) && scalar != " " {
            kept.unicodeScalars.append(scalar)
        }
        return kept
    }

    /// Splits a content line into lines of at most 75 octets, each continuation starting with
    /// a space (RFC 5545 3.1), never inside a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var folded = ""
        var octets = 0
        var limit = 75
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if octets + size > limit {
                folded += "\r\n "
                octets = 0
                limit = 74
            }
            folded.unicodeScalars.append(scalar)
            octets += size
        }
        return folded
    }
}
