import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A recording of one wrong password (or code), beside the good one, teaches the rule that
/// reports wrong credentials: small HARs of a portal with its own form login, no platform.
@Suite("Recording: a failed login's recording becomes an error rule")
struct RecordedFailureTests {
    static let wrongPassword = "Falsch-Passwort-99"

    /// A HAR of `pages` (method, path, status, body, posted fields), all on one portal.
    static func archive(_ pages: [(method: String, path: String, status: Int, body: String?, posted: [(String, String)])]) throws
        -> HTTPArchive
    {
        func string(_ text: String) -> String { JSONString.quoted(text) }
        let document = #"{"name": "Sec-Fetch-Dest", "value": "document"}"#
        let entries = pages.map { page -> String in
            let post =
                page.posted.isEmpty
                ? ""
                : #", "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [\#(page.posted.map { #"{"name": \#(string($0.0)), "value": \#(string($0.1))}"# }.joined(separator: ", "))]}"#
            let response =
                (300..<400).contains(page.status)
                ? #""redirectURL": "/home", "headers": [{"name": "Set-Cookie", "value": "sid=Z9q8W7e6R5t4Y3u2; Path=/"}], "content": {"size": 0}"#
                : #""content": {"mimeType": "text/html", "text": \#(string(page.body ?? ""))}"#
            return
                #"{"request": {"method": "\#(page.method)", "url": "https://portal.example.edu\#(page.path)", "headers": [\#(document)]\#(post)}, "response": {"status": \#(page.status), \#(response)}}"#
        }
        return try HTTPArchive(data: Data(#"{"log": {"entries": [\#(entries.joined(separator: ",\n"))]}}"#.utf8), name: "x.har")
    }

    /// The portal's login form; `message` in its message slot (empty on a first visit).
    static func loginPage(message: String = "", notice: Bool = false) -> String {
        "<html><body><header><a href='/'>Uni</a></header>"
            + (notice ? "<div class='notice'>Maintenance on Sunday</div>" : "")
            + "<div id='flash' role='alert'>\(message)</div>"
            + "<form id='signin' method='post' action='/login'><input name='user'><input type='password' name='pw'><button>Anmelden</button></form></body></html>"
    }

    static let home =
        "<html><body><p>Willkommen</p><a href='/logout'>Abmelden</a><a href='/grades'>Noten</a></body></html>"
    static let grades =
        "<html><body><table id='grades'><tr><th>Kurs</th><th>Note</th></tr><tr><td>Analysis</td><td>1,3</td></tr><tr><td>Algebra</td><td>2,0</td></tr><tr><td>Physik</td><td>1,7</td></tr></table><a href='/logout'>Abmelden</a></body></html>"

    static func good(notice: Bool = false) throws -> HTTPArchive {
        try archive([
            ("GET", "/login", 200, loginPage(notice: notice), []),
            ("POST", "/login", 302, nil, [("user", "jdoe"), ("pw", "Richtig-2026")]),
            ("GET", "/home", 200, home + (notice ? "<div class='notice'>Maintenance on Sunday</div>" : ""), []),
            ("GET", "/grades", 200, grades, []),
        ])
    }

    static func wrong(notice: Bool = false) throws -> HTTPArchive {
        try archive([
            ("GET", "/login", 200, loginPage(), []),
            (
                "POST", "/login", 200, loginPage(message: "Benutzername oder Passwort falsch", notice: notice),
                [
                    ("user", "jdoe"), ("pw", wrongPassword),
                ]
            ),
        ])
    }

    static func failure(_ archive: HTTPArchive) throws -> RecordedFailure {
        guard case .failed(let failure) = RecordedFailure.reading(archive) else {
            Issue.record("not read as a failed login")
            throw CancellationError()
        }
        return failure
    }

    static var noPlatforms: URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-platforms-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("what a recording is: a login that got through, a failed one, pages alone, and neither")
    func readings() throws {
        guard case .succeeded = RecordedFailure.reading(try Self.good()) else { throw Failure("the good login") }
        let failure = try Self.failure(try Self.wrong())
        #expect(failure.reason == .wrongCredentials && failure.answerURL.path == "/login")
        #expect(failure.secrets[Self.wrongPassword] != nil, "the wrong password is a secret: \(failure.secrets)")
        #expect(failure.secrets["Z9q8W7e6R5t4Y3u2"] == nil, "no cookie in this recording")
        guard case .noLogin = RecordedFailure.reading(try Self.archive([("GET", "/grades", 200, Self.grades, [])])) else {
            throw Failure("pages alone")
        }
        // The password sent, then a page that is neither the portal nor the form again.
        let neither = try Self.archive([
            ("GET", "/login", 200, Self.loginPage(), []),
            ("POST", "/login", 200, "<html><body><h1>Service unavailable</h1></body></html>", [("user", "jdoe"), ("pw", "x1")]),
        ])
        guard case .unclear(let why) = RecordedFailure.reading(neither) else { throw Failure("neither") }
        #expect(why.contains("neither is the portal's page nor asks for it again"), "\(why)")
        // A typo first, then the right password: a good login.
        let typo = try Self.archive([
            ("GET", "/login", 200, Self.loginPage(), []),
            ("POST", "/login", 200, Self.loginPage(message: "falsch"), [("user", "jdoe"), ("pw", "typo")]),
            ("POST", "/login", 302, nil, [("user", "jdoe"), ("pw", "Richtig-2026")]),
            ("GET", "/home", 200, Self.home, []),
        ])
        guard case .succeeded = RecordedFailure.reading(typo) else { throw Failure("a typo, then the right password") }
    }

    @Test("the message's element by its structure (id, not the words), first of the login's rules; the wrong password in no file")
    func errorRule() throws {
        let failure = try Self.failure(try Self.wrong())
        let draft = try RecipeDraft(
            portal: "myuni", title: nil, archive: try Self.good(), failures: [failure], platforms: Self.noPlatforms)
        let portal = RecipeDraftTests.text(draft, "portal.yaml")
        #expect(portal.contains("when: \"//div[@id='flash'][normalize-space()]\""), "\(portal)")
        #expect(portal.contains("fail: wrong_credentials") && !portal.contains("falsch"), "\(portal)")
        let recipe = try PortalRecipe.load(file: "portal.yaml", text: portal)
        let first = try #require(recipe.login.pages.first)
        guard case .fail(let reason, let message) = first.action else { throw Failure("not a fail rule first: \(first.name)") }
        #expect(reason == .wrongCredentials && message == "//div[@id='flash'][normalize-space()]")
        // It tells the answer to the wrong password, and none of the good login's pages.
        #expect(try failure.answer.evaluate(first.when).booleanValue)
        for page in RecordedFailure.successfulPath(of: try RecordedLogin(reading: try Self.good())) {
            #expect(try !page.evaluate(first.when).booleanValue)
        }
        #expect(
            draft.recognised.contains { $0.contains("rule 'wrong password (recorded)' (fail: wrong_credentials)") }, "\(draft.recognised)")
        let everything = draft.files.map { String(decoding: $0.data, as: UTF8.self) }.joined()
        #expect(!everything.contains(Self.wrongPassword))
        #expect(draft.secrets.contains(Self.wrongPassword), "checked for in every file")
    }

    @Test("an element the good login's pages show too is no message: the next one is taken, or none, and the report says why")
    func absentFromTheGoodPath() throws {
        // The notice is new on the answer but on the good recording's home page too: the flash is taken.
        let failure = try Self.failure(try Self.wrong(notice: true))
        let good = try RecordedLogin(reading: try Self.good(notice: true))
        let (rule, _) = failure.rule(absentFrom: RecordedFailure.successfulPath(of: good))
        #expect(rule?.when == "//div[@id='flash'][normalize-space()]", "\(String(describing: rule))")
        // Only the notice changed: nothing tells a wrong password apart.
        let onlyNotice = try Self.archive([
            ("GET", "/login", 200, Self.loginPage(), []),
            ("POST", "/login", 200, Self.loginPage(notice: true), [("user", "jdoe"), ("pw", "x2")]),
        ])
        let (none, why) = try Self.failure(onlyNotice).rule(absentFrom: RecordedFailure.successfulPath(of: good))
        #expect(none == nil && why.contains("is on the good recording's pages too"), "\(why)")
    }

    @Test("a wrong one-time code after the right password: fail: wrong_code, by the code form's message")
    func wrongCode() throws {
        let codeForm = { (message: String) in
            "<html><body>\(message.isEmpty ? "" : "<p class='otp-error'>\(message)</p>")<form id='otp' method='post' action='/otp'><input name='otp_code'><button>OK</button></form></body></html>"
        }
        let archive = try Self.archive([
            ("GET", "/login", 200, Self.loginPage(), []),
            ("POST", "/login", 200, codeForm(""), [("user", "jdoe"), ("pw", "Richtig-2026")]),
            ("POST", "/otp", 200, codeForm("Code ungültig"), [("otp_code", "123456")]),
        ])
        let failure = try Self.failure(archive)
        #expect(failure.reason == .wrongCode)
        let (rule, _) = failure.rule(absentFrom: [])
        #expect(rule?.action == .fail(.wrongCode, message: rule?.when), "\(String(describing: rule))")
        #expect(rule?.when == "//p[contains(concat(' ', normalize-space(@class), ' '), ' otp-error ')][normalize-space()]")
        #expect(failure.secrets["123456"] != nil && failure.secrets["Richtig-2026"] != nil)
    }

    @Test("names a page numbers per load are no structure to tell it by")
    func stableNames() {
        #expect(RecordedFailure.isStableName("login-error") && RecordedFailure.isStableName("alert-danger"))
        #expect(!RecordedFailure.isStableName("ember1234") && !RecordedFailure.isStableName("yui_3_17_2_1_1700000000"))
        #expect(!RecordedFailure.isStableName(""))
    }

    @Test("an OpenID Connect code brought back to the portal after the password is a login that got through, whatever its page shows")
    func openIDConnectCallback() throws {
        func entry(_ method: String, _ url: String, _ status: Int, body: String = "", posted: [(String, String)] = [], to: String = "")
            -> String
        {
            let post =
                posted.isEmpty
                ? ""
                : #", "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [\#(posted.map { #"{"name": "\#($0.0)", "value": "\#($0.1)"}"# }.joined(separator: ", "))]}"#
            let response =
                (300..<400).contains(status)
                ? #""redirectURL": "\#(to)", "content": {"size": 0}"#
                : #""content": {"mimeType": "text/html", "text": \#(JSONString.quoted(body))}"#
            return
                #"{"request": {"method": "\#(method)", "url": "\#(url)", "headers": [{"name": "Sec-Fetch-Dest", "value": "document"}]\#(post)}, "response": {"status": \#(status), \#(response)}}"#
        }
        let idpForm =
            "<html><body><form method='post' action='/authenticate'><input name='username'><input type='password' name='password'><button>Sign in</button></form></body></html>"
        // The portal's page after the callback shows no way to log out (a single-page app's shell).
        let entries = [
            entry("GET", "https://portal.example.edu/", 302, to: "https://id.example.edu/authorize?client_id=portal&state=s7Qx"),
            entry("GET", "https://id.example.edu/authorize?client_id=portal&state=s7Qx", 200, body: idpForm),
            entry(
                "POST", "https://id.example.edu/authenticate", 302, posted: [("username", "jdoe"), ("password", "Richtig-2026")],
                to: "https://portal.example.edu/callback?code=Ab12Cd34&state=s7Qx"),
            entry("GET", "https://portal.example.edu/callback?code=Ab12Cd34&state=s7Qx", 302, to: "https://portal.example.edu/app"),
            entry("GET", "https://portal.example.edu/app", 200, body: "<html><body><div id='root'></div></body></html>"),
        ]
        let archive = try HTTPArchive(data: Data(#"{"log": {"entries": [\#(entries.joined(separator: ",\n"))]}}"#.utf8), name: "oidc.har")
        guard case .succeeded = RecordedFailure.reading(archive) else {
            throw Failure("an OIDC code callback to the portal is a session begun: \(RecordedFailure.reading(archive))")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
