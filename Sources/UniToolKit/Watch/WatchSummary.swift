import Foundation

/// Writes a watch event's summary for people: the line a notification shows and
/// `UNITOOL_EVENT_SUMMARY` holds. A pure value: the recipe's `watch:` section, its fields, the
/// day and the locale in; text out.
///
/// A record is named by what it is about (a loan's title, a course's name), never by its key
/// alone (a barcode means nothing to a person), and a change is said in words: `grade B (was A)`,
/// `now overdue`, `due Tue 15 Dec (was Tue 1 Dec)`, not `grade (none) → "B"`. A recipe's own
/// template for the event's kind (``WatchSummaries``) comes first; without one, a generic line
/// names the record by ``titleField(in:)``.
///
/// The result holds the portal's text as it is: each channel escapes it for where it shows it
/// (`TerminalText` for `--exec`'s variables and terminals, markup for notifications and chats).
public struct WatchSummary: Sendable {
    public var command: String
    public var summaries: WatchSummaries?
    /// The field that names a record (``titleField(in:)``); nil: the record's key names it.
    public var titleField: String?
    /// The date field `{{when}}` words: the watch's `--due-within` field, else the recipe's `due:`.
    public var dueField: String?
    /// Today, `yyyy-MM-dd`, for "overdue" against "due", and "today".
    public var today: String
    /// The locale dates are written in (month and weekday names, their order).
    public var locale: Locale
    /// The zone a date and time is shown in: the portal's (its `timezone:`), as tables and
    /// `today` show it, so that a deadline reads the same in a notification as on screen.
    public var timeZone: TimeZone = .current

    public init(
        command: String, summaries: WatchSummaries? = nil, titleField: String? = nil, dueField: String? = nil, today: String,
        locale: Locale = WatchSummary.englishLocale
    ) {
        self.command = command
        self.summaries = summaries
        self.titleField = titleField
        self.dueField = dueField
        self.today = today
        self.locale = locale
    }

    /// The summary writer for a watch of `recipe`, whose records have `fields`.
    public init(recipe: DataRecipe, fields: [FieldSpec], dueField: String?, today: String, locale: Locale = WatchSummary.englishLocale) {
        self.init(
            command: recipe.command, summaries: recipe.watch, titleField: Self.titleField(in: fields),
            dueField: dueField ?? recipe.watch?.due, today: today, locale: locale)
    }

    /// English with the day before the month and no comma after the weekday: "Tue 1 Dec".
    public static let englishLocale = Locale(identifier: "en_GB")

    /// The field that names a record: what a person calls it. The recipe marks it as the column
    /// that stays on a narrow terminal (`priority: high`, not a key: a loan's title, a course);
    /// else the first required text field that is not a key (Koha's title); else the first text
    /// key (Moodle's course name). Nil: the key names the record.
    public static func titleField(in fields: [FieldSpec]) -> String? {
        let texts = fields.filter { $0.type == .string && $0.compute == nil && $0.list == nil && !$0.display.flag }
        return texts.first { $0.display.priority == .high && !$0.display.key }?.name
            ?? texts.first { $0.required && !$0.display.key && $0.display.priority != .hidden }?.name
            ?? texts.first { $0.display.key }?.name
    }

    /// The summary of `event`: the recipe's template for its kind, or the generic line.
    public func text(for event: WatchEvent) -> String {
        guard let record = event.record else { return event.summary }
        let kind = event.kind.rawValue
        let fields =
            event.kind == .changed
            ? event.changes.map(\.field) : record.fields.filter { ![.null, .string(""), .bool(false)].contains($0.value) }.map(\.name)
        if let template = summaries?.template(kind: kind, fields: fields) {
            var values: [String: String] = [:]
            for field in record.fields { values[field.name] = words(field.value) }
            values[WatchSummaries.commandPlaceholder] = command
            values[WatchSummaries.changesPlaceholder] = changes(event.changes)
            values[WatchSummaries.whenPlaceholder] = when(of: record) ?? ""
            // Every placeholder was checked against the recipe's fields when it was read; a field a
            // source leaves out is empty here rather than an error in the middle of a watch.
            for variable in template.variables where values[variable] == nil { values[variable] = "" }
            if let rendered = try? template.render(values) { return rendered }
        }
        let name = self.name(of: record, key: event.key)
        switch event.kind {
        case .added:
            guard let due = when(of: record) else { return localized("New in \(command): \(name)") }
            return localized("New in \(command): \(name), \(due)")
        case .removed: return localized("Gone from \(command): \(name)")
        case .changed: return "\(command): \(name): \(changes(event.changes))"
        case .dueSoon, .overdue:
            let due = when(of: record) ?? (event.kind == .overdue ? localized("overdue") : localized("due soon"))
            return localized("\(command): \(name) is \(due)")
        case .failing, .loginNeeded, .recovered, .test: return event.summary
        }
    }

    /// What a person calls the record: its title field, else its key.
    func name(of record: Record, key: String?) -> String {
        if let titleField, let value = record[titleField], value != .null, !value.text.isEmpty { return value.text }
        return key.flatMap { $0.isEmpty ? nil : $0 } ?? localized("a record")
    }

    /// The due date in words, if the record has one: `due Tue 1 Dec`, `due today`, `due
    /// tomorrow`, `overdue since 26 Nov` (the due date, as a library's notice says it).
    public func when(of record: Record) -> String? {
        guard let dueField, let day = record[dueField]?.day else { return nil }
        if WatchDecision.dueKind(date: day, today: today) == .overdue {
            let since = dayText(day, weekday: false)
            return localized("overdue since \(since)")
        }
        if day == today { return localized("due today") }
        if day == WatchDecision.adding(days: 1, to: today) { return localized("due tomorrow") }
        let date = dayText(day, weekday: true)
        return localized("due \(date)")
    }

    /// The changes of a `changed` event in words: `grade B, points 3`, `grade A (was B)`,
    /// `no grade (was B)`, `now overdue`, `no longer overdue`.
    public func changes(_ changes: [RecordChanges.FieldChange]) -> String {
        changes.map { change in
            let label = change.field.replacingOccurrences(of: "_", with: " ")
            switch (change.old, change.new) {
            case (_, .bool(true)): return localized("now \(label)")
            case (_, .bool(false)): return localized("no longer \(label)")
            case (.null, let new): return "\(label) \(words(new))"
            case (let old, .null): return localized("no \(label) (was \(words(old)))")
            case (let old, let new): return localized("\(label) \(words(new)) (was \(words(old)))")
            }
        }.joined(separator: ", ")
    }

    /// A value as a person reads it: dates with their weekday and month name in the locale.
    public func words(_ value: FieldValue) -> String {
        switch value {
        case .date(let text): return dayText(text, weekday: true)
        case .datetime(let text):
            guard let moment = ISO8601DateFormatter().date(from: text) else { return text }
            return formatter(sameYear: text.prefix(4) == today.prefix(4), skeleton: "MMMEdjmm", zone: timeZone).string(from: moment)
        default: return value.text
        }
    }

    /// A `yyyy-MM-dd` day for people: "Tue 1 Dec" (or "1 Dec"), with the year only when it is not
    /// this year's.
    func dayText(_ day: String, weekday: Bool) -> String {
        guard let date = CalendarDay(iso: day)?.moment(atMinute: 0, in: .gmt) else { return day }
        let sameYear = day.prefix(4) == today.prefix(4)
        return formatter(sameYear: sameYear, skeleton: weekday ? "MMMEd" : "MMMd", zone: TimeZone(identifier: "UTC")!).string(from: date)
    }

    private func formatter(sameYear: Bool, skeleton: String, zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = zone
        formatter.setLocalizedDateFormatFromTemplate(sameYear ? skeleton : "y" + skeleton)
        return formatter
    }
}
