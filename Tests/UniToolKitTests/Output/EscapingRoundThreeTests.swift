import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// What a portal or a recipe pack writes, written on: CSV for a terminal, a calendar's `URL`,
/// and the YAML that `recipes new` makes from what the user typed.
@Suite("Escaping, round three: CSV on a terminal, iCalendar URLs, YAML from recipes new")
struct EscapingRoundThreeTests {
    /// A portal's text with ESC (an OSC title sequence ended by BEL), CSI (U+009B), NEL (U+0085)
    /// and a line break inside one field.
    let hostile = RecordSet(
        columns: ["title", "note"],
        records: [
            Record(fields: [("title", .string("News\u{1B}]0;owned\u{07}")), ("note", .string("a\u{9B}2Jb\nc, \"d\"\u{85}"))]),
            Record(fields: [("title", .string("plain")), ("note", .null)]),
        ])

    /// Every control character in `text` other than the CSV's own CRLF row ends.
    func controlsBesidesRowEnds(_ text: String) -> [Unicode.Scalar] {
        text.replacingOccurrences(of: "\r\n", with: "").unicodeScalars.filter(TerminalText.isControl)
    }

    @Test("CSV for a terminal escapes C0, DEL and C1 controls, a line break inside a field too; only the rows' CRLF stay")
    func csvForATerminal() {
        let text = OutputFormat.csv.render(hostile, style: TableStyle(bold: false, terminal: true))
        #expect(controlsBesidesRowEnds(text).isEmpty, "\(text.debugDescription)")
        #expect(text.contains("News\\x1b]0;owned\\x07"), "\(text.debugDescription)")
        #expect(text.contains("a\\u009b2Jb\\nc, \"\"d\"\"\\u0085"), "\(text.debugDescription)")
        #expect(text.hasPrefix("title,note\r\n") && text.hasSuffix("plain,\r\n"))
        #expect(text.components(separatedBy: "\r\n").count == 4, "three rows and the end: \(text.debugDescription)")
    }

    @Test("CSV for a file or a pipe keeps the data byte for byte, as RFC 4180 quotes it")
    func csvForAFile() {
        let text = OutputFormat.csv.render(hostile, style: TableStyle(bold: false, terminal: false))
        #expect(text.contains("News\u{1B}]0;owned\u{07}"))
        #expect(text.contains("\"a\u{9B}2Jb\nc, \"\"d\"\"\u{85}\""))
        #expect(text == CSVRenderer.render(hostile))
    }

    @Test("the style for standard output says whether it is a terminal, which is what CSV decides by")
    func standardOutputStyle() {
        #expect(TableStyle.forStandardOutput(environment: [:], isTerminal: true).terminal)
        #expect(!TableStyle.forStandardOutput(environment: [:], isTerminal: false).terminal)
        #expect(!TableStyle.plain.terminal)
    }

    // MARK: iCalendar URL

    static let address = "https://portal.example.edu/course/view.php?id=7;section=2,3&x=a%20b"

    func calendar(url: String) -> String {
        var event = CalendarEvent(
            uid: "u1@demo.unitool", summary: "Exam; room 1, floor 2",
            timing: .allDay(CalendarDay(year: 2026, month: 12, day: 1)), category: "exams")
        event.url = url
        return ICalendarWriter(
            timeZone: TimeZone(identifier: "Europe/Budapest")!, name: "Demo", stamp: Date(timeIntervalSince1970: 1_795_000_000)
        )
        .render([event])
    }

    @Test("a URL is a URI, not TEXT: its ; and , are written as they are, while TEXT properties stay escaped")
    func urlIsNotTextEscaped() {
        let lines = calendar(url: Self.address).replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
        #expect(lines.contains("URL:\(Self.address)"), "\(lines)")
        #expect(lines.contains("SUMMARY:Exam\\; room 1\\, floor 2"), "\(lines)")
    }

    @Test(
        "python3-icalendar reads the URL back as the address itself",
        .enabled(if: Needs.program("/usr/bin/python3")))
    func urlReadByICalendar() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-url-\(UUID().uuidString).ics")
        defer { try? FileManager.default.removeItem(at: file) }
        try calendar(url: Self.address).write(to: file, atomically: true, encoding: .utf8)
        let script = """
            import icalendar, json, sys
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
            print(json.dumps([[str(event["URL"]), str(event["SUMMARY"])] for event in calendar.walk("VEVENT")]))
            """
        let outcome = try await UniToolProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file.path])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let read = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String]]
        #expect(read == [[Self.address, "Exam; room 1, floor 2"]], "\(outcome)")
    }

    // MARK: YAML from recipes new

    /// Titles and feeds that would end a plain or half-escaped scalar, start a key of their own,
    /// or be folded by a YAML parser.
    static let injections = [
        "Evil\"\n  base_url: https://evil.example\nidp_url: https://evil.example/idp",
        "x\n# comment\ncredentials_may_go_to: [\"https://evil.example\"]",
        "back\\slash \\\" quote ' single: colon # hash",
        "tab\there\r\ncr \u{85}nel \u{2028}ls \u{2029}ps \u{1B}[31m \u{9B}2J \u{07} \u{7F} \u{FEFF} 情報 ",
        "{{feed}} [a, b] {c: d} &anchor *alias !tag | > %",
    ]

    @Test("a title, whatever it holds, reads back as itself, and the portal's addresses stay the ones given", arguments: injections)
    func titleReadsBackAsItself(title: String) throws {
        let scaffold = try RecipeScaffold(
            portal: "myuni", name: title, baseURL: URL(string: "https://campus.example.edu")!, identityProvider: "shibboleth",
            idpURL: URL(string: "https://idp.example.edu/idp")!)
        let text = try #require(scaffold.files.first { $0.name == "portal.yaml" }?.text)
        let portal = try PortalRecipe.load(file: "portal.yaml", text: text)
        #expect(portal.name == title, "\(text)")
        #expect(portal.baseURL.absoluteString == "https://campus.example.edu")
        #expect(portal.idpURL.absoluteString == "https://idp.example.edu/idp")
        #expect(portal.credentialOrigins == ["https://idp.example.edu"], "\(text)")
        #expect(
            !text.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\n" }, "no raw control character: \(text.debugDescription)"
        )
    }

    @Test("every quoted scalar is one YAML line that a YAML parser reads back exactly", arguments: injections)
    func quotedScalar(text: String) throws {
        let quoted = RecipeScaffold.quoted(text)
        #expect(!quoted.contains("\n") && !quoted.contains("\r"))
        let reader = try RecipeReader(file: "x.yaml", text: "value: \(quoted)\n")
        #expect(try reader.top.string("value") == text)
    }

    @Test("a news feed must be a path or an http(s) address without quotes, backslashes, spaces or controls")
    func feedValues() {
        for fine in ["/news/rss", "/feeds/news.rss?lang=en&x={a}#top", "https://www.example.edu/news/rss"] {
            #expect(RecipeScaffold.feedProblem(fine) == nil, "\(fine)")
        }
        for bad in [
            "news/rss", "javascript:alert(1)", "/news.rss\"}\nbase_url: https://evil.example", "/a b", "/a\\b", "/a\u{85}b", "/a\u{1B}b",
        ] {
            #expect(RecipeScaffold.feedProblem(bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test("a folder whose check fails is not left behind, nor the folders made for it; one that passes is moved into place whole")
    func writeIsWholeOrNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-scaffold-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let scaffold = try RecipeScaffold(
            portal: "myuni", name: "My University", baseURL: URL(string: "https://campus.example.edu")!, identityProvider: "cas",
            idpURL: URL(string: "https://cas.example.edu/cas")!)
        let parent = root.appendingPathComponent("a/b")
        var seen: [String] = []
        do {
            _ = try scaffold.write(into: parent) { staged in
                seen = try FileManager.default.contentsOfDirectory(atPath: staged.path)
                throw UniToolError(.recipeInvalid, "\(staged.path)/portal.yaml: broken")
            }
            Issue.record("the failing check did not fail the write")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains(parent.appendingPathComponent("myuni").path + "/portal.yaml"), "\(error.message)")
            #expect(error.message.contains("nothing was written"), "\(error.message)")
        }
        #expect(seen == ["portal.yaml"], "the check saw the files")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("a").path), "nothing is left behind")

        let folder = try scaffold.write(into: parent) { _ in }
        #expect(folder.path == parent.appendingPathComponent("myuni").standardizedFileURL.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["myuni"], "no staging folder is left")
        #expect(
            try PortalRecipe.load(file: "p", text: String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)).name
                == "My University")
    }
}
