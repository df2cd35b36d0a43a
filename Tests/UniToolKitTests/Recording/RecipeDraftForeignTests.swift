import Foundation
import Testing

@testable import UniToolKit

/// Issue 48: recordings of portals the project has never seen. Which pages become which
/// commands (one per page, whatever its selector showed), feeds, due dates for `today`, and
/// what is a secret (a RelayState that is an address is not; the portal's own name is no
/// personal data). Small synthetic recordings, each in the shape the foreign portals had.
@Suite("Recording: pages of unknown portals become commands")
struct RecipeDraftForeignTests {
    static func draft(
        portal: String = "myuni", title: String? = nil, username: String = "jdoe", pages: [(path: String, type: String, body: String)]
    ) throws -> RecipeDraft {
        let archive = try RecipeDraftScrubbingTests.archive(
            username: username, password: RecipeDraftScrubbingTests.password, cookies: ["sid=9f8e7d6c5b4a39281706f5e4d3c2b1a0"],
            pages: pages)
        return try RecipeDraft(portal: portal, title: title, archive: archive)
    }

    static func grades(selected: String) -> String {
        let options = ["2026-1", "2025-2"].map { "<option value=\"\($0)\"\($0 == selected ? " selected" : "")>\($0)</option>" }
        return """
            <form method="get" action="/grades"><label for="t">Term</label><select id="t" name="term">\(options.joined())</select></form>
            <table><thead><tr><th>Course</th><th>Grade</th></tr></thead><tbody>
            <tr><td>Analysis \(selected)</td><td>A</td></tr><tr><td>Algebra \(selected)</td><td>B</td></tr></tbody></table>
            """
    }

    @Test("the same page with another value of its selector is one command, with a fixture for each value, and the report names the values")
    func selectorValuesAreFixtures() throws {
        let draft = try Self.draft(pages: [
            ("/grades", "text/html", Self.grades(selected: "2026-1")),
            ("/grades?term=2025-2", "text/html", Self.grades(selected: "2025-2")),
        ])
        // Before: 'grades' and 'grades-2', whose --term default current read 2026-1 again.
        #expect(draft.commands == ["grades"], "\(draft.commands)")
        let paths = draft.files.map(\.path)
        #expect(paths.contains("Fixtures/grades/recorded.html") && paths.contains("Fixtures/grades/recorded-2025-2.html"), "\(paths)")
        #expect(paths.contains("Fixtures/grades/recorded-2025-2.json"), "\(paths)")
        #expect(draft.guessed.contains { $0.contains("--term") && $0.contains("'2026-1', '2025-2'") }, "\(draft.guessed)")
    }

    @Test("an Atom feed becomes a parse: xml command with its namespace; a calendar file is skipped with a line")
    func feedsAndSkipped() throws {
        let atom = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Campus news</title>
            <entry><id>urn:1</id><title>Library closed</title><link rel="alternate" href="https://x.edu/n/1"/><updated>2026-04-01T09:00:00+09:00</updated><category term="library"/></entry>
            <entry><id>urn:2</id><title>Exams</title><link href="https://x.edu/n/2"/><updated>2026-04-02T09:00:00+09:00</updated><category term="exams"/></entry>
            </feed>
            """
        let draft = try Self.draft(pages: [
            ("/news.atom", "application/atom+xml", atom), ("/cal.ics", "text/calendar", "BEGIN:VCALENDAR\nEND:VCALENDAR\n"),
        ])
        #expect(draft.commands == ["news"], "\(draft.commands)")
        let news = RecipeDraftTests.text(draft, "news.yaml")
        #expect(news.contains("parse: xml") && news.contains(#"namespaces: { a: "http://www.w3.org/2005/Atom" }"#), "\(news)")
        #expect(news.contains(#"rows: "/a:feed/a:entry""#), "\(news)")
        #expect(news.contains(#"a:link[@rel='alternate' or not(@rel)]/@href"#) && news.contains("a:category/@term"), "\(news)")
        #expect(news.contains("type: datetime, format: \"iso8601\""), "\(news)")
        #expect(draft.files.contains { $0.path == "Fixtures/news/recorded.xml" })
        let recipe = try DataRecipe.load(file: "news.yaml", text: news, portal: "myuni")
        #expect(recipe.command == "news")
        #expect(draft.skipped.contains { $0.contains("/cal.ics") && $0.contains("iCalendar") }, "\(draft.skipped)")
    }

    @Test("a loans table with a due date gets overdue, a calendar: section and a today: item")
    func dueDates() throws {
        let loans = """
            <table><thead><tr><th>Title</th><th>Barcode</th><th>Due date</th></tr></thead><tbody>
            <tr><td>Linear Algebra</td><td>30001234</td><td>2030/05/01</td></tr><tr><td>Topology</td><td>30005678</td><td>2030/05/08</td></tr>
            </tbody></table>
            """
        let draft = try Self.draft(pages: [("/library/loans", "text/html", loans)])
        let recipe = RecipeDraftTests.text(draft, "loans.yaml")
        #expect(recipe.contains("overdue: { compute: { before_today: due_date }, flag: true }"), "\(recipe)")
        #expect(recipe.contains("calendar:\n  summary: \"Due: {{title}}\"\n  date: due_date"), "\(recipe)")
        let loaded = try DataRecipe.load(file: "loans.yaml", text: recipe, portal: "myuni")
        #expect(loaded.calendar != nil)
        let portal = RecipeDraftTests.text(draft, "portal.yaml")
        #expect(portal.contains("today:\n") && portal.contains("command: loans") && portal.contains("show: due"), "\(portal)")
        let parsed = try PortalRecipe.load(file: "portal.yaml", text: portal)
        #expect(parsed.todayProblems(commands: ["loans": loaded]).isEmpty)
    }

    @Test("a RelayState that is a path on the portal is no secret; an opaque one is")
    func relayState() throws {
        let draft = try Self.draft(pages: [
            ("/acs?RelayState=/campus/grades", "text/html", "<p>ok</p>"),
            ("/acs?RelayState=ss:mem:5f2a9c1e7b3d4a6f8e0c2b4d6f8a0c2e", "text/html", "<p>ok</p>"),
        ])
        #expect(!draft.secrets.contains("/campus/grades"))
        #expect(draft.secrets.contains("ss:mem:5f2a9c1e7b3d4a6f8e0c2b4d6f8a0c2e"))
    }

    @Test("the portal's name and title the person gave are written as given, even with their user name in them")
    func ownPortalName() throws {
        let page = "<table><thead><tr><th>Course</th></tr></thead><tbody><tr><td>Analysis</td></tr></tbody></table>"
        // Before: portal: uni-student, which lint refuses (the folder is uni-taro).
        let draft = try Self.draft(
            portal: "uni-taro", title: "taro's university", username: "taro", pages: [("/grades", "text/html", page)])
        let portal = RecipeDraftTests.text(draft, "portal.yaml")
        #expect(portal.contains("portal: uni-taro\n") && portal.contains("name: \"taro's university\""), "\(portal)")
        #expect(draft.leaks(in: draft.files).isEmpty)
    }

    @Test("an address loaded first as a login page and then with records is one command, from the load with records")
    func lastLoadWithRecords() throws {
        let login = "<form method=post action=/loans><input name=user><input type=password name=pw></form>"
        let table =
            "<table><thead><tr><th>Title</th></tr></thead><tbody><tr><td>Topology</td></tr><tr><td>Algebra</td></tr></tbody></table>"
        let draft = try Self.draft(pages: [("/loans", "text/html", login), ("/loans", "text/html", table)])
        #expect(draft.commands == ["loans"], "\(draft.commands) \(draft.skipped)")
        #expect(RecipeDraftTests.text(draft, "Fixtures/loans/recorded.html").contains("Topology"))
    }
}
