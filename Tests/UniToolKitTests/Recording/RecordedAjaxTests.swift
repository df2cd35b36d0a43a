import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// A page's script's POST for JSON records becomes a `parse: json`, `method: post` recipe
/// (issue 48): Moodle's AJAX `service.php` (`methodname`, `args`, the `sesskey` from the page's
/// script), and a different product's plain `fetch('/api/grades', {method: 'POST', …})`, by the
/// same rules. HARs are small logins built here, as Playwright writes them.
@Suite("Recording: a script's JSON POST becomes a method: post recipe")
struct RecordedAjaxTests {
    static let base = "https://portal.example.edu"
    /// The recording's moment (every response's `Date`) and the start of that day in Budapest.
    static let date = "Sun, 29 Nov 2026 09:30:00 GMT"
    static let midnight = 1_795_906_800

    /// One HAR entry: a page load, or a script's call (`xhr`) with a JSON or form body.
    static func entry(
        _ method: String, _ path: String, referer: String? = nil, form: [(String, String)]? = nil, postJSON: String? = nil,
        status: Int = 200, redirect: String? = nil, html: String? = nil, json: String? = nil, type: String = "document",
        headers extra: [(String, String)] = []
    ) -> [String: Any] {
        RecordingBoundariesTests.entry(
            method, base + path, referer: referer.map { base + $0 }, form: form, postJSON: postJSON, status: status,
            redirect: redirect, html: html, json: json, jsonMime: "application/json; charset=utf-8", type: type, headers: extra,
            refererName: "Referer", date: date)
    }

    /// A login at the portal, then `pages`.
    static func recording(_ pages: [[String: Any]]) throws -> HTTPArchive {
        let form = "<form method='post' action='/login'><input name='user'><input type='password' name='pw'><button>Go</button></form>"
        let entries =
            [
                entry("GET", "/login", html: form),
                entry(
                    "POST", "/login", referer: "/login", form: [("user", "jdoe"), ("pw", "s3cret-Pass!")], status: 302, redirect: "/home"),
                entry("GET", "/home", html: "<a href='/logout'>Log out</a> <a href='/lms/my/'>LMS</a>"),
            ] + pages
        let data = try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
        return try HTTPArchive(data: data, name: "ajax.har")
    }

    static func text(_ draft: RecipeDraft, _ path: String) -> String {
        draft.files.first { $0.path == path }.map { String(decoding: $0.data, as: UTF8.self) } ?? ""
    }

    /// The records a written recipe's rows and fields read from its recorded answer.
    static func rows(_ recipe: DataRecipe, answer: String) throws -> [Node] {
        let xml = try StructuredText.xml(fromJSON: Array(answer.utf8))
        let document = try Document(xml: Array(xml.utf8), url: base, encoding: "utf-8")
        return try document.select(recipe.primary.rows)
    }

    // MARK: Moodle's dashboard

    static let sesskey = "Xq3pL9vR2t"
    static let dashboard = """
        <script>M.cfg = {"wwwroot":"\\/lms","sesskey":"\(sesskey)","themerev":"1"};</script>
        <h1>Dashboard</h1><section data-region="courses-view"><p>Loading…</p></section><a href='/logout'>Log out</a>
        """
    static let courses =
        #"[{"error":false,"data":{"courses":[{"id":100,"fullname":"Probability Theory","shortname":"MATH-301","progress":72,"hasprogress":true,"viewurl":"/lms/course/view.php?id=100"},{"id":101,"fullname":"Information Theory","shortname":"CS-320","progress":45,"hasprogress":false,"viewurl":"/lms/course/view.php?id=101"}],"nextoffset":2}}]"#
    static let events =
        #"[{"error":false,"data":{"events":[{"id":7,"name":"Essay due","timesort":1796000000},{"id":8,"name":"Quiz","timesort":1796100000}],"firstid":7,"lastid":8}}]"#

    static func moodle() throws -> HTTPArchive {
        let call = { (method: String, args: String, answer: String) in
            entry(
                "POST", "/lms/lib/ajax/service.php?sesskey=\(sesskey)&info=\(method)", referer: "/lms/my/",
                postJSON: #"[{"index":0,"methodname":"\#(method)","args":\#(args)}]"#, json: answer, type: "xhr")
        }
        return try recording([
            entry("GET", "/lms/my/", html: dashboard),
            call("core_course_get_enrolled_courses_by_timeline_classification", #"{"offset":0,"limit":0,"classification":"all"}"#, courses),
            call(
                "core_calendar_get_action_events_by_timesort",
                #"{"limitnum":6,"timesortfrom":\#(midnight),"limittononsuspendedevents":true}"#, events),
            // A call that logs or pings: its answer holds no records.
            call("core_fetch_notifications", #"{"contextid":1}"#, #"[{"error":false,"data":[]}]"#),
        ])
    }

    @Test(
        "Moodle's service.php: the sesskey is read from the dashboard's script by a regex, never written; timesortfrom becomes {{today_epoch}}; each call is named from its methodname; the log call is skipped"
    )
    func moodleServiceCalls() throws {
        let draft = try RecipeDraft(portal: "lms-uni", title: nil, archive: try Self.moodle())
        #expect(draft.commands.contains("courses") && draft.commands.contains("events"), "\(draft.commands)")
        let courses = Self.text(draft, "courses.yaml")
        #expect(
            courses.contains(
                #"fetch: "/lms/lib/ajax/service.php?sesskey={{sesskey}}&info=core_course_get_enrolled_courses_by_timeline_classification""#
            ), "\(courses)")
        #expect(courses.contains("method: post"), "\(courses)")
        #expect(
            courses.contains(
                #"json: "[{\"index\":0,\"methodname\":\"core_course_get_enrolled_courses_by_timeline_classification\",\"args\":{\"offset\":0,\"limit\":0,\"classification\":\"all\"}}]""#
            ), "the other args stay as recorded: \(courses)")
        #expect(
            courses.contains(
                #"sesskey: { fetch: "/lms/my/", xpath: "//script[contains(., '\"sesskey\":\"')]", regex: "\"sesskey\":\"([^\"]+)" }"#),
            "\(courses)")
        #expect(courses.contains("parse: json") && courses.contains(#"rows: "/json/item/data/courses/item""#), "\(courses)")
        #expect(courses.contains(#"empty_when: "/json/item/data/courses[@type='array' and not(item)]""#), "\(courses)")
        let recipe = try DataRecipe.load(file: "courses.yaml", text: courses, portal: "lms-uni")
        #expect(recipe.primary.post && recipe.primary.reads.map(\.name) == ["sesskey"])
        #expect(try Self.rows(recipe, answer: Self.courses).count == 2)
        #expect(recipe.primary.fields.contains { $0.name == "fullname" }, "\(recipe.primary.fields.map(\.name))")
        // A boolean is read as the XML has it (`true`), never typed as a whole number from 1 and 0.
        #expect(courses.contains(#"hasprogress: { xpath: "hasprogress" }"#), "\(courses)")

        let events = Self.text(draft, "events.yaml")
        #expect(events.contains(#"\"timesortfrom\":{{today_epoch}},"#), "\(events)")
        #expect(events.contains(#"\"limittononsuspendedevents\":true"#), "\(events)")
        // timesort: seconds since 1970 near the recording's day, a moment; the event ids stay whole numbers.
        #expect(events.contains(#"timesort: { xpath: "timesort", type: datetime, format: "unix" }"#), "\(events)")
        #expect(events.contains(#"id: { xpath: "id", type: integer, key: true }"#), "\(events)")
        _ = try DataRecipe.load(file: "events.yaml", text: events, portal: "lms-uni")

        #expect(!draft.commands.contains("notifications"), "\(draft.commands)")
        #expect(
            draft.skipped.contains { $0.contains("service.php") && $0.contains("no list of records") }, "\(draft.skipped)")
        #expect(draft.guessed.contains { $0.contains("courses") && $0.contains("core_course_get_enrolled") }, "\(draft.guessed)")
        #expect(draft.guessed.contains { $0.contains("timesortfrom") && $0.contains("today_epoch") }, "\(draft.guessed)")
        for file in draft.files {
            #expect(!String(decoding: file.data, as: UTF8.self).contains(Self.sesskey), "\(file.path) holds the sesskey")
        }
    }

    // MARK: Another product

    static let grades = #"{"grades":[{"course":"Analysis","grade":"A","credits":5},{"course":"Algebra","grade":"B","credits":4}]}"#

    @Test(
        "another product's plain fetch('/api/grades', {method: 'POST', body: JSON.stringify({term: '2026-1'})}): the endpoint names the command, the body stays as recorded, no read"
    )
    func plainJSONPost() throws {
        let archive = try Self.recording([
            Self.entry("GET", "/app/", html: "<div id='app'></div><a href='/logout'>Log out</a>"),
            Self.entry("POST", "/api/grades", referer: "/app/", postJSON: #"{"term":"2026-1"}"#, json: Self.grades, type: "fetch"),
        ])
        let draft = try RecipeDraft(portal: "other-uni", title: nil, archive: archive)
        #expect(draft.commands == ["grades"], "\(draft.commands)")
        let grades = Self.text(draft, "grades.yaml")
        #expect(grades.contains(#"fetch: "/api/grades""#) && grades.contains("method: post"), "\(grades)")
        #expect(grades.contains(#"json: "{\"term\":\"2026-1\"}""#), "\(grades)")
        #expect(!grades.contains("read:"), "\(grades)")
        let recipe = try DataRecipe.load(file: "grades.yaml", text: grades, portal: "other-uni")
        #expect(recipe.primary.rows == "/json/grades/item")
        #expect(try Self.rows(recipe, answer: Self.grades).count == 2)
        #expect(recipe.primary.fields.map(\.name).sorted() == ["course", "credits", "grade"])
    }

    @Test("a form POST with a CSRF token from the page's <meta>: the token is read by its element's name, never written")
    func formPostWithMetaToken() throws {
        let token = "a8F3kQ9zLm2Wx7Rt5Yb1Nc4V"
        let archive = try Self.recording([
            Self.entry(
                "GET", "/app/", html: "<meta name='csrf-token' content='\(token)'><div id='app'></div><a href='/logout'>Log out</a>"),
            Self.entry(
                "POST", "/api/grades", referer: "/app/", form: [("term", "2026-1"), ("authenticity_token", token)], json: Self.grades,
                type: "xhr"),
        ])
        let draft = try RecipeDraft(portal: "other-uni", title: nil, archive: archive)
        let grades = Self.text(draft, "grades.yaml")
        #expect(grades.contains(#"form: { "term": "2026-1", "authenticity_token": "{{authenticity_token}}" }"#), "\(grades)")
        #expect(
            grades.contains(#"authenticity_token: { fetch: "/app/", xpath: "//meta[@name='csrf-token']/@content" }"#), "\(grades)")
        _ = try DataRecipe.load(file: "grades.yaml", text: grades, portal: "other-uni")
        for file in draft.files { #expect(!String(decoding: file.data, as: UTF8.self).contains(token), "\(file.path)") }
    }

    @Test(
        "no command, with the reason: a token sent in a header of its own, a session value the page does not show, an answer without records"
    )
    func skippedCalls() throws {
        let token = "Zt7Qw2Lp9Xk4Mv8Rb3Ns6Yc1"
        let archive = try Self.recording([
            Self.entry("GET", "/app/", html: "<meta name='csrf-token' content='\(token)'><a href='/logout'>Log out</a>"),
            Self.entry(
                "POST", "/api/grades", referer: "/app/", postJSON: "{}", json: Self.grades, type: "xhr",
                headers: [("X-CSRF-Token", token)]),
            Self.entry(
                "POST", "/api/loans", referer: "/app/", postJSON: #"{"session_token":"Hq8Wm3Zr5Tn1Kv7Xb2Lc9Pd4"}"#, json: Self.grades,
                type: "xhr"),
            Self.entry("POST", "/api/log", referer: "/app/", postJSON: #"{"event":"view"}"#, json: #"{"ok":true}"#, type: "xhr"),
            // A call that changes something, though its answer lists records: never run at every run.
            Self.entry("POST", "/api/loans/renew", referer: "/app/", postJSON: #"{"barcode":"31000103"}"#, json: Self.grades, type: "xhr"),
            Self.entry(
                "POST", "/rpc", referer: "/app/", postJSON: #"{"jsonrpc":"2.0","method":"markAllNotificationsRead","params":{}}"#,
                json: Self.grades, type: "xhr"),
        ])
        let found = RecordedAjax.calls(in: archive, from: 3, origins: [Self.base], secrets: [])
        #expect(found.calls.isEmpty, "\(found.calls.map(\.draft.fetch))")
        let reasons = Dictionary(uniqueKeysWithValues: found.skipped.map { ($0.url.path, $0.reason) })
        #expect(reasons["/api/grades"]?.contains("header 'X-CSRF-Token'") == true, "\(reasons)")
        #expect(reasons["/api/loans"]?.contains("'session_token', which the page that made the call does not show") == true, "\(reasons)")
        #expect(reasons["/api/log"]?.contains("no list of records") == true, "\(reasons)")
        #expect(reasons["/api/loans/renew"]?.contains("it changes something ('renew'") == true, "\(reasons)")
        #expect(reasons["/rpc"]?.contains("it changes something ('mark'") == true, "\(reasons)")
    }

    // MARK: The rules one by one

    @Test(
        "a call changes something by any word of its function or of any path segment, stems included; it reads by a reading verb before what it reads, or with no verb"
    )
    func changingCalls() throws {
        func verb(_ path: String, _ functions: [String] = []) throws -> String? {
            RecordedAjax.changingVerb(functions: functions, url: try #require(URL(string: "https://portal.example.edu" + path)))
        }
        // Changes something: the verb anywhere in the path, in any form of it, or in the function's name.
        let changing = [
            "/api/loans/31000103/renewal": "renewal", "/api/loans/renew/31000103": "renew", "/api/feeds/subscribe": "subscribe",
            "/api/notices/7/dismiss": "dismiss", "/api/tasks/complete": "complete", "/api/groups/join": "join",
            "/api/loans/extend": "extend", "/api/profile/update": "update", "/api/holds/delete": "delete",
            "/api/holds/8/cancel": "cancel", "/api/draft/save": "save", "/api/prefs/set": "set",
            "/api/loans/extension-request": "extension", "/api/v2/deleteItem": "delete",
        ]
        for (path, word) in changing { #expect(try verb(path) == word, "\(path)") }
        #expect(try verb("/lib/ajax/service.php", ["core_message_mark_all_notifications_as_read"]) == "mark")
        #expect(try verb("/rpc", ["loans.renewAll"]) == "renew")
        #expect(try verb("/rpc", ["dismissNotice"]) == "dismiss")
        // Reads: a reading verb before its object, whatever the component is called, or nouns alone.
        #expect(try verb("/lib/ajax/service.php", ["core_course_get_enrolled_courses_by_timeline_classification"]) == nil)
        #expect(try verb("/lib/ajax/service.php", ["core_calendar_get_action_events_by_timesort"]) == nil)
        #expect(try verb("/lib/ajax/service.php", ["core_enrol_get_users_courses"]) == nil)
        #expect(try verb("/api/grades") == nil)
        #expect(try verb("/api/loans/search") == nil)
        #expect(try verb("/api/settings") == nil)
        #expect(try verb("/api/address-book/list") == nil)
    }

    @Test("a command's name from the function a call names: the thing it gets")
    func functionNames() {
        #expect(RecordedAjax.commandName(function: "core_course_get_enrolled_courses_by_timeline_classification") == "courses")
        #expect(RecordedAjax.commandName(function: "core_calendar_get_action_events_by_timesort") == "events")
        #expect(RecordedAjax.commandName(function: "getGrades") == "grades")
        #expect(RecordedAjax.commandName(function: "library.listLoans") == "loans")
        #expect(RecordedAjax.commandName(function: "get") == nil)
    }

    @Test("a day's start near the recording (seconds or milliseconds) is today; 'now', another day, a small number are not")
    func dayStarts() throws {
        let moment = Date(timeIntervalSince1970: TimeInterval(Self.midnight + 9 * 3600 + 1800))
        #expect(RecordedAjax.dayStart(String(Self.midnight), near: moment)?.milliseconds == false)
        #expect(RecordedAjax.dayStart(String(Self.midnight) + "000", near: moment)?.milliseconds == true)
        #expect(RecordedAjax.dayStart(String(Self.midnight + 9 * 3600 + 1799), near: moment) == nil, "a moment, not a day")
        #expect(RecordedAjax.dayStart(String(Self.midnight - 10 * 86400), near: moment) == nil, "another day")
        #expect(RecordedAjax.dayStart("86400", near: moment) == nil)
    }

    @Test("where a page shows a value: a field's value by its name, a script's text by the words before it")
    func locatesValues() throws {
        let page = try Document(
            html: Array(
                """
                <input type="hidden" name="sesskey" value="K1x9Qp">
                <script>var config = { token = 'T0k3n-Abc.9' };</script>
                """.utf8), url: Self.base, encoding: "utf-8")
        #expect(RecordedAjax.locate("K1x9Qp", in: page)?.xpath == "//input[@name='sesskey']/@value")
        let script = try #require(RecordedAjax.locate("T0k3n-Abc.9", in: page))
        #expect(script.xpath == #"//script[contains(., "token = '")]"#, "\(script)")
        #expect(script.regex == "token = '([^']+)", "\(script)")
        #expect(RecordedAjax.locate("absent", in: page) == nil)
    }
}
