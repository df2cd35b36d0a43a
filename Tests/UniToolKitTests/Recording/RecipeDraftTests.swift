import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// From a recording to a recipe folder, without a network: HARs that chromium wrote through
/// Playwright (`Fixtures/har/playwright-chromium-*.har`, recorded by Scripts/record-login.py
/// against the demo with `login=reminder-link`), the same recording in Firefox's export shape
/// (`firefox-*.har`, Fixtures/har/README.md says how it differs), and small pages of logic.
@Suite("Recording: a HAR becomes a portal folder")
struct RecipeDraftTests {
    static func archive(_ name: String) throws -> HTTPArchive {
        let url = Fixtures.root.appendingPathComponent("Fixtures/har/\(name)")
        return try HTTPArchive(data: Data(contentsOf: url), name: name)
    }

    static func text(_ draft: RecipeDraft, _ path: String) -> String {
        draft.files.first { $0.path == path }.map { String(decoding: $0.data, as: UTF8.self) } ?? ""
    }

    @Test("Chromium's recording (through Playwright): page loads, a lost body, form fields, the creator")
    func readsPlaywrightChromium() throws {
        let archive = try Self.archive("playwright-chromium-reminder.har")
        #expect(archive.creator == "Playwright")
        let loads = archive.exchanges.filter(\.isPageLoad)
        #expect(loads.first?.url.path == "/home" && loads.first?.status == 302)
        let samlPost = try #require(loads.first { $0.formFields?.contains { $0.name == "SAMLResponse" } == true })
        #expect(samlPost.redirect?.absoluteString.hasSuffix("/reminder?target=/home") == true)
        #expect(archive.exchanges.contains { $0.url.path == "/static/site.css" && !$0.isPageLoad })
    }

    @Test("the login: where it starts, where the password went, each page's rule, where it ends")
    func readsTheLogin() throws {
        let login = try RecordedLogin(reading: try Self.archive("playwright-chromium-reminder.har"))
        #expect(login.start == "/home")
        #expect(login.portal.absoluteString == "http://127.0.0.1:28391/")
        #expect(login.identityProvider.absoluteString == "http://127.0.0.1:28391/idp")
        #expect(login.credentialOrigins == ["http://127.0.0.1:28391"])
        #expect(login.username == "alice")
        #expect(login.typedSecrets == ["wonderland"])
        #expect(login.doneXPath == "//a[@id='logout']")
        #expect(login.personalTexts.contains("Alice Example"), "\(login.personalTexts)")
        let rules = login.steps.map(\.rule)
        #expect(rules.map(\.name) == ["user name", "password", "saml post", "link 後で回答する"], "\(rules.map(\.name))")
        #expect(rules[0].action == .fill([.init(name: "j_username", value: "{{username}}")], submit: ".//button[@name='_eventId_proceed']"))
        #expect(rules[0].when == "//form[@id='login-id']")
        #expect(rules[2].action == .autoSubmit && !rules[2].afterLogin)
        #expect(rules[3].action == .follow("//a[@id='answer-later']") && rules[3].afterLogin)
    }

    @Test("the folder: the demo's platform recognised, only the reminder written, commands with typed fields, terms found")
    func writesTheFolder() throws {
        let draft = try RecipeDraft(portal: "myuni", title: "My University", archive: try Self.archive("playwright-chromium-reminder.har"))
        #expect(draft.platform == "unitool-demo")
        #expect(draft.commands == ["grades", "loans"])
        #expect(draft.suggestion == "grades --term current")
        let portal = Self.text(draft, "portal.yaml")
        #expect(portal.contains("use: unitool-demo") && portal.contains("credentials_may_go_to: [idp]"), "\(portal)")
        #expect(portal.contains("follow: \"//a[@id='answer-later']\"") && portal.contains("after_login: true"), "\(portal)")
        #expect(!portal.contains("j_username"), "the platform's rules are not written again: \(portal)")
        #expect(portal.contains("version_api: \"/api/terms/version\"") && portal.contains("url_field: \"url\""), "\(portal)")
        let recipe = try PortalRecipe.load(file: "portal.yaml", text: portal)
        #expect(recipe.login.pages.contains { $0.name == "wrong password" }, "the platform's error rules come with use:")

        let grades = Self.text(draft, "grades.yaml")
        #expect(grades.contains("fetch: \"/grades?term={{term}}\""), "\(grades)")
        #expect(grades.contains("points: { xpath: \"td[@class='points']\", type: number"), "\(grades)")
        #expect(grades.contains("date: { xpath: \"td[@class='date']\", type: date, format: \"dd.MM.yyyy\" }"), "\(grades)")
        let loans = Self.text(draft, "loans.yaml")
        #expect(loans.contains("barcode: { xpath: \"td[@class='barcode']\", key: true }"), "digits stay text: \(loans)")
        #expect(loans.contains("format: \"dd/MM/yyyy\""), "\(loans)")
        #expect(!loans.contains("td[6]"), "the Renew column is an action, not data: \(loans)")
        #expect(loans.contains("next: \"//a[@rel='next']/@href\""), "\(loans)")
        for file in draft.files where file.path.hasSuffix(".yaml") && file.path != "portal.yaml" {
            #expect(throws: Never.self) {
                try DataRecipe.load(file: file.path, text: String(decoding: file.data, as: UTF8.self), portal: "myuni")
            }
        }
    }

    @Test("no secret of the recording is in any file; the fixtures hold no name, user id, cookie or SAML message")
    func keepsSecretsOut() throws {
        let archive = try Self.archive("playwright-chromium-reminder.har")
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        #expect(draft.secrets.contains("wonderland"))
        let cookies = Set(archive.exchanges.flatMap(\.cookieValues).filter { $0.count >= 8 })
        #expect(!cookies.isEmpty && cookies.isSubset(of: Set(draft.secrets)), "every cookie value is a secret")
        #expect(draft.leaks(in: draft.files).isEmpty)
        let page = Self.text(draft, "Fixtures/grades/recorded.html")
        #expect(page.contains("MATH-301") && page.contains("Student Name"), "\(page.prefix(600))")
        for personal in ["Alice Example", "alice", "wonderland"] { #expect(!page.contains(personal), "\(personal)") }
        // The check that guards the writing finds a secret planted in a file, in any encoding.
        var planted = draft.files
        let references = "wonderland".unicodeScalars.map { "&#\($0.value);" }.joined()
        planted.append(RecipeDraft.File(path: "page.html", data: Data("<p>\(references)</p>".utf8)))
        #expect(draft.leaks(in: planted) == ["page.html"])
        planted.append(RecipeDraft.File(path: "cookie.txt", data: Data(cookies.first!.utf8)))
        #expect(draft.leaks(in: planted).contains("cookie.txt"))
    }

    @Test("page text in a YAML comment stays on its line, whatever line break it holds; no escape reaches a terminal")
    func commentsStayComments() throws {
        let hostile = "Grades\u{2028}base_url: https://evil.example\nuse: x\u{85}y\r\u{1B}[31m"
        let line = RecipeDraft.oneLine(hostile)
        let breaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}", "\u{1B}"]
        #expect(!line.unicodeScalars.contains { breaks.contains($0) }, "\(line.debugDescription)")
        let yaml = "a: 1\n# \(line)\n"
        let node = try RecipeReader(file: "x.yaml", text: yaml).top
        #expect(node.keys == ["a"], "the comment added no key")
    }

    @Test("the person's name and user name leave the fixtures in every encoding, the user name only as a word")
    func personalTexts() throws {
        let login = try RecordedLogin(reading: try Self.archive("playwright-chromium-reminder.har"))
        let text = "alice Alice Example alice%40example.edu &#65;lice Example banalice alice_x /u/alice?x=1"
        let scrubbed = RecipeDraft.personalScrubbed(text, login: login)
        #expect(scrubbed.hasPrefix("student Student Name"), "\(scrubbed)")
        #expect(scrubbed.contains("banalice") && scrubbed.contains("alice_x") && scrubbed.contains("/u/student?x=1"), "\(scrubbed)")
    }

    @Test(
        "what is a secret: cookies, Authorization's token, CSRF headers and page tokens, OAuth's code beside its state; a course code is not"
    )
    func whatIsSecret() throws {
        let json = #"""
            {"log": {"entries": [
              {"request": {"method": "GET", "url": "https://portal.example.edu/login", "headers": [
                 {"name": "Authorization", "value": "Bearer tok-1234567890"}, {"name": "X-CSRF-Token", "value": "csrf-abcdef"},
                 {"name": "Sec-Fetch-Dest", "value": "document"}]},
               "response": {"status": 200, "content": {"mimeType": "text/html",
                 "text": "<meta name='csrf-token' content='meta-token-42'><a href='/x?sesskey=Sk3yV4lue'>x</a><form method=post action=/login><input name=user><input type=password name=pw><button>Go</button></form>"}}},
              {"request": {"method": "POST", "url": "https://portal.example.edu/login", "headers": [],
                 "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "user", "value": "jdoe"}, {"name": "pw", "value": "s3cret!"}]}},
               "response": {"status": 302, "redirectURL": "/cb?code=oauth-code-77&state=xyz", "content": {"size": 0}}},
              {"request": {"method": "GET", "url": "https://portal.example.edu/cb?code=oauth-code-77&state=xyz", "headers": []},
               "response": {"status": 302, "redirectURL": "/home", "content": {"size": 0}}},
              {"request": {"method": "GET", "url": "https://portal.example.edu/home", "headers": [{"name": "Sec-Fetch-Dest", "value": "document"}]},
               "response": {"status": 200, "content": {"mimeType": "text/html", "text": "<a href='/logout'>Log out</a><a href='/course?code=MATH-101'>MATH-101</a>"}}}
            ]}}
            """#
        let archive = try HTTPArchive(data: Data(json.utf8), name: "x.har")
        let login = try RecordedLogin(reading: archive)
        let secrets = Set(RecipeDraft.secrets(of: archive, login: login))
        for secret in ["s3cret!", "tok-1234567890", "Bearer tok-1234567890", "csrf-abcdef", "meta-token-42", "Sk3yV4lue", "oauth-code-77"] {
            #expect(secrets.contains(secret), "\(secret) in \(secrets.sorted())")
        }
        #expect(!secrets.contains("MATH-101"))
    }

    @Test("Firefox's export of the same recording makes the same folder")
    func firefoxShape() throws {
        let firefox = try Self.archive("firefox-reminder.har")
        #expect(firefox.creator == "Firefox")
        #expect(firefox.exchanges.allSatisfy { $0.resourceType == nil })
        let redirect = try #require(firefox.exchanges.first { $0.status == 303 })
        #expect(redirect.redirect?.absoluteString == "http://127.0.0.1:28391/reminder?target=/home", "relative Location resolved")
        let chromium = try RecipeDraft(portal: "myuni", title: nil, archive: try Self.archive("playwright-chromium-reminder.har"))
        let fromFirefox = try RecipeDraft(portal: "myuni", title: nil, archive: firefox)
        #expect(chromium.files.map(\.path) == fromFirefox.files.map(\.path))
        for (a, b) in zip(chromium.files, fromFirefox.files) {
            let left = String(decoding: a.data, as: UTF8.self).replacingOccurrences(of: "(Playwright)", with: "(Firefox)")
            #expect(left == String(decoding: b.data, as: UTF8.self), "\(a.path) differs")
        }
    }

    @Test("a recording saved without page contents: login rules from the posted names, the end by its address, no command, and that said")
    func withoutContent() throws {
        let url = Fixtures.root.appendingPathComponent("Fixtures/har/playwright-chromium-reminder.har")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var log = try #require(root["log"] as? [String: Any])
        log["entries"] = (log["entries"] as? [[String: Any]] ?? []).map { entry in
            var entry = entry
            var response = entry["response"] as? [String: Any] ?? [:]
            response["content"] = ["size": -1, "mimeType": "x-unknown"]
            entry["response"] = response
            return entry
        }
        root["log"] = log
        let archive = try HTTPArchive(data: try JSONSerialization.data(withJSONObject: root), name: "bare.har")
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        #expect(draft.files.map(\.path) == ["portal.yaml"] && draft.commands.isEmpty)
        let portal = Self.text(draft, "portal.yaml")
        #expect(portal.contains("\"j_username\": \"{{username}}\"") && portal.contains("\"j_password\": \"{{password}}\""), "\(portal)")
        #expect(portal.contains("auto_submit: true") && portal.contains("done_when: { url: \"^/reminder\" }"), "\(portal)")
        #expect(draft.guessed.contains { $0.contains("no page contents") }, "\(draft.guessed)")
        #expect(throws: Never.self) { try PortalRecipe.load(file: "portal.yaml", text: portal) }
        #expect(draft.leaks(in: draft.files).isEmpty)
    }

    @Test("what is not a recording of a login says so, and how to make one")
    func refusesWhatIsNoLogin() throws {
        #expect(throws: UniToolError.self) { try HTTPArchive(data: Data("<html>".utf8), name: "x.har") }
        do {
            _ = try HTTPArchive(data: Data(#"{"log": {"version": "1.2"}}"#.utf8), name: "x.har")
            Issue.record("a HAR without entries was read")
        } catch let error as UniToolError {
            #expect(error.kind == .usage && error.message.contains("'entries' is missing"), "\(error)")
            #expect(error.hint?.contains("Save all as HAR") == true)
        }
        let noLogin =
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://portal.example.edu/grades", "headers": [{"name": "Sec-Fetch-Dest", "value": "document"}]}, "response": {"status": 200, "content": {"mimeType": "text/html", "text": "<table><tr><td>1</td></tr></table>"}}}]}}"#
        do {
            _ = try RecipeDraft(portal: "myuni", title: nil, archive: try HTTPArchive(data: Data(noLogin.utf8), name: "x.har"))
            Issue.record("a recording without a login made a folder")
        } catch let error as UniToolError {
            #expect(error.message.contains("no password being sent") && error.hint?.contains("Preserve log") == true, "\(error)")
        }
        // A file larger than any recording of a login is refused before it is read (sparse here).
        let huge = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-huge-\(UUID().uuidString).har")
        FileManager.default.createFile(atPath: huge.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: huge) }
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: UInt64(HTTPArchive.maximumSize + 1))
        try handle.close()
        do {
            _ = try HTTPArchive(file: huge.path)
            Issue.record("a 256 MB file was read as a recording")
        } catch let error as UniToolError {
            #expect(error.message.contains("more than a recording of a login holds"), "\(error)")
        }
        let version = #"{"log": {"version": "2.0", "entries": []}}"#
        #expect(throws: UniToolError.self) { try HTTPArchive(data: Data(version.utf8), name: "x.har") }
    }

    @Test("posted fields from params, from urlencoded text (Firefox's empty params), base64 bodies; a page load told without _resourceType")
    func postDataShapes() throws {
        let json = #"""
            {"log": {"version": "1.1", "entries": [
              {"request": {"method": "POST", "url": "https://idp.example.edu/login", "headers": [],
                 "postData": {"mimeType": "application/x-www-form-urlencoded; charset=UTF-8", "params": [],
                              "text": "user=b%C3%A9la&pass=a+b%26c"}},
               "response": {"status": 302, "redirectURL": "/next", "content": {"size": 0, "mimeType": "", "text": ""}}},
              {"request": {"method": "GET", "url": "https://idp.example.edu/next",
                 "headers": [{"name": "Accept", "value": "text/html,application/xhtml+xml"}]},
               "response": {"status": 200, "content": {"mimeType": "text/html", "encoding": "base64", "text": "PHA+aGk8L3A+"}}},
              {"request": {"method": "GET", "url": "https://idp.example.edu/api", "headers": [{"name": "Accept", "value": "application/json"}]},
               "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{}"}}}
            ]}}
            """#
        let archive = try HTTPArchive(data: Data(json.utf8), name: "x.har")
        let post = archive.exchanges[0]
        #expect(post.formFields?.map(\.name) == ["user", "pass"] && post.formFields?.map(\.value) == ["béla", "a b&c"])
        #expect(post.redirect?.absoluteString == "https://idp.example.edu/next" && post.body == nil && post.isPageLoad)
        #expect(archive.exchanges[1].body == Array("<p>hi</p>".utf8) && archive.exchanges[1].isPageLoad)
        #expect(!archive.exchanges[2].isPageLoad)
    }
}

/// The guesses about a page's records: types from values, names from headers in any language.
@Suite("Recording: types and names guessed from a page")
struct RecordedPageTests {
    func field(_ values: [String], header: String = "") -> DraftDataRecipe.Field {
        RecordedPage.typed(DraftDataRecipe.Field(name: "x", xpath: "td[1]"), values: values, header: header)
    }

    @Test("numbers, decimal commas, placeholders, identifiers, dates and grades")
    func types() {
        #expect(field(["6", "5", "4"]).type == "integer")
        let points = field(["3,7", "3,3", "–"])
        #expect(points.type == "number" && points.regex != nil && points.guesses[0].contains("decimal comma"))
        #expect(field(["31000101", "31000102"]).type == nil, "a barcode stays text")
        #expect(field(["0042", "0043"]).type == nil, "leading zeros count")
        #expect(field(["13.11.2026", "01.02.2027"]).format == "dd.MM.yyyy")
        #expect(field(["2026-11-13", ""]).format == "yyyy-MM-dd")
        #expect(field(["2026. 11. 13.", "2026. 12. 01."]).format == "yyyy. MM. dd.")
        #expect(field(["11/24/2026", "12/01/2026"]).format == "MM/dd/yyyy")
        #expect(field(["24/11/2026", "01/12/2026"]).format == "dd/MM/yyyy")
        #expect(field(["2026年11月3日"]).format == "yyyy年M月d日")
        #expect(field(["2026-11-13T09:00:00+01:00"]).type == "datetime")
        let grades = field(["A-", "B+", "in progress", "in progress"], header: "Grade")
        #expect(grades.regex == nil && grades.guesses[0].contains("'in progress'"), "a vocabulary that rejects a recorded value")
        #expect(field(["Probability Theory", "Operating Systems"]).type == nil)
    }

    @Test("field names from headers in any language, else the cells' class, else the position")
    func names() {
        #expect(RecordedPage.fieldName(header: "Renewals left", cellClass: nil, column: 0) == "renewals_left")
        #expect(RecordedPage.fieldName(header: "Tárgy neve", cellClass: nil, column: 0) == "targy_neve")
        #expect(RecordedPage.fieldName(header: "dueDate", cellClass: nil, column: 0) == "due_date")
        #expect(RecordedPage.fieldName(header: "科目", cellClass: "subject", column: 0) == "subject")
        #expect(RecordedPage.fieldName(header: "科目", cellClass: nil, column: 2) == "column_3")
        #expect(RecipeDraft.commandName(URL(string: "https://x.edu/library/loans")!, heading: nil, taken: []) == "loans")
        #expect(RecipeDraft.commandName(URL(string: "https://x.edu/portal/")!, heading: "Grades", taken: []) == "grades")
        #expect(RecipeDraft.commandName(URL(string: "https://x.edu/grades.php")!, heading: nil, taken: ["grades"]) == "grades-2")
    }

    @Test("a JSON answer: the largest array of objects becomes rows; a version field is the terms API")
    func json() throws {
        let answer: Any = [
            "data": ["courses": [["fullname": "Analysis", "id": 7, "startdate": 1_790_000_000], ["fullname": "Algebra", "id": 8]]]
        ]
        let draft = try #require(
            RecordedPage.jsonRecipe(
                answer, command: "courses", fetch: "/api", url: URL(string: "https://x.edu/api")!, contentType: nil, body: []))
        #expect(draft.rows == "/json/data/courses/item" && draft.parseJSON)
        #expect(draft.fields.map(\.name) == ["fullname", "id", "startdate"])
        #expect(draft.fields.first { $0.name == "id" }?.key == true)
        #expect(RecipeDraft.termsFields(["version": "2026-09", "url": "https://x.edu/terms"])?.url == "url")
        #expect(RecipeDraft.termsFields(["terms_version": 4])?.version == "terms_version")
        #expect(RecipeDraft.termsFields(["courses": []]) == nil)
    }

    @Test("a page's own selector becomes an option, read as the page reads it")
    func selector() throws {
        let html = """
            <form method="get" action="/grades"><label for="t">Semester</label><select id="t" name="term">
            <option value="2026-spring">Spring</option><option value="2026-fall" selected>Fall</option></select></form>
            <table><thead><tr><th>Course</th></tr></thead><tbody><tr><td>A</td></tr></tbody></table>
            """
        let document = try Document(html: html, url: "https://x.edu/grades")
        let option = try #require(RecordedPage.selectorOption(document, url: URL(string: "https://x.edu/grades")!))
        #expect(option.name == "term" && option.label == "Semester")
        #expect(option.selected == "//select[@id='t']/option[@selected]/@value")
    }
}

/// Issue 47: what a recording's secrets and the person's data become in the folder, in every
/// encoding the web uses, and what is data, not a secret.
@Suite("Recording: secrets and personal data in every encoding; data left as it is")
struct RecipeDraftScrubbingTests {
    /// A login (user name and password posted), then pages after it, as a HAR.
    static func archive(
        username: String, password: String, cookies: [String], pages: [(path: String, type: String, body: String)]
    ) throws -> HTTPArchive {
        func string(_ text: String) -> String { JSONString.quoted(text) }
        let document = #"{"name": "Sec-Fetch-Dest", "value": "document"}"#
        let script = #"{"name": "Sec-Fetch-Dest", "value": "empty"}"#
        var entries = [
            #"{"request": {"method": "GET", "url": "https://portal.example.edu/login", "headers": [\#(document)]}, "response": {"status": 200, "content": {"mimeType": "text/html", "text": "<form method=post action=/login><input name=user><input type=password name=pw><button>Go</button></form>"}}}"#,
            #"{"request": {"method": "POST", "url": "https://portal.example.edu/login", "headers": [\#(document)], "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "user", "value": \#(string(username))}, {"name": "pw", "value": \#(string(password))}]}}, "response": {"status": 302, "redirectURL": "/home", "headers": [\#(cookies.map { #"{"name": "Set-Cookie", "value": \#(string($0 + "; Path=/"))}"# }.joined(separator: ", "))], "content": {"size": 0}}}"#,
            #"{"request": {"method": "GET", "url": "https://portal.example.edu/home", "headers": [\#(document), {"name": "Cookie", "value": \#(string(cookies.joined(separator: "; ")))}]}, "response": {"status": 200, "content": {"mimeType": "text/html", "text": "<p>Hello <span id='user-name'>Johanna Doe-Smith</span></p><a href='/logout'>Log out</a>"}}}"#,
        ]
        for page in pages {
            entries.append(
                #"{"request": {"method": "GET", "url": "https://portal.example.edu\#(page.path)", "headers": [\#(page.type == "text/html" ? document : script)]}, "response": {"status": 200, "content": {"mimeType": \#(string(page.type)), "text": \#(string(page.body))}}}"#
            )
        }
        return try HTTPArchive(data: Data(#"{"log": {"entries": [\#(entries.joined(separator: ",\n"))]}}"#.utf8), name: "x.har")
    }

    static func everything(_ draft: RecipeDraft) -> String {
        draft.files.map { String(decoding: $0.data, as: UTF8.self) }.joined(separator: "\n")
    }

    static let password = "Kéz/láb-2026"

    @Test(
        "the password as base64 (alone and as HTTP Basic's user:password), split by <wbr>, PHP's json_encode and upper-case \\u escapes; the name surname first and in capitals, the user id in capitals, the student number and e-mail: none is written"
    )
    func encodingsAndPersonalData() throws {
        let basic = Data("jdoe:\(Self.password)".utf8).base64EncodedString()
        let alone = Data(Self.password.utf8).base64EncodedString()
        let php = #"K\u00e9z\/l\u00e1b-2026"#
        let upper = #"K\u00E9z/l\u00E1b-2026"#
        let grades = """
            <h1>Grades of DOE-SMITH, Johanna (JDOE)</h1><p>Student number: 20231234 · johanna.doe-smith@uni.example.edu</p>
            <p data-debug="\(basic)" title="\(alone)">Your password: Kéz<wbr>/láb<wbr>-2026</p>
            <script>var a = {"p": "\(php)", "q": "\(upper)"};</script>
            <table><thead><tr><th>Course</th><th>Code</th><th>Grade</th></tr></thead><tbody>
            <tr><td>Dark Matter</td><td>PHYS-210</td><td>4</td></tr><tr><td>Analysis</td><td>MATH-101</td><td>5</td></tr>
            </tbody></table>
            """
        let courses =
            #"{"courses": [{"code": "MATH-101", "title": "Analysis", "lang": "en-US"}, {"code": "PHYS-210", "title": "Dark Matter", "lang": "en-US"}]}"#
        let archive = try Self.archive(
            username: "jdoe", password: Self.password,
            cookies: ["sid=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "theme=dark", "cookie_consent=true", "lang=en-US"],
            pages: [("/grades", "text/html", grades), ("/api/courses", "application/json", courses)])
        // Before: the cookies 'dark', 'true' and 'en-US' were secrets, found in the YAML, and the
        // import stopped with "please report this".
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        #expect(draft.secrets.contains("9f8e7d6c5b4a39281706f5e4d3c2b1a0"))
        for plain in ["dark", "true", "en-US"] { #expect(!draft.secrets.contains(plain), "\(plain) is no secret") }
        let all = Self.everything(draft)
        for leaked in [
            "Kéz", basic, alone, php, upper, "Johanna", "DOE-SMITH", "Doe-Smith", "JDOE", "jdoe", "20231234", "johanna.doe-smith",
            "9f8e7d6c5b4a",
        ] {
            #expect(!all.contains(leaked), "\(leaked) was written")
        }
        #expect(draft.leaks(in: draft.files).isEmpty)
        // ...and the data stays: course codes, a course named Dark Matter, a language tag.
        let page = RecipeDraftTests.text(draft, "Fixtures/grades/recorded.html")
        #expect(page.contains("Dark Matter") && page.contains("MATH-101") && page.contains("Student Name"), "\(page)")
        let json = RecipeDraftTests.text(draft, "Fixtures/courses/recorded.page.json")
        #expect(json.contains(#""code": "MATH-101""#) && json.contains("en-US"), "\(json)")
        #expect(!json.contains(TraceScrubber.redacted), "\(json)")
        // The check that guards the writing finds the name in another order, a split password, PHP's escapes.
        for planted in ["Doe-Smith Johanna", "JOHANNA DOE-SMITH", "Kéz<wbr>/láb-2026", php, upper, basic] {
            let file = RecipeDraft.File(path: "Fixtures/x/recorded.html", data: Data("<p>\(planted)</p>".utf8))
            #expect(draft.leaks(in: [file]) == [file.path], "\(planted)")
        }
    }

    @Test("a password of 3 characters and a user name of 2 leave the fixtures where they stand as a word or value, and the report says so")
    func shortValues() throws {
        let page = """
            <table><thead><tr><th>Course</th><th>Note</th></tr></thead><tbody>
            <tr><td>Analysis</td><td>account jd, password x7q</td></tr><tr><td>Ajdar x7qa</td><td>ok</td></tr></tbody></table>
            """
        let archive = try Self.archive(
            username: "jd", password: "x7q", cookies: ["sid=9f8e7d6c5b4a39281706f5e4d3c2b1a0"], pages: [("/grades", "text/html", page)])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let fixture = RecipeDraftTests.text(draft, "Fixtures/grades/recorded.html")
        #expect(!fixture.contains("x7q<") && !fixture.contains(" jd,"), "\(fixture)")
        #expect(fixture.contains("Ajdar x7qa"), "not inside other words: \(fixture)")
        #expect(draft.guessed.contains { $0.contains("password has only 3 characters") }, "\(draft.guessed)")
        #expect(draft.guessed.contains { $0.contains("user name has only 2 characters") }, "\(draft.guessed)")
        #expect(draft.leaks(in: draft.files).isEmpty)
    }

    @Test("a secret that would still be written is named by its kind and its file, not 'please report this'")
    func leakNamesKindAndFile() throws {
        // The page's heading becomes the command's summary: a value the recipe itself holds.
        let page =
            "<h1>Grades 9f8e7d6c5b4a39281706f5e4d3c2b1a0</h1><table><thead><tr><th>Course</th></tr></thead><tbody><tr><td>Analysis</td></tr></tbody></table>"
        let archive = try Self.archive(
            username: "jdoe", password: Self.password, cookies: ["sid=9f8e7d6c5b4a39281706f5e4d3c2b1a0"],
            pages: [("/grades", "text/html", page)])
        do {
            let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
            Issue.record("written with the cookie in it: \(draft.files.map(\.path))")
        } catch let error as UniToolError {
            #expect(error.message.contains("cookie 'sid' in grades.yaml"), "\(error.message)")
            #expect(error.hint?.contains("never the HAR") == true, "\(String(describing: error.hint))")
        }
    }
}
