import Foundation

/// A string with `{{name}}` placeholders, such as `/grades?term={{term}}`.
///
/// Recipes never run code; a template can only insert values the caller supplies.
public struct Template: Sendable, Equatable, CustomStringConvertible {
    public let source: String

    public init(_ source: String) { self.source = source }

    /// The placeholder names, in order of appearance.
    public var variables: [String] {
        var names: [String] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            names.append(rest[open.upperBound..<close.lowerBound].trimmingWhitespace())
            rest = rest[close.upperBound...]
        }
        return names
    }

    /// Fills the placeholders. `encode` is applied to each value, for example to percent-encode
    /// it inside a URL. A placeholder without a value is an error, never an empty string.
    public func render(_ values: [String: String], encode: (String) -> String = { $0 }) throws -> String {
        var output = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            output += rest[..<open.lowerBound]
            let name = rest[open.upperBound..<close.lowerBound].trimmingWhitespace()
            guard let value = values[name] else {
                throw UniToolError(.recipeInvalid, localized("the template \"\(source)\" uses {{\(name)}}, which has no value"))
            }
            output += encode(value)
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    public var description: String { source }

    /// A value as an XPath string literal, quotes included, whatever quotes it contains: for
    /// `{{barcode}}` inside an action's `form` XPath.
    public static func xpathLiteral(_ value: String) -> String {
        if !value.contains("'") { return "'\(value)'" }
        if !value.contains("\"") { return "\"\(value)\"" }
        let parts = value.split(separator: "'", omittingEmptySubsequences: false).map { "'\($0)'" }
        return "concat(" + parts.joined(separator: ", \"'\", ") + ")"
    }

    /// A value inside a JSON string literal of a template (`"args": {"q": "{{query}}"}`).
    public static func jsonEscape(_ value: String) -> String {
        String(JSONString.quoted(value).dropFirst().dropLast())
    }

    /// Percent-encodes a value for use inside a URL query or path segment.
    public static func urlEncode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlUnreserved) ?? value
    }
}

extension CharacterSet {
    /// RFC 3986's unreserved characters, ASCII only: `alphanumerics` would let non-ASCII letters
    /// through unencoded.
    static let urlUnreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
