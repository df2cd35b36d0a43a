import Foundation

/// Records as the history keeps them, and read back with their types: the recipe's fields say
/// which text is a date, a URL or a plain string, which JSON alone cannot.
public enum HistoryCodec {
    /// A snapshot's text: one JSON array per record, its values in the order of the columns
    /// (which the snapshot keeps beside it), one record a line. The field names are not repeated
    /// in every record as `--format json` repeats them: that was half of every snapshot (44 MB
    /// for a page of 560,000 rows). A nested list keeps its objects, as its fields are its own.
    public static func encode(_ set: RecordSet) -> String {
        guard !set.records.isEmpty else { return "[]" }
        var text = "[\n"
        text.reserveCapacity(set.records.count * 16 * max(1, set.columns.count))
        for (index, record) in set.records.enumerated() {
            if index > 0 { text += ",\n" }
            text += "["
            // Records carry their fields in the columns' order; a lookup only when they do not.
            let inOrder =
                record.fields.count == set.columns.count && zip(record.fields, set.columns).allSatisfy { $0.name == $1 }
            for (position, column) in set.columns.enumerated() {
                if position > 0 { text += "," }
                let value = inOrder ? record.fields[position].value : (record[column] ?? .null)
                text += JSONRenderer.value(value)
            }
            text += "]"
        }
        text += "\n]"
        return text
    }

    /// Reads a snapshot back: rows as arrays (`encode`), or the objects of snapshots written
    /// before that, which stay readable.
    public static func records(_ json: String, columns: [String], fields: [FieldSpec]) throws -> RecordSet {
        guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] else {
            throw unreadable
        }
        let types = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let specs = columns.map { types[$0] }
        var records: [Record] = []
        records.reserveCapacity(array.count)
        for item in array {
            if let values = item as? [Any] {
                records.append(
                    Record(fields: columns.indices.map { (columns[$0], value($0 < values.count ? values[$0] : nil, spec: specs[$0])) }))
            } else if let object = item as? [String: Any] {
                records.append(record(from: object, columns: columns, types: types))
            } else {
                throw unreadable
            }
        }
        return RecordSet(columns: columns, records: records)
    }

    static var unreadable: UniToolError {
        UniToolError(
            .stateCorrupt, localized("a run in the history cannot be read back"),
            hint: localized("move the history file away to start a new one"))
    }

    static func record(from object: [String: Any], columns: [String], types: [String: FieldSpec]) -> Record {
        Record(fields: columns.map { name in (name, value(object[name], spec: types[name])) })
    }

    static func value(_ raw: Any?, spec: FieldSpec?) -> FieldValue {
        guard let raw, !(raw is NSNull) else { return .null }
        if let list = spec?.list, let items = raw as? [[String: Any]] {
            let nested = Dictionary(list.fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            return .list(items.map { record(from: $0, columns: list.fields.map(\.name), types: nested) })
        }
        switch spec?.type ?? .string {
        case .bool: return (raw as? Bool).map(FieldValue.bool) ?? .null
        case .integer:
            if let number = raw as? NSNumber { return .integer(number.intValue) }
        case .number:
            if let number = raw as? NSNumber { return .number(number.doubleValue) }
        case .date: return (raw as? String).map(FieldValue.date) ?? .null
        case .datetime: return (raw as? String).map(FieldValue.datetime) ?? .null
        case .url: return (raw as? String).map(FieldValue.url) ?? .null
        case .string: break
        }
        if let text = raw as? String { return .string(text) }
        if let number = raw as? NSNumber { return .number(number.doubleValue) }
        return .string("\(raw)")
    }
}
