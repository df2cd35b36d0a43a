import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The login through every page type the demo university can put in the way, in process: the
/// bundled recipe, the service as the front ends call it, and a demo that shows the test every
/// request that reached it. The process-level side (exit codes, several processes at once,
/// `--trace` files) stays in EndToEndTests/LoginPagesTests.
@Suite("Login pages and sessions, through the service")
struct LoginPagesServiceTests {
    /// `grades` of one term (an explicit term: `current` would first read the term off the portal).
    func grades(_ bench: DemoServiceBench, on demo: DemoUniversity, user: String = "alice", term: String? = "2026-spring")
        async throws -> RecordSet
    {
        let recipe = try bench.recipe("grades")
        let request = try RecipeRequest(recipe: recipe, options: term.map { [("term", .string($0))] } ?? [], naming: .rpc)
        return try await bench.withService(on: demo, user: user) { service, _ in
            try await service.execute(request, of: recipe, interaction: Unattended()).records
        }
    }

    /// The error a run of `grades` ends with.
    func failure(_ bench: DemoServiceBench, on demo: DemoUniversity, user: String = "alice") async -> UniToolError? {
        await #expect(throws: UniToolError.self) { try await grades(bench, on: demo, user: user) }
    }

    func courses(_ set: RecordSet) -> [String] { set.records.compactMap { $0["course"]?.text } }

    @Test(
        "each login page type is recognised and handled by the bundled recipe",
        arguments: [
            ("login=discovery", ["where are you from", "user id", "password", "saml post"]),
            ("login=local-storage", ["local storage", "user id", "password", "saml post"]),
            ("login=combined-login", ["user id and password", "saml post"]),
            ("login=meta-refresh", ["meta refresh", "user id", "password", "saml post"]),
            (
                "login=discovery,login=meta-refresh,login=local-storage,login=combined-login",
                ["meta refresh", "where are you from", "meta refresh", "local storage", "user id and password", "saml post"]
            ),
        ])
    func pageTypes(variants: String, expected: [String]) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        var faults = try DemoFaults(parsing: variants)
        faults.latencyMilliseconds = 0
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let set = try await grades(bench, on: demo, term: nil)
            #expect(courses(set).contains("Probability Theory"), "\(courses(set))")
            #expect(bench.log.loginPages == expected)
        }
    }

    @Test("an IdP error page stops the login with the IdP's own words: login_failed (exit 14), not 'wrong password'")
    func idpErrorPage() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=error-page")) { demo in
            let error = await failure(bench, on: demo)
            #expect(error?.kind == .loginFailed)
            let text = error?.description ?? ""
            #expect(text.contains("the login failed on the 'idp error' page"), "\(text)")
            #expect(text.contains("down for maintenance until 06:00"))
            #expect(!text.contains("wrong user name"))
        }
    }

    @Test("attribute release (consent) is accepted by the recipe with only the Accept button sent")
    func consentAccepted() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let set = try await grades(bench, on: demo, user: "dora", term: nil)
            #expect(courses(set).contains("Introduction to Programming"), "\(courses(set))")
            #expect(bench.log.loginPages == ["user id", "password", "attribute release", "saml post"])
        }
    }

    @Test("a second run within the session's lifetime sends exactly one request for the data, and no login")
    func savedSessionOneRequest() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            _ = try await grades(bench, on: demo)
            let before = await demo.requests.count
            _ = try await grades(bench, on: demo)
            let requests = Array(await demo.requests.dropFirst(before))
            #expect(requests.filter { !$0.isTermsCheck }.map(\.path) == ["/grades"], "\(requests)")
            #expect(requests.filter(\.isTermsCheck).count == 1, "the terms version is asked once per run")
        }
    }

    @Test("an expired session triggers exactly one transparent re-login")
    func expiredSessionOneRelogin() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { first in _ = try await grades(bench, on: first) }
        // A restarted portal that has dropped every session issued before it started.
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "expire-sessions")) { demo in
            let set = try await grades(bench, on: demo, term: nil)
            #expect(courses(set).contains("Probability Theory"))
            let requests = await demo.requests
            #expect(requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }.count == 1, "\(requests)")
            #expect(requests.filter { $0.method == "GET" && $0.path == "/idp/profile/SAML2/Redirect/SSO" }.count == 1)
        }
    }

    @Test("a portal that bounces to the login again right after a successful one is an error, not a loop: login_failed")
    func secondBounceIsAnError() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "reject-sessions")) { demo in
            let error = await failure(bench, on: demo)
            #expect(error?.kind == .loginFailed)
            #expect(error?.message.contains("asked for a login again right after a successful one") == true, "\(String(describing: error))")
            let logins = await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }
            #expect(logins.count == 1, "unitool logged in more than once")
        }
    }

    @Test("a GET answered 503, or 429 with Retry-After, is tried again and the run succeeds", arguments: ["busy=503", "busy=429"])
    func busyPortalIsRetried(fault: String) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: fault)) { demo in
            let set = try await grades(bench, on: demo)
            #expect(courses(set).contains("Analysis II"))
            #expect(bench.log.messages.contains { $0.contains("trying again in") })
            let grades = await demo.requests.filter { $0.path == "/grades" }
            #expect(grades.count >= 3, "the busy answer, the login's return and the retried page: \(grades)")
        }
    }

    @Test("a password form aimed at a look-alike origin is refused (unsafe_request, exit 23) and nothing is sent there")
    func lookalikeOriginRefused() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "lookalike-idp")) { demo in
            let error = await failure(bench, on: demo)
            #expect(error?.kind == .unsafeRequest)
            #expect(error?.message.contains("refusing to send the password to http://localhost:") == true, "\(String(describing: error))")
            let requests = await demo.requests
            #expect(!requests.contains { $0.host.hasPrefix("localhost") }, "\(requests)")
        }
    }
}
