import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Issue 34's smaller items end to end, with the real executable: a login met while fetching
/// ends back at that page, a public command reads the terms through the saved session, the
/// portal's zone for times without an offset, and a recipe's own headers on the wire.
@Suite("Real identity providers: logins that end where they began, public commands, zones and headers")
struct RealIdPRequestsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// The demo with its terms API behind the login, as a copy named `campus` (no default user).
    /// Runs `body` with a campus whose terms API is behind the login, stopped afterwards.
    func withProtectedTermsCampus(doneWhen: String? = nil, _ body: (DemoUniversity) async throws -> Void) async throws {
        var faults = DemoFaults()
        faults.termsAPI = .protected
        try await DemoUniversity.withRunning(faults: faults) { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["grades", "headlines"]) { portal in
                guard let doneWhen else { return portal }
                return portal.replacingOccurrences(of: "done_when: { xpath: \"//a[@id='logout']\" }", with: "done_when: \(doneWhen)")
            }
            try await body(demo)
        }
    }

    func samlPosts(_ demo: DemoUniversity) async -> Int {
        await demo.requests.filter { $0.method == "POST" && $0.path.hasPrefix("/Shibboleth.sso/SAML2/POST") }.count
    }

    @Test("a terms API behind the login, with done_when written for the start page: the login ends back at the API")
    func loginEndsAtTheRequestedPage() async throws {
        defer { sandbox.remove() }
        try await withProtectedTermsCampus(doneWhen: "{ url: \"^/home\" }") { demo in
            let status = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "terms", "status", "--json"], demo: demo.baseURL,
                stdin: "wonderland")
            #expect(status.exitCode == 0, "\(status)")
            #expect(status.stdout.contains("\"current\": \"\(DemoUniversity.initialTermsVersion)\""), "\(status)")
            #expect(await samlPosts(demo) == 1)
            // A page elsewhere on the portal that fails done_when is still the recipe's error.
            let accept = try await sandbox.run(["--portal", "campus", "--user", "alice", "terms", "accept"], demo: demo.baseURL)
            #expect(accept.exitCode == 0, "\(accept)")
            let grades = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "grades", "--term", "2026-spring"], demo: demo.baseURL)
            #expect(grades.exitCode == 0 && grades.stdout.contains("Analysis II"), "\(grades)")
        }
    }

    @Test(
        "a public command on a portal whose terms API is behind the login: through the saved session, else an error that names the terms check"
    )
    func publicCommandTerms() async throws {
        defer { sandbox.remove() }
        try await withProtectedTermsCampus { demo in
            let cold = try await sandbox.run(["--portal", "campus", "--user", "alice", "headlines", "--json"], demo: demo.baseURL)
            #expect(cold.exitCode == 40, "\(cold)")
            #expect(cold.stderr.contains("terms of use") && cold.stderr.contains("behind the login"), "\(cold)")
            #expect(cold.stderr.contains("unitool auth login --portal campus") && !cold.stderr.contains("remove 'login: false'"), "\(cold)")
            #expect(await demo.passwordsReceived == 0)

            let accept = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "terms", "accept"], demo: demo.baseURL, stdin: "wonderland")
            #expect(accept.exitCode == 0, "\(accept)")
            let passwords = await demo.passwordsReceived
            let posts = await samlPosts(demo)
            let warm = try await sandbox.run(["--portal", "campus", "--user", "alice", "headlines", "--json"], demo: demo.baseURL)
            #expect(warm.exitCode == 0, "\(warm)")
            #expect(warm.stdout.contains("\"title\""), "\(warm)")
            let passwordsAfter = await demo.passwordsReceived
            let postsAfter = await samlPosts(demo)
            #expect(passwordsAfter == passwords && postsAfter == posts, "no login: the saved session answered")
        }
    }

    @Test("terms behind the login and a live IdP session: the terms check and the page meet the login together, and the IdP is asked once")
    func oneSignOnForTwoRequests() async throws {
        defer { sandbox.remove() }
        var faults = try DemoFaults(parsing: "login=idp-session")
        faults.termsAPI = .protected
        try await DemoUniversity.withRunning(faults: faults) { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["grades"])
            let first = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "terms", "accept"], demo: demo.baseURL, stdin: "wonderland")
            #expect(first.exitCode == 0, "\(first)")
            // The portal's session ends; the IdP's stays.
            let file = sandbox.root.appendingPathComponent("state/unitool/sessions/campus/alice.json")
            var session = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let cookies = try #require(session["cookies"] as? [[String: Any]])
            session["cookies"] = cookies.filter { $0["name"] as? String != DemoUniversity.sessionCookie }
            try JSONSerialization.data(withJSONObject: session).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)

            for round in 1...3 {
                let before = await demo.requests.count
                let grades = try await sandbox.run(
                    ["--portal", "campus", "--user", "alice", "grades", "--term", "2026-spring"], demo: demo.baseURL)
                #expect(grades.exitCode == 0 && grades.stdout.contains("Analysis II"), "\(grades)")
                let requests = Array(await demo.requests.dropFirst(before)).map { "\($0.method) \($0.path)" }
                #expect(requests.filter { $0.hasPrefix("GET /idp/") }.count == 1, "round \(round): \(requests)")
                #expect(
                    requests.count == 6, "round \(round): the page and the terms API twice each, one sign-on, one SAML POST: \(requests)")
                // Again from a portal session that is gone.
                var again = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
                again["cookies"] = (again["cookies"] as? [[String: Any]] ?? []).filter {
                    $0["name"] as? String != DemoUniversity.sessionCookie
                }
                try JSONSerialization.data(withJSONObject: again).write(to: file)
            }
        }
    }

    @Test("the portal's timezone: applies to a date-time with no zone of its own, and JSON keeps the offset")
    func portalZone() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let folder = try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["headlines"])
            let file = folder.appendingPathComponent("headlines.yaml")
            let recipe = try String(contentsOf: file, encoding: .utf8)
            try #require(recipe.contains("timezone: Europe/Budapest, "))
            try recipe.replacingOccurrences(of: "timezone: Europe/Budapest, ", with: "").write(to: file, atomically: true, encoding: .utf8)
            try sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let outcome = try await sandbox.run(["--portal", "campus", "headlines", "--json"], demo: demo.baseURL)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let records = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
            let dates = records.compactMap { $0["date"] as? String }
            #expect(!dates.isEmpty && dates.count == records.count)
            // Budapest is UTC+1 in winter and UTC+2 in summer; never Z.
            #expect(dates.allSatisfy { $0.hasSuffix("+01:00") || $0.hasSuffix("+02:00") }, "\(dates)")
        }
    }

    @Test(
        "headers: of the portal and of the command reach the portal with the portal's Accept-Language, and neither follows a redirect elsewhere"
    )
    func recipeHeadersOnTheWire() async throws {
        defer { sandbox.remove() }
        let elsewhere = try RecordingHTTPServer { _ in .status(200, body: "<ul><li>elsewhere</li></ul>") }
        defer { elsewhere.stop() }
        let portal = try RecordingHTTPServer { request in
            request.path == "/moved"
                ? .status(302, headers: ["Location": elsewhere.url("/list")]) : .status(200, body: "<ul><li>one</li></ul>")
        }
        defer { portal.stop() }
        let pack = sandbox.root.appendingPathComponent("config/unitool/recipes/hdr")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try """
        portal: hdr
        base_url: \(portal.baseURL.absoluteString)
        language: hu
        headers: { X-Portal-Key: "portal-value" }
        login: { pages: [{ name: never, when: "//form[@id='never']", auto_submit: true }] }

        """.write(to: pack.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        for (command, path) in [("list", "/list"), ("moved", "/moved")] {
            try """
            command: \(command)
            login: false
            headers: { X-Command: "command-value", Accept: "text/html" }
            fetch: \(path)
            rows: //li
            fields: { name: { xpath: ".", required: true } }

            """.write(to: pack.appendingPathComponent("\(command).yaml"), atomically: true, encoding: .utf8)
        }
        let list = try await sandbox.run(["--portal", "hdr", "list", "--json"])
        #expect(list.exitCode == 0 && list.stdout.contains("one"), "\(list)")
        let asked = try #require(portal.requests.first { $0.path == "/list" })
        #expect(asked.headers["x-portal-key"] == "portal-value" && asked.headers["x-command"] == "command-value", "\(asked.headers)")
        #expect(asked.headers["accept"] == "text/html", "the command's Accept replaces the browser's: \(asked.headers)")
        #expect(asked.headers["accept-language"] == "hu,en;q=0.8", "\(asked.headers)")

        _ = try await sandbox.run(["--portal", "hdr", "moved", "--json"])
        #expect(portal.requests.contains { $0.path == "/moved" && $0.headers["x-command"] == "command-value" })
        let followed = elsewhere.requests
        #expect(followed.count == 1, "the redirect was followed to the other origin once: \(followed)")
        #expect(followed.allSatisfy { $0.headers["x-portal-key"] == nil && $0.headers["x-command"] == nil }, "\(followed)")
    }

    @Test(
        "a portal's headers: reach its login pages too: an Accept that names JSON gets the IdP's 401, which the login and doctor login name as an answer for a script, pointing at headers:"
    )
    func portalHeadersReachTheLogin() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL) { portal in
                portal.replacingOccurrences(of: "\nlogin:\n", with: "\nheaders: { Accept: \"application/json\" }\nlogin:\n")
            }
            let login = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "auth", "login"], demo: demo.baseURL, stdin: "wonderland")
            #expect(login.exitCode == 14, "\(login)")
            #expect(login.stderr.contains("an answer for a script") && login.stderr.contains("application/json"), "\(login)")
            #expect(login.stderr.contains("headers:"), "\(login)")
            let doctor = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "doctor", "login"], demo: demo.baseURL, stdin: "wonderland")
            let said = doctor.stdout + doctor.stderr
            #expect(doctor.exitCode != 0 && said.contains("an answer for a script") && said.contains("headers:"), "\(doctor)")
            #expect(await demo.passwordsReceived == 0)
        }
    }

    @Test("read: may POST a form or JSON and read the value from a JSON answer (issue 35)")
    func readByPost() async throws {
        defer { sandbox.remove() }
        let portal = try RecordingHTTPServer { request in
            switch request.path {
            case "/token": .status(200, headers: ["Content-Type": "application/json"], body: #"{"data":{"token":"t-42"}}"#)
            default: .status(200, body: "<ul><li>listed</li></ul>")
            }
        }
        defer { portal.stop() }
        let pack = sandbox.root.appendingPathComponent("config/unitool/recipes/poster")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try
            "portal: poster\nbase_url: \(portal.baseURL.absoluteString)\nlogin: { pages: [{ name: never, when: \"//form[@id='never']\", auto_submit: true }] }\n"
            .write(to: pack.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try """
        command: list
        login: false
        options: { kind: { default: "all" } }
        read:
          token: { fetch: /token, method: post, json: '{"kind":"{{kind}}"}', parse: json, xpath: "string(//data/token)" }
        fetch: /list?token={{token}}&from={{today_epoch}}
        rows: //li
        fields: { name: { xpath: ".", required: true } }

        """.write(to: pack.appendingPathComponent("list.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await sandbox.run(["--portal", "poster", "list", "--kind", "a\"b", "--json"])
        #expect(outcome.exitCode == 0 && outcome.stdout.contains("listed"), "\(outcome)")
        let posted = try #require(portal.requests.first { $0.path == "/token" })
        #expect(posted.method == "POST" && posted.body == #"{"kind":"a\"b"}"#, "\(posted)")
        // {{today_epoch}}: the first second of today, in the zone unitool runs in.
        let midnight = Int(Calendar.current.startOfDay(for: Date()).timeIntervalSince1970)
        #expect(portal.requests.contains { $0.method == "GET" && $0.path == "/list?token=t-42&from=\(midnight)" }, "\(portal.requests)")
    }

    @Test("recipes lint names a header no recipe may set")
    func lintRefusesCookie() async throws {
        defer { sandbox.remove() }
        let folder = sandbox.root.appendingPathComponent("pack/uni")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try
            "portal: uni\nbase_url: https://portal.example.edu\nheaders: { Cookie: \"session=stolen\" }\nlogin: { pages: [{ when: \"//form\", auto_submit: true }] }\n"
            .write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await sandbox.run(["--recipes", sandbox.root.appendingPathComponent("pack").path, "recipes", "lint"])
        #expect(outcome.exitCode == 31, "\(outcome)")
        #expect(outcome.stderr.contains("headers") && outcome.stderr.contains("Cookie"), "\(outcome)")
    }
}
