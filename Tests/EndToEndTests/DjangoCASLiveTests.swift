import Foundation
import Testing
import UniToolTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// unitool against a CAS server it did not write, with no recording: django-cas-server 3.1.0
/// (PyPI, its own templates, Django's users) in front of a python-cas portal
/// (Scripts/interop-djangocas.sh), driven by a hand-written folder whose login is `use: cas` and
/// nothing else (Tests/EndToEndTests/Interop/djangocas/recipes/). The bundled platform recipe,
/// unedited, must know the server's pages by the CAS protocol and its product rules.
///
/// The password comes from a UNITOOL_PASSWORD_COMMAND that also writes a line to a file each time
/// it runs: the file tells when the password was asked for, and when it never was.
@Suite(
    "Interop: live logins through django-cas-server with the bundled cas platform",
    .enabled(
        if: Needs.check(ProcessInfo.processInfo.environment["UNITOOL_DJANGOCAS_PYTHON"] != nil, "django-cas-server"),
        "needs django-cas-server: run through Scripts/test.sh"),
    .serialized)
struct DjangoCASLiveTests {
    let sandbox: Sandbox
    let serverDirectory: URL
    let casPort: Int
    let portalPort: Int

    init() throws {
        sandbox = try Sandbox()
        serverDirectory = sandbox.root.appendingPathComponent("djangocas")
        casPort = try InteropPeer.unusedPort()
        var portal = try InteropPeer.unusedPort()
        while portal == casPort { portal = try InteropPeer.unusedPort() }
        portalPort = portal
    }

    static var script: String { Fixtures.root.appendingPathComponent("Scripts/interop-djangocas.sh").path }
    static let interop = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/djangocas")

    /// Starts the CAS server and the portal, installs the hand-written folders pointed at them,
    /// runs `body`, and stops both whatever happens.
    func withPeer(_ body: () async throws -> Void) async throws {
        defer {
            _ = InteropPeer.runScript(Self.script, ["stop", serverDirectory.path])
            sandbox.remove()
        }
        try #require(
            InteropPeer.runScript(Self.script, ["start", serverDirectory.path, String(casPort), String(portalPort)]) == 0,
            "django-cas-server or the portal did not start (see \(serverDirectory.path)/log)")
        for portal in ["djangocas", "djangocas-unregistered", "djangocas-staff"] {
            let source = Self.interop.appendingPathComponent("recipes/\(portal)")
            let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/\(portal)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where name.hasSuffix(".yaml") {
                let text = try String(contentsOf: source.appendingPathComponent(name), encoding: .utf8)
                    .replacingOccurrences(of: "http://127.0.0.1:8093", with: "http://127.0.0.1:\(casPort)")
                    .replacingOccurrences(of: "http://127.0.0.1:8094", with: "http://127.0.0.1:\(portalPort)")
                try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
        }
        try await body()
    }

    /// The file the password command writes a line to each time it runs.
    var asked: URL { sandbox.root.appendingPathComponent("password-asked") }

    /// How many times the password command has run.
    func timesAsked() -> Int {
        ((try? String(contentsOf: asked, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// Runs unitool on `portal` with a password command that gives `password` and notes that it
    /// ran; no keyring, so that the command is the only source.
    func run(_ arguments: [String], portal: String = "djangocas", password: String = "cas-pass-2026") async throws
        -> UniToolProcess.Outcome
    {
        try await sandbox.run(
            ["--portal", portal] + arguments,
            extra: ["UNITOOL_PASSWORD_COMMAND": "echo asked >> '\(asked.path)'; printf %s '\(password)'"],
            removing: ["DBUS_SESSION_BUS_ADDRESS"])
    }

    /// The requests of a `--trace` file, as `METHOD server path status` (server: `cas` or
    /// `portal`), the query left out.
    func requests(in trace: URL) throws -> [String] {
        let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) as? [String: Any])
        let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        return entries.compactMap { entry -> String? in
            guard let request = entry["request"] as? [String: Any], let response = entry["response"] as? [String: Any],
                let address = (request["url"] as? String).flatMap(URL.init(string:))
            else { return nil }
            let server = address.port == casPort ? "cas" : address.port == portalPort ? "portal" : "other"
            return "\(request["method"] ?? "") \(server) \(address.path) \(response["status"] ?? "")"
        }
    }

    /// The portal forgets every session it gave (a new key signs its cookies), as a restarted
    /// portal does; the CAS server's session is untouched.
    func portalForgetsSessions() async throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(portalPort)/test/forget-sessions")))
        request.httpMethod = "POST"
        let (_, response) = try await uncachedURLSession.data(for: request)
        try #require((response as? HTTPURLResponse)?.statusCode == 204)
    }

    /// The portal's own data file for `user`, the records its pages render.
    static func records(_ file: String, of user: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: interop.appendingPathComponent(file))
        let all = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]])
        return try #require(all[user])
    }

    static func json(_ outcome: UniToolProcess.Outcome) throws -> [[String: Any]] {
        try #require((try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8))) as? [[String: Any]], "\(outcome)")
    }

    @Test(
        "cold login and the exact grades, warm reuse without a login, a loan renewed through the action, and a re-login through the CAS session that never asks for the password"
    )
    func lifecycle() async throws {
        try await withPeer {
            let cold = try await run(["--user", "jdoe", "grades", "--json"])
            try #require(cold.exitCode == 0, "\(cold)")
            RecordedLoginTests.expectSameRecords(try Self.json(cold), try Self.records("grades.json", of: "jdoe"), label: "djangocas")
            #expect(timesAsked() == 1, "the cold login asks for the password once")

            // Warm: the portal's session answers; neither the CAS server nor the password is asked.
            let warmTrace = sandbox.root.appendingPathComponent("warm.har")
            let warm = try await run(["--user", "jdoe", "--trace", warmTrace.path, "grades", "--json"])
            #expect(warm.exitCode == 0, "\(warm)")
            #expect(warm.stdout == cold.stdout)
            #expect(try requests(in: warmTrace) == ["GET portal /grades 200"])
            #expect(timesAsked() == 1)

            // A renewal through the loans page's own form moves the due date by 14 days; a loan
            // renewed twice already is refused in the portal's words (exit 24).
            let loans = try await run(["--user", "jdoe", "loans", "--json"])
            #expect(loans.exitCode == 0, "\(loans)")
            let expected = try Self.records("loans.json", of: "jdoe")
            #expect(try Self.json(loans).compactMap { $0["due"] as? String } == expected.compactMap { $0["due"] as? String })
            let renew = try await run(["--user", "jdoe", "loans", "renew", "39020004417", "--json"])
            #expect(renew.exitCode == 0, "\(renew)")
            #expect(try Self.json(renew).first?["due"] as? String == "2026-12-21", "2026-12-07 + 14 days: \(renew)")
            let after = try await run(["--user", "jdoe", "loans", "--json"])
            let renewed = try Self.json(after).first { $0["barcode"] as? String == "39020004417" }
            #expect(renewed?["due"] as? String == "2026-12-21" && renewed?["renewals"] as? Int == 1, "\(after)")
            let refused = try await run(["--user", "jdoe", "loans", "renew", "39020005182"])
            #expect(refused.exitCode == 24, "\(refused)")
            #expect(refused.stderr.contains("cannot be renewed again"), "\(refused)")
            #expect(timesAsked() == 1)

            // The portal's sessions end; the CAS server's stays: CAS gives a new ticket at once.
            try await portalForgetsSessions()
            let reloginTrace = sandbox.root.appendingPathComponent("relogin.har")
            let again = try await run(["--user", "jdoe", "--trace", reloginTrace.path, "grades", "--json"])
            #expect(again.exitCode == 0, "\(again)")
            #expect(again.stdout == cold.stdout)
            #expect(timesAsked() == 1, "the password command ran again: the re-login did not go through the CAS session")
            #expect(
                try requests(in: reloginTrace) == [
                    "GET portal /grades 302", "GET cas /cas/login 302", "GET portal /grades 302", "GET portal /grades 200",
                ])
        }
    }

    @Test(
        "a person who asked django-cas-server to warn them: the re-login through the CAS session passes its warn page with no password"
    )
    func warnPage() async throws {
        try await withPeer {
            // The server's own script sets this cookie when the box is ticked; its login form then
            // comes with the box ticked, and the CAS session remembers to warn.
            let sessions = sandbox.root.appendingPathComponent("state/unitool/sessions/djangocas")
            try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true)
            let cookie: [String: Any] = [
                "name": "warn", "value": "on", "domain": "127.0.0.1", "hostOnly": true, "path": "/", "secure": false,
                "httpOnly": false, "created": "2026-01-01T00:00:00Z",
            ]
            let file = sessions.appendingPathComponent("mlee.json")
            try JSONSerialization.data(withJSONObject: ["cookies": [cookie]]).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)

            let cold = try await run(["--user", "mlee", "grades", "--json"], password: "other-pass-2026")
            try #require(cold.exitCode == 0, "\(cold)")
            RecordedLoginTests.expectSameRecords(try Self.json(cold), try Self.records("grades.json", of: "mlee"), label: "djangocas")

            try await portalForgetsSessions()
            let trace = sandbox.root.appendingPathComponent("warn.har")
            let again = try await run(["--user", "mlee", "--trace", trace.path, "grades", "--json"], password: "other-pass-2026")
            #expect(again.exitCode == 0, "\(again)")
            #expect(again.stdout == cold.stdout)
            #expect(timesAsked() == 1, "the warn page was answered with the password")
            #expect(
                try requests(in: trace) == [
                    "GET portal /grades 302", "GET cas /cas/login 200", "POST cas /cas/login 302", "GET portal /grades 302",
                    "GET portal /grades 200",
                ])
        }
    }

    @Test(
        "a wrong password is exit 10 in django-cas-server's words; a service the CAS server does not allow is exit 14 before any password is asked for or sent; a service closed to this user is exit 14 in the server's words"
    )
    func failures() async throws {
        try await withPeer {
            let wrong = try await run(["--user", "jdoe", "grades"], password: "not-the-password")
            #expect(wrong.exitCode == 10, "\(wrong)")
            #expect(
                wrong.stderr.contains("The credentials you provided cannot be determined to be authentic."),
                "forms.py's message for a bad password: \(wrong)")
            #expect(timesAsked() == 1)

            let trace = sandbox.root.appendingPathComponent("unregistered.har")
            let unregistered = try await run(["--user", "jdoe", "--trace", trace.path, "grades"], portal: "djangocas-unregistered")
            #expect(unregistered.exitCode == 14, "\(unregistered)")
            #expect(unregistered.stderr.contains("not allowed"), "views.py's 'Service %s not allowed': \(unregistered)")
            #expect(timesAsked() == 1, "the password command ran for a service CAS refuses")
            let sent = try requests(in: trace)
            #expect(sent == ["GET portal /unregistered/grades 302", "GET cas /cas/login 200"], "\(sent)")
            #expect(!sent.contains { $0.hasPrefix("POST") })

            // A service open to mlee alone: CAS knows only after the password whom it refuses.
            let closed = try await run(["--user", "jdoe", "grades"], portal: "djangocas-staff")
            #expect(closed.exitCode == 14, "\(closed)")
            #expect(closed.stderr.contains("Username not allowed"), "views.py's message for a user the pattern leaves out: \(closed)")
            let open = try await run(["--user", "mlee", "grades", "--json"], portal: "djangocas-staff", password: "other-pass-2026")
            #expect(open.exitCode == 0, "\(open)")
            RecordedLoginTests.expectSameRecords(try Self.json(open), try Self.records("grades.json", of: "mlee"), label: "djangocas-staff")
        }
    }
}
