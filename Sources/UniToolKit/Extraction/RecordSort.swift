import Foundation

extension FieldValue {
    /// The order records sort in: numbers by value, dates and text by their text (ISO 8601 sorts
    /// as time does), no before yes; and an empty value after every other, whichever direction.
    static func ascending(_ left: FieldValue, _ right: FieldValue) -> Bool? {
        switch (left, right) {
        case (.null, .null): return nil
        case (.null, _), (_, .null): return nil
        default: break
        }
        if left.isNumeric, right.isNumeric, let a = left.numericValue, let b = right.numericValue {
            return a == b ? nil : a < b
        }
        if case .bool(let a) = left, case .bool(let b) = right { return a == b ? nil : !a && b }
        let a = left.text
        let b = right.text
        return a == b ? nil : a.localizedStandardCompare(b) == .orderedAscending
    }

    var numericValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }
}

extension RecordSet {
    /// The records in the order of `keys` (stable: records equal on every key keep their order).
    /// A key that is not a field is a usage error naming the fields.
    public func sorted(by keys: [SortKey]) throws -> RecordSet {
        for key in keys where !columns.contains(key.field) {
            let fields = columns.joined(separator: ", ")
            throw UniToolError(
                .usage, localized("cannot sort by '\(key.field)': there is no such field"), hint: localized("the fields are: \(fields)"))
        }
        guard !keys.isEmpty else { return self }
        let ordered = records.enumerated().sorted { left, right in
            for key in keys {
                let a = left.element[key.field] ?? .null
                let b = right.element[key.field] ?? .null
                // Empty values last, whatever the direction.
                if a == .null, b != .null { return false }
                if b == .null, a != .null { return true }
                if let ascending = FieldValue.ascending(a, b) { return key.descending ? !ascending : ascending }
            }
            return left.offset < right.offset
        }
        return RecordSet(columns: columns, records: ordered.map(\.element))
    }
}
