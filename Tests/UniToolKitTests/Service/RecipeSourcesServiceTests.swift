import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// JSON, iCalendar and POST sources, and the user's own values for a recipe, through the service
/// in process against the demo's learning platform and catalogue, shaped as Moodle and a library
/// OPAC serve them. What only the binary shows (an argument the CLI refuses, `config set`, a
/// `--trace` file) stays in EndToEndTests (SourcesTests, UserValuesTests).
@Suite("JSON, iCalendar and POST sources, and the user's own values, through the service")
struct RecipeSourcesServiceTests {
    func texts(_ set: RecordSet, _ field: String) -> [String?] { set.records.map { $0[field]?.text } }

    // MARK: Sources (from EndToEndTests/SourcesTests)

    @Test("a JSON answer to a POSTed AJAX call, with the session key read from the dashboard first; HTML in a field becomes text")
    func jsonOverPost() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let courses = try await bench.run("lms-courses", on: demo)
            #expect(texts(courses, "code") == ["MATH-301", "CS-320", "HUN-250", "CS-340"])
            #expect(courses.records.first?["progress"] == .integer(72))
            #expect(courses.records.first?["summary"]?.text == "Taught by Prof. Erzsébet Szabó. Weekly\u{a0}sessions.")
            // The option reaches the JSON body: the demo has no past courses, which is an empty list, not an error.
            let past = try await bench.run("lms-courses", ["show": "past"], on: demo)
            #expect(past.records.isEmpty)
            let posts = await demo.requests.filter { $0.method == "POST" && $0.path == "/lms/lib/ajax/service.php" }
            #expect(posts.count == 2)
        }
    }

    @Test("an iCalendar export's events are records: folded and escaped text read whole, UTC times in the campus's zone")
    func calendarSource() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let deadlines = try await bench.run("deadlines", on: demo).records
            #expect(deadlines.count == 4)
            #expect(
                deadlines.first?["notes"]?.text == "Hand in your solutions for MATH-301, parts A; B and C. Late work is not marked.")
            #expect(deadlines.allSatisfy { ($0["due"]?.text ?? "").hasSuffix("T23:59:00+01:00") }, "\(deadlines)")
            #expect(deadlines.allSatisfy { ($0["uid"]?.text ?? "").hasSuffix("@demo.unitool.invalid") })
        }
    }

    @Test("a form POSTed with the option's words; no hits is an empty answer the page says it is")
    func formPost() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let hits = try await bench.run("catalogue", ["query": "information theory"], on: demo)
            #expect(texts(hits, "title") == ["Elements of Information Theory"])
            let none = try await bench.run("catalogue", ["query": "zzz"], on: demo)
            #expect(none.records.isEmpty)
            await #expect(throws: ArgumentProblem.self, "the query is needed in the form") {
                _ = try await bench.run("catalogue", on: demo)
            }
        }
    }

    @Test(
        "an action with no argument acts on what the portal lists; when nothing is left, the page's 'nothing to do' is an answer, not drift"
    )
    func actionWithoutArgument() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let loans = try bench.recipe("loans")
            let renewAll = try #require(loans.actions.first { $0.name == "renew-all" })
            func renew() async throws -> RecordSet {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(renewAll, of: loans, argument: "", interaction: ScriptedInteraction(confirms: true))
                }
            }
            let first = try await renew()
            // One record per loan renewed, which says which.
            #expect(first.records.count == 3, "the three loans due within a week: \(first)")
            #expect(first.records.allSatisfy { !($0["title"]?.text ?? "").isEmpty && $0["due"] != nil }, "\(first)")
            let second = try await renew()
            #expect(second.records.first?["result"]?.text == "nothing to do", "\(second)")
            #expect((second.records.first?["message"]?.text ?? "").contains("nothing to renew"), "\(second)")
        }
    }

    @Test("renew-all said yes to one list sends nothing when the portal's list changed meanwhile (a loan renewed on its own)")
    func listChangedSendsNothing() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let loans = try bench.recipe("loans")
            let renew = try #require(loans.actions.first { $0.name == "renew" })
            let renewAll = try #require(loans.actions.first { $0.name == "renew-all" })
            try await bench.withService(on: demo) { service, _ in
                let listed = try await service.preview(renewAll, of: loans, argument: "", interaction: ScriptedInteraction())
                #expect(listed.records.contains { $0["barcode"] == .string("31000103") }, "\(listed)")
                _ = try await service.perform(renew, of: loans, argument: "31000103", interaction: ScriptedInteraction(confirms: true))
                let changed = await #expect(throws: UniToolError.self) {
                    try await service.perform(
                        renewAll, of: loans, argument: "", confirmed: true, listed: listed, interaction: ScriptedInteraction())
                }
                #expect(changed?.kind == .declined && changed?.message.contains("changed") == true, "\(String(describing: changed))")
            }
            let posts = await demo.requests.filter { $0.method == "POST" && $0.path == "/library/renew-all" }
            #expect(posts.isEmpty, "nothing was sent: \(posts)")
        }
    }

    // MARK: The user's own values (from EndToEndTests/UserValuesTests)

    @Test(
        "moodle/deadlines without the user's token is credentials_missing naming 'config set value.…'; with it, the deadlines, and the university's folder holds no token"
    )
    func calendarToken() async throws {
        let examples = Fixtures.root.appendingPathComponent("Recipes/examples")
        let bench = try DemoServiceBench(acceptingTerms: false, recipes: [examples])
        defer { bench.remove() }
        let portalID = "uni-cas-moodle"
        let password = DemoData.users.first { $0.username == "alice" }?.password ?? ""
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=cas"), serviceHosts: ["127.0.0.2", "127.0.0.3"]) {
            demo in
            let portal = try bench.catalog.portal(portalID).relocated(to: demo.baseURL, hosts: demo.serviceHosts)
            let recipe = try bench.recipe("deadlines", portal: portalID)
            let request = try bench.request("deadlines", portal: portalID)
            func deadlines(_ userValues: @escaping UserValueProvider) async throws -> RecordSet {
                try await bench.withService(for: portal, password: password, userValues: userValues) { service, _ in
                    try await service.execute(request, of: recipe, interaction: Unattended()).records
                }
            }

            let missing = await #expect(throws: UniToolError.self) { _ = try await deadlines(PortalConnection.noUserValues) }
            #expect(missing?.kind == .credentialsMissing, "\(String(describing: missing))")
            let hint = missing?.hint ?? ""
            #expect(hint.contains("config set value.userid") || hint.contains("config set value.authtoken"), "\(hint)")

            let values = ["userid": "2", "authtoken": "demo"]
            let found = try await deadlines { name, recipe in
                guard let value = values[name] else { return try PortalConnection.noUserValues(name, recipe) }
                return value
            }
            #expect(found.records.contains { $0.fields.contains { $0.value.text.contains("CS-340") } }, "\(found)")
            #expect(!bench.log.messages.contains { $0.contains("authtoken=demo") }, "the token is in no log line")
        }
        let folder = try String(contentsOf: examples.appendingPathComponent("uni-cas-moodle/deadlines.yaml"), encoding: .utf8)
        #expect(!folder.contains("authtoken"), "the university's folder holds no user's token")
    }
}

/// Portals of the user's own folder, in process against a real socket: what the login says about
/// a page it did not expect, and where it will not send a password. The promise across processes
/// (one code per step) stays in EndToEndTests/PromisesEndToEndTests.
@Suite("Portals of the user's own: honest login errors and no password over plain HTTP, through the service")
struct OwnPortalServiceTests {
    /// Writes `files` (name → text) as the folder of portal `id` in a recipes folder of the
    /// sandbox, and returns that portal as the catalog reads it.
    func portal(_ id: String, _ files: [String: String], in bench: DemoServiceBench) throws -> PortalRecipe {
        let recipes = bench.sandbox.root.appendingPathComponent("own-recipes")
        let folder = recipes.appendingPathComponent(id)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return try RecipeCatalog(directories: [recipes]).portal(id)
    }

    // MARK: A login page that is no page (from EndToEndTests/LoginAnswersTests)

    @Test(
        "a 401 JSON answer where a login page was expected: login_failed, its status, type, size and first line, and a hint about the request"
    )
    func scriptAnswer() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        let idp = try RecordingHTTPServer { _ in
            .status(401, headers: ["Content-Type": "application/json"], body: #"{"result":0,"error":"9"}"#)
        }
        defer { idp.stop() }
        // The portal sends the browser to its login service, which is elsewhere.
        let server = try RecordingHTTPServer { _ in .status(302, headers: ["Location": idp.url("/?url=grades")]) }
        defer { server.stop() }
        let llng = try portal(
            "llng",
            [
                "portal.yaml": """
                portal: llng
                name: A portal behind LemonLDAP::NG
                base_url: \(server.baseURL.absoluteString)
                idp_url: \(idp.baseURL.absoluteString)
                credentials_may_go_to: [idp]
                login: { pages: [{ name: login, when: "//form[@id='lform']", fill: { user: "{{username}}", password: "{{password}}" } }] }

                """
            ], in: bench)
        let error = await #expect(throws: UniToolError.self) {
            try await bench.withService(for: llng, user: "jdoe", password: "pw") { service, _ in
                try await service.session(interaction: Unattended()) { _ = try await $0.logIn() }
            }
        }
        let text = "\(error?.message ?? "") \(error?.hint ?? "")"
        #expect(error?.kind == .loginFailed, "\(text)")
        #expect(text.contains("an answer for a script, not a page"), "\(text)")
        #expect(text.contains("HTTP 401, application/json, 24 bytes"), "\(text)")
        #expect(text.contains(#"begins "{"result":0,"error":"9"}""#), "\(text)")
        #expect(text.contains("--trace"), "the hint points at the request, not at the layout: \(text)")
        #expect(!text.contains("login.pages"), "\(text)")
    }

    // MARK: No password over plain HTTP (from EndToEndTests/PromisesEndToEndTests)

    /// A portal of the user's own named `id` at `base`, whose password may go to `credentials`
    /// (an origin the recipe allows: only the scheme, or the host's kind, is wrong).
    func plainPortal(_ id: String, base: URL, credentials: String, in bench: DemoServiceBench) throws -> PortalRecipe {
        try portal(
            id,
            [
                "portal.yaml": """
                portal: \(id)
                name: Plain HTTP University
                base_url: \(base.absoluteString)
                credentials_may_go_to: ["\(credentials)"]
                login:
                  start: /home
                  pages:
                    - name: sign in
                      when: "//form[@id='login']"
                      fill: { j_username: "{{username}}", j_password: "{{password}}" }
                  done_when: { xpath: "//a[@id='logout']" }
                """
            ], in: bench)
    }

    /// A sign-in page whose form posts to `action`; the answer to a POST is the signed-in page.
    static func signInServer(host: String = "127.0.0.1", action: String) throws -> RecordingHTTPServer {
        try RecordingHTTPServer(host: host) { request in
            if request.method == "POST" { return .status(200, body: "<p>Welcome <a id='logout' href='/logout'>Sign out</a></p>") }
            return .status(
                200,
                body: """
                    <html><head><title>Sign in</title></head><body>
                    <form id="login" method="post" action="\(action)">
                    <input name="j_username"><input type="password" name="j_password">
                    <button type="submit" name="_eventId_proceed">Sign in</button></form></body></html>
                    """)
        }
    }

    /// Logs in to `portal` with `password`, and checks that the service refused to post it
    /// without HTTPS and that nothing but the sign-in page reached the server.
    func expectRefusal(_ portal: PortalRecipe, server: RecordingHTTPServer, password: String, bench: DemoServiceBench) async {
        let error = await #expect(throws: UniToolError.self) {
            try await bench.withService(for: portal, password: password) { service, _ in
                try await service.session(interaction: Unattended()) { _ = try await $0.logIn() }
            }
        }
        let text = "\(error?.message ?? "") \(error?.hint ?? "")"
        #expect(error?.kind == .unsafeRequest, "\(text)")
        #expect(text.contains("without HTTPS"), "\(text)")
        #expect(!text.contains(password) && !bench.log.messages.contains { $0.contains(password) })
        let seen = server.requests.map { "\($0.method) \($0.path)" }
        #expect(seen.contains("GET /home"), "the service reached the sign-in page: \(seen)")
        #expect(!seen.contains { $0.hasPrefix("POST") }, "a form was posted: \(seen)")
        #expect(!server.requests.contains { $0.body.contains(password) }, "the password reached the server")
    }

    @Test(
        "a password is never posted over plain HTTP to a host that is not this machine: unsafe_request, and the server sees no POST",
        .enabled(if: RecordingHTTPServer.nonLoopbackIPv4Address() != nil, "needs an IPv4 address that is not loopback"))
    func noPasswordOverPlainHTTP() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        let address = try #require(RecordingHTTPServer.nonLoopbackIPv4Address())
        let server = try Self.signInServer(host: address, action: "/login")
        defer { server.stop() }
        let portal = try plainPortal("plain-lan", base: server.baseURL, credentials: server.baseURL.absoluteString, in: bench)
        await expectRefusal(portal, server: server, password: "lan-password-2026", bench: bench)
    }

    @Test("a host named 127.evil.example is not this machine: the password is refused before any lookup of the name")
    func lookalikeLoopbackName() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        // The portal is on loopback; its form posts to a name that merely starts with "127.".
        // Were it looked up, the name would not resolve and the login would end "cannot reach".
        let server = try Self.signInServer(action: "http://127.evil.example:8443/login")
        defer { server.stop() }
        let portal = try plainPortal("lookalike", base: server.baseURL, credentials: "http://127.evil.example:8443", in: bench)
        await expectRefusal(portal, server: server, password: "lookalike-password-2026", bench: bench)
    }
}
