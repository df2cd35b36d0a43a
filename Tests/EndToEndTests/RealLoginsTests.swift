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
        try await sandbox.run(arguments, demo: demo.baseURL, stdin: stdin, extra: extra, removing: removing)
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

    @Test(
        "a re-login through a live IdP session costs the SAML round trip and no request more, though the SP rebuilds the address it returns to"
    )
    func reloginCostsNoExtraRequest() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=idp-session,login=rebuilt-target")) { demo in
            let first = try await run(
                ["--portal", "demo", "--user", "bence", "--password-stdin", "grades", "--term", "2026-fall"], demo: demo,
                stdin: "Kaland-2026")
            #expect(first.exitCode == 0, "\(first)")
            try endPortalSession()
            let before = await demo.requests.count
            let again = try await run(["--portal", "demo", "--user", "bence", "grades", "--term", "2026-fall", "--json"], demo: demo)
            #expect(again.exitCode == 0 && again.stdout.contains("Számítógépes hálózatok"), "\(again)")
            let requests = Array(await demo.requests.dropFirst(before)).filter { !$0.isTermsCheck }.map { "\($0.method) \($0.path)" }
            // The page, the IdP's single sign-on (answered at once from its session), the SAML POST
            // to the SP, and the SP's redirect back to the page: four requests, the page never asked a third time.
            #expect(
                requests == [
                    "GET /grades", "GET /idp/profile/SAML2/Redirect/SSO", "POST /Shibboleth.sso/SAML2/POST", "GET /grades",
                ], "\(requests)")
        }
    }

    @Test("a re-login through a live IdP session needs no password: no keyring, and a password command that fails")
    func reloginThroughIdPSession() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=idp-session")) { demo in
            let first = try await run(
                ["--portal", "demo", "--user", "bence", "--password-stdin", "grades", "--term", "2026-fall"], demo: demo,
                stdin: "Kaland-2026")
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

    func samlPosts(_ demo: DemoUniversity) async -> Int {
        await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }.count
    }

    struct Variant: Sendable, CustomTestStringConvertible {
        let fault: String
        /// A request the login must have made (method and path).
        let visited: (String, String)
        var testDescription: String { fault }
    }

    @Test(
        "pages around the login that the demo recipe's rules handle: a cold run works in one command, with one login",
        arguments: [
            Variant(fault: "login=login-link", visited: ("GET", "/Shibboleth.sso/Login")),  // follow: a "Log in" link
            Variant(fault: "login=reminder-link", visited: ("GET", "/reminder")),  // after_login follow
            Variant(fault: "login=reminder-form", visited: ("POST", "/reminder")),  // after_login form
            Variant(fault: "login=page-expired", visited: ("GET", "/idp/profile/SAML2/Redirect/SSO")),  // restart link
            Variant(fault: "login=post-binding", visited: ("POST", "/idp/profile/SAML2/POST/SSO")),  // SP-initiated POST binding
        ])
    func pagesAroundTheLogin(variant: Variant) async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: variant.fault)) { demo in
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-fall", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            #expect(outcome.stdout.contains("Probability Theory"))
            #expect(await samlPosts(demo) == 1)
            let requests = await demo.requests
            #expect(requests.contains { $0.method == variant.visited.0 && $0.path == variant.visited.1 }, "\(requests)")
            if variant.fault == "login=page-expired" {
                #expect(requests.filter { $0.path == "/idp/profile/SAML2/Redirect/SSO" && $0.method == "GET" }.count == 2)
            }
            // doctor login names what it did on each page.
            let doctor = try await run(["--portal", "demo", "doctor", "login"], demo: demo)
            #expect(doctor.exitCode == 0, "\(doctor)")
        }
    }

    @Test("without after_login, a post-login page is refused as a second login, and the error says what to mark")
    func postLoginPageWithoutRule() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=reminder-form")) { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL) { portal in
                portal.replacingOccurrences(
                    of: "      submit: \".//button[@name='later']\"\n      after_login: true\n",
                    with: "      submit: \".//button[@name='later']\"\n")
            }
            try sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let outcome = try await run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "grades", "--term", "2026-fall"], demo: demo,
                stdin: "wonderland")
            #expect(outcome.exitCode == 14, "\(outcome)")
            #expect(outcome.stderr.contains("asked for a login again right after a successful one"), "\(outcome)")
            #expect(outcome.stderr.contains("after_login: true"), "\(outcome)")
        }
    }

    @Test("the portal's own time-out page (200): one fresh login in the same run, which then works")
    func timeoutPageRestartsTheLogin() async throws {
        let clean = try await DemoUniversity.start()
        defer { Task { await clean.stop() } }
        let warm = try await run(["--portal", "demo", "grades", "--term", "2026-spring"], demo: clean)
        try #require(warm.exitCode == 0, "\(warm)")
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=timeout-page")) { demo in
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-spring", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            #expect(outcome.stdout.contains("Analysis II"))
            #expect(await samlPosts(demo) == 1, "exactly one fresh login")
        }
    }

    @Test(
        "a time-out page on a host the IdP shares forgets the portal's cookies, not the IdP's: the IdP's session signs in again with no password"
    )
    func timeoutPageKeepsTheIdPSession() async throws {
        let clean = try await DemoUniversity.start(faults: try DemoFaults(parsing: "login=idp-session"))
        defer { Task { await clean.stop() } }
        let warm = try await run(["--portal", "demo", "grades", "--term", "2026-spring"], demo: clean)
        try #require(warm.exitCode == 0, "\(warm)")
        #expect(await clean.passwordsReceived == 1)
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=timeout-page,login=idp-session")) { demo in
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-spring", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            #expect(outcome.stdout.contains("Analysis II"))
            #expect(await samlPosts(demo) == 1, "exactly one fresh sign-on")
            #expect(await demo.passwordsReceived == 0, "the IdP's session, kept, signed the user in")
        }
    }

    @Test("a public command (login: false) needs no user and never logs in; a portal that asks for one is a clear error")
    func publicCommand() async throws {
        try await DemoUniversity.withRunning { demo in
            let folder = try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["headlines"])
            try sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let outcome = try await run(
                ["--portal", "campus", "headlines", "--json"], demo: demo, extra: ["UNITOOL_PASSWORD_COMMAND": "exit 9"],
                removing: ["UNITOOL_USER", "DBUS_SESSION_BUS_ADDRESS"])
            #expect(outcome.exitCode == 0, "\(outcome)")
            #expect(outcome.stdout.contains("\"title\""))
            #expect(await samlPosts(demo) == 0)
            #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("state/unitool/sessions/campus").path))

            // The same recipe pointed at a page behind the login.
            let recipe = try String(contentsOf: folder.appendingPathComponent("headlines.yaml"), encoding: .utf8)
            try recipe.replacingOccurrences(of: "fetch: /feeds/news.rss", with: "fetch: /news")
                .write(to: folder.appendingPathComponent("headlines.yaml"), atomically: true, encoding: .utf8)
            let refused = try await run(["--portal", "campus", "headlines"], demo: demo, removing: ["UNITOOL_USER"])
            #expect(refused.exitCode == 14, "\(refused)")
            #expect(refused.stderr.contains("public command (login: false"), "\(refused)")
            #expect(await samlPosts(demo) == 0)
        }
    }

    @Test("done_when.url sees the path as requested, trailing slash included; a failed done_when is named as such")
    func doneWhenTrailingSlash() async throws {
        try await DemoUniversity.withRunning { demo in
            func portal(done: String) throws {
                try sandbox.installPortalCopy("campus", at: demo.baseURL) { text in
                    text.replacingOccurrences(of: "  start: /home\n", with: "  start: /campus/\n")
                        .replacingOccurrences(
                            of: "  done_when: { xpath: \"//a[@id='logout']\" }", with: "  done_when: { url: \"\(done)\" }")
                }
            }
            try portal(done: "^/campus/$")
            let ok = try await run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "doctor", "login"], demo: demo, stdin: "wonderland")
            #expect(ok.exitCode == 0, "\(ok)")

            try portal(done: "^/campus$")
            let failed = try await run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "doctor", "login"], demo: demo, stdin: "wonderland")
            #expect(failed.exitCode == 30, "\(failed)")
            #expect(failed.stdout.contains("fails login.done_when"), "\(failed)")
            #expect(failed.stdout.contains("does not match \"/campus/\""), "\(failed)")
        }
    }
}
