import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// A form posted after the login whose answer shows an address of the user's own becomes a
/// command that posts it again and reads that address (issue 48): Moodle's "Get calendar URL"
/// (an input's value), and a different product's "Subscribe" whose answer holds a link with a
/// token, by the same rules. HARs are small logins built here, as Playwright writes them.
@Suite("Recording: an address a form's answer shows becomes a command that reads it")
struct RecordedExportTests {
    static let base = "https://portal.example.edu"
    static let sesskey = "Q7xkP2mWz9"
    static let token = "62eb2db838f26147cbc4deb24fdaaff0e254325a"

    static func entry(
        _ method: String, _ path: String, referer: String? = nil, form: [(String, String)]? = nil, status: Int = 200,
        redirect: String? = nil, html: String? = nil, mime: String = "text/html; charset=utf-8"
    ) -> [String: Any] {
        RecordingBoundariesTests.entry(
            method, path.hasPrefix("http") ? path : base + path, referer: referer.map { base + $0 }, form: form, status: status,
            redirect: redirect, html: html, mime: mime, refererName: "Referer")
    }

    static func recording(_ pages: [[String: Any]]) throws -> HTTPArchive {
        let form = "<form method='post' action='/login'><input name='user'><input type='password' name='pw'><button>Go</button></form>"
        let entries =
            [
                entry("GET", "/login", html: form),
                entry(
                    "POST", "/login", referer: "/login", form: [("user", "jdoe"), ("pw", "s3cret-Pass!")], status: 302, redirect: "/home"),
                entry("GET", "/home", html: "<a href='/logout'>Log out</a> <a href='/calendar/export.php'>Export</a>"),
            ] + pages
        let data = try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
        return try HTTPArchive(data: data, name: "export.har")
    }

    /// Moodle's export page (calendar/export.php) and its answer to "Get calendar URL", as the
    /// foreign corpus's recording has them: the address in `input#calendarexporturl`.
    static func moodleExport(address: String = "\(base)/calendar/export_execute.php?userid=5&amp;authtoken=\(token)&amp;preset_what=all")
        -> [[String: Any]]
    {
        let form = """
            <h1>Calendar</h1><form method="post" action="\(base)/calendar/export.php">
            <input name="course" type="hidden" value="1"><input name="sesskey" type="hidden" value="\(sesskey)">
            <input type="radio" name="events[exportevents]" value="all" checked>
            <input type="submit" name="generateurl" value="Get calendar URL"></form>
            <a href="\(base)/login/logout.php?sesskey=\(sesskey)">Log out</a>
            """
        let answer = """
            <h1>Calendar</h1><label for="calendarexporturl">Calendar URL</label>
            <input type="text" id="calendarexporturl" value="\(address)" readonly>
            <a href="/logout">Log out</a>
            """
        return [
            entry("GET", "/calendar/export.php?course=1", html: form),
            entry(
                "POST", "/calendar/export.php", referer: "/calendar/export.php?course=1",
                form: [("course", "1"), ("sesskey", sesskey), ("events[exportevents]", "all"), ("generateurl", "Get calendar URL")],
                html: answer + form),
        ]
    }

    static let origins: Set<String> = [base]

    @Test("Moodle's 'Get calendar URL': the sesskey is read from the form's page, the address from the answer's input, read as ics")
    func moodleCalendarURL() throws {
        let archive = try Self.recording(Self.moodleExport())
        let exports = RecordedExport.exports(in: archive, from: 2, origins: Self.origins, secrets: [Self.sesskey])
        let export = try #require(exports.first)
        #expect(exports.count == 1)
        #expect(export.reads == [.init(name: "sesskey", xpath: "//input[@name='sesskey']/@value")])
        #expect(export.formPage == "/calendar/export.php?course=1" && export.target == "/calendar/export.php")
        #expect(
            export.form.map { "\($0.name)=\($0.value)" } == [
                "course=1", "sesskey={{sesskey}}", "events[exportevents]=all", "generateurl=Get calendar URL",
            ])
        #expect(export.addressXPath == "//input[@id='calendarexporturl']/@value")
        #expect(export.parse == .ics, "\(export.parseEvidence)")
        // The address and its token are the user's: secrets of the recording.
        #expect(export.secretValues.contains(Self.token) && export.secretValues.contains(Self.sesskey))
        #expect(RecordedExport.claims(4, in: archive, origins: Self.origins))
        #expect(!RecordedExport.claims(3, in: archive, origins: Self.origins))

        // What it writes loads, reads in order, and fetches the address as it is.
        let recipe = try DataRecipe.load(file: "events.yaml", text: export.yaml(command: "events", service: nil), portal: "x")
        let source = recipe.sources[0]
        #expect(source.reads.map(\.name) == ["sesskey", "address"])
        #expect(source.reads[1].post && source.reads[1].isAddress && source.fetchedAddress == "address")
        #expect(source.parser == .ics && source.rows == "//vevent")
        #expect(source.fields.map(\.name) == ["uid", "summary", "dtstart", "dtend", "categories"])
    }

    @Test("another product: a token field, a link with the token in its path, a page that says Kalender; the same rule")
    func otherProductLink() throws {
        let csrf = "aZ3kQ9vL2mX8pR4tW7yB1nC6"
        let feed = "f3A9kL2qP8zX7wM4vB6nR1tY"
        let form = """
            <form method="post" action="/abo/neu"><input type="hidden" name="authenticity_token" value="\(csrf)">
            <select name="umfang"><option value="alle" selected>Alle</option></select><button>Abonnieren</button></form>
            """
        let answer = "<title>Kalender abonnieren</title><p>Ihr Abo: <a href=\"/abo/\(feed)/feed\">Link</a></p><a href='/home'>Start</a>"
        let archive = try Self.recording([
            Self.entry("GET", "/abo", html: form),
            Self.entry("POST", "/abo/neu", referer: "/abo", form: [("authenticity_token", csrf), ("umfang", "alle")], html: answer),
        ])
        // The token is no recorded secret here: its value alone tells it is the session's.
        let export = try #require(RecordedExport.exports(in: archive, from: 2, origins: Self.origins, secrets: []).first)
        #expect(export.reads.map(\.name) == ["authenticity_token"])
        #expect(export.form.map(\.value) == ["{{authenticity_token}}", "alle"])
        #expect(export.addressXPath == "//a[normalize-space(.)='Link']/@href")
        #expect(export.parse == .ics && export.parseEvidence.contains("Kalender"), "\(export.parseEvidence)")
    }

    @Test("no command: an answer whose links were all seen before, an address elsewhere, a session value the form's page hides")
    func notAnExport() throws {
        // The answer shows only links the recording already held (navigation), and a new link without a token.
        let plain = try Self.recording([
            Self.entry("GET", "/search", html: "<form method='post' action='/search'><input name='q'></form>"),
            Self.entry(
                "POST", "/search", referer: "/search", form: [("q", "math")],
                html: "<a href='/logout'>Log out</a><a href='/course/view.php?id=12'>Math</a>"),
        ])
        #expect(RecordedExport.exports(in: plain, from: 2, origins: Self.origins, secrets: []).isEmpty)
        #expect(!RecordedExport.claims(4, in: plain, origins: Self.origins))
        // A hidden field's address (where the form returns to) is shown to nobody: no command.
        let returning = try Self.recording([
            Self.entry("GET", "/prefs", html: "<form method='post' action='/prefs'><input name='lang'></form>"),
            Self.entry(
                "POST", "/prefs", referer: "/prefs", form: [("lang", "de")],
                html: "<form><input type='HIDDEN' name='returnurl' value='\(Self.base)/calendar/view.php?time=1795906800'></form>"),
        ])
        #expect(!RecordedExport.claims(4, in: returning, origins: Self.origins))
        // An address on another origin: not the portal's, so no command reads it.
        let elsewhere = try Self.recording(Self.moodleExport(address: "https://tracker.example.com/ical?token=\(Self.token)"))
        #expect(RecordedExport.exports(in: elsewhere, from: 2, origins: Self.origins, secrets: [Self.sesskey]).isEmpty)
        // The session value the form sent is not on the page the form was on: nothing to read it from.
        var hidden = Self.moodleExport()
        hidden[0] = Self.entry("GET", "/calendar/export.php?course=1", html: "<form method='post'><input name='course'></form>")
        let archive = try Self.recording(hidden)
        #expect(RecordedExport.exports(in: archive, from: 2, origins: Self.origins, secrets: [Self.sesskey]).isEmpty)
    }

    @Test(
        "a form the person typed into (a purchase request's title) is no export though its receipt links a tokened address: it is left to the actions, which ask"
    )
    func typedFormIsNoExport() throws {
        let receipt = "5f2c9a8e41d07b3c6e2f9a1d"
        let form = """
            <form method="post" action="/requests/new"><input type="hidden" name="csrf" value="aZ3kQ9vL2mX8pR4tW7yB1nC6">
            <input name="title"><textarea name="note"></textarea><select name="format"><option value="book">Book</option></select>
            <button name="go" value="1">Request</button></form>
            """
        let answer = "<p>Request filed.</p><a href=\"/requests/view?id=\(receipt)\">View your request</a>"
        func archive(_ fields: [(String, String)]) throws -> HTTPArchive {
            try Self.recording([
                Self.entry("GET", "/requests/new", html: form),
                Self.entry("POST", "/requests/new", referer: "/requests/new", form: fields, html: answer),
            ])
        }
        let typed = try archive([
            ("csrf", "aZ3kQ9vL2mX8pR4tW7yB1nC6"), ("title", "Linear Algebra Done Right"), ("note", ""), ("format", "book"), ("go", "1"),
        ])
        #expect(!RecordedExport.claims(4, in: typed, origins: Self.origins))
        #expect(RecordedExport.exports(in: typed, from: 2, origins: Self.origins, secrets: []).isEmpty)
        // A field the form's page does not have (a script added it) may have been typed: not taken either.
        let scripted = try archive([("csrf", "aZ3kQ9vL2mX8pR4tW7yB1nC6"), ("format", "book"), ("isbn", "9781"), ("go", "1")])
        #expect(!RecordedExport.claims(4, in: scripted, origins: Self.origins))
        // The same form's choices alone, its answer showing the address: taken (the remaining risk a doc comment names).
        let chosen = try archive([("csrf", "aZ3kQ9vL2mX8pR4tW7yB1nC6"), ("format", "book"), ("go", "1")])
        #expect(RecordedExport.claims(4, in: chosen, origins: Self.origins))
        // An address shown in a textarea or a hidden input is none to copy: only an input (text, url, read-only) or a link.
        let shownInTextarea = try Self.recording([
            Self.entry("GET", "/abo", html: "<form method='post' action='/abo'><input type='hidden' name='k' value='1'></form>"),
            Self.entry(
                "POST", "/abo", referer: "/abo", form: [("k", "1")],
                html: "<textarea id='u'>\(Self.base)/feed/\(receipt)/cal.ics</textarea><a href='/logout'>Log out</a>"),
        ])
        #expect(!RecordedExport.claims(4, in: shownInTextarea, origins: Self.origins))
    }

    @Test("the parse is a guess from evidence: nothing naming a calendar is a page; a text/calendar answer in the recording is ics")
    func parseGuess() throws {
        let form = "<form method='post' action='/share'><input type='hidden' name='csrf' value='Hk3Lm9Pq2Rs8Tv4W'></form>"
        let answer = "<title>Share</title><input id='link' value='\(Self.base)/s/Xy7Qw2Er9Ty4Ui8Op'>"
        var pages = [
            Self.entry("GET", "/share", html: form),
            Self.entry("POST", "/share", referer: "/share", form: [("csrf", "Hk3Lm9Pq2Rs8Tv4W")], html: answer),
        ]
        let page = try #require(RecordedExport.exports(in: try Self.recording(pages), from: 2, origins: Self.origins, secrets: []).first)
        #expect(page.parse == .html && page.suggestedName == "export")
        let recipe = try DataRecipe.load(file: "export.yaml", text: page.yaml(command: "export", service: nil), portal: "x")
        #expect(recipe.sources[0].parser == .html && recipe.sources[0].fetchedAddress == "address")
        pages.append(Self.entry("GET", "/other.ics", html: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", mime: "text/calendar"))
        let ics = try #require(RecordedExport.exports(in: try Self.recording(pages), from: 2, origins: Self.origins, secrets: []).first)
        #expect(ics.parse == .ics && ics.parseEvidence.contains("text/calendar"), "\(ics.parseEvidence)")
    }

    @Test("through the generator: an events command that reads the address, with neither the address nor the session key in any file")
    func throughTheDraft() throws {
        let archive = try Self.recording(Self.moodleExport())
        let draft = try RecipeDraft(portal: "uni", title: nil, archive: archive, reservedCommands: ["calendar"])
        let file = try #require(draft.files.first { $0.path == "events.yaml" }, "\(draft.files.map(\.path))")
        let text = String(decoding: file.data, as: UTF8.self)
        #expect(text.contains("fetch: \"{{address}}\"") && text.contains("type: url") && text.contains("parse: ics"), "\(text)")
        for file in draft.files {
            let content = String(decoding: file.data, as: UTF8.self)
            #expect(!content.contains(Self.token) && !content.contains(Self.sesskey), "\(file.path)")
        }
        #expect(draft.commands.contains("events"))
        #expect(draft.guessed.contains { $0.hasPrefix("events: the address's answer is read as an iCalendar export") }, "\(draft.guessed)")
    }
}
