import Foundation

/// A JSON value of the DevTools protocol: what a command's parameters and results, and an
/// event's parameters, are made of. Sendable, unlike Foundation's `Any` trees, so that results
/// cross from the pipe's reader to the task that asked.
public enum DevToolsValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([DevToolsValue])
    case object([String: DevToolsValue])

    /// The member `key` of an object; `.null` for anything else.
    public subscript(key: String) -> DevToolsValue {
        if case .object(let members) = self { return members[key] ?? .null }
        return .null
    }

    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var number: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var int: Int? { number.flatMap { Int(exactly: $0.rounded()) } }

    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var array: [DevToolsValue] {
        if case .array(let items) = self { return items }
        return []
    }

    public var isNull: Bool { self == .null }

    /// Reads one JSON text.
    public init(json data: Data) throws {
        self = try JSONDecoder().decode(DevToolsValue.self, from: data)
    }

    /// The value as JSON text.
    public func serialized() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension DevToolsValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([DevToolsValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: DevToolsValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Ids and counts go out as integers, as the protocol's schema types them.
            if value.rounded() == value, abs(value) < 9e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        case .object(let members): try container.encode(members)
        }
    }
}

extension DevToolsValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(dictionaryLiteral elements: (String, DevToolsValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: DevToolsValue...) { self = .array(elements) }
}
