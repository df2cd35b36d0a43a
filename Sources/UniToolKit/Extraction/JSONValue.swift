import Foundation

/// A JSON value that keeps object keys in order: JSON-RPC's messages, and a portal's JSON
/// answers before they become XML for a recipe (`StructuredText`). One parser for both.
///
/// unitool parses JSON itself (RFC 8259, strictly for protocol messages) rather than through
/// `JSONSerialization`: that keeps `true` apart from `1` on every platform, keeps a record's keys
/// in the recipe's order, lets the parser enforce a nesting limit on hostile input, and keeps a
/// number's exact text where a `Double` would change it.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    /// A number read from JSON text that a `Double` cannot carry back unchanged (`12345678901234567890`,
    /// `9007199254740993`, `1.5e3`, `-0`, `1e999`), kept as the text that was sent and written back
    /// byte for byte. JSON-RPC requires an id to come back exactly as sent, and a `Double` would
    /// round large integers and respell exponents. Only `JSONParser` makes it: the text is always
    /// valid RFC 8259 number grammar.
    case numberLiteral(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// Numbers are equal when their values are equal as `Double`s, however they were written
    /// (`1500` and `1.5e3`); `serialized` still writes each one as it was read.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number, .number), (.number, .numberLiteral), (.numberLiteral, .number), (.numberLiteral, .numberLiteral):
            return lhs.doubleValue == rhs.doubleValue
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of an array, or nil for anything else.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// A number's value, however it was written; infinite for a literal beyond `Double`'s range.
    public var doubleValue: Double? {
        switch self {
        case .number(let number): return number
        case .numberLiteral(let text): return Double(text)
        default: return nil
        }
    }

    /// Whether this is a number, whichever way it is held.
    public var isNumber: Bool { doubleValue != nil }

    /// A number read from JSON text (already checked against the grammar): a plain `.number`
    /// when writing its `Double` back gives the very same text, so that everyday numbers stay
    /// simple to match; otherwise the text itself, so that nothing the client sent is altered.
    static func parsedNumber(_ text: String) -> JSONValue {
        // Longer texts are never the shortest spelling of a Double; don't convert them at all.
        if text.utf8.count <= 24, let value = Double(text), value.isFinite, FieldValue.numberText(value) == text {
            return .number(value)
        }
        return .numberLiteral(text)
    }

    /// The JSON type's name, for "expected a string, got a number" messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return localized("a boolean")
        case .number, .numberLiteral: return localized("a number")
        case .string: return localized("a string")
        case .array: return localized("an array")
        case .object: return localized("an object")
        }
    }

    /// Compact JSON text, with no insignificant white space, as one protocol line.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number):
            output += number.isFinite ? FieldValue.numberText(number) : "null"
        case .numberLiteral(let text): output += text
        case .string(let text): output += JSONString.quoted(text)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                output += JSONString.quoted(member.key)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }
}

extension JSONValue {
    /// A record as a JSON object, keys in the recipe's order.
    public init(_ record: Record) {
        self = .object(record.fields.map { ($0.name, JSONValue($0.value)) })
    }

    public init(_ value: FieldValue) {
        switch value {
        case .string(let text), .date(let text), .datetime(let text), .url(let text): self = .string(text)
        case .integer(let number): self = .number(Double(number))
        case .number(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        case .list(let records): self = .array(records.map(JSONValue.init))
        case .null: self = .null
        }
    }
}

/// A strict RFC 8259 parser over bytes. Errors say where the text went wrong.
public struct JSONParser {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let offset: Int
        public let reason: String
        public var description: String { localized("\(reason) at byte \(offset)") }
    }

    /// More arrays and objects inside one another than this are refused: no honest client needs
    /// it, and it keeps a hostile message from exhausting the stack. Only containers count as
    /// levels: 64 nested arrays around a number are fine, 65 nested arrays are not.
    public static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    /// Text as a browser reads a page's JSON: invalid UTF-8 and a lone surrogate become U+FFFD
    /// and an unknown escape the character itself, instead of refusals. For a portal's answer,
    /// never for a protocol message.
    private let lenientText: Bool

    private init(bytes: [UInt8], lenientText: Bool) {
        self.bytes = bytes
        self.lenientText = lenientText
    }

    public static func parse(_ bytes: [UInt8], lenientText: Bool = false) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, lenientText: lenientText)
        parser.skipWhitespace()
        let value = try parser.parseValue(enclosingContainers: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure(localized("unexpected text after the JSON value")) }
        return value
    }

    public static func parse(_ text: String) throws -> JSONValue { try parse(Array(text.utf8)) }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// - Parameter enclosingContainers: how many arrays and objects this value is inside.
    private mutating func parseValue(enclosingContainers: Int) throws -> JSONValue {
        guard index < bytes.count else { throw failure(localized("unexpected end of input")) }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // This container is one more level; a scalar inside it adds none.
            let level = enclosingContainers + 1
            guard level <= Self.maxDepth else {
                throw failure(localized("arrays and objects nested more than \(Self.maxDepth) levels deep"))
            }
            return bytes[index] == UInt8(ascii: "{") ? try parseObject(level: level) : try parseArray(level: level)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            let character = Character(UnicodeScalar(bytes[index]))
            throw failure(localized("unexpected character '\(character)'"))
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws -> JSONValue {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw failure(localized("invalid literal"))
        }
        index += expected.count
        return value
    }

    private mutating func parseObject(level: Int) throws -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure(localized("expected a key in quotes")) }
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw failure(localized("expected ':' after a key")) }
            skipWhitespace()
            members.append((key, try parseValue(enclosingContainers: level)))
        } while try anotherMember(closing: "}", in: localized("an object"))
        return .object(members)
    }

    private mutating func parseArray(level: Int) throws -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(items) }
        repeat {
            skipWhitespace()
            items.append(try parseValue(enclosingContainers: level))
        } while try anotherMember(closing: "]", in: localized("an array"))
        return .array(items)
    }

    /// Steps over `byte` if it is next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// After a member of an object or an array: true at a comma (another member follows), false
    /// at the `closing` bracket (the container ends); anything else is an error.
    private mutating func anotherMember(closing: Unicode.Scalar, in container: String) throws -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure(localized("unexpected end of input in \(container)")) }
        if consume(UInt8(ascii: ",")) { return true }
        guard consume(UInt8(ascii: closing)) else { throw failure(localized("expected ',' or '\(closing)'")) }
        return false
    }

    private mutating func parseString() throws -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() throws {
            guard !run.isEmpty else { return }
            guard let text = String(validating: run, as: UTF8.self) ?? (lenientText ? String(decoding: run, as: UTF8.self) : nil) else {
                throw failure(localized("invalid UTF-8 in a string"))
            }
            scalars.append(contentsOf: text.unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                try flush()
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush()
                index += 1
                guard index < bytes.count else { throw failure(localized("unfinished escape")) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            guard lenientText else { throw failure(localized("a lone surrogate in \\u escape")) }
                            scalars.append("\u{FFFD}")
                            continue
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            guard lenientText else { throw failure(localized("invalid surrogate pair")) }
                            scalars.append("\u{FFFD}")
                            scalars.append(UnicodeScalar(low) ?? "\u{FFFD}")
                            continue
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = UnicodeScalar(code) else {
                        guard lenientText else { throw failure(localized("invalid \\u escape")) }
                        scalars.append("\u{FFFD}")
                        continue
                    }
                    scalars.append(scalar)
                default:
                    guard lenientText else { throw failure(localized("invalid escape")) }
                    scalars.append(UnicodeScalar(escape))
                }
            case 0x00..<0x20:
                throw failure(localized("a control character inside a string"))
            default:
                run.append(byte)
                index += 1
            }
        }
        throw failure(localized("unterminated string"))
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure(localized("short \\u escape")) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure(localized("invalid hex digit in \\u escape"))
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        guard index < bytes.count else { throw failure(localized("a number without digits")) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw failure(localized("a number without digits"))
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure(localized("no digits after the decimal point")) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure(localized("no digits in the exponent")) }
        }
        // The grammar is checked above, so the text is a valid JSON number of any size. It is kept
        // as text where a Double would change it: found by fuzzing, 1e999 once became infinity and
        // came back as null; found by a client, ids past 2^53 came back rounded.
        return JSONValue.parsedNumber(String(decoding: bytes[start..<index], as: UTF8.self))
    }
}
