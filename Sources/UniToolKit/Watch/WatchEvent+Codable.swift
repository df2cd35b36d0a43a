import Foundation

// An event a channel did not take is kept in the history and sent again on a later run
// (`PendingDelivery`), so an event must come back from storage exactly as it was made: the
// record's fields in their order and with their types, the changes, the error.

extension FieldValue: Codable {
    /// One key, the type's name, so that a date stays a date and "12" stays a string.
    private enum Tag: String, CodingKey {
        case string, integer, number, date, datetime, bool, url, list, null
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Tag.self)
        guard let tag = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a value needs one type key"))
        }
        switch tag {
        case .string: self = .string(try container.decode(String.self, forKey: tag))
        case .integer: self = .integer(try container.decode(Int.self, forKey: tag))
        case .number: self = .number(try container.decode(Double.self, forKey: tag))
        case .date: self = .date(try container.decode(String.self, forKey: tag))
        case .datetime: self = .datetime(try container.decode(String.self, forKey: tag))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: tag))
        case .url: self = .url(try container.decode(String.self, forKey: tag))
        case .list: self = .list(try container.decode([Record].self, forKey: tag))
        case .null: self = .null
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Tag.self)
        switch self {
        case .string(let value): try container.encode(value, forKey: .string)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .number(let value): try container.encode(value, forKey: .number)
        case .date(let value): try container.encode(value, forKey: .date)
        case .datetime(let value): try container.encode(value, forKey: .datetime)
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .url(let value): try container.encode(value, forKey: .url)
        case .list(let records): try container.encode(records, forKey: .list)
        case .null: try container.encode(true, forKey: .null)
        }
    }
}

extension Record: Codable {
    /// A list of fields, not an object: the order is the recipe's and must survive.
    private struct Field: Codable {
        var name: String
        var value: FieldValue
    }

    public init(from decoder: any Decoder) throws {
        self.init(fields: try [Field](from: decoder).map { (name: $0.name, value: $0.value) })
    }

    public func encode(to encoder: any Encoder) throws {
        try fields.map { Field(name: $0.name, value: $0.value) }.encode(to: encoder)
    }
}

extension WatchEvent: Codable {
    private struct Stored: Codable {
        var kind: String
        var portal: String
        var user: String
        var command: String
        var options: String
        var time: Date
        var key: String?
        var record: Record?
        var changes: [RecordChanges.FieldChange]
        var errorKind: String?
        var errorMessage: String?
        var errorHint: String?
    }

    public init(from decoder: any Decoder) throws {
        let stored = try Stored(from: decoder)
        guard let kind = Kind(rawValue: stored.kind) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no event kind '\(stored.kind)'"))
        }
        let error = stored.errorKind.map { kind in
            UniToolError(UniToolError.Kind(rawValue: kind) ?? .internal, stored.errorMessage ?? "", hint: stored.errorHint)
        }
        self.init(
            kind: kind, portal: stored.portal, user: stored.user, command: stored.command, options: stored.options,
            time: stored.time, key: stored.key, record: stored.record, changes: stored.changes, error: error)
    }

    public func encode(to encoder: any Encoder) throws {
        try Stored(
            kind: kind.rawValue, portal: portal, user: user, command: command, options: options, time: time, key: key, record: record,
            changes: changes, errorKind: error?.kind.rawValue, errorMessage: error?.message, errorHint: error?.hint
        ).encode(to: encoder)
    }
}
