import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Logins as students meet them every day: through a live IdP session, with rules for the
/// pages real portals put around the login.
@Suite("Real logins: credentials only when a page asks, and the pages around the login")
struct RealLoginsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(
        _ arguments: [String], demo: DemoUniversity, stdin: String? = nil, extra: [String: String] = [:], removing: [String] = []
    ) async throws -> UniToolProcess.Outcome {
        var environment = sandbox.environment.merging(extra) { $1 }
        environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString
        return try await UniToolProcess.run(arguments, stdin: stdin, environment: environment, removingEnvironment: removing)
    }

    var sessionFile: URL { sandbox.root.appendingPathComponent("state/unitool/sessions/demo/bence.json") }

    /// The portal's session ends (its cookie goes from the saved session); the IdP's stays.
    func endPortalSession() throws {
        let data = try Data(contentsOf: sessionFile)
        var session = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cookies = try #require(session["cookies"] as? [[String: Any]])
        session["cookies"] = cookies.filter { $0["name"] as? String != DemoUniversity.sessionCookie }
        try #require((session["cookies"] as? [Any])?.count == cookies.count - 1, "the portal's cookie was not in the session")
        try JSONSerialization.data(withJSONObject: session).write(to: sessionFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: sessionFile.path)
    }

    @Test("a re-login through a live IdP session needs no password: no keyring, and a password command that fails")
    func reloginThroughIdPSession() async throws {
        let demo = try await DemoUniversity.start(faults: try DemoFaults(parsing: "login=idp-session"))
        defer { Task { await demo.stop() } }
        let first = try await run(
            ["--portal", "demo", "--user", "bence", "--password-stdin", "grades", "--term", "2026-fall"], demo: demo, stdin: "Kaland-2026")
        #expect(first.exitCode == 0, "\(first)")
        try endPortalSession()
        let before = await demo.requests.count

        let again = try await run(
            ["--portal", "demo", "--user", "bence", "grades", "--term", "2026-fall", "--json"], demo: demo,
            extra: ["UNITOOL_PASSWORD_COMMAND": "echo unitool-must-not-run-me >&2; exit 7"],
            removing: ["DBUS_SESSION_BUS_ADDRESS"])
        #expect(again.exitCode == 0, "\(again)")
        #expect(again.stdout.contains("Számítógépes hálózatok"))
        #expect(!again.stderr.contains("unitool-must-not-run-me"), "the password command ran")
        let requests = Array(await demo.requests.dropFirst(before))
        #expect(requests.contains { $0.path == "/Shibboleth.sso/SAML2/POST" }, "the login went through the IdP: \(requests)")
        #expect(!requests.contains { $0.method == "POST" && $0.path.hasPrefix("/idp/") }, "no form was posted to the IdP: \(requests)")

        // Without the IdP session, the same run needs the password, and says where it failed.
        try endPortalSession()
        var session = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sessionFile)) as? [String: Any])
        session["cookies"] = []
        try JSONSerialization.data(withJSONObject: session).write(to: sessionFile)
        let cold = try await run(
            ["--portal", "demo", "--user", "bence", "grades"], demo: demo,
            extra: ["UNITOOL_PASSWORD_COMMAND": "exit 7"], removing: ["DBUS_SESSION_BUS_ADDRESS"])
        #expect(cold.exitCode == 40, "\(cold)")
        #expect(cold.stderr.contains("UNITOOL_PASSWORD_COMMAND failed"), "\(cold)")
    }
}
