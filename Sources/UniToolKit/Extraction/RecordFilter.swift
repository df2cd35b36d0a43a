import Foundation

/// Keeps the records that match a recipe's filter options: `--day mon`, `--since 2026-11-01`.
///
/// Filters run after extraction, on typed values, so the same recipe works whether or not the
/// portal can filter by itself.
public struct RecordFilter: Sendable {
    public let option: OptionSpec
    public let filter: OptionSpec.Filter
    /// The option's value, resolved: `mon`..`sun` for weekdays, `yyyy-MM-dd` for dates.
    public let value: String
    /// For a weekday filter, the one day it names: `tomorrow`, a date, or a weekday's next
    /// occurrence (today if today is that day). A record that carries a date matches this day
    /// only, so that `--day mon` on a Sunday is tomorrow's menu, not last Monday's; a record that
    /// names only a weekday (a timetable's `Mon`, `月`) matches by weekday.
    public let day: CalendarDay?

    /// Checks and resolves a filter value: `today` and `7d` become dates or weekdays. A number of
    /// days must be within ``InputBounds/days``; every front end checks its values here.
    public init(option: OptionSpec, value given: String, now: Date = Date()) throws {
        guard let filter = option.filter else { preconditionFailure("not a filter option") }
        self.option = option
        self.filter = filter
        let value = given.trimmingWhitespace().lowercased()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        switch filter.test {
        case .equals, .contains:
            self.value = value
            day = nil
        case .weekday:
            let today = CalendarDay(now, in: calendar.timeZone)
            if let offset = Self.dayWords[value] {
                day = today.adding(days: offset)
            } else if let date = CalendarDay(iso: value) {
                day = date
            } else if let weekday = Weekday(parsing: value) {
                day = today.adding(days: (weekday.rawValue - today.weekday.rawValue + 7) % 7)
            } else {
                day = nil
            }
            if let day {
                self.value = day.weekday.short
            } else {
                throw UniToolError(
                    .usage, localized("'\(given)' is not a day for --\(option.name)"),
                    hint: localized(
                        "use today, tomorrow, yesterday, a date such as 2026-11-30, or one of mon, tue, wed, thu, fri, sat, sun"))
            }
        case .since, .until, .covers:
            day = nil
            let start: Date
            if let offset = Self.dayWords[value], let shifted = calendar.date(byAdding: .day, value: offset, to: now) {
                start = shifted
            } else if let span = try InputBounds.span(value, option: "--\(option.name)", units: [.days, .weeks, .months]) {
                // Within InputBounds the date always exists; a number past it once crashed
                // every front end here (`--since 9999999999999999d`).
                guard let earlier = span.start(before: now, calendar: calendar) else {
                    throw UniToolError(
                        .usage, localized("'\(given)' reaches back before any date for --\(option.name)"),
                        hint: localized("use a date such as 2026-11-01"))
                }
                start = earlier
            } else if FieldTyper.parseDate(value, format: "yyyy-MM-dd", timeZone: .current) != nil {
                self.value = value
                return
            } else {
                throw UniToolError(
                    .usage, localized("'\(given)' is not a date for --\(option.name)"),
                    hint: localized("use a date such as 2026-11-01, today, yesterday, tomorrow, or a time ago such as 7d, 2w or 1m"))
            }
            self.value = RecordExtractor.localToday(start)
        }
    }

    /// The days a person names by a word, as days from today.
    static let dayWords = ["today": 0, "yesterday": -1, "tomorrow": 1]

    /// The record if it passes; for a filter on a nested list (`meetings.day`), the record with
    /// only the matching list entries, or nil if none matches.
    public func apply(to record: Record) -> Record? {
        let parts = filter.field.split(separator: ".", maxSplits: 1).map(String.init)
        if filter.test == .covers {
            // Within the span: on or after its first day, and on or before its last, if it has one.
            guard let first = Self.day(record[filter.field]), first <= value else { return nil }
            if let endField = filter.endField, let last = Self.day(record[endField]), last < value { return nil }
            return record
        }
        guard parts.count == 2 else { return matches(record[filter.field]) ? record : nil }
        guard case .list(let entries) = record[parts[0]] else { return nil }
        let kept = entries.filter { matches($0[parts[1]]) }
        guard !kept.isEmpty else { return nil }
        var narrowed = record
        if let index = narrowed.fields.firstIndex(where: { $0.name == parts[0] }) {
            narrowed.fields[index].value = .list(kept)
        }
        return narrowed
    }

    /// A date or datetime value's `yyyy-MM-dd`, or nil.
    static func day(_ value: FieldValue?) -> String? { value?.day }

    func matches(_ candidate: FieldValue?) -> Bool {
        guard let field = candidate else { return false }
        switch filter.test {
        case .equals:
            // A yes/no field matches any way of writing yes or no: `--warning true`, `yes`, `1`.
            if case .bool(let flag) = field, let wanted = PortalLanguage.bool(value, language: nil) { return flag == wanted }
            return field.text.lowercased() == value
        case .contains: return field.text.lowercased().contains(value)
        case .weekday:
            // A dated record is on the day asked for, or not; a day as the portal writes it
            // without a date (Mon, Monday, 月, (金)) is on that weekday every week.
            if let dated = Self.day(field), let day { return dated == day.description }
            return Weekday(parsing: field.text)?.short == value
        case .covers:
            preconditionFailure("covers reads two fields of the record, and is decided in apply(to:)")
        case .since, .until:
            guard let day = Self.day(field) else { return false }
            return filter.test == .since ? day >= value : day <= value
        }
    }

    public static func apply(_ filters: [RecordFilter], to set: RecordSet) -> RecordSet {
        guard !filters.isEmpty else { return set }
        let records = set.records.compactMap { record in
            filters.reduce(Optional(record)) { kept, filter in kept.flatMap(filter.apply(to:)) }
        }
        return RecordSet(columns: set.columns, records: records)
    }
}

extension Totals {
    /// One row per group: the group's values, then each aggregate. Means are rounded to two
    /// decimals, as transcripts show a GPA.
    public func compute(over set: RecordSet) -> RecordSet {
        var groups: [[String]: [Record]] = [:]
        var order: [[String]] = []
        for record in set.records {
            let key = groupBy.map { record[$0]?.text ?? "" }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(record)
        }
        if set.records.isEmpty, groupBy.isEmpty { order = [[]] }
        func row(_ records: [Record], label: String?) -> Record {
            var fields = groupBy.map { (name: $0, value: label.map { FieldValue.string($0) } ?? records.first?[$0] ?? .null) }
            for aggregate in self.fields {
                let counted = records.filter { record in
                    aggregate.whereField.map { record[$0].map { $0 != .null } ?? false } ?? true
                }
                fields.append((aggregate.name, aggregate.value(over: counted)))
            }
            return Record(fields: fields)
        }
        var rows = order.map { row(groups[$0] ?? [], label: nil) }
        if let overall, order.count > 1 { rows.append(row(set.records, label: overall)) }
        return RecordSet(columns: groupBy + fields.map(\.name), records: rows)
    }
}

extension Totals.Aggregate {
    func value(over records: [Record]) -> FieldValue {
        func number(_ record: Record, _ field: String) -> Double? {
            switch record[field] {
            case .number(let value): return value
            case .integer(let value): return Double(value)
            default: return nil
            }
        }
        func rounded(_ value: Double) -> FieldValue { .number((value * 100).rounded() / 100) }
        switch kind {
        case .count:
            return .integer(records.count)
        case .sum(let field):
            return .number(records.compactMap { number($0, field) }.reduce(0, +))
        case .mean(let field):
            let values = records.compactMap { number($0, field) }
            return values.isEmpty ? .null : rounded(values.reduce(0, +) / Double(values.count))
        case .weightedMean(let field, let weight):
            let pairs = records.compactMap { record in number(record, field).flatMap { value in number(record, weight).map { (value, $0) } }
            }
            let total = pairs.map(\.1).reduce(0, +)
            return total == 0 ? .null : rounded(pairs.map { $0.0 * $0.1 }.reduce(0, +) / total)
        }
    }
}
