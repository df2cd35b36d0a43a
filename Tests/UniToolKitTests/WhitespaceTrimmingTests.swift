import Foundation
import Testing

@testable import UniToolKit

/// unitool's own trimming against Foundation's, which it replaces on the recipe-loading path.
@Suite("White space trimmed as Foundation trims it")
struct WhitespaceTrimmingTests {
    static let samples = [
        "", " ", "\t", "grades", "  grades  ", "\tgrades\t", " a b ", "\n grades \r\n", "\u{3000}成績\u{3000}", "\u{A0}x\u{A0}",
        "\u{2028}x\u{2029}", "\u{85}x\u{85}", "\u{1680}x\u{202F}", "\u{200B}x\u{200B}", "\u{FEFF}x", "x\u{301} ", " \u{301}x",
        "\u{B}\u{C}x\u{B}\u{C}", "\r", "👩‍💻 ", "ｇｒａｄｅｓ　",
    ]

    @Test("spaces and tabs, as .whitespaces", arguments: samples)
    func whitespace(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text[...].trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    }

    @Test("spaces, tabs and line ends, as .whitespacesAndNewlines", arguments: samples)
    func whitespaceAndNewlines(text: String) {
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
