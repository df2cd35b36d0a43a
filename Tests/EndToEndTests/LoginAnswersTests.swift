import Foundation
import Testing
import UniToolTestSupport

/// What the login says about a page it did not expect, end to end, against a real socket that
/// answers as LemonLDAP::NG answers a request it takes for a script's: 401 and a JSON error.
@Suite("Honest errors: a login page that is no page")
struct LoginAnswersTests {
    @Test("a 401 JSON answer where a login page was expected: exit 14, its status, type, size and first line, and a hint about the request")
    func scriptAnswer() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let idp = try RecordingHTTPServer { _ in
            .status(401, headers: ["Content-Type": "application/json"], body: #"{"result":0,"error":"9"}"#)
        }
        defer { idp.stop() }
        // The portal sends the browser to its login service, which is elsewhere.
        let portal = try RecordingHTTPServer { _ in .status(302, headers: ["Location": idp.url("/?url=grades")]) }
        defer { portal.stop() }
        let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/llng")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        portal: llng
        name: A portal behind LemonLDAP::NG
        base_url: \(portal.baseURL.absoluteString)
        idp_url: \(idp.baseURL.absoluteString)
        credentials_may_go_to: [idp]
        login: { pages: [{ name: login, when: "//form[@id='lform']", fill: { user: "{{username}}", password: "{{password}}" } }] }

        """.write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try "command: grades\nsummary: Grades\nfetch: /grades\nrows: //tr\nfields: { cell: { xpath: td } }\n".write(
            to: folder.appendingPathComponent("grades.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await sandbox.run(["--portal", "llng", "--user", "jdoe", "auth", "login", "--password-stdin"], stdin: "pw")
        #expect(outcome.exitCode == 14, "\(outcome)")
        #expect(outcome.stderr.contains("an answer for a script, not a page"), "\(outcome)")
        #expect(outcome.stderr.contains("HTTP 401, application/json, 24 bytes"), "\(outcome)")
        #expect(outcome.stderr.contains(#"begins "{"result":0,"error":"9"}""#), "\(outcome)")
        #expect(outcome.stderr.contains("--trace"), "the hint points at the request, not at the layout: \(outcome)")
        #expect(!outcome.stderr.contains("login.pages"), "\(outcome)")
    }
}
