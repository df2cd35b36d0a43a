import Foundation
import LibXML

/// What a made command's dates are for, so that `unitool today` and `unitool calendar` show it
/// as they show the bundled recipes: a due date (a loan's: `overdue`, a `today:` item of what is
/// due, an all-day event), or the times of upcoming events (a `today:` item of events, events).
///
/// Told by the field's name or header (`due`, 返却期限, Rückgabe): a due date even when every
/// loan is overdue. Without such a name, by the recorded values against the recording's own
/// date: dates mostly on or after the day it was recorded are upcoming events; a date long past
/// (a grade's date) is neither.
struct DraftDates: Equatable {
    enum Kind: Equatable { case due, events }
    var kind: Kind
    /// The date (or datetime) field.
    var field: String
    /// The field the event's title comes from.
    var title: String?
    /// A text field of the event's time, added for a datetime field (`time:` of the calendar).
    var timeField: (name: String, xpath: String, regex: String)?
    /// What the report says about the guess.
    var reading: String

    static func == (lhs: DraftDates, rhs: DraftDates) -> Bool {
        lhs.kind == rhs.kind && lhs.field == rhs.field && lhs.title == rhs.title && lhs.timeField?.name == rhs.timeField?.name
    }

    /// Words a due date's header holds, in the languages portals are written in.
    static let dueWords = [
        "due", "return", "expir", "deadline", "返却", "期限", "締切", "期日", "fällig", "rückgabe", "frist", "échéance", "retour",
        "scadenza", "vencimiento", "devolución", "termin", "반납",
    ]

    /// The header the page gave a field, as ``RecordedPage`` notes it ("its header is '返却期限'").
    static func header(of field: DraftDataRecipe.Field) -> String? {
        for guess in field.guesses {
            if let range = guess.range(of: #"its header is '[^']*'"#, options: .regularExpression) {
                return String(guess[range].dropFirst("its header is '".count).dropLast())
            }
        }
        return nil
    }

    /// The recorded values of a field, row by row, read as the recipe reads them.
    static func values(of field: DraftDataRecipe.Field, in draft: DraftDataRecipe, document: Document?, namespaces: [String: String])
        -> [String]
    {
        guard let document, let rows = try? document.select(draft.rows, namespaces: namespaces) else { return [] }
        return rows.compactMap { row in
            var value = (try? row.evaluate("string(\(field.xpath))", namespaces: namespaces).stringValue)?
                .trimmingWhitespaceAndNewlines()
            if let regex = field.regex, let text = value {
                value = RecipeDraft.matches(regex, in: text).first
            }
            return value.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// A recorded value as a day (`yyyy-MM-dd`), by the field's format.
    static func day(_ value: String, format: String?) -> String? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        switch format {
        case "iso8601":
            return value.count >= 10 ? String(value.prefix(10)) : nil
        case "rfc822":
            formatter.dateFormat = "EEE, d MMM yyyy HH:mm:ss Z"
        case .some(let format):
            formatter.dateFormat = format
        case nil:
            return nil
        }
        guard let date = formatter.date(from: value) else { return nil }
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// The moment the recording was made: the latest `Date` header of its answers.
    static func recordingMoment(_ archive: HTTPArchive) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return archive.exchanges.compactMap { exchange in
            exchange.responseHeaders.first { $0.name.lowercased() == "date" }.flatMap { formatter.date(from: $0.value) }
        }.max()
    }

    /// The day the recording was made, in UTC: the day of ``recordingMoment(_:)``.
    static func recordingDay(_ archive: HTTPArchive) -> String? {
        guard let latest = recordingMoment(archive) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: latest)
    }

    /// The dates of a made command, or nil when it has none that matter today.
    static func guess(
        _ draft: DraftDataRecipe, document: Document?, namespaces: [String: String], recordedOn: String?
    ) -> DraftDates? {
        let dated = draft.fields.filter { $0.type == "date" || $0.type == "datetime" }
        var best: DraftDates?
        for field in dated where field.name != draft.option?.name {
            let words = ([field.name] + (header(of: field).map { [$0] } ?? [])).joined(separator: " ").lowercased()
            let dueLike = dueWords.contains { words.contains($0) }
            let raw = values(of: field, in: draft, document: document, namespaces: namespaces)
            let days = raw.compactMap { day($0, format: field.format) }
            // Mostly on or after the day of the recording: what is still to come.
            let ahead = recordedOn.map { today in days.filter { $0 >= today }.count } ?? 0
            let mostlyAhead = recordedOn != nil && !days.isEmpty && ahead * 2 >= days.count
            let allPast = recordedOn != nil && !days.isEmpty && ahead == 0
            let title =
                draft.fields.first { ["title", "name", "subject", "summary", "course", "event"].contains($0.name) }?.name
                ?? draft.fields.first { $0.type == nil && !$0.key && $0.name != draft.option?.name && !$0.name.hasPrefix("column_") }?
                .name ?? draft.fields.first { $0.type == nil && $0.name != draft.option?.name }?.name
            let shown = header(of: field).map { "'\($0)'" } ?? "'\(field.name)'"
            let command = draft.command
            let fieldName = field.name
            let total = days.count
            if field.type == "date", dueLike {
                return DraftDates(
                    kind: .due, field: field.name, title: title, timeField: nil,
                    reading: mostlyAhead
                        ? localized(
                            "\(command).\(fieldName): a due date (its name or header \(shown), and \(ahead) of \(total) dates on or after the day of the recording): overdue, a today: item and an all-day event on it"
                        )
                        : localized(
                            "\(command).\(fieldName): a due date (its name or header \(shown)): overdue, a today: item and an all-day event on it"
                        )
                )
            }
            guard best == nil, mostlyAhead || field.type == "datetime" && dueLike && !allPast else { continue }
            var time: (name: String, xpath: String, regex: String)?
            if field.type == "datetime", raw.allSatisfy({ !$0.hasSuffix("Z") }), raw.contains(where: { $0.contains(":") }) {
                let regex = field.format == "iso8601" ? "T([0-9]{2}:[0-9]{2})" : "([0-9]{1,2}:[0-9]{2})"
                var name = "\(field.name)_time"
                while draft.fields.contains(where: { $0.name == name }) { name += "_" }
                time = (name, field.xpath, regex)
            }
            best = DraftDates(
                kind: .events, field: field.name, title: title, timeField: time,
                reading: time == nil
                    ? localized(
                        "\(command).\(fieldName): the dates of upcoming events (\(ahead) of \(total) on or after the day of the recording): a today: item and all-day events"
                    )
                    : localized(
                        "\(command).\(fieldName): the dates of upcoming events (\(ahead) of \(total) on or after the day of the recording): a today: item and timed events"
                    )
            )
        }
        return best
    }
}
