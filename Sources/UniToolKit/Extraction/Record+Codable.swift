import Foundation

// Records are stored (the history's snapshots, a watch's pending events) and must come back
// exactly as they were made: the fields in their order and with their types.

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
