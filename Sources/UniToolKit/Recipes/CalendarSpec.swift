import Foundation

/// A data recipe's `calendar:` section: how its records become calendar events, for
/// `--format ics`, `unitool calendar` and `unitool today`.
///
/// Three shapes cover what campus portals list:
/// - a weekly class: `day:` (a weekday field) and `time:`, repeated between the dates `weekly:`
///   names, skipping its `except:` dates;
/// - a timed event on one date: `date:` and `time:` (an exam);
/// - an all-day event: `date:` alone (a loan's due date), with an optional `alarm:` before it.
public struct CalendarSpec: Sendable, Equatable {
    /// A list field whose items are the events (a course's meetings): one event, or weekly
    /// series, per item. Inside the templates and field names below, an item's own fields are
    /// named directly (`room`), and the record's fields too (`course`); the item's win a clash.
    public var each: String?
    public var summary: Template
    public var description: Template?
    public var location: Template?
    /// A date field (or a datetime field, whose local date is used): the event's day.
    public var date: String?
    /// A weekday field (`Mon`, `Monday`, `月`): the event repeats every week on that day.
    public var day: String?
    /// A text field with the time: `10:00–11:30`, `10:00-11:30`, `9.30 - 11.00`, or a start alone.
    /// Without it, the event lasts all day.
    public var time: String?
    /// How long an event lasts when `time` gives only its start.
    public var duration: Int?
    /// For a weekly series: the date fields of its first and last possible day, and a date field
    /// (or a list field's date, `no_classes.date`) of days without it.
    public var weekly: Weekly?
    /// Seconds before the start for a reminder (`alarm: 1d`).
    public var alarm: Int?
    /// A URL field for the event's link.
    public var url: String?
    /// For an all-day event: a date field of its last day (`end: until`), so one event covers a
    /// span (the co-op closed over the holidays). Empty: the event is one day.
    public var end: String? = nil
    /// A bool field: only records where it is true become events (`only: closed`).
    public var only: String? = nil
    /// `when_asked: true`: `unitool calendar` includes this command only when asked for it
    /// (`--include coop-hours`); its `--format ics` always works.
    public var whenAsked = false

    public struct Weekly: Sendable, Equatable {
        public var from: String
        public var until: String
        public var except: String?
    }
}

extension CalendarSpec {
    static let keys = [
        "each", "summary", "description", "location", "date", "day", "time", "duration", "weekly", "alarm", "url", "end", "only",
        "when_asked",
    ]

    /// Reads and checks a `calendar:` section against the recipe's fields.
    static func load(reader: MappingReader, fields: [FieldSpec]) throws -> CalendarSpec {
        try reader.allowOnly(keys)
        let each = try reader.string("each")
        var itemFields: [FieldSpec] = []
        if let each {
            guard let list = fields.first(where: { $0.name == each })?.list else {
                let lists = fields.filter { $0.list != nil }.map(\.name).joined(separator: ", ")
                throw reader.error("each", localized("'\(each)' is not a list field (lists: \(lists))"))
            }
            itemFields = list.fields
        }
        /// A field an event can read: the item's, the record's, or a list field's own field
        /// (`no_classes.date`).
        func lookup(_ name: String) -> FieldSpec? {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2 { return fields.first { $0.name == parts[0] }?.list?.fields.first { $0.name == parts[1] } }
            return itemFields.first { $0.name == name } ?? fields.first { $0.name == name }
        }
        func field(_ key: String, types: Set<FieldSpec.FieldType>? = nil) throws -> String? {
            guard let name = try reader.string(key) else { return nil }
            guard let found = lookup(name) else {
                let known = (itemFields + fields).map(\.name).joined(separator: ", ")
                throw reader.error(key, localized("'\(name)' is not a field (fields: \(known))"))
            }
            if let types, !types.contains(found.type) {
                let wanted = types.map(\.rawValue).sorted().joined(separator: " or ")
                throw reader.error(key, localized("'\(name)' is a \(found.type.rawValue) field; \(key) needs a \(wanted) field"))
            }
            return name
        }
        func template(_ key: String) throws -> Template? {
            guard let text = try reader.text(key)?.text(for: Translation.current.locales, orFirst: true) else { return nil }
            let template = Template(text)
            let known = Set((itemFields + fields).map(\.name))
            for variable in template.variables where !known.contains(variable) {
                let list = known.sorted().joined(separator: ", ")
                throw reader.error(key, localized("uses {{\(variable)}}, which is not a field (fields: \(list))"))
            }
            return template
        }
        guard let summary = try template("summary") else {
            throw reader.error("summary", localized("missing: an event needs a summary, such as \"{{course}}\""))
        }
        let dates: Set<FieldSpec.FieldType> = [.date, .datetime]
        var spec = CalendarSpec(
            each: each, summary: summary, description: try template("description"), location: try template("location"),
            date: try field("date", types: dates), day: try field("day"), time: try field("time"),
            url: try field("url", types: [.url, .string]))
        if let duration = try reader.string("duration") {
            guard let seconds = InputBounds.seconds(duration), seconds <= 86_400 else {
                throw reader.error("duration", localized("'\(duration)' is not a length of time up to a day; write it as 90m or 2h"))
            }
            spec.duration = Int(seconds)
        }
        if let alarm = try reader.string("alarm") {
            guard let seconds = InputBounds.seconds(alarm), seconds <= 30 * 86_400 else {
                throw reader.error("alarm", localized("'\(alarm)' is not a length of time up to 30 days; write it as 15m, 2h or 1d"))
            }
            spec.alarm = Int(seconds)
        }
        switch (spec.date, spec.day) {
        case (nil, nil):
            throw reader.error("date", localized("missing: say when, with date: (a date field) or day: (a weekday field, with weekly:)"))
        case (.some, .some):
            throw reader.error("day", localized("give date: for a single event or day: for a weekly one, not both"))
        default: break
        }
        if let weeklyReader = try reader.mappingReader("weekly") {
            try weeklyReader.allowOnly(["from", "until", "except"])
            guard spec.day != nil else { throw reader.error("weekly", localized("repeats a weekday: it needs day:, not date:")) }
            func dateField(_ key: String) throws -> String? {
                guard let name = try weeklyReader.string(key) else { return nil }
                guard lookup(name)?.type == .date else {
                    throw weeklyReader.error(key, localized("'\(name)' is not a date field"))
                }
                return name
            }
            guard let from = try dateField("from"), let until = try dateField("until") else {
                throw weeklyReader.error(
                    "until", localized("missing: a weekly event needs from: and until: (the term's first and last day)"))
            }
            spec.weekly = Weekly(from: from, until: until, except: try dateField("except"))
        } else if spec.day != nil {
            throw reader.error(
                "weekly", localized("missing: day: repeats every week, so say between which dates (weekly: { from: …, until: … })"))
        }
        spec.end = try field("end", types: [.date])
        if spec.end != nil, spec.date == nil || spec.time != nil {
            throw reader.error("end", localized("end: is the last day of an all-day event: it needs date: and no time:"))
        }
        spec.only = try field("only", types: [.bool])
        spec.whenAsked = try reader.bool("when_asked") ?? false
        if spec.time == nil, spec.duration != nil {
            throw reader.error("duration", localized("an event without time: lasts all day, so it has no duration"))
        }
        return spec
    }
}
