/// White space trimmed from both ends of a text, in Swift alone.
///
/// The same characters as Foundation's `trimmingCharacters(in: .whitespaces)` (Unicode's Zs,
/// the tab, and on Linux the zero-width space U+200B) and `.whitespacesAndNewlines` (those, Zl,
/// Zp, U+000A to U+000D and U+0085), read from the
/// standard library's own Unicode tables. Foundation's version goes through `NSString` and
/// builds its `CharacterSet` on first use, which was a tenth of parsing a portal's recipe in a
/// command that parses one (issue 54). `WhitespaceTrimmingTests` holds the two to each other.
extension StringProtocol {
    /// Without spaces and tabs at either end.
    public func trimmingWhitespace() -> String { trimming(Self.isWhitespace) }

    /// Without spaces, tabs and line ends at either end.
    public func trimmingWhitespaceAndNewlines() -> String { trimming(Self.isWhitespaceOrNewline) }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || scalar == "\t" }
        return scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    static func isWhitespaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || ("\t"..."\r").contains(scalar) }
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
        default: return scalar == "\u{85}" || scalar == "\u{200B}"
        }
    }
}
