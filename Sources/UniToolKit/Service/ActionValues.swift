extension ActionSpec {
    /// What the action sends, one `name: value` line each (its argument, then each named value,
    /// an empty one as such), for a person to say yes to: the question MCP's elicitation asks
    /// and the refusal JSON-RPC and MCP give when nobody could be asked.
    public func sentValues(argument: String, parameters: [String: String]) -> [String] {
        var lines: [String] = []
        if takesArgument { lines.append("\(self.argument): \(ShownValue.text(argument))") }
        for parameter in self.parameters {
            let value = parameters[parameter.name] ?? ""
            let shown = value.isEmpty ? localized("(empty)") : ShownValue.text(value)
            lines.append("\(parameter.name): \(shown)")
        }
        return lines
    }
}

/// A value from a caller or a portal, made safe to show inside a question a person answers: a
/// model's `title` or a loan's title from the portal must not add a line of its own ("Note:
/// nothing will be sent"), reorder the text (bidi overrides) or hide characters (zero-width).
public enum ShownValue {
    /// The longest value shown whole; a longer one is cut, with an ellipsis.
    public static let maximumLength = 200

    /// `text` without control, format (bidi, zero-width) and line or paragraph separator
    /// characters, cut at `maximumLength` characters.
    public static func text(_ text: String) -> String {
        let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.filter { !hidden.contains($0.properties.generalCategory) }))
        return kept.count > maximumLength ? String(kept.prefix(maximumLength)) + "…" : kept
    }
}
