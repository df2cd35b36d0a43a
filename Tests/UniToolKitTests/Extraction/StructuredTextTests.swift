import Foundation
import LibXML
import Testing

@testable import UniToolKit

@Suite("JSON and iCalendar read as XML")
struct StructuredTextTests {
    func xml(json: String) throws -> String { try StructuredText.xml(fromJSON: Array(json.utf8)) }

    func texts(_ xml: String, _ xpath: String) throws -> [String] {
        let document = try Document(xml: xml)
        guard case .nodes(let nodes) = try document.evaluate(xpath) else { return [] }
        return nodes.map(\.text)
    }

    @Test("objects become elements by key, arrays items, every element says its type; numbers stay as written")
    func jsonMapping() throws {
        let text = try xml(
            json:
                #"{"data": {"courses": [{"id": 7, "fullname": "Analysis", "progress": null, "done": false, "grade": 1.50e1}]}, "count": -0.5}"#
        )
        #expect(try texts(text, "/json/data/courses/item/fullname") == ["Analysis"])
        #expect(try texts(text, "/json/data/courses/item/grade") == ["1.50e1"])
        #expect(try texts(text, "/json/data/courses/item/*[@type='null']/@type") == ["null"])
        #expect(try texts(text, "/json/data/courses/item/done[@type='boolean']") == ["false"])
        #expect(try texts(text, "/json/count") == ["-0.5"])
        #expect(try texts(text, "/json/data/courses/@type") == ["array"])
    }

    @Test("keys that are no XML names, escapes, surrogate pairs and markup in strings are kept as text")
    func jsonStrings() throws {
        let text = try xml(json: #"{"2nd place": "a\"b", "xmlns": "x", "emoji": "\ud83c\udf93 <b>&amp;</b>", "a/b": "\u00e9"}"#)
        #expect(try texts(text, "/json/_[@key='2nd place']") == ["a\"b"])
        #expect(try texts(text, "/json/_[@key='xmlns']") == ["x"])
        #expect(try texts(text, "/json/emoji") == ["🎓 <b>&amp;</b>"])
        #expect(try texts(text, "/json/_[@key='a/b']") == ["é"])
    }

    @Test(
        "broken JSON is an error that says where, never an empty list",
        arguments: [
            "", "{", #"{"a" 1}"#, "[1,]", "01", "tru", #""\u12""#, #"{"a":1} x"#,
            String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
        ])
    func brokenJSON(text: String) {
        #expect { try xml(json: text) } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
    }

    static let calendar = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:1@x", "SUMMARY:Exam\\, part 1\\; room \\\\ B",
        "DESCRIPTION:first line\\nsecond li", " ne folded", "DTSTART;TZID=Europe/Budapest:20261124T100000",
        "DTEND;VALUE=DATE:20261125", "DTSTAMP:20261120T080000Z", "X-WEIRD;X-PARAM=\"a:b;c\":v", "END:VEVENT", "END:VCALENDAR",
    ].joined(separator: "\r\n")

    @Test("iCalendar: components and properties as elements, lines unfolded, TEXT unescaped, dates as ISO 8601")
    func icsMapping() throws {
        let text = try StructuredText.xml(fromICalendar: Array(Self.calendar.utf8))
        #expect(try texts(text, "//vevent/summary") == ["Exam, part 1; room \\ B"])
        #expect(try texts(text, "//vevent/description") == ["first line\nsecond line folded"])
        #expect(try texts(text, "//vevent/dtstart") == ["2026-11-24T10:00:00+01:00"])
        #expect(try texts(text, "//vevent/dtstart/@tzid") == ["Europe/Budapest"])
        #expect(try texts(text, "//vevent/dtstart/@original") == ["20261124T100000"])
        #expect(try texts(text, "//vevent/dtend") == ["2026-11-25"])
        #expect(try texts(text, "//vevent/dtstamp") == ["2026-11-20T08:00:00Z"])
        #expect(try texts(text, "//vevent/x-weird/@x-param") == ["a:b;c"])
    }

    @Test(
        "an iCalendar file that does not nest is an error",
        arguments: [
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VCALENDAR", "BEGIN:VCALENDAR\r\nno colon here\r\nEND:VCALENDAR", "BEGIN:VCALENDAR",
        ])
    func brokenICS(text: String) {
        #expect { try StructuredText.xml(fromICalendar: Array(text.utf8)) } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
    }

    @Test("HTML inside a field becomes its text: tags gone, entities decoded, blocks apart, inline markup joined")
    func htmlText() {
        #expect(
            RecordExtractor.plainText(ofHTML: "<p>Taught by <strong>Szabó</strong>.</p><p>Room&nbsp;A</p>").collapsingWhitespace()
                == "Taught by Szabó. Room\u{a0}A")
        #expect(RecordExtractor.plainText(ofHTML: "<ul><li>Ady</li><li>Babits</li></ul>").collapsingWhitespace() == "Ady Babits")
        #expect(
            RecordExtractor.plainText(ofHTML: "<script>alert(1)</script><STYLE>p{}</STYLE>plain &lt;b&gt;").collapsingWhitespace()
                == "plain <b>")
    }

    @Test("a portal's JSON is read by the one JSON parser, text as a browser reads it: a mark, a lone surrogate, an odd escape")
    func lenientText() throws {
        let xml = try StructuredText.xml(fromJSON: [0xEF, 0xBB, 0xBF] + Array(#"{"a":"x\ud83d y","b":"\q","n":1.5e3}"#.utf8))
        #expect(xml.contains("<a type=\"string\">x\u{FFFD} y</a>"), "\(xml)")
        #expect(xml.contains("<b type=\"string\">q</b>"), "\(xml)")
        #expect(xml.contains("<n type=\"number\">1.5e3</n>"), "numbers a Double would respell stay as written: \(xml)")
        // A protocol message gets no such leniency.
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(#"{"a":"\ud83d"}"#.utf8)) }
        #expect(throws: UniToolError.self) { try StructuredText.xml(fromJSON: Array(#"{"a":1,}"#.utf8)) }
    }
}
