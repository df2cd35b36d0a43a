import Foundation
import Testing
import UniToolTestSupport

/// A recording of a login through CAS software unitool did not write: django-cas-server 3.1.0
/// (PyPI, its own templates, Django's users) in front of a small portal that signs in with
/// python-cas (Scripts/interop-djangocas.sh). Debian's chromium records the login as a student
/// would; `recipes new --from-har` makes a folder of it; that folder, unedited, signs in with the
/// password from UNITOOL_PASSWORD_COMMAND and reads the records the portal shows.
///
/// The CAS server is not the Apereo CAS of Recipes/platforms/cas.yaml: its pages share nothing
/// with Apereo's but the protocol (`/login?service=`, the portal's `?ticket=ST-…`), which is
/// what tells a CAS login apart.
@Suite(
    "Interop: a recording through django-cas-server and a python-cas portal",
    .enabled(
        if: Needs.check(ProcessInfo.processInfo.environment["UNITOOL_DJANGOCAS_PYTHON"] != nil, "django-cas-server"),
        "needs django-cas-server: run through Scripts/test.sh"),
    .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright"))
struct DjangoCASInteropTests {
    static var script: String { Fixtures.root.appendingPathComponent("Scripts/interop-djangocas.sh").path }
    static let user = "jdoe"
    static let password = "cas-pass-2026"

    /// The records the portal shows the user: its own data file, which its /grades page renders.
    static func portalRecords(of user: String) throws -> [[String: Any]] {
        let file = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/djangocas/grades.json")
        let all = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: [[String: Any]]])
        return try #require(all[user])
    }

    @Test("recorded by chromium, the folder 'recipes new --from-har' makes signs in through CAS unedited and reads the portal's grades")
    func recordedLogin() async throws {
        let recording = try Sandbox()
        defer { recording.remove() }
        let state = recording.root.appendingPathComponent("djangocas")
        let casPort = try InteropPeer.unusedPort()
        let portalPort = try InteropPeer.unusedPort()
        try #require(
            InteropPeer.runScript(Self.script, ["start", state.path, String(casPort), String(portalPort)]) == 0,
            "django-cas-server or the portal did not start (see \(state.path)/log)")
        defer { _ = InteropPeer.runScript(Self.script, ["stop", state.path]) }

        let har = recording.root.appendingPathComponent("login.har")
        try await BrowserRecorder.record(
            start: try #require(URL(string: "http://127.0.0.1:\(portalPort)/")), user: Self.user, password: Self.password,
            done: "a#logout", then: ["/grades"], to: har)

        let home = try Sandbox()
        defer { home.remove() }
        let made = try await home.run(["recipes", "new", "djangocas", "--from-har", har.path])
        try #require(made.exitCode == 0, "\(made)")
        #expect(made.stdout.contains("recipes test: passed djangocas/grades/recorded"), "\(made)")
        try RecordedLoginTests.expectNoSecrets(of: har, password: Self.password, in: home)

        let folder = home.root.appendingPathComponent("config/unitool/recipes/djangocas")
        let portalYAML = (try? String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)) ?? ""
        let recognised = made.stdout.split(separator: "\n").filter { $0.contains("login.use:") || $0.contains("rule '") }
        let use = portalYAML.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("use:") }
        #expect(
            use?.trimmingCharacters(in: .whitespaces) == "use: cas",
            """
            a login through /cas/login?service= that comes back with ?ticket=ST-… is CAS, whatever the server's pages look like; \
            the folder says \(use.map { "'\($0.trimmingCharacters(in: .whitespaces))'" } ?? "no use: at all"); the report:
            \(recognised.joined(separator: "\n"))
            --- portal.yaml's login:
            \(portalYAML.components(separatedBy: "\nlogin:").dropFirst().joined())
            """)

        let grades = try await home.run(
            ["--portal", "djangocas", "--user", Self.user, "grades", "--json"],
            extra: ["UNITOOL_PASSWORD_COMMAND": "printf %s '\(Self.password)'"])
        try #require(grades.exitCode == 0, "the made folder did not sign in or read: \(grades)\n--- portal.yaml\n\(portalYAML)")
        let records = try #require(
            (try? JSONSerialization.jsonObject(with: Data(grades.stdout.utf8))) as? [[String: Any]], "\(grades)\n\(portalYAML)")
        RecordedLoginTests.expectSameRecords(records, try Self.portalRecords(of: Self.user), label: "djangocas")
    }
}
