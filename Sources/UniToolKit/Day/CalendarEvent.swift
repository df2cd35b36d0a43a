import Foundation
import MessageDigest

/// One event for a calendar file, or a weekly series of them: a pure value that
/// ``ICalendarWriter`` writes and ``TodayBoard`` asks what happens on a day.
public struct CalendarEvent: Sendable, Equatable {
    public enum Timing: Sendable, Equatable {
        case allDay(CalendarDay)
        /// Minutes since midnight, local to the calendar's time zone.
        case timed(CalendarDay, startMinute: Int, endMinute: Int)

        public var day: CalendarDay {
            switch self {
            case .allDay(let day), .timed(let day, _, _): return day
            }
        }
    }

    /// Stable across exports of the same record, so that importing again updates the event.
    public var uid: String
    public var summary: String
    public var description: String?
    public var location: String?
    public var url: String?
    /// The first occurrence.
    public var timing: Timing
    /// For a weekly series: the last day it may occur on.
    public var weeklyUntil: CalendarDay?
    /// Days of a weekly series on which it does not happen (holidays).
    public var exceptions: [CalendarDay] = []
    /// Seconds before the start for a reminder.
    public var alarm: Int?
    /// For an all-day event over several days: its last day.
    public var lastDay: CalendarDay? = nil
    /// The command it comes from (`courses`), as the event's category.
    public var category: String

    /// Whether an occurrence falls on `day`.
    public func occurs(on day: CalendarDay) -> Bool {
        let first = timing.day
        guard let until = weeklyUntil else { return day == first || (lastDay.map { day > first && day <= $0 } ?? false) }
        return day >= first && day <= until && (day.ordinal - first.ordinal) % 7 == 0 && !exceptions.contains(day)
    }

    /// The days it starts on, in order: what a calendar app shows (an all-day event over several
    /// days, `lastDay`, is one occurrence).
    public var occurrences: [CalendarDay] {
        guard let until = weeklyUntil else { return [timing.day] }
        return stride(from: timing.day.ordinal, through: until.ordinal, by: 7).map(CalendarDay.init(ordinal:))
            .filter { !exceptions.contains($0) }
    }
}

/// Turns a recipe's records into calendar events, as its `calendar:` section says.
public struct CalendarEventBuilder: Sendable {
    public let recipe: DataRecipe
    public let spec: CalendarSpec
    /// Part of every UID, so that two portals' or two users' events never collide.
    public let portal: String
    public let user: String

    public init(recipe: DataRecipe, spec: CalendarSpec, portal: String, user: String) {
        self.recipe = recipe
        self.spec = spec
        self.portal = portal
        self.user = user
    }

    /// The events of these records. A record whose date is empty (an exam not yet scheduled) has
    /// none; a date or time the builder cannot read is an error that names the record.
    public func events(from set: RecordSet) throws -> [CalendarEvent] {
        var events: [CalendarEvent] = []
        for record in set.records {
            let items: [Record]
            if let each = spec.each {
                guard case .list(let entries)? = record[each] else { continue }
                items = entries
            } else {
                items = [record]
            }
            for (index, item) in items.enumerated() {
                if let event = try event(record: record, item: spec.each == nil ? nil : item, index: index) {
                    events.append(event)
                }
            }
        }
        return events
    }

    private func event(record: Record, item: Record?, index: Int) throws -> CalendarEvent? {
        func value(_ name: String) -> FieldValue? { item?[name] ?? record[name] }
        func text(_ name: String) -> String {
            let text = value(name)?.text.trimmingWhitespaceAndNewlines() ?? ""
            return text
        }
        func days(_ name: String) -> [CalendarDay] {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2, case .list(let entries)? = record[parts[0]] {
                return entries.compactMap { $0[parts[1]].flatMap { CalendarDay(iso: $0.text) } }
            }
            return value(name).flatMap { CalendarDay(iso: $0.text) }.map { [$0] } ?? []
        }
        if let only = spec.only, value(only) != .bool(true) { return nil }
        let identity = describe(record)
        var values: [String: String] = [:]
        for field in record.fields { values[field.name] = field.value.text }
        for field in item?.fields ?? [] { values[field.name] = field.value.text }
        let render = { (template: Template?) -> String? in
            guard let template else { return nil }
            let text = (try? template.render(values))?.trimmingWhitespaceAndNewlines() ?? ""
            return text.isEmpty ? nil : text
        }

        var firstDay: CalendarDay
        var until: CalendarDay?
        var exceptions: [CalendarDay] = []
        if let dateField = spec.date {
            guard let day = days(dateField).first else { return nil }
            firstDay = day
        } else {
            let dayText = text(spec.day ?? "")
            guard !dayText.isEmpty else { return nil }
            guard let weekday = Weekday(parsing: dayText) else {
                throw UniToolError(
                    .recipeInvalid, localized("'\(dayText)' of \(identity) is not a weekday unitool can read"),
                    hint: localized(
                        "the calendar's day: field must hold an English day name (Mon, Monday), a Japanese one (月) or a date; fix \(recipe.file)"
                    )
                )
            }
            guard let weekly = spec.weekly, let from = days(weekly.from).first, let last = days(weekly.until).first else {
                throw UniToolError(
                    .layoutChanged, localized("\(identity) has no term dates, so its weekly events cannot be placed"),
                    hint: localized("the page no longer shows them where \(recipe.file) looks (weekly: from/until)"))
            }
            firstDay = from.adding(days: (weekday.rawValue - from.weekday.rawValue + 7) % 7)
            guard firstDay <= last else { return nil }
            until = last
            if let except = weekly.except {
                exceptions = days(except).filter { $0 >= firstDay && $0 <= last && $0.weekday == weekday }.sorted()
            }
        }

        let timing: CalendarEvent.Timing
        let timeText = spec.time.map(text) ?? ""
        if spec.time == nil || timeText.isEmpty {
            timing = .allDay(firstDay)
        } else {
            guard let span = TimeSpan(parsing: timeText) else {
                throw UniToolError(
                    .recipeInvalid, localized("'\(timeText)' of \(identity) is not a time unitool can read"),
                    hint: localized(
                        "the calendar's time: field must hold a time such as 10:00 or a span such as 10:00–11:30; fix \(recipe.file)"))
            }
            guard let end = span.end ?? spec.duration.map({ span.start + $0 / 60 }) else {
                throw UniToolError(
                    .recipeInvalid, localized("'\(timeText)' of \(identity) says when it starts but not when it ends"),
                    hint: localized("add duration: (such as 90m) to the calendar: section of \(recipe.file)"))
            }
            timing = .timed(firstDay, startMinute: span.start, endMinute: max(end, span.start))
        }
        var event = CalendarEvent(
            uid: uid(record: record, index: index), summary: render(spec.summary) ?? recipe.command,
            description: render(spec.description), location: render(spec.location),
            url: spec.url.map(text).flatMap { $0.isEmpty ? nil : $0 },
            timing: timing, weeklyUntil: until, category: recipe.command)
        event.exceptions = exceptions
        event.alarm = spec.alarm
        if let end = spec.end, case .allDay = timing, let last = days(end).first, last > firstDay { event.lastDay = last }
        return event
    }

    /// The record's key fields (or, without any, all of its fields), the item's place in its
    /// list, and the portal, user and command, hashed: the same class keeps its UID however
    /// its time or room changes, and a second export replaces the first.
    func uid(record: Record, index: Int) -> String {
        let keys = recipe.keyFields.isEmpty ? record.fields.map(\.name) : recipe.keyFields
        let identity =
            [portal, user, recipe.command] + keys.map { record[$0]?.text ?? "" } + (spec.each == nil ? [] : [String(index)])
        let digest = MessageDigest.sha256(identity.joined(separator: "\u{1F}").utf8)
        return digest.prefix(16).lowercaseHex + "@\(portal).unitool"
    }

    private func describe(_ record: Record) -> String {
        let keys = recipe.keyFields.compactMap { record[$0]?.text }.filter { !$0.isEmpty }
        let key = keys.joined(separator: " ")
        return keys.isEmpty ? localized("a record of '\(recipe.command)'") : localized("'\(key)' in '\(recipe.command)'")
    }
}

/// A time of day, or a span of one, as timetables print it: `10:00–11:30`, `9.30 - 11.00`,
/// `13:00〜14:30`, `10:00`. Minutes since midnight.
public struct TimeSpan: Sendable, Equatable {
    public var start: Int
    public var end: Int?

    public init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    public init?(parsing text: String) {
        let pattern = /^\s*(\d{1,2})[:.](\d{2})\s*(?:[-–—~〜～]\s*(\d{1,2})[:.](\d{2}))?\s*$/
        guard let match = text.wholeMatch(of: pattern), let startHour = Int(match.1), let startMinute = Int(match.2),
            startHour < 24, startMinute < 60
        else { return nil }
        start = startHour * 60 + startMinute
        if let hourText = match.3, let minuteText = match.4, let hour = Int(hourText), let minute = Int(minuteText) {
            guard hour <= 24, minute < 60 else { return nil }
            end = hour * 60 + minute
        }
    }

    /// `10:00`.
    public static func clock(_ minute: Int) -> String { "\(Civil.pad(minute / 60, 2)):\(Civil.pad(minute % 60, 2))" }
}

extension CalendarEvent {
    /// The events as records, for `--json`: what a script would check before importing.
    public static func records(_ events: [CalendarEvent]) -> RecordSet {
        let records = events.map { event -> Record in
            var start: FieldValue
            var end: FieldValue
            switch event.timing {
            case .allDay(let day):
                // The last day, as people count (the file's DTEND is the day after).
                start = .date(day.description)
                end = .date((event.lastDay ?? day).description)
            case .timed(let day, let from, let to):
                start = .string("\(day.description)T\(TimeSpan.clock(from))")
                end = .string("\(day.adding(days: to / 1440).description)T\(TimeSpan.clock(to % 1440))")
            }
            return Record(fields: [
                ("uid", .string(event.uid)), ("command", .string(event.category)), ("summary", .string(event.summary)),
                ("start", start), ("end", end), ("location", event.location.map(FieldValue.string) ?? .null),
                ("weekly_until", event.weeklyUntil.map { .date($0.description) } ?? .null),
                ("except", .list(event.exceptions.map { Record(fields: [("date", .date($0.description))]) })),
                ("occurrences", .integer(event.occurrences.count)),
            ])
        }
        return RecordSet(
            columns: ["uid", "command", "summary", "start", "end", "location", "weekly_until", "except", "occurrences"], records: records)
    }
}
