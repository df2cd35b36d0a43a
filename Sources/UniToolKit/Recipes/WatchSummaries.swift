import Foundation

/// A data recipe's `watch:` section: how a watch's events about its records read for people.
///
/// ```yaml
/// watch:
///   due: due                      # the date a record is due by: {{when}}, and --due-within's field
///   summary:
///     changed.grade: "New grade: {{course}} ({{code}}): {{grade}}"
///     changed: "{{course}} ({{code}}): {{changes}}"
///     added: "New loan: {{title}}, {{when}}"
///     overdue: "{{title}} is {{when}}"
/// ```
///
/// A summary is the title of a notification and `UNITOOL_EVENT_SUMMARY`, so it must name the
/// thing (a book's title, a course) and say what happened in words; only the recipe knows which
/// of its fields does that. `KIND.FIELD` is used before `KIND` when that field is among the
/// changes of a `changed` event (a grade given where there was none), or has a value in the
/// record of any other (a course listed with its grade already given). The section is checked
/// when the recipe is read: an unknown event kind or placeholder is a recipe error, never an
/// empty notification.
///
/// Templates insert values only (``Template``); what they produce is the portal's text, which
/// every channel escapes for where it shows it.
public struct WatchSummaries: Sendable, Equatable {
    /// The event kinds a summary may be given for: those about one record.
    public static let kinds = ["added", "changed", "removed", "due_soon", "overdue"]
    /// Placeholders that are not fields: the changes in words, the due date in words, the command.
    public static let changesPlaceholder = "changes"
    public static let whenPlaceholder = "when"
    public static let commandPlaceholder = "command"

    /// A date field of the recipe: what `{{when}}` words ("due Tue 1 Dec", "overdue since
    /// 26 Nov"), and the field `--due-within` watches when it names none.
    public var due: String?
    /// Days before `due` a watch of this command reminds of it (`within: 3d`) when the command
    /// line gives no `--due-within`: a loans watch says what is due or overdue from its first
    /// run. Nil: only `--due-within` does.
    public var within: Int?
    /// The templates by event kind (`added`, `changed.grade`), in file order.
    public var templates: [Entry]

    public struct Entry: Sendable, Equatable {
        /// An event kind, or `KIND.FIELD`.
        public var kind: String
        public var template: Template
    }

    public init(due: String? = nil, within: Int? = nil, templates: [Entry] = []) {
        self.due = due
        self.within = within
        self.templates = templates
    }

    /// The template for an event of `kind`: the first `KIND.FIELD` whose field is one of
    /// `fields` (a `changed` event's changed fields; another's fields with a value), else `KIND`.
    public func template(kind: String, fields: [String] = []) -> Template? {
        let prefix = kind + "."
        if let specific = templates.first(where: { $0.kind.hasPrefix(prefix) && fields.contains(String($0.kind.dropFirst(prefix.count))) })
        {
            return specific.template
        }
        return templates.first { $0.kind == kind }?.template
    }

    /// An entry's kind without its `.FIELD`, and the field.
    static func split(_ kind: String) -> (kind: String, field: String?) {
        guard let dot = kind.firstIndex(of: ".") else { return (kind, nil) }
        return (String(kind[..<dot]), String(kind[kind.index(after: dot)...]))
    }

    /// The placeholders a template for `kind` may use besides the record's fields; nil for a kind
    /// that is not one. `{{when}}` needs a due date: always there for `due_soon` and `overdue`,
    /// elsewhere only when the section names `due:`.
    static func extraPlaceholders(kind: String, hasDue: Bool) -> [String]? {
        let base = split(kind).kind
        guard kinds.contains(base) else { return nil }
        var names = [commandPlaceholder]
        if base == "changed" { names.append(changesPlaceholder) }
        if hasDue || base == "due_soon" || base == "overdue" { names.append(whenPlaceholder) }
        return names
    }

    /// Reads and checks a `watch:` section against the recipe's fields.
    static func load(reader: MappingReader, fields: [FieldSpec]) throws -> WatchSummaries {
        try reader.allowOnly(["due", "within", "summary"])
        let names = fields.map(\.name)
        var result = WatchSummaries()
        if let due = try reader.string("due") {
            guard let field = fields.first(where: { $0.name == due }), field.type == .date || field.type == .datetime else {
                let dates = fields.filter { $0.type == .date || $0.type == .datetime }.map(\.name)
                let list = dates.joined(separator: ", ")
                throw reader.error(
                    "due", localized("'\(due)' is not a date field of this recipe"),
                    hint: dates.isEmpty ? localized("it has no date field") : localized("its date fields: \(list)"))
            }
            result.due = due
        }
        if let within = try reader.string("within") {
            guard result.due != nil else {
                throw reader.error(
                    "within", localized("says how many days before the due date: name it with 'due:'"),
                    hint: "watch: { due: due, within: 3d }")
            }
            guard let days = within.hasSuffix("d") ? Int(within.dropLast()) : nil, (0...366).contains(days) else {
                throw reader.error(
                    "within", localized("'\(within)' is not a number of days from 0d to 366d"), hint: localized("such as within: 3d"))
            }
            result.within = days
        }
        guard let summary = try reader.mappingReader("summary") else { return result }
        for kind in summary.keys {
            let known = kinds + names.map { "changed.\($0)" }
            guard let extra = extraPlaceholders(kind: kind, hasDue: result.due != nil), split(kind).field.map(names.contains) ?? true
            else {
                let suggestion = kind == "new" ? "added" : typoSuggestion(for: kind, among: known)
                let list = kinds.joined(separator: ", ")
                throw summary.error(
                    kind, localized("'\(kind)' is not an event kind a summary is written for"),
                    hint: (suggestion.map { localized("did you mean '\($0)'?") + " " } ?? "")
                        + localized("kinds: \(list), each also as KIND.FIELD with a field of this recipe (changed.grade)"))
            }
            guard let text = try summary.text(kind)?.text(for: Translation.current.locales, orFirst: true), !text.isEmpty else {
                throw summary.error(kind, localized("must not be empty"))
            }
            let template = Template(text)
            let allowed = names + extra
            for variable in template.variables where !allowed.contains(variable) {
                let list = allowed.map { "{{\($0)}}" }.joined(separator: ", ")
                let hint =
                    variable == whenPlaceholder
                    ? localized("{{when}} words a due date: name the date field with 'due:' in this watch section")
                    : (typoSuggestion(for: variable, among: allowed).map { localized("did you mean {{\($0)}}?") + " " } ?? "")
                        + localized("it may use: \(list)")
                throw summary.error(
                    kind, localized("uses {{\(variable)}}, which is neither a field nor a placeholder of a '\(kind)' summary"), hint: hint)
            }
            result.templates.append(Entry(kind: kind, template: template))
        }
        return result
    }
}
