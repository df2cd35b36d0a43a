import Foundation

/// A day on the calendar, with no time and no zone: a class's date, a loan's due date.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01, so that adding days and comparing is arithmetic.
    public let ordinal: Int

    public init(ordinal: Int) { self.ordinal = ordinal }

    public init(year: Int, month: Int, day: Int) { ordinal = Civil.days(year: year, month: month, day: day) }

    /// `2026-11-24`, or the date part of an ISO 8601 date-time (`2026-11-24T10:00:00+01:00`).
    public init?(iso text: String) {
        let parts = text.prefix(10).split(separator: "-")
        guard text.count >= 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...Civil.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day a moment falls on in a time zone.
    public init(_ date: Date, in zone: TimeZone) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: date)
        ordinal = Int((Double(seconds) / 86_400).rounded(.down))
    }

    public var components: (year: Int, month: Int, day: Int) { Civil.date(fromDays: ordinal) }
    /// 0 for Sunday to 6 for Saturday (1970-01-01 was a Thursday).
    // The remainder is 0 to 6, and Weekday has a case for each.
    public var weekday: Weekday { Weekday(rawValue: ((ordinal % 7) + 7 + 4) % 7)! }
    public func adding(days: Int) -> CalendarDay { CalendarDay(ordinal: ordinal + days) }

    /// `2026-11-24`.
    public var description: String {
        let (year, month, day) = components
        return "\(Civil.pad(year, 4))-\(Civil.pad(month, 2))-\(Civil.pad(day, 2))"
    }

    /// `20261124`, iCalendar's DATE.
    public var basic: String { description.replacingOccurrences(of: "-", with: "") }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool { lhs.ordinal < rhs.ordinal }

    /// The moment this day's `minute` (since midnight) happens in `zone`, gaps and overlaps of
    /// daylight-saving changes resolved as Foundation's calendar resolves them.
    public func moment(atMinute minute: Int, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let (year, month, day) = components
        let parts = DateComponents(year: year, month: month, day: day, hour: minute / 60, minute: minute % 60)
        return calendar.date(from: parts) ?? Date(timeIntervalSince1970: Double(ordinal * 86_400 + minute * 60))
    }
}

/// A day of the week as portals print it.
public enum Weekday: Int, Sendable, CaseIterable {
    case sunday, monday, tuesday, wednesday, thursday, friday, saturday

    /// `mon`, as `--day` takes it.
    public var short: String { ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][rawValue] }
    /// `MO`, iCalendar's BYDAY.
    public var iCalendar: String { ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][rawValue] }

    /// `Mon`, `monday`, `Tu.` (two letters or more of the English name), a Japanese day
    /// (`月`, `月曜`, `(月)`), or an ISO date, whose weekday is taken.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: CharacterSet.whitespaces.union(.punctuationCharacters)).lowercased()
        let english = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        // Two letters are enough to tell the English names apart (`Mo`, `Tu`, `Th`).
        if trimmed.count >= 2, let index = english.firstIndex(where: { $0.hasPrefix(trimmed) }) {
            self.init(rawValue: index)
            return
        }
        if let first = trimmed.first, let index = Array("日月火水木金土").firstIndex(of: first) {
            self.init(rawValue: index)
            return
        }
        if let day = CalendarDay(iso: trimmed) {
            self = day.weekday
            return
        }
        return nil
    }
}
