import Foundation
import Testing
import UniToolTestSupport

/// unitool against a university built from software no one here wrote: LemonLDAP::NG 2.16 as the
/// SAML identity provider (Debian's packages, its stock bootstrap pages, a TOTP second factor)
/// and the Shibboleth SP 3 (mod_shib and shibd in a private Apache) in front of the portal, all on
/// loopback (Scripts/interop-lemonldap.sh), driven by Examples/recipes/lemonldap on the
/// `lemonldap` platform recipe.
@Suite(
    "Interop: LemonLDAP::NG behind the Shibboleth SP",
    .enabled(
        if: ProcessInfo.processInfo.environment["UNITOOL_LLNG_INTEROP"] == "1",
        "needs LemonLDAP::NG and the Shibboleth SP: run through Scripts/test.sh"),
    .serialized)
struct LemonLDAPInteropTests {
    let sandbox: Sandbox
    let serverDirectory: URL
    let idpPort: Int
    let spPort: Int

    init() throws {
        sandbox = try Sandbox()
        // shibd's socket lives in it: a short path.
        serverDirectory = sandbox.root.appendingPathComponent("llng")
        idpPort = try InteropPeer.unusedPort()
        var sp = try InteropPeer.unusedPort()
        while sp == idpPort { sp = try InteropPeer.unusedPort() }
        spPort = sp
    }

    static var script: String { Fixtures.root.appendingPathComponent("Scripts/interop-lemonldap.sh").path }

    func peer(_ arguments: [String]) -> Int32 { InteropPeer.runScript(Self.script, arguments, discardingErrors: true) }

    /// Starts the IdP, shibd and Apache, installs the example recipes pointed at them, runs
    /// `body`, and stops them whatever happens.
    /// - Parameter webAuthn: LemonLDAP at https://localhost/ with msmith's security key (the
    ///   script's `webauthn` variant).
    func withPeer(webAuthn: Bool = false, _ body: () async throws -> Void) async throws {
        defer {
            _ = peer(["stop", serverDirectory.path])
            sandbox.remove()
        }
        try #require(
            peer(["start", serverDirectory.path, String(idpPort), String(spPort)] + (webAuthn ? ["webauthn"] : [])) == 0,
            "the LemonLDAP::NG peer did not start")
        let idp = webAuthn ? "https://localhost" : "http://127.0.0.1:\(idpPort)"
        let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/lemonldap")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let example = Fixtures.root.appendingPathComponent("Examples/recipes/lemonldap")
        for name in ["portal.yaml", "grades.yaml"] {
            let text = try String(contentsOf: example.appendingPathComponent(name), encoding: .utf8)
                .replacingOccurrences(of: "http://127.0.0.1:8091", with: "http://127.0.0.1:\(spPort)")
                .replacingOccurrences(of: "http://127.0.0.1:8090", with: idp)
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try await body()
    }

    func run(
        _ arguments: [String], stdin: String? = nil, extra: [String: String] = [:], removing: [String] = [], timeout: TimeInterval = 60
    ) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--portal", "lemonldap"] + arguments, stdin: stdin, extra: extra, removing: removing, timeout: timeout)
    }

    func courses(_ outcome: UniToolProcess.Outcome) throws -> [String] {
        let records = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
        return records.compactMap { $0["course"] as? String }
    }

    @Test(
        "terms behind the login: a wrong password is exit 10 in LemonLDAP's own words, a cold login accepts them, grades follow, and a re-login through the IdP's session needs no password source"
    )
    func passwordLogin() async throws {
        try await withPeer {
            let wrong = try await run(["--user", "dwho", "--password-stdin", "terms", "accept"], stdin: "not-his-password")
            #expect(wrong.exitCode == 10, "\(wrong)")
            #expect(wrong.stderr.contains("Wrong credentials"), "the text of PE5 from LemonLDAP's en.json: \(wrong)")

            let accept = try await run(["--user", "dwho", "--password-stdin", "terms", "accept"], stdin: "dwho")
            #expect(accept.exitCode == 0, "\(accept)")
            #expect(accept.stdout.contains("2026-04") || accept.stderr.contains("2026-04"), "\(accept)")

            let grades = try await run(["--user", "dwho", "grades", "--json"], removing: ["DBUS_SESSION_BUS_ADDRESS"])
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(try courses(grades) == ["Temporal Mechanics I", "Paradox Resolution", "Earth History Survey"])

            // The SP's session ends (its cookies go); LemonLDAP's stays. No keyring, a password
            // command that fails: the login must go through the IdP's session alone.
            let file = sandbox.root.appendingPathComponent("state/unitool/sessions/lemonldap/dwho.json")
            var session = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let cookies = try #require(session["cookies"] as? [[String: Any]])
            let kept = cookies.filter { !(($0["name"] as? String) ?? "").hasPrefix("_shibsession_") }
            #expect(
                kept.count < cookies.count && kept.contains { $0["name"] as? String == "lemonldap" }, "\(cookies.map { $0["name"] ?? "" })")
            session["cookies"] = kept
            try JSONSerialization.data(withJSONObject: session).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            let trace = sandbox.root.appendingPathComponent("relogin.har")
            let again = try await run(
                ["--user", "dwho", "--trace", trace.path, "grades", "--json"], extra: ["UNITOOL_PASSWORD_COMMAND": "exit 5"],
                removing: ["DBUS_SESSION_BUS_ADDRESS"])
            #expect(again.exitCode == 0, "\(again)")
            #expect(again.stdout == grades.stdout)
            // The terms API and the page both meet the login; LemonLDAP is asked once, and
            // nothing is asked that the SAML round trip does not need.
            let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) as? [String: Any])
            let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
            let requests = entries.compactMap { entry -> String? in
                guard let request = entry["request"] as? [String: Any], let response = entry["response"] as? [String: Any],
                    let address = (request["url"] as? String).flatMap(URL.init(string:))
                else { return nil }
                return "\(request["method"] ?? "") \(address.path) \(response["status"] ?? "")"
            }
            #expect(
                requests.sorted() == [
                    "GET /portal/api/terms 200", "GET /portal/api/terms 302", "GET /portal/grades 200", "GET /portal/grades 302",
                    "GET /saml/singleSignOn 200", "POST /Shibboleth.sso/SAML2/POST 302",
                ], "\(requests)")
        }
    }

    /// (A wrong code is told from LemonLDAP's real error page in `LemonLDAPPagesTests`: a second
    /// login within the same 30-second step waits for the next one, by design, and would cost
    /// the suite that wait.)
    @Test(
        "recorded by chromium through LemonLDAP::NG's own pages and the Shibboleth SP, the folder 'recipes new --from-har' makes logs in and reads the example's grades",
        .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright"))
    func recordedLogin() async throws {
        try await withPeer {
            let accept = try await run(["--user", "dwho", "--password-stdin", "terms", "accept"], stdin: "dwho")
            #expect(accept.exitCode == 0, "\(accept)")
            let example = try await run(["--user", "dwho", "grades", "--json"])
            let expected = try #require(
                (try? JSONSerialization.jsonObject(with: Data(example.stdout.utf8))) as? [[String: Any]], "\(example)")
            try await RecordedReplay.check(
                start: try #require(URL(string: "http://127.0.0.1:\(spPort)/portal/")), user: "dwho", password: "dwho",
                done: "#user-name", then: ["/portal/grades", "/portal/api/terms"], portal: "rec-lemonldap", platform: "lemonldap",
                expected: expected)
        }
    }

    @Test(
        "LemonLDAP's WebAuthn second factor, which no form engine can answer: auth login --browser signs in with the key (Chromium's virtual authenticator), and grades then come through the Shibboleth SP in one data request",
        .enabled(if: Needs.check(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium")))
    func webAuthnInBrowser() async throws {
        try await withPeer(webAuthn: true) {
            // The browser reaches https://localhost/ at the IdP's port, and takes its self-signed
            // certificate; WebAuthn needs a host name and, in LemonLDAP 2.16, no port.
            let browser = sandbox.root.appendingPathComponent("chromium")
            let wrapper =
                "#!/bin/sh\nexec /usr/bin/chromium --host-resolver-rules=\"MAP localhost:443 127.0.0.1:\(idpPort)\" --ignore-certificate-errors \"$@\"\n"
            try wrapper.write(to: browser, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: browser.path)
            let environment = [
                "UNITOOL_BROWSER": browser.path,
                "UNITOOL_BROWSER_HOOK": Fixtures.root.appendingPathComponent("Fixtures/browser-hooks/lemonldap.js").path,
                "UNITOOL_BROWSER_VIRTUAL_AUTHENTICATOR": serverDirectory.appendingPathComponent("webauthn-credentials.json").path,
            ]
            let login = try await run(["--user", "msmith", "auth", "login", "--browser", "--headless"], extra: environment, timeout: 300)
            #expect(login.exitCode == 0, "\(login)")
            // The key signed: LemonLDAP counts each use of it in msmith's persistent session.
            let sessions = serverDirectory.appendingPathComponent("idp/psessions")
            let used = try FileManager.default.contentsOfDirectory(atPath: sessions.path).contains { name in
                let text = (try? String(contentsOf: sessions.appendingPathComponent(name), encoding: .utf8)) ?? ""
                return text.contains("msmith") && text.contains(#"_signCount\":\"1\""#)
            }
            #expect(used, "LemonLDAP verified the security key once")

            try sandbox.acceptTerms(portal: "lemonldap", version: "2026-04")
            let trace = sandbox.root.appendingPathComponent("grades.har")
            let grades = try await run(["--user", "msmith", "--trace", trace.path, "grades", "--json"])
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(try courses(grades) == ["Programming Basics", "Computer Networks"], "\(grades)")
            let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) as? [String: Any])
            let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
            let paths = entries.compactMap { (($0["request"] as? [String: Any])?["url"] as? String).flatMap(URL.init(string:))?.path }
            #expect(paths.filter { $0 != "/portal/api/terms" } == ["/portal/grades"], "one data request, no login: \(paths)")
            let profiles = sandbox.root.appendingPathComponent("state/unitool/browser")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: profiles.path)) ?? []).isEmpty)
        }
    }

    @Test("LemonLDAP's TOTP second factor: the secret stored with 'auth totp set' signs in, and no code or secret is printed")
    func oneTimeCodes() async throws {
        try await withPeer {
            let secret = try String(contentsOf: serverDirectory.appendingPathComponent("totp-secret"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let setRight = try await run(["auth", "totp", "set", "--user", "rtyler"], stdin: secret)
            #expect(setRight.exitCode == 0, "\(setRight)")
            let accept = try await run(["--user", "rtyler", "--password-stdin", "terms", "accept"], stdin: "rtyler")
            #expect(accept.exitCode == 0, "\(accept)")
            #expect(!accept.stderr.contains(secret) && !accept.stdout.contains(secret))
            let grades = try await run(["--user", "rtyler", "grades", "--json"])
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(try courses(grades) == ["Public Speaking", "Introduction to Xenology", "Calculus I"])
        }
    }
}
