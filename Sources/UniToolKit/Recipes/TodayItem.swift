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
    /// The fields a `records` or `due` section shows (`fields: [cafeteria, dish, price]`), in
    /// this order; nil: the command's table columns.
    public var fields: [String]? = nil
    /// The title the section's `--json` name is made from: the recipe's English (or plain) one,
    /// whatever language ``title`` is shown in, so that a script reads the same name everywhere.
    public var keyTitle: String? = nil

    public init(title: String, command: String, options: [String: String], show: Show, days: Int, field: String?) {
        self.title = title
        self.command = command
        self.options = options
        self.show = show
        self.days = days
        self.field = field
    }

    /// The section's name in `--json`: the title, lowercased, words joined by `_`
    /// ("Classes today" is `classes_today`; an apostrophe joins, "Today's menu" is `todays_menu`).
    public var key: String {
        let words = (keyTitle ?? title).lowercased().filter { $0 != "'" && $0 != "\u{2019}" }.split { !$0.isLetter && !$0.isNumber }
        return words.isEmpty ? command : words.joined(separator: "_")
    }

    static func load(_ reader: MappingReader) throws -> TodayItem {
        try reader.allowOnly(["title", "command", "options", "show", "days", "field", "fields"])
        let command = try reader.requiredString("command")
        let show = try reader.choice("show", of: Show.self) ?? .records
        let days = try reader.integer("days") ?? (show == .due ? 3 : 0)
        guard (0...366).contains(days) else { throw reader.error("days", localized("must be from 0 to 366")) }
        let field = try reader.string("field")
        if show == .due, field == nil {
            throw reader.error("field", localized("missing: show: due needs the date field to compare, such as field: due"))
        }
        // A title for people, per language if the recipe gives several (RecipeText).
        let title = try reader.text("title")
        var item = TodayItem(
            title: title?.text(for: Translation.current.locales, orFirst: true) ?? command, command: command,
            options: Dictionary(try reader.stringMap("options") ?? [], uniquingKeysWith: { _, last in last }), show: show, days: days,
            field: field)
        item.keyTitle = title?.text(for: [], orFirst: true)
        item.fields = try reader.stringList("fields")
        if item.fields != nil, show != .records, show != .due {
            throw reader.error("fields", localized("only a records or due section chooses its fields; events and changes have their own"))
        }
        return item
    }
}

extension PortalRecipe {
    /// What is wrong with the `today:` list against the portal's commands, for `recipes lint`:
    /// a command it does not have, an option the command does not take, a `due` field that is not
    /// a date, `events` from a command without a calendar.
    public func todayProblems(commands: [String: DataRecipe]) -> [String] {
        today.enumerated().flatMap { index, item -> [String] in
            let place = "\(file): today[\(index)] (\(item.title))"
            guard let recipe = commands[item.command] else {
                let list = commands.keys.sorted().joined(separator: ", ")
                return [localized("\(place): '\(item.command)' is not a command of '\(id)' (commands: \(list))")]
            }
            var problems: [String] = []
            for name in item.options.keys.sorted() where !recipe.options.contains(where: { $0.name == name }) {
                problems.append(localized("\(place): '\(item.command)' has no option '\(name)'"))
            }
            for name in item.fields ?? [] where !recipe.columns.contains(name) {
                let list = recipe.columns.joined(separator: ", ")
                problems.append(localized("\(place): '\(name)' is not a field of '\(item.command)' (fields: \(list))"))
            }
            switch item.show {
            case .events where recipe.calendar == nil:
                problems.append(localized("\(place): show: events needs a calendar: section in \(recipe.file)"))
            case .due:
                let field = recipe.primary.fields.first { $0.name == item.field }
                if field?.type != .date && field?.type != .datetime {
                    let name = item.field ?? ""
                    problems.append(localized("\(place): field: '\(name)' is not a date field of '\(item.command)'"))
                }
            case .changes where recipe.keyFields.isEmpty:
                problems.append(localized("\(place): show: changes follows records by their key: fields, and \(recipe.file) has none"))
            default: break
            }
            return problems
        }
    }
}
