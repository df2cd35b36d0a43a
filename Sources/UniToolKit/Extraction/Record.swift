/// A typed value read from a page.
public enum FieldValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    /// A calendar date as ISO 8601 (`2026-11-22`): what scripts compare and sort.
    case date(String)
    /// A moment as ISO 8601 with its offset (`2026-11-20T09:30:00+01:00`).
    case datetime(String)
    case bool(Bool)
    case url(String)
    /// Records inside a record: a course's meetings.
    case list([Record])
    case null

    /// The value as a table cell or CSV field shows it.
    public var text: String {
        switch self {
        case .string(let value), .date(let value), .datetime(let value), .url(let value): return value
        case .list(let records):
            return records.map { record in
                record.fields.map(\.value.text).filter { !$0.isEmpty }.joined(separator: " ")
            }.joined(separator: "; ")
        case .integer(let value): return String(value)
        case .number(let value): return Self.numberText(value)
        case .bool(let value): return value ? "yes" : "no"
        case .null: return ""
        }
    }

    /// A number as people and JSON write it: whole numbers without `.0`.
    public static func numberText(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The day of a date or a date and time (`2026-12-01`), as it is written: the portal's own
    /// day, whatever zone the reader is in. Nil for any other value. Filters, watch reminders
    /// and their summaries all compare days by this.
    public var day: String? {
        switch self {
        case .date(let text): return text
        case .datetime(let text): return String(text.prefix(10))
        default: return nil
        }
    }

    public var isNumeric: Bool {
        switch self {
        case .integer, .number: return true
        default: return false
        }
    }
}

/// One row of output. Field order is the recipe's, so every output format has stable keys.
public struct Record: Sendable, Equatable {
    public var fields: [(name: String, value: FieldValue)]

    public init(fields: [(name: String, value: FieldValue)]) { self.fields = fields }

    public subscript(name: String) -> FieldValue? {
        fields.first { $0.name == name }?.value
    }

    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// The records of one recipe run, with the column order the recipe declares.
public struct RecordSet: Sendable, Equatable {
    public var columns: [String]
    public var records: [Record]

    public init(columns: [String], records: [Record]) {
        self.columns = columns
        self.records = records
    }
}

extension RecordSet {
    /// Only the named fields, in the order given: `--fields course,grade`.
    public func selecting(_ names: [String]) throws -> RecordSet {
        let names = names.filter { !$0.isEmpty }
        for name in names where !columns.contains(name) {
            let fields = columns.joined(separator: ", ")
            throw UniToolError(
                .usage, localized("there is no field '\(name)'"), hint: localized("the fields are: \(fields)"))
        }
        guard !names.isEmpty else { return self }
        return RecordSet(
            columns: names,
            records: records.map { record in Record(fields: names.map { (name: $0, value: record[$0] ?? .null) }) })
    }
}
