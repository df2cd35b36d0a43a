import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// What a recording may not widen (issue 47): where the password and codes go, which other sites
/// become services, and this session's ids in the addresses written. HARs are the demo's
/// recording (`Fixtures/har/playwright-chromium-reminder.har`) with exchanges appended, or small
/// logins built here.
@Suite("Recording: a recording never widens where secrets go")
struct RecordingBoundariesTests {
    static let portal = "http://127.0.0.1:28391"

    /// One HAR entry as Playwright writes it.
    /// One HAR entry, as Chromium writes it: the request (its Referer, cookies and other headers,
    /// a form or a JSON body) and the answer (its status, redirect, `Date` and body). The other
    /// recording tests build theirs with it.
    static func entry(
        _ method: String, _ url: String, referer: String? = nil, form: [(String, String)]? = nil, postJSON: String? = nil,
        status: Int = 200, redirect: String? = nil, html: String? = nil, mime: String = "text/html; charset=utf-8",
        json: String? = nil, jsonMime: String = "application/json", type: String = "document", cookies: [(String, String)] = [],
        headers extra: [(String, String)] = [], refererName: String = "referer", date: String? = nil
    ) -> [String: Any] {
        var headers: [[String: Any]] = extra.map { ["name": $0.0, "value": $0.1] }
        if let referer { headers.append(["name": refererName, "value": referer]) }
        var request: [String: Any] = ["method": method, "url": url, "headers": headers]
        request["cookies"] = cookies.map { ["name": $0.0, "value": $0.1] }
        if let form {
            request["postData"] = [
                "mimeType": "application/x-www-form-urlencoded", "params": form.map { ["name": $0.0, "value": $0.1] },
            ]
        }
        if let postJSON { request["postData"] = ["mimeType": "application/json", "text": postJSON] }
        var content: [String: Any] = ["size": 0]
        if let html { content = ["mimeType": mime, "text": html] }
        if let json { content = ["mimeType": jsonMime, "text": json] }
        let answerHeaders: [[String: Any]] = date.map { [["name": "Date", "value": $0]] } ?? []
        var response: [String: Any] = ["status": status, "headers": answerHeaders, "content": content]
        if let redirect { response["redirectURL"] = redirect }
        return ["request": request, "response": response, "_resourceType": type]
    }

    /// The demo's recording with `extra` entries after it.
    static func demoRecording(appending extra: [[String: Any]]) throws -> HTTPArchive {
        let url = Fixtures.root.appendingPathComponent("Fixtures/har/playwright-chromium-reminder.har")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var log = try #require(root["log"] as? [String: Any])
        log["entries"] = (log["entries"] as? [[String: Any]] ?? []) + extra
        root["log"] = log
        return try HTTPArchive(data: try JSONSerialization.data(withJSONObject: root), name: "extra.har")
    }

    /// A small login at `https://portal.example.edu` (`suffix` after each of its paths, such as
    /// `;jsessionid=…`), then `pages`.
    static func login(suffix: String = "", cookies: [(String, String)] = [], pages: [[String: Any]]) throws -> HTTPArchive {
        let base = "https://portal.example.edu"
        let form =
            "<form method='post' action='/login\(suffix)'><input name='user'><input type='password' name='secret_field'><button>Go</button></form>"
        let entries =
            [
                entry("GET", "\(base)/login\(suffix)", html: form, cookies: cookies),
                entry(
                    "POST", "\(base)/login\(suffix)", referer: "\(base)/login\(suffix)",
                    form: [("user", "jdoe"), ("secret_field", "s3cret-Pass!")], status: 302, redirect: "\(base)/home\(suffix)",
                    cookies: cookies),
                entry("GET", "\(base)/home\(suffix)", html: "<a href='/logout'>Log out</a> <a href='/grades'>Grades</a>", cookies: cookies),
            ] + pages
        let data = try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
        return try HTTPArchive(data: data, name: "login.har")
    }

    static func text(_ draft: RecipeDraft, _ path: String) -> String {
        draft.files.first { $0.path == path }.map { String(decoding: $0.data, as: UTF8.self) } ?? ""
    }

    static let table = "<h1>Results</h1><table><tr><th>Course</th><th>Grade</th></tr><tr><td>MATH-1</td><td>A</td></tr></table>"

    @Test(
        "a third-party survey a portal page posted `passthrough=1` to is neither a credential origin nor a service; a field named like a code after the login widens nothing"
    )
    func thirdPartySurvey() throws {
        let survey = "http://127.0.0.10:4711"
        let archive = try Self.demoRecording(appending: [
            // The portal's page posts itself to the survey (a browser keeps the Referer through the 303).
            Self.entry(
                "POST", "\(survey)/survey", referer: "\(Self.portal)/home",
                form: [("passthrough", "1"), ("compass_direction", "north"), ("bypass", "yes")], status: 303,
                redirect: "\(survey)/survey/results"),
            Self.entry("GET", "\(survey)/survey/results", referer: "\(Self.portal)/home", html: Self.table),
            // A page the survey links to.
            Self.entry("GET", "http://127.0.0.11:4712/partner/offers", referer: "\(survey)/survey/results", html: Self.table),
            // A form of the portal after the login with a short number in a field named like a code.
            Self.entry(
                "POST", "http://127.0.0.12:4713/shop/checkout", referer: "\(Self.portal)/home",
                form: [("zipcode", "12345"), ("promo_code", "4711")], html: Self.table),
        ])
        let login = try RecordedLogin(reading: archive)
        #expect(login.credentialOrigins == [Self.portal], "\(login.credentialDestinations)")
        #expect(login.credentialDestinations.first?.reason.contains("password was posted to /idp/") == true)
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let portalYAML = Self.text(draft, "portal.yaml")
        #expect(portalYAML.contains("credentials_may_go_to: [idp]\n"), "\(portalYAML)")
        #expect(!portalYAML.contains("services:") && !portalYAML.contains("127.0.0.10"), "\(portalYAML)")
        #expect(draft.commands == ["grades", "loans"], "\(draft.commands)")
        #expect(
            draft.recognised.contains { $0.hasPrefix("\(survey): skipped") && $0.contains("posted from \(Self.portal)") },
            "\(draft.recognised)")
        #expect(
            draft.recognised.contains { $0.hasPrefix("http://127.0.0.11:4712: skipped") && $0.contains("reached from \(survey)") },
            "\(draft.recognised)")
        #expect(
            draft.recognised.contains { $0.hasPrefix("credentials_may_go_to \(Self.portal): the recorded password") },
            "\(draft.recognised)")
        #expect(draft.leaks(in: draft.files).isEmpty)
    }

    @Test("a site opened from the portal's page is a service, said with why; one the recording cannot place is skipped")
    func serviceReachedFromThePortal() throws {
        let library = "http://127.0.0.3:5555"
        let archive = try Self.demoRecording(appending: [
            Self.entry("GET", "\(library)/cgi-bin/koha/opac-user.pl", referer: "\(Self.portal)/home", html: Self.table),
            Self.entry("GET", "http://127.0.0.4:5556/elsewhere/list", html: Self.table),
        ])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let portalYAML = Self.text(draft, "portal.yaml")
        #expect(portalYAML.contains("library: { base_url: \"\(library)/\" }"), "\(portalYAML)")
        #expect(portalYAML.contains("credentials_may_go_to: [idp]\n"), "a service gets no credentials: \(portalYAML)")
        #expect(draft.commands.contains("opac-user") && !draft.commands.contains("list"), "\(draft.commands)")
        #expect(
            draft.recognised.contains { $0.hasPrefix("the service 'library' (\(library)): opened from the portal's page") },
            "\(draft.recognised)")
        #expect(draft.recognised.contains { $0.hasPrefix("http://127.0.0.4:5556: skipped") && $0.contains("no Referer") })
        #expect(throws: Never.self) { try PortalRecipe.load(file: "portal.yaml", text: portalYAML) }
    }

    @Test("a password is told by its page's password field or a password's own name; a code by a word of its name")
    func namesOfCredentials() {
        for name in ["password", "j_password", "passwd", "pass", "pwd", "Password"] {
            #expect(RecordedLogin.isPasswordName(name), "\(name)")
        }
        for name in ["passthrough", "compass_direction", "bypass", "passage", "username"] {
            #expect(!RecordedLogin.isPasswordName(name), "\(name)")
        }
        for name in ["otp", "totp", "token", "code", "j_tokenNumber", "otp_code", "totpCode"] {
            #expect(RecordedLogin.isCodeName(name), "\(name)")
        }
        for name in ["zipcode", "tokenizer", "barcodes", "postcode"] { #expect(!RecordedLogin.isCodeName(name), "\(name)") }
    }

    @Test("session ids in addresses: none in start, fetch, a command's name, its file or fixture; they are secrets; cookies or not")
    func sessionIDsInAddresses() throws {
        let session = "9F8E7D6C5B4A39281706ABCDEF012345"
        let sid = "Q1w2E3r4T5y6U7i8O9p0"
        let token = "eyJhbGciOiJIUzI1NiJ9abc123XYZ"
        let pages = [
            Self.entry(
                "GET", "https://portal.example.edu/grades;jsessionid=\(session)?sid=\(sid)&view=all",
                referer: "https://portal.example.edu/home;jsessionid=\(session)",
                html: "<a href='/next;jsessionid=\(session)'>x</a>" + Self.table),
            Self.entry(
                "GET",
                "https://portal.example.edu/scripts/mgrqispi.dll?APPNAME=CampusNet&PRGNAME=EXAMRESULTS&ARGUMENTS=-N123456789012345,-N000275",
                html: Self.table),
            Self.entry(
                "GET", "https://portal.example.edu/api/courses?auth_token=\(token)", json: #"[{"id": "c1"}, {"id": "c2"}]"#,
                type: "fetch"),
        ]
        for cookies in [[], [("JSESSIONID", session)]] {
            let archive = try Self.login(suffix: ";jsessionid=\(session)", cookies: cookies, pages: pages)
            let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
            #expect(draft.commands == ["grades", "mgrqispi-dll", "courses"], "\(draft.commands)")
            #expect(draft.secrets.contains("-N123456789012345,-N000275"), "CAMPUSonline's session arguments are a secret")
            for value in [session, sid, token, "123456789012345"] {
                #expect(value.hasPrefix("1") || draft.secrets.contains(value), "\(value) is a secret")
                for file in draft.files {
                    #expect(!file.path.lowercased().contains("jsessionid") && !file.path.contains(value), "\(file.path)")
                    #expect(!String(decoding: file.data, as: UTF8.self).contains(value), "\(value) in \(file.path)")
                }
            }
            let portalYAML = Self.text(draft, "portal.yaml")
            #expect(portalYAML.contains("start: \"/login\""), "\(portalYAML)")
            #expect(Self.text(draft, "grades.yaml").contains("fetch: \"/grades?view=all\""), "\(Self.text(draft, "grades.yaml"))")
            #expect(
                Self.text(draft, "mgrqispi-dll.yaml").contains("fetch: \"/scripts/mgrqispi.dll?APPNAME=CampusNet&PRGNAME=EXAMRESULTS\""))
            #expect(Self.text(draft, "courses.yaml").contains("fetch: \"/api/courses\""), "\(Self.text(draft, "courses.yaml"))")
            #expect(draft.recognised.contains { $0.hasPrefix("session ids in the addresses (ARGUMENTS, auth_token, jsessionid, sid)") })
            #expect(draft.leaks(in: draft.files).isEmpty)
        }
    }

    @Test("an address without its session ids keeps the rest as recorded: encoding, order, other path parameters")
    func strippedAddress() throws {
        let stripped = SessionInAddress.stripped(
            try #require(URL(string: "https://x.edu/a%2Fb;v=2;JSESSIONID=abc/c?q=a%20b&PHPSESSID=zz&term=2026-fall&k=Zx9Qw8Er7Ty6Ui5Op4")))
        #expect(stripped.pathAndQuery == "/a%2Fb;v=2/c?q=a%20b&term=2026-fall", "\(stripped.pathAndQuery)")
        #expect(Set(stripped.removedNames) == ["JSESSIONID", "PHPSESSID", "k"])
        #expect(!SessionInAddress.looksRandom("introduction-to-programming") && !SessionInAddress.looksRandom("2026-11-25"))
        #expect(!SessionInAddress.looksRandom("MATH-301") && SessionInAddress.looksRandom("550e8400e29b41d4a716446655440000"))
    }

    @Test("a table of 3000 columns: a field for each (read in time linear in its width)")
    func wideTable() throws {
        let width = 3000
        let header = (1...width).map { "<th>H\($0)</th>" }.joined()
        let row = { (r: Int) in "<tr>" + (1...width).map { "<td class='c\($0)'>v\(r)-\($0)</td>" }.joined() + "</tr>" }
        let html = "<table><thead><tr>\(header)</tr></thead><tbody>\(row(1))\(row(2))\(row(3))</tbody></table>"
        let document = try Document(html: html, url: "https://x.edu/wide")
        let draft = try #require(
            RecordedPage.htmlRecipe(
                document, command: "wide", fetch: "/wide", url: URL(string: "https://x.edu/wide")!, contentType: nil, body: []))
        #expect(draft.fields.count == width)
        #expect(draft.fields.last?.xpath == "td[@class='c\(width)']" && draft.fields.last?.name == "h\(width)")
    }

    @Test("entries that are not http or https (an extension's page, a local file) are skipped and said so; the folder loads")
    func otherSchemes() throws {
        let archive = try Self.demoRecording(appending: [
            Self.entry("GET", "chrome-extension://abcdefghijklmnop/popup.html", referer: "\(Self.portal)/home", html: Self.table),
            Self.entry("GET", "file://host/home/me/grades.html", referer: "\(Self.portal)/home", html: Self.table),
        ])
        #expect(archive.skippedSchemes == ["chrome-extension", "file"])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let portalYAML = Self.text(draft, "portal.yaml")
        #expect(!portalYAML.contains("services:"), "\(portalYAML)")
        #expect(draft.recognised.contains("1 entry of chrome-extension: skipped (only http and https pages are a portal's)"))
        #expect(throws: Never.self) { try PortalRecipe.load(file: "portal.yaml", text: portalYAML) }
    }

    @Test("a percent-encoded path stays encoded when the page's term selector becomes an option")
    func percentEncodedPathWithSelector() throws {
        let path = "/docs/a%2Fb%3Fc%23d/grades"
        let page =
            "<form method='get' action=''><select id='t' name='term'><option value='2026-spring'>S</option><option value='2026-fall' selected>F</option></select></form>"
            + Self.table
        let archive = try Self.login(pages: [
            Self.entry("GET", "https://portal.example.edu\(path)?term=2026-fall", referer: "https://portal.example.edu/home", html: page)
        ])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let grades = Self.text(draft, "grades.yaml")
        #expect(grades.contains("fetch: \"\(path)?term={{term}}\""), "\(grades)")
        #expect(grades.contains("current: { fetch: \"\(path)\""), "\(grades)")
    }
}
