import Foundation
import Testing
import UniToolKit

/// Portal text on a terminal: every control character shown, none acted on.
@Suite("Terminal text: control characters from portals are shown escaped")
struct TerminalTextTests {
    let hostileVersion = "\u{1B}]0;pwned\u{07}\u{1B}[2J"

    @Test("ESC, BEL, CSI and the rest of C0, DEL and C1 are escaped; nothing a terminal acts on is left")
    func everyControlCharacter() {
        #expect(TerminalText.escaped(hostileVersion) == "\\x1b]0;pwned\\x07\\x1b[2J")
        #expect(TerminalText.escaped("a\u{9B}31mred") == "a\\u009b31mred")
        #expect(TerminalText.escaped("\u{0}\u{7F}\u{80}\u{9F}") == "\\x00\\x7f\\u0080\\u009f")
        #expect(TerminalText.escaped("tab\there\nline\rover") == "tab\\there\\nline\\rover")
        for value in Array(0x00..<0x20) + Array(0x7F...0x9F) {
            let scalar = Unicode.Scalar(UInt32(value))!
            let shown = TerminalText.escaped("x\(Character(scalar))y")
            #expect(!shown.unicodeScalars.contains { TerminalText.isControl($0) }, "U+\(String(value, radix: 16))")
            #expect(shown.hasPrefix("x\\") && shown.hasSuffix("y"))
        }
    }

    @Test("ordinary text, accents, CJK, emoji and a backslash are left as they are")
    func ordinaryText() {
        for text in ["Számítógépes hálózatok", "情報理論", "e\u{301}", "grade: A+ 👍", "C:\\Users", "\u{A0}non-breaking", ""] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    @Test("text of several lines keeps its line feeds, and only them")
    func keepingLineBreaks() {
        #expect(TerminalText.escaped("one\ntwo\u{1B}[2J\r", keepingLineBreaks: true) == "one\ntwo\\x1b[2J\\r")
    }

    @Test("a table shows a cell's control characters escaped, and a tab or line feed cannot break its row")
    func tableCells() {
        let set = RecordSet(
            columns: ["course", "note\u{1B}[31m"],
            records: [
                Record(fields: [("course", .string("Algebra\u{9B}2J")), ("note\u{1B}[31m", .string("line one\nline\ttwo"))]),
                Record(fields: [("course", .string(hostileVersion)), ("note\u{1B}[31m", .string("ok"))]),
            ])
        let table = TableRenderer().render(set)
        #expect(!table.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\n" })
        #expect(table.split(separator: "\n").count == 4, "a header, a rule and one line per record:\n\(table)")
        #expect(table.contains("Algebra\\u009b2J"))
        #expect(table.contains("line one\\nline\\ttwo"))
        #expect(table.contains("note\\x1b[31m"))
    }

    @Test("JSON escapes C0, DEL and C1 as \\u escapes, which read back as the same characters")
    func json() {
        #expect(JSONString.quoted(hostileVersion) == "\"\\u001b]0;pwned\\u0007\\u001b[2J\"")
        #expect(JSONString.quoted("a\u{9B}b\u{7F}c\u{85}") == "\"a\\u009bb\\u007fc\\u0085\"")
        #expect(JSONString.quoted("é情") == "\"é情\"")
    }

    /// The first, scalar-by-scalar escaping: the reference for the byte-wise one.
    static func referenceJSONString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                let digits = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    @Test("JSON escaping byte by byte gives what the scalar-by-scalar reference gives, and parses back")
    func jsonMatchesTheReference() throws {
        let pieces = [
            "a", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}", "é", "Â", "情", "😀", "/",
        ]
        var samples = ["", "plain text", "<html lang=\"ja\">\n  <p>佐藤</p>\n</html>"]
        for first in pieces { for second in pieces { samples.append(first + second) } }
        for sample in samples {
            let escaped = JSONString.quoted(sample)
            #expect(escaped == Self.referenceJSONString(sample), "\(Array(sample.unicodeScalars))")
            let back = try JSONSerialization.jsonObject(with: Data(escaped.utf8), options: .fragmentsAllowed) as? String
            #expect(back == sample)
        }
    }
}
