/// Text from a portal, made safe to show on a terminal.
///
/// A terminal acts on control characters: ESC (U+001B) and the C1 control CSI (U+009B) start
/// sequences that set the window title, clear the screen, move the cursor or, on some terminals,
/// write to the clipboard; a carriage return lets later text overwrite earlier text, so a line
/// can be made to say something other than what it holds. A portal's page, terms version or
/// error text must never do that to the user's terminal, so every piece of it that unitool shows
/// to a person passes through ``escaped(_:keepingLineBreaks:)``.
///
/// The convention, chosen to be readable and unambiguous about what was there:
///
/// - tab, line feed and carriage return as `\t`, `\n` and `\r`;
/// - the other C0 controls (U+0000–U+001F) and DEL (U+007F) as `\x` and two lowercase hex
///   digits: ESC is `\x1b`, BEL is `\x07`;
/// - the C1 controls (U+0080–U+009F) as `\u` and four lowercase hex digits: CSI is `\u009b`;
/// - everything else as it is (a backslash too: the escapes are for people, not for a parser).
///
/// JSON output does not use this: `JSONString.quoted` escapes the same characters as JSON
/// does (`\u001b`, `\u009b`), which a program reads back exactly.
public enum TerminalText {
    /// Whether a terminal could act on this character.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The text with every control character written as an escape.
    ///
    /// - Parameter keepingLineBreaks: keep line feeds as they are, for text of several lines
    ///   (the terms themselves); a table cell, a version or a message is one line, and a line
    ///   feed in it would break the layout.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepingLineBreaks: result.unicodeScalars.append(scalar)
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x00..<0x20, 0x7F: result += "\\x" + hex(scalar.value, digits: 2)
            case 0x80...0x9F: result += "\\u" + hex(scalar.value, digits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
