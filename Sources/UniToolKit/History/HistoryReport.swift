import Foundation

/// What changed, run by run, in a recipe's history: the rows `unitool history grades` prints and
/// `history.query` returns.
public enum HistoryReport {
    public static let columns = ["time", "options", "change", "key", "field", "old", "new"]

    /// The changes in runs since `since`. Each run is compared with the one before it that had the
    /// same options (the first in the window with the last before it, when there is one); a run
    /// with nothing before it is a baseline and reports nothing.
    public static func changes(
        in history: HistoryStore, recipe: DataRecipe, portal: String, user: String, since: Date
    ) throws -> RecordSet {
        let runs = try history.runs(portal: portal, user: user, recipe: recipe.command, since: since)
        var previous: [String: HistoryStore.Run] = [:]
        var rows: [Record] = []
        for run in runs {
            let before =
                try previous[run.options]
                ?? history.run(before: run.ranAt, portal: portal, user: user, recipe: recipe.command, options: run.options)
            previous[run.options] = run
            guard let before, before.recordsJSON != run.recordsJSON else { continue }
            let source = run.options.split(separator: "&").first { $0.hasPrefix("source=") }.map { String($0.dropFirst(7)) }
            let fields = recipe.source(named: source)?.fields ?? recipe.primary.fields
            let old = try HistoryCodec.records(before.recordsJSON, columns: before.columns, fields: fields)
            let new = try HistoryCodec.records(run.recordsJSON, columns: run.columns, fields: fields)
            let time = FieldValue.datetime(HistoryStore.iso8601(run.ranAt))
            for change in RecordChanges(from: old, to: new, keys: recipe.keyFields, comparisons: recipe.comparisons).changes {
                func row(_ field: String?, _ was: FieldValue, _ now: FieldValue) -> Record {
                    Record(fields: [
                        ("time", time), ("options", .string(run.options)), ("change", .string(change.kind)), ("key", .string(change.key)),
                        ("field", field.map(FieldValue.string) ?? .null), ("old", was), ("new", now),
                    ])
                }
                switch change {
                case .changed(_, _, let fields): rows += fields.map { row($0.field, $0.old, $0.new) }
                case .added: rows.append(row(nil, .null, .null))
                case .removed: rows.append(row(nil, .null, .null))
                }
            }
        }
        return RecordSet(columns: columns, records: rows)
    }

    /// `30d`, `12h`, `2026-11-01` or `today`: the start of a window, for `--since`.
    public static func start(of text: String, now: Date = Date()) throws -> Date {
        let calendar = Calendar.current
        if text == "today" { return calendar.startOfDay(for: now) }
        // The count is range-checked where it is read (InputBounds), as every duration is.
        if let span = try InputBounds.span(text, option: "--since", units: [.days, .hours]) {
            return now.addingTimeInterval(-Double(span.seconds))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        if let date = formatter.date(from: text) { return date }
        throw UniToolError(
            .usage, localized("'\(text)' is not a time to start from"), hint: localized("use 30d, 12h, today or a date such as 2026-11-01"))
    }
}

extension HistoryReport {
    /// How far back the changes go unless asked, on every front end.
    public static let defaultSince = "30d"
}
