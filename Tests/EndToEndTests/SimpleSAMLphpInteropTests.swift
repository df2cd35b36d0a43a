import Foundation
import Testing
import UniToolTestSupport

/// unitool against SAML software it did not write: a SimpleSAMLphp 1.19 IdP (Debian's package)
/// and a SAML-protected portal, served by `php -S` on loopback (Scripts/interop-simplesamlphp.sh),
/// driven by the example recipe in Examples/recipes/simplesamlphp.
@Suite(
    "Interop: a SimpleSAMLphp identity provider",
    .enabled(
        if: Needs.check(ProcessInfo.processInfo.environment["UNITOOL_SSP_ROOT"] != nil, "SimpleSAMLphp"),
        "needs SimpleSAMLphp: run through Scripts/test.sh"),
    .serialized)
struct SimpleSAMLphpInteropTests {
    let sandbox: Sandbox
    let serverDirectory: URL
    let port: Int

    init() throws {
        sandbox = try Sandbox()
        serverDirectory = sandbox.root.appendingPathComponent("simplesamlphp")
        port = try InteropPeer.unusedPort()
    }

    static var script: String { Fixtures.root.appendingPathComponent("Scripts/interop-simplesamlphp.sh").path }

    func server(_ arguments: [String]) -> Int32 { InteropPeer.runScript(Self.script, arguments) }

    /// Starts the IdP and the portal, installs the example recipe pointed at them, runs `body`,
    /// and stops the server whatever happens.
    func withPeer(_ body: () async throws -> Void) async throws {
        try #require(server(["start", serverDirectory.path, String(port)]) == 0, "SimpleSAMLphp did not start")
        defer { _ = server(["stop", serverDirectory.path]) }
        let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/simplesamlphp")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let example = Fixtures.root.appendingPathComponent("Examples/recipes/simplesamlphp")
        for name in ["portal.yaml", "grades.yaml"] {
            let text = try String(contentsOf: example.appendingPathComponent(name), encoding: .utf8)
                .replacingOccurrences(of: "http://127.0.0.1:8089", with: "http://127.0.0.1:\(port)")
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try sandbox.acceptTerms(portal: "simplesamlphp", version: "2026-10")
        try await body()
    }

    func run(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:], removing: [String] = []) async throws
        -> UniToolProcess.Outcome
    {
        try await sandbox.run(["--portal", "simplesamlphp"] + arguments, stdin: stdin, extra: extra, removing: removing)
    }

    var sessionFile: URL { sandbox.root.appendingPathComponent("state/unitool/sessions/simplesamlphp/student.json") }

    @Test(
        "log in, read grades; a wrong password is exit 10 with SimpleSAMLphp's words; a re-login through the live IdP session needs no password source"
    )
    func loginWrongPasswordAndSingleSignOn() async throws {
        try await withPeer {
            let wrong = try await run(["--user", "student", "--password-stdin", "grades"], stdin: "not-the-password")
            #expect(wrong.exitCode == 10, "\(wrong)")
            #expect(wrong.stderr.contains("Incorrect username or password"), "\(wrong)")

            let login = try await run(["--user", "student", "--password-stdin", "grades", "--json"], stdin: "studentpass")
            #expect(login.exitCode == 0, "\(login)")
            let records = try #require(try JSONSerialization.jsonObject(with: Data(login.stdout.utf8)) as? [[String: Any]], "\(login)")
            #expect(records.count == 3)
            #expect(records.contains { ($0["course"] as? String)?.contains("日本文学") == true })

            // The portal's session ends (its cookies go); the IdP's stays. No keyring, a failing
            // password command: the login must go through the IdP's session alone.
            let data = try Data(contentsOf: sessionFile)
            var session = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let cookies = try #require(session["cookies"] as? [[String: Any]])
            let kept = cookies.filter { !(($0["name"] as? String) ?? "").hasPrefix("Portal") }
            #expect(kept.count < cookies.count && !kept.isEmpty, "\(cookies.map { $0["name"] ?? "" })")
            session["cookies"] = kept
            try JSONSerialization.data(withJSONObject: session).write(to: sessionFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: sessionFile.path)
            let again = try await run(
                ["--user", "student", "grades", "--json"], extra: ["UNITOOL_PASSWORD_COMMAND": "exit 5"],
                removing: ["DBUS_SESSION_BUS_ADDRESS"])
            #expect(again.exitCode == 0, "\(again)")
            #expect(again.stdout == login.stdout)
        }
    }

    @Test(
        "recorded by chromium through SimpleSAMLphp's own pages, the folder 'recipes new --from-har' makes logs in and reads the example's grades",
        .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright"))
    func recordedLogin() async throws {
        try await withPeer {
            let example = try await run(["--user", "student", "--password-stdin", "grades", "--json"], stdin: "studentpass")
            let expected = try #require(
                (try? JSONSerialization.jsonObject(with: Data(example.stdout.utf8))) as? [[String: Any]], "\(example)")
            try await RecordedReplay.check(
                start: try #require(URL(string: "http://127.0.0.1:\(port)/portal/")), user: "student", password: "studentpass",
                done: "a#logout", then: ["/portal/api/terms"], portal: "rec-simplesamlphp", platform: "simplesamlphp", expected: expected)
        }
    }

    @Test("the terms API of a third-party portal, and doctor login's explanation of SimpleSAMLphp's pages")
    func termsAndDoctor() async throws {
        try await withPeer {
            let status = try await run(["terms", "status", "--json"])
            #expect(status.exitCode == 0, "\(status)")
            #expect(status.stdout.contains("\"current\": \"2026-10\""), "\(status)")
            let doctor = try await run(["--user", "ayaka", "--password-stdin", "doctor", "login"], stdin: "sakura-2026")
            #expect(doctor.exitCode == 0, "\(doctor)")
            #expect(
                doctor.stdout.contains("page rule 'user name and password'") && doctor.stdout.contains("page rule 'saml post'"), "\(doctor)"
            )
        }
    }
}
