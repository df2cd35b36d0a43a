import Foundation

/// Records read back from the history's JSON with their types: the recipe's fields say which
/// text is a date, a URL or a plain string, which JSON alone cannot.
public enum HistoryCodec {
    public static func records(_ json: String, columns: [String], fields: [FieldSpec]) throws -> RecordSet {
        guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else {
            throw UniToolError(
                .stateCorrupt, "a run in the history cannot be read back", hint: "move the history file away to start a new one")
        }
        let types = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return RecordSet(columns: columns, records: array.map { record(from: $0, columns: columns, types: types) })
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
