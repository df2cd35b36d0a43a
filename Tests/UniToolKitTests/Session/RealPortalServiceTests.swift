import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// What a real portal's pages and identity providers do to the service, in process: a login met
/// while fetching ends back at that page, one sign-on for two requests, the portal's zone, a
/// recipe's own headers on the wire, `read:` by POST, legacy encodings, a terms API behind the
/// login or with a trailing comma, a time-out page that deletes the cookie. What only the process
/// shows (`unitool page` and saved fixtures, `recipes lint`, doctor's output, the overview, HAR
/// traces, the CLI's choice of user, stderr) stays in EndToEndTests/RealIdPRequestsTests and
/// EndToEndTests/RealPagesTests.
@Suite("Real portals, through the service: logins that end where they began, zones, headers, encodings, terms behind the login")
struct RealPortalServiceTests {
    func samlPosts(_ demo: DemoUniversity, since start: Int = 0) async -> Int {
        await demo.requests.dropFirst(start).filter { $0.method == "POST" && $0.path.hasPrefix("/Shibboleth.sso/SAML2/POST") }.count
    }

    /// Every value of every record, for checks of what the records say.
    func shown(_ set: RecordSet) -> String {
        set.records.flatMap { record in record.fields.map { field in field.value.text } }.joined(separator: "\n")
    }

    static func stale(_ version: String) -> String { "accept version \(version)" }

    /// Runs `command` of `portal` once through a service of its own, as one front-end call does.
    func run(
        _ bench: DemoServiceBench, _ command: String, _ options: [String: String] = [:], portal: String = "demo",
        on demo: DemoUniversity
    ) async throws -> RecordSet {
        let recipe = try bench.recipe(command, portal: portal)
        let request = try bench.request(command, options, portal: portal)
        return try await bench.withService(on: demo, portal: portal) { service, _ in
            try await service.execute(request, of: recipe, interaction: Unattended()).records
        }
    }

    // MARK: Logins that end where they began

    @Test("a terms API behind the login, with done_when written for the start page: the login ends back at the API")
    func loginEndsAtTheRequestedPage() async throws {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        var faults = DemoFaults()
        faults.termsAPI = .protected
        try await DemoUniversity.withRunning(faults: faults) { demo in
            try recipes.installPortalCopy("campus", at: demo.baseURL, commands: ["grades", "headlines"]) { portal in
                portal.replacingOccurrences(
                    of: "done_when: { xpath: \"//a[@id='logout']\" }", with: "done_when: { url: \"^/home\" }")
            }
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            let status = try await bench.withService(on: demo, portal: "campus") { _, connection in
                try await connection.termsStatus(bench.acceptedTerms)
            }
            #expect(status.current?.version == DemoUniversity.initialTermsVersion, "\(status)")
            let posts = await samlPosts(demo)
            #expect(posts == 1)
            // A page elsewhere on the portal that fails done_when is still the recipe's error.
            let accepted = try await bench.withService(on: demo, portal: "campus") { _, connection in
                try await connection.acceptTerms(version: nil, store: bench.acceptedTerms, staleHint: Self.stale)
            }
            #expect(accepted == DemoUniversity.initialTermsVersion)
            let grades = try await run(bench, "grades", ["term": "2026-spring"], portal: "campus", on: demo)
            #expect(shown(grades).contains("Analysis II"), "\(shown(grades))")
        }
    }

    @Test(
        "terms behind the login and a live IdP session, the portal's session gone: the terms check signs in once, and the page is asked again on its session"
    )
    func oneSignOnForTwoRequests() async throws {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        var faults = try DemoFaults(parsing: "login=idp-session")
        faults.termsAPI = .protected
        try await DemoUniversity.withRunning(faults: faults) { demo in
            try recipes.installPortalCopy("campus", at: demo.baseURL, commands: ["grades"])
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            _ = try await bench.withService(on: demo, portal: "campus") { _, connection in
                try await connection.acceptTerms(version: nil, store: bench.acceptedTerms, staleHint: Self.stale)
            }
            let file = bench.sessions.file(portal: "campus", user: "alice")
            for round in 1...3 {
                // The portal's session ends; the IdP's stays.
                var session = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
                session["cookies"] = (session["cookies"] as? [[String: Any]] ?? []).filter {
                    $0["name"] as? String != DemoUniversity.sessionCookie
                }
                try JSONSerialization.data(withJSONObject: session).write(to: file)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)

                let before = await demo.requests.count
                let grades = try await run(bench, "grades", ["term": "2026-spring"], portal: "campus", on: demo)
                #expect(shown(grades).contains("Analysis II"), "round \(round): \(shown(grades))")
                let requests = Array(await demo.requests.dropFirst(before)).map { "\($0.method) \($0.path)" }
                #expect(requests.filter { $0.hasPrefix("GET /idp/") }.count == 1, "round \(round): \(requests)")
                // No cookie of the portal's is left: the terms check and the page still go out
                // at once (the terms API may be public). Both meet the login; the check signs in
                // through the IdP's session, and the page, held at its redirect while the check
                // was not done, asks for itself again on that session: one sign-on for both.
                #expect(
                    requests.sorted() == [
                        "GET /api/terms/version", "GET /api/terms/version", "GET /grades", "GET /grades",
                        "GET /idp/profile/SAML2/Redirect/SSO", "POST /Shibboleth.sso/SAML2/POST",
                    ], "round \(round): the page and the terms API twice each, one sign-on, one SAML POST: \(requests)")
            }
            // The portal's session ends, its cookie still in the jar: the terms check and the
            // page go out at once, both meet the login, and one sign-on serves both; the page
            // held at its redirect asks for itself again once the terms check has signed in.
            for round in 1...3 {
                var session = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
                session["cookies"] = (session["cookies"] as? [[String: Any]] ?? []).map { cookie in
                    var cookie = cookie
                    if cookie["name"] as? String == DemoUniversity.sessionCookie { cookie["value"] = "ended-\(round)" }
                    return cookie
                }
                try JSONSerialization.data(withJSONObject: session).write(to: file)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)

                let before = await demo.requests.count
                let grades = try await run(bench, "grades", ["term": "2026-spring"], portal: "campus", on: demo)
                #expect(shown(grades).contains("Analysis II"), "stale round \(round): \(shown(grades))")
                let requests = Array(await demo.requests.dropFirst(before)).map { "\($0.method) \($0.path)" }
                #expect(
                    requests.sorted() == [
                        "GET /api/terms/version", "GET /api/terms/version", "GET /grades", "GET /grades",
                        "GET /idp/profile/SAML2/Redirect/SSO",
                        "POST /Shibboleth.sso/SAML2/POST",
                    ], "stale round \(round): the page and the terms API twice each, one sign-on, one SAML POST: \(requests)")
            }
        }
    }

    // MARK: Zones, headers, read:

    @Test("the portal's timezone: applies to a date-time with no zone of its own, and the value keeps the offset")
    func portalZone() async throws {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        try await DemoUniversity.withRunning { demo in
            let folder = try recipes.installPortalCopy("campus", at: demo.baseURL, commands: ["headlines"])
            let file = folder.appendingPathComponent("headlines.yaml")
            let recipe = try String(contentsOf: file, encoding: .utf8)
            try #require(recipe.contains("timezone: Europe/Budapest, "))
            try recipe.replacingOccurrences(of: "timezone: Europe/Budapest, ", with: "").write(to: file, atomically: true, encoding: .utf8)
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            try bench.sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let headlines = try await run(bench, "headlines", portal: "campus", on: demo)
            let dates: [String] = headlines.records.compactMap {
                if case .datetime(let value)? = $0["date"] { return value }
                return nil
            }
            #expect(!dates.isEmpty && dates.count == headlines.records.count, "\(headlines.records)")
            // Budapest is UTC+1 in winter and UTC+2 in summer; never Z.
            #expect(dates.allSatisfy { $0.hasSuffix("+01:00") || $0.hasSuffix("+02:00") }, "\(dates)")
        }
    }

    @Test(
        "headers: of the portal and of the command reach the portal with the portal's Accept-Language, and neither follows a redirect elsewhere"
    )
    func recipeHeadersOnTheWire() async throws {
        let elsewhere = try RecordingHTTPServer { _ in .status(200, body: "<ul><li>elsewhere</li></ul>") }
        defer { elsewhere.stop() }
        let portal = try RecordingHTTPServer { request in
            request.path == "/moved"
                ? .status(302, headers: ["Location": elsewhere.url("/list")]) : .status(200, body: "<ul><li>one</li></ul>")
        }
        defer { portal.stop() }
        let recipes = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-recipes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: recipes) }
        let pack = recipes.appendingPathComponent("hdr")
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
        let bench = try DemoServiceBench(recipes: [recipes])
        defer { bench.remove() }
        func ask(_ command: String) async throws -> RecordSet {
            let recipe = try bench.recipe(command, portal: "hdr")
            let request = try bench.request(command, portal: "hdr")
            return try await bench.withService(at: portal.baseURL, portal: "hdr") { service, _ in
                try await service.execute(request, of: recipe, interaction: Unattended()).records
            }
        }
        let list = try await ask("list")
        #expect(shown(list).contains("one"), "\(shown(list))")
        let asked = try #require(portal.requests.first { $0.path == "/list" })
        #expect(asked.headers["x-portal-key"] == "portal-value" && asked.headers["x-command"] == "command-value", "\(asked.headers)")
        #expect(asked.headers["accept"] == "text/html", "the command's Accept replaces the browser's: \(asked.headers)")
        #expect(asked.headers["accept-language"] == "hu,en;q=0.8", "\(asked.headers)")

        _ = try? await ask("moved")
        #expect(portal.requests.contains { $0.path == "/moved" && $0.headers["x-command"] == "command-value" })
        let followed = elsewhere.requests
        #expect(followed.count == 1, "the redirect was followed to the other origin once: \(followed)")
        #expect(followed.allSatisfy { $0.headers["x-portal-key"] == nil && $0.headers["x-command"] == nil }, "\(followed)")
    }

    @Test(
        "a portal's headers: reach its login pages too: an Accept that names JSON gets the IdP's 401, which the login names as an answer for a script, pointing at headers:"
    )
    func portalHeadersReachTheLogin() async throws {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        try await DemoUniversity.withRunning { demo in
            try recipes.installPortalCopy("campus", at: demo.baseURL) { portal in
                portal.replacingOccurrences(of: "\nlogin:\n", with: "\nheaders: { Accept: \"application/json\" }\nlogin:\n")
            }
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            // What `auth login` asks of the connection: a login from the start page that proves the password.
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo, startEmpty: true, portal: "campus") { _, connection in
                    try await connection.provePassword()
                }
            }
            #expect(error?.kind == .loginFailed, "\(String(describing: error))")
            let text = error?.description ?? ""
            #expect(text.contains("an answer for a script") && text.contains("application/json"), "\(text)")
            #expect(text.contains("headers:"), "\(text)")
            let received = await demo.passwordsReceived
            #expect(received == 0)
        }
    }

    @Test("read: may POST a form or JSON and read the value from a JSON answer (issue 35)")
    func readByPost() async throws {
        let portal = try RecordingHTTPServer { request in
            switch request.path {
            case "/token": .status(200, headers: ["Content-Type": "application/json"], body: #"{"data":{"token":"t-42"}}"#)
            default: .status(200, body: "<ul><li>listed</li></ul>")
            }
        }
        defer { portal.stop() }
        let recipes = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-recipes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: recipes) }
        let pack = recipes.appendingPathComponent("poster")
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
        let bench = try DemoServiceBench(recipes: [recipes])
        defer { bench.remove() }
        let recipe = try bench.recipe("list", portal: "poster")
        let request = try bench.request("list", ["kind": "a\"b"], portal: "poster")
        let list = try await bench.withService(at: portal.baseURL, portal: "poster") { service, _ in
            try await service.execute(request, of: recipe, interaction: Unattended()).records
        }
        #expect(shown(list).contains("listed"), "\(shown(list))")
        let posted = try #require(portal.requests.first { $0.path == "/token" })
        #expect(posted.method == "POST" && posted.body == #"{"kind":"a\"b"}"#, "\(posted)")
        // {{today_epoch}}: the first second of today, in the zone unitool runs in.
        let midnight = Int(Calendar.current.startOfDay(for: Date()).timeIntervalSince1970)
        #expect(portal.requests.contains { $0.method == "GET" && $0.path == "/list?token=t-42&from=\(midnight)" }, "\(portal.requests)")
    }

    // MARK: Encodings

    @Test("a Windows-31J page labelled Shift_JIS only in the HTTP header: every row, exactly")
    func windows31J() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let expected = try await DemoUniversity.withRunning { clean in
            try await run(bench, "grades", ["term": "all"], on: clean)
        }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "legacy-charset")) { legacy in
            // The fault really serves Shift_JIS bytes, with no <meta> to tell.
            let page = try await bench.withService(on: legacy) { service, _ in
                try await service.fetch("/grades?term=2025-fall", interaction: Unattended())
            }
            let raw = Data(page.page.body)
            #expect(raw.range(of: Data([0x87, 0x54])) != nil, "Ⅰ as Windows-31J's NEC row 13")
            #expect(String(data: raw, encoding: .utf8) == nil)
            #expect(raw.range(of: Data("charset".utf8)) == nil)

            let grades = try await run(bench, "grades", ["term": "all"], on: legacy)
            #expect(grades == expected)
            let text = shown(grades)
            #expect(text.contains("日本語初級Ⅰ (Japanese for Beginners I)") && text.contains("Academic Writing ①"), "\(text)")
            #expect(!bench.log.messages.contains { $0.contains("encoding error") })
        }
    }

    // MARK: Terms behind the login, terms in odd JSON

    @Test("a terms API behind the login: a cold session works in one call, with one login")
    func termsBehindTheLogin() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        var faults = DemoFaults()
        faults.termsAPI = .protected
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let file = bench.sessions.file(portal: "demo", user: "alice")
            #expect(!FileManager.default.fileExists(atPath: file.path))
            let grades = try await run(bench, "grades", ["term": "2026-spring"], on: demo)
            #expect(shown(grades).contains("Analysis II"), "\(shown(grades))")
            let posts = await samlPosts(demo)
            #expect(posts == 1, "the terms check logs in, and the data request uses that login")
            // The terms status from a cold session too.
            try FileManager.default.removeItem(at: file)
            let status = try await bench.withService(on: demo) { _, connection in try await connection.termsStatus(bench.acceptedTerms) }
            #expect(status.isUpToDate, "\(status)")
        }
    }

    @Test("a terms API that answers JSON with a trailing comma is read")
    func trailingComma() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        var faults = DemoFaults()
        faults.termsAPI = .trailingComma
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let status = try await bench.withService(on: demo) { _, connection in try await connection.termsStatus(bench.acceptedTerms) }
            #expect(status.current?.version == DemoUniversity.initialTermsVersion, "\(status)")
        }
    }

    // MARK: State that follows the portal

    @Test("a time-out page that deletes the session cookie: that call fails, its cookie change is kept, the next call logs in and works")
    func timeoutPageDeletesCookie() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        _ = try await DemoUniversity.withRunning { clean in
            try await run(bench, "grades", ["term": "2026-spring"], on: clean)
        }
        let sessionFile = bench.sessions.file(portal: "demo", user: "alice")
        let warm = try String(contentsOf: sessionFile, encoding: .utf8)
        #expect(warm.contains(DemoUniversity.sessionCookie))

        var faults = DemoFaults()
        faults.sessionTimeout = true
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let before = bench.sandbox.snapshot()
            let error = await #expect(throws: UniToolError.self) { try await run(bench, "grades", ["term": "2026-spring"], on: demo) }
            #expect(error?.kind == .layoutChanged, "\(String(describing: error))")
            // The portal deleted its cookie; the saved session says so, and no temporary is left.
            let saved = try String(contentsOf: sessionFile, encoding: .utf8)
            #expect(!saved.contains("\"\(DemoUniversity.sessionCookie)\""))
            let problems = bench.sandbox.stateProblems(since: before)
            #expect(problems.isEmpty, "\(problems)")

            let grades = try await run(bench, "grades", ["term": "2026-spring"], on: demo)
            #expect(shown(grades).contains("Analysis II"), "\(shown(grades))")
            let posts = await samlPosts(demo)
            #expect(posts == 1, "the next call logs in once, without the dead cookie")
        }
    }
}
