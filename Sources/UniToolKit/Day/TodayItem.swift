import Foundation

/// One part of `unitool today`, as the portal recipe's `today:` list declares it: which command
/// to run, with which options, and what of its records to show.
public struct TodayItem: Sendable, Equatable {
    public enum Show: String, Sendable, CaseIterable {
        /// The command's calendar events from today through `days` days ahead, in time order,
        /// the next one marked (today's classes, this week's exams).
        case events
        /// Records whose date `field` is on or before `days` days from today, overdue ones
        /// included (loans due soon).
        case due
        /// Records added or changed since the user last looked at `today` (news, grades).
        case changes
        /// Every record.
        case records
    }

    public var title: String
    public var command: String
    public var options: [String: String]
    public var show: Show
    public var days: Int
    public var field: String?

    public init(title: String, command: String, options: [String: String], show: Show, days: Int, field: String?) {
        self.title = title
        self.command = command
        self.options = options
        self.show = show
        self.days = days
        self.field = field
    }

    /// The section's name in `--json`: the title, lowercased, words joined by `_`
    /// ("Classes today" is `classes_today`).
    public var key: String {
        let words = title.lowercased().split { !$0.isLetter && !$0.isNumber }
        return words.isEmpty ? command : words.joined(separator: "_")
    }

    static func load(_ reader: MappingReader) throws -> TodayItem {
        try reader.allowOnly(["title", "command", "options", "show", "days", "field"])
        let command = try reader.requiredString("command")
        let show = try reader.choice("show", of: Show.self) ?? .records
        let days = try reader.integer("days") ?? (show == .due ? 3 : 0)
        guard (0...366).contains(days) else { throw reader.error("days", "must be from 0 to 366") }
        let field = try reader.string("field")
        if show == .due, field == nil {
            throw reader.error("field", "missing: show: due needs the date field to compare, such as field: due")
        }
        return TodayItem(
            title: try reader.string("title") ?? command, command: command,
            options: Dictionary(try reader.stringMap("options") ?? [], uniquingKeysWith: { _, last in last }), show: show, days: days,
            field: field)
    }
}
