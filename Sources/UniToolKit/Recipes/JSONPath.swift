import Foundation

/// A dotted path into a JSON value: `version`, `data.terms.version`, `items.0.version`.
public struct JSONPath: Sendable, Equatable {
    public let components: [String]

    public init(_ text: String) throws {
        components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if text.isEmpty || components.contains(where: \.isEmpty) {
            throw UniToolError(.recipeInvalid, localized("'\(text)' is not a field path: use names joined by dots, such as data.version"))
        }
    }

    /// The value at the path, or nil when some step is missing.
    public func value(in json: Any) -> Any? {
        var current: Any = json
        for component in components {
            if let object = current as? [String: Any], let next = object[component] {
                current = next
            } else if let array = current as? [Any], let index = Int(component), array.indices.contains(index) {
                current = array[index]
            } else {
                return nil
            }
        }
        return current is NSNull ? nil : current
    }

    static func describe(_ value: Any) -> String {
        switch value {
        case let number as NSNumber: return localized("a number or boolean (\(number))")
        case is [Any]: return localized("a list")
        case is [String: Any]: return localized("an object")
        case let text as String: return localized("an empty text \"\(text)\"")
        default: return "\(type(of: value))"
        }
    }
}
