/// Text for a person, as written in the English source, with the values it shows kept apart so
/// that a translation may put them in its own order.
///
/// `localized("no recipe '\(name)' for \(portal)")` is looked up in the catalog under the key
/// `no recipe '{0}' for {1}`: each interpolation becomes a numbered field, the form Python's
/// `str.format` uses and `msgfmt --check-format` checks (`python-brace-format`), so a
/// translator sees the sentence whole and cannot lose a value. A text with no interpolation is
/// its own key, braces and all; in one with fields, a literal brace is written twice (`{{`).
/// `Scripts/update-po.py` derives the same keys from the source, so the two cannot drift.
public struct LocalizedText: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The catalog key: the English with `{0}`, `{1}`, … where the values go.
    public let key: String
    /// The values shown, already in text, in source order.
    public let values: [String]

    public init(stringLiteral value: String) {
        key = value
        values = []
    }

    public init(stringInterpolation: StringInterpolation) {
        if stringInterpolation.values.isEmpty {
            key = stringInterpolation.plain
        } else {
            key = stringInterpolation.key
        }
        values = stringInterpolation.values
    }

    /// Text that is not in any catalog's keys as a template (a value computed elsewhere); it is
    /// still looked up whole, so a constant marked where it is defined is found.
    public init(verbatim text: String) {
        key = text
        values = []
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var key = ""
        fileprivate var plain = ""
        fileprivate var values: [String] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            key.reserveCapacity(literalCapacity + 3 * interpolationCount)
            values.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            plain += literal
            key += LocalizedText.escapingBraces(literal)
        }

        public mutating func appendInterpolation<Value>(_ value: Value) {
            let text = String(describing: value)
            key += "{\(values.count)}"
            plain += text
            values.append(text)
        }
    }

    /// The English: the key with its values put back.
    public var description: String { values.isEmpty ? key : Self.filling(key, with: values) ?? key }

    /// The text in `translation`'s language, or the English when it has no entry.
    public func rendered(in translation: Translation) -> String {
        guard let template = translation.message(key) else { return description }
        return values.isEmpty ? template : Self.filling(template, with: values) ?? description
    }

    static func escapingBraces(_ text: String) -> String {
        guard text.contains(where: { $0 == "{" || $0 == "}" }) else { return text }
        var escaped = ""
        for character in text {
            escaped.append(character)
            if character == "{" || character == "}" { escaped.append(character) }
        }
        return escaped
    }

    /// A template's fields replaced by the values; nil for a template that names a field it does
    /// not have or leaves a brace unpaired (a broken translation shows the English instead).
    static func filling(_ template: String, with values: [String]) -> String? {
        var result = ""
        var index = template.startIndex
        while index < template.endIndex {
            let character = template[index]
            let next = template.index(after: index)
            if character == "}" {
                guard next < template.endIndex, template[next] == "}" else { return nil }
                result.append("}")
                index = template.index(after: next)
            } else if character == "{" {
                if next < template.endIndex, template[next] == "{" {
                    result.append("{")
                    index = template.index(after: next)
                    continue
                }
                guard let close = template[next...].firstIndex(of: "}"), let field = Int(template[next..<close]),
                    values.indices.contains(field)
                else { return nil }
                result += values[field]
                index = template.index(after: close)
            } else {
                result.append(character)
                index = next
            }
        }
        return result
    }
}

/// The text in the current language (``Translation/current``): the command line's `LANG`, or a
/// JSON-RPC client's declared locale.
public func localized(_ text: LocalizedText) -> String {
    text.rendered(in: .current)
}

/// A count's text in the form the current language uses for it (gettext's `ngettext`): English
/// has two forms, Hungarian's catalog says two, Japanese's one.
public func localized(_ singular: LocalizedText, plural: LocalizedText, count: Int) -> String {
    let translation = Translation.current
    let english = count == 1 ? singular : plural
    guard let template = translation.message(singular.key, plural: plural.key, count: count) else { return english.description }
    return LocalizedText.filling(template, with: english.values) ?? english.description
}
