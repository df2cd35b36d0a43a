import Foundation
import Testing
import UniToolTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// unitool against OpenID Connect software it did not write: django-oidc-provider 0.9.0 (PyPI,
/// unmodified, Django's users and Django's own login view) in front of a small Flask portal that
/// signs in with Authlib's client by the authorization-code flow (Scripts/interop-oidc.sh). The
/// portal folder (Tests/EndToEndTests/Interop/oidc/recipe) builds on the bundled platforms,
/// unedited: `use: [oidc, django-oidc-provider]`.
///
/// django-oidc-provider 0.9.0 does not read `response_mode` (its AuthorizeView answers every
/// request with a redirect): a portal asking it for `form_post` gets the code in the query. The
/// real form_post page comes from LemonLDAP::NG 2.16's OpenID Connect issuer (Debian's
/// packages), in front of the same portal: `OIDCInteropTests.LemonLDAP`, `use: [oidc, lemonldap]`.
@Suite(
    "Interop: an OpenID Connect provider (django-oidc-provider) and an Authlib portal",
    .enabled(
        if: Needs.check(ProcessInfo.processInfo.environment["UNITOOL_OIDC_PYTHON"] != nil, "django-oidc-provider"),
        "needs django-oidc-provider: run through Scripts/test.sh"),
    .serialized)
struct OIDCInteropTests {
    let peer: Peer

    init() throws { peer = try Peer(op: .django) }

    /// The OP the portal is behind, with its users and the platform recipe of its pages.
    enum OP: String, Sendable {
        case django, lemonldap

        var user: String { self == .django ? "jdoe" : "dwho" }
        /// OIDCInteropTests.Peer's op_setup.py users; LemonLDAP::NG's Demo backend's.
        var password: String { self == .django ? "oidc-pass-2026" : "dwho" }
        var platform: String { self == .django ? "django-oidc-provider" : "lemonldap" }
        /// Where the portal's authorization requests go.
        var authorizePath: String { self == .django ? "/openid/authorize" : "/oauth2/authorize" }
    }

    /// One OP and the portal behind it, in a sandbox of their own, and the unitool runs against them.
    struct Peer {
        static var script: String { Fixtures.root.appendingPathComponent("Scripts/interop-oidc.sh").path }
        static let recipe = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/oidc/recipe")
        /// The version /api/terms answers (portal.py's TERMS_VERSION).
        static let termsVersion = "2026-09"

        let op: OP
        let sandbox: Sandbox
        let state: URL
        let opPort: Int
        let portalPort: Int
        /// Where the password command writes a line each time it runs: a run that did not need the
        /// password leaves it as it was.
        let passwordLog: URL

        init(op: OP) throws {
            self.op = op
            sandbox = try Sandbox()
            state = sandbox.root.appendingPathComponent("oidc")
            opPort = try InteropPeer.unusedPort()
            portalPort = try InteropPeer.unusedPort()
            passwordLog = sandbox.root.appendingPathComponent("password-command.log")
        }

        /// Starts the OP and the portal (the portal asking for `mode`), installs the portal folder
        /// pointed at them, runs `body`, and stops them whatever happens.
        func withPeer(mode: String = "query", _ body: () async throws -> Void) async throws {
            defer {
                _ = InteropPeer.runScript(Self.script, ["stop", state.path])
                sandbox.remove()
            }
            try #require(
                InteropPeer.runScript(Self.script, ["start", state.path, String(opPort), String(portalPort), mode, op.rawValue]) == 0,
                "the OP or the portal did not start (see \(state.path)/log)")
            try install(portal: "oidc")
            try await body()
        }

        /// Writes the portal folder `portal` from the test's recipe: its grades command, and one
        /// command per path prefix of the portal (`grades-form-post` reads /form-post/grades…);
        /// `terms` adds the terms API behind the login.
        func install(portal: String, terms: Bool = false) throws {
            let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/\(portal)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            func text(_ name: String) throws -> String {
                try String(contentsOf: Self.recipe.appendingPathComponent(name), encoding: .utf8)
                    .replacingOccurrences(of: "127.0.0.1:PORTAL", with: "127.0.0.1:\(portalPort)")
                    .replacingOccurrences(of: "127.0.0.1:OP", with: "127.0.0.1:\(opPort)")
            }
            var portalYAML = try text("portal.yaml").replacingOccurrences(of: "portal: oidc-portal", with: "portal: \(portal)")
                .replacingOccurrences(of: "use: [oidc, django-oidc-provider]", with: "use: [oidc, \(op.platform)]")
            if terms {
                portalYAML += "\nterms:\n  version_api: /api/terms\n  version_field: version\n  url_field: url\n"
                try sandbox.acceptTerms(portal: portal, version: Self.termsVersion)
            }
            try portalYAML.write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
            let grades = try text("grades.yaml")
            try grades.write(to: folder.appendingPathComponent("grades.yaml"), atomically: true, encoding: .utf8)
            for prefix in ["form-post", "query", "fresh-login", "max-age"] {
                try grades.replacingOccurrences(of: "command: grades", with: "command: grades-\(prefix)")
                    .replacingOccurrences(of: "fetch: /grades", with: "fetch: /\(prefix)/grades")
                    .write(to: folder.appendingPathComponent("grades-\(prefix).yaml"), atomically: true, encoding: .utf8)
            }
        }

        /// The password command: it writes a line to `passwordLog`, then prints `password`.
        func passwordCommand(_ password: String) -> [String: String] {
            ["UNITOOL_PASSWORD_COMMAND": "echo ran >> '\(passwordLog.path)'; printf %s '\(password)'"]
        }

        /// How many times the password command ran.
        var passwordRuns: Int {
            ((try? String(contentsOf: passwordLog, encoding: .utf8)) ?? "").split(separator: "\n").count
        }

        /// `unitool --portal PORTAL --user USER COMMAND --json` with the password command and no
        /// keyring (the password command is the only password source).
        func read(_ command: String, portal: String = "oidc", verbose: Bool = false, password: String? = nil) async throws
            -> UniToolProcess.Outcome
        {
            try await sandbox.run(
                ["--portal", portal, "--user", op.user] + (verbose ? ["--verbose"] : []) + [command, "--json"],
                extra: passwordCommand(password ?? op.password), removing: ["DBUS_SESSION_BUS_ADDRESS"])
        }

        func expectGrades(_ outcome: UniToolProcess.Outcome, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(outcome.exitCode == 0, "\(label): \(outcome)", sourceLocation: sourceLocation)
            let records = try #require(
                (try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8))) as? [[String: Any]], "\(label): \(outcome)",
                sourceLocation: sourceLocation)
            RecordedLoginTests.expectSameRecords(records, try OIDCInteropTests.portalRecords(of: op.user), label: label)
        }

        /// Ends every portal session (the portal's test-only POST: a new secret key); the OP's
        /// session, in the same cookie jar, stays valid.
        func forgetPortalSessions() async throws {
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(portalPort)/test/forget-sessions")))
            request.httpMethod = "POST"
            let (_, response) = try await uncachedURLSession.data(for: request)
            try #require((response as? HTTPURLResponse)?.statusCode == 204, "\(response)")
        }

        /// Moves the user's last login at the OP two hours back (its database, as two hours passing
        /// would), for `max_age`.
        func ageOPLogin() throws {
            let python = try #require(ProcessInfo.processInfo.environment["UNITOOL_OIDC_PYTHON"])
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [
                "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                changed = db.execute("update auth_user set last_login = datetime('now', '-2 hours') where username = ?", (sys.argv[2],)).rowcount
                db.commit()
                sys.exit(0 if changed == 1 else 1)
                """,
                state.appendingPathComponent("op.sqlite3").path, op.user,
            ]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "the OP's database was not changed")
        }

        /// Issue 49, deliverable 7: the terms check (/api/terms, behind the login) and the data page
        /// go out at once; on a cold or expired session both are sent to the OP, and the portal
        /// keeps the login's state in its session cookie. Only one login may change that cookie.
        /// 20 cold logins (no state at all), then 20 re-logins after the portal's sessions end.
        func coldLoginRace() async throws {
            try install(portal: "oidc-terms", terms: true)
            let sessions = sandbox.root.appendingPathComponent("state/unitool/sessions/oidc-terms")
            var failures: [String] = []
            for run in 1...20 {
                try? FileManager.default.removeItem(at: sessions)
                let cold = try await read("grades", portal: "oidc-terms")
                if cold.exitCode != 0 {
                    failures.append("cold \(run): exit \(cold.exitCode): \(cold.stderr)")
                } else {
                    try expectGrades(cold, "cold \(run)")
                }
            }
            #expect(passwordRuns == 20, "each cold login ran the password command once")
            for run in 1...20 {
                try await forgetPortalSessions()
                let again = try await read("grades", portal: "oidc-terms")
                if again.exitCode != 0 {
                    failures.append("re-login \(run): exit \(again.exitCode): \(again.stderr)")
                } else {
                    try expectGrades(again, "re-login \(run)")
                }
            }
            #expect(passwordRuns == 20, "the re-logins went through the OP's session, with no password")
            let cold = failures.filter { $0.hasPrefix("cold") }.count
            #expect(
                failures.isEmpty,
                "\(op): \(cold) of 20 cold logins and \(failures.count - cold) of 20 re-logins failed:\n\(failures.joined(separator: "\n"))"
            )
        }
    }

    /// The records the portal shows the user: its own data file, which its /grades page renders.
    static func portalRecords(of user: String) throws -> [[String: Any]] {
        let file = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/oidc/grades.json")
        let all = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: [[String: Any]]])
        return try #require(all[user])
    }

    @Test(
        "a cold login reads the grades; a warm run needs no login; after the portal's sessions end, the OP's session signs in again without a password; a wrong password is exit 10 in Django's words"
    )
    func loginReuseAndSingleSignOn() async throws {
        try await peer.withPeer {
            let wrong = try await peer.read("grades", password: "not-the-password")
            #expect(wrong.exitCode == 10, "\(wrong)")
            #expect(
                wrong.stderr.contains("Please enter a correct username and password"),
                "AuthenticationForm's invalid_login, in admin/login.html's p.errornote: \(wrong)")
            #expect(wrong.stdout.isEmpty, "\(wrong)")

            let cold = try await peer.read("grades")
            try peer.expectGrades(cold, "cold login")
            #expect(peer.passwordRuns == 2, "the wrong password's run and the cold login's ran the password command once each")

            let warm = try await peer.read("grades", verbose: true)
            try peer.expectGrades(warm, "warm run")
            #expect(peer.passwordRuns == 2, "a warm run asks for no password")
            #expect(!warm.stderr.contains("login page"), "a warm run shows no login page: \(warm.stderr)")

            try await peer.forgetPortalSessions()
            let again = try await peer.read("grades", verbose: true)
            try peer.expectGrades(again, "re-login through the OP's session")
            #expect(peer.passwordRuns == 2, "the OP's session signed in again; the password command did not run")
            #expect(again.stderr.contains("/openid/authorize"), "the portal's session had ended: it went to the OP: \(again.stderr)")
            #expect(!again.stderr.contains("login page 'sign in'"), "\(again.stderr)")
        }
    }

    @Test(
        "a portal asking for either response mode signs in and reads, cold and then, asking for the other, through the OP's session",
        arguments: ["form_post", "query"])
    func responseModes(mode: String) async throws {
        try await peer.withPeer(mode: mode) {
            try peer.expectGrades(try await peer.read("grades"), "\(mode): cold login")
            #expect(peer.passwordRuns == 1, "\(mode)")
            // The other mode on the same OP session, by the portal's path prefix.
            let other = mode == "query" ? "form-post" : "query"
            try await peer.forgetPortalSessions()
            try peer.expectGrades(try await peer.read("grades-\(other)"), "\(mode), then \(other) through the OP's session")
            #expect(peer.passwordRuns == 1, "\(mode): the OP's session signed in again with no password")
        }
    }

    @Test(
        "prompt=login and max_age: the OP asks for the password again though its session is live, and unitool gives it; a recent login within max_age needs none"
    )
    func reauthentication() async throws {
        try await peer.withPeer {
            try peer.expectGrades(try await peer.read("grades"), "cold login")
            #expect(peer.passwordRuns == 1)

            try await peer.forgetPortalSessions()
            let fresh = try await peer.read("grades-fresh-login", verbose: true)
            try peer.expectGrades(fresh, "prompt=login")
            #expect(peer.passwordRuns == 2, "prompt=login: the OP asked for the password again")
            #expect(fresh.stderr.contains("login page 'sign in'"), "\(fresh.stderr)")

            // The portal's /max-age/ pages ask with max_age=3600 (portal.py): the login just made is recent.
            try await peer.forgetPortalSessions()
            try peer.expectGrades(try await peer.read("grades-max-age"), "max_age, a recent login")
            #expect(peer.passwordRuns == 2, "a login younger than max_age signs in through the OP's session")

            try peer.ageOPLogin()
            try await peer.forgetPortalSessions()
            try peer.expectGrades(try await peer.read("grades-max-age"), "max_age, a login two hours old")
            #expect(peer.passwordRuns == 3, "a login older than max_age: the OP asked for the password again")
        }
    }

    @Test("the terms API behind the login: 20 cold logins and 20 re-logins after the portal's sessions end all succeed")
    func coldLoginRace() async throws {
        try await peer.withPeer { try await peer.coldLoginRace() }
    }
}

extension OIDCInteropTests {
    /// The same portal behind LemonLDAP::NG 2.16's OpenID Connect issuer (Debian's packages, its
    /// own bootstrap login page, its Demo users), which answers `response_mode=form_post` with a
    /// real auto-submitted form: `use: [oidc, lemonldap]`, unedited.
    @Suite(
        "Interop: LemonLDAP::NG's OpenID Connect issuer and the Authlib portal",
        .enabled(
            if: Needs.check(ProcessInfo.processInfo.environment["UNITOOL_LLNG_INTEROP"] == "1", "LemonLDAP::NG"),
            "needs LemonLDAP::NG: run through Scripts/test.sh"))
    struct LemonLDAP {
        let peer: Peer

        init() throws { peer = try Peer(op: .lemonldap) }

        @Test(
            "form_post and query: a cold login reads the grades, a wrong password is exit 10 in LemonLDAP's words, and after the portal's sessions end the OP's session signs in again without a password",
            arguments: ["form_post", "query"])
        func responseModes(mode: String) async throws {
            try await peer.withPeer(mode: mode) {
                let wrong = try await peer.read("grades", password: "not-the-password")
                #expect(wrong.exitCode == 10, "\(wrong)")
                #expect(wrong.stderr.contains("Wrong credentials"), "the text of PE5 from LemonLDAP's en.json: \(wrong)")

                let cold = try await peer.read("grades", verbose: true)
                try peer.expectGrades(cold, "\(mode): cold login")
                #expect(peer.passwordRuns == 2)
                #expect(
                    cold.stderr.contains("login page 'oidc form post'") == (mode == "form_post"),
                    "the OP's answer came as \(mode == "form_post" ? "a posted form" : "a redirect"): \(cold.stderr)")

                try await peer.forgetPortalSessions()
                let again = try await peer.read("grades", verbose: true)
                try peer.expectGrades(again, "\(mode): re-login through the OP's session")
                #expect(peer.passwordRuns == 2, "the OP's session signed in again; the password command did not run")
                #expect(again.stderr.contains("/oauth2/authorize"), "the portal's session had ended: it went to the OP: \(again.stderr)")
            }
        }

        @Test("form_post with the terms API behind the login: 20 cold logins and 20 re-logins after the portal's sessions end all succeed")
        func coldLoginRace() async throws {
            try await peer.withPeer(mode: "form_post") { try await peer.coldLoginRace() }
        }
    }
}
