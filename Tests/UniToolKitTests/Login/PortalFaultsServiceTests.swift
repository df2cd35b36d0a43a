import DemoUniversity
import Foundation
import Synchronization
import Testing
import UniToolKit
import UniToolTestSupport

/// The service against a demo university that fails, or logs in as real universities do (a live
/// IdP session, a time-out page, pages around the login), in process: the bundled recipes, the
/// service as the front ends call it, and a demo that shows the test every request that reached
/// it. What only the binary shows (exit codes as such, a JSON-RPC client, a drift report in the
/// user's cache, a public command, `doctor login`'s output) stays in EndToEndTests
/// (FaultInjectionTests, RealLoginsTests).
@Suite("Portal faults and real logins, through the service")
struct PortalFaultsServiceTests {
    /// `grades` of `term` (nil: the current one) for `user`, with a password source of the test's
    /// own (nil: the demo user's password) and the HTTP settings `configuration`.
    func grades(
        _ bench: DemoServiceBench, on demo: DemoUniversity, user: String = "alice", term: String? = nil,
        passwordSource: (@Sendable () throws -> Secret)? = nil, configuration: HTTPSession.Configuration = .init()
    ) async throws -> RecordSet {
        let known = Secret(DemoData.users.first { $0.username == user }?.password ?? "")
        let source: @Sendable () throws -> Secret = passwordSource ?? { known }
        let recipe = try bench.recipe("grades")
        let request = try bench.request("grades", term.map { ["term": $0] } ?? [:])
        return try await bench.withService(on: demo, user: user, passwordSource: source, configuration: configuration) { service, _ in
            try await service.execute(request, of: recipe, interaction: Unattended()).records
        }
    }

    func courses(_ set: RecordSet) -> [String] { set.records.compactMap { $0["course"]?.text } }

    func samlPosts(_ demo: DemoUniversity) async -> Int {
        await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }.count
    }

    /// Logs in once against a well-behaved demo, so that a saved session exists to be kept safe
    /// by the faulty run that follows.
    func warmUp(_ bench: DemoServiceBench) async throws {
        try await DemoUniversity.withRunning { demo in
            _ = try await grades(bench, on: demo, term: "2026-spring")
        }
        // The state the faulty run must keep: without it the comparisons would prove nothing.
        let saved = Set(bench.sandbox.snapshot().files.keys)
        try #require(saved.isSuperset(of: ["state/unitool/sessions/demo/alice.json", "config/unitool/terms/demo.json"]), "\(saved)")
    }

    /// The portal's session ends (its cookie goes from the saved session); the IdP's stays.
    func endPortalSession(_ bench: DemoServiceBench, user: String = "bence") throws {
        let jar = bench.sessions.load(portal: "demo", user: user)
        let kept = jar.cookies.filter { $0.name != DemoUniversity.sessionCookie }
        try #require(kept.count == jar.cookies.count - 1, "the portal's cookie was not in the session")
        try bench.sessions.save(CookieJar(cookies: kept), portal: "demo", user: user)
    }

    /// A password source that must not be needed: it counts its calls, and fails as a password
    /// command that fails does.
    final class FailingPasswordSource: Sendable {
        static let failure = "the test's password source failed"
        private let count = Atomic<Int>(0)
        var calls: Int { count.load(ordering: .relaxed) }
        var source: @Sendable () throws -> Secret {
            { [self] in
                _ = count.add(1, ordering: .relaxed)
                throw UniToolError(.credentialsMissing, Self.failure, hint: "give the password")
            }
        }
    }

    // MARK: Faults (from EndToEndTests/FaultInjectionTests)

    struct Failure: Sendable, CustomTestStringConvertible {
        let fault: String
        /// The request time-out, as `--timeout` gives it; nil keeps the default.
        let timeoutSeconds: Int64?
        let kind: UniToolError.Kind
        let message: String
        var testDescription: String { fault }
    }

    @Test(
        "a failing portal gives its own error kind and message, and the saved state is untouched",
        arguments: [
            Failure(fault: "hang", timeoutSeconds: 1, kind: .portalTimeout, message: "did not answer in time"),
            Failure(fault: "server-error", timeoutSeconds: nil, kind: .portalError, message: "answered 500 (Internal Server Error)"),
            Failure(fault: "server-error=502", timeoutSeconds: nil, kind: .portalError, message: "answered 502 (Bad Gateway)"),
            Failure(fault: "server-error=503", timeoutSeconds: nil, kind: .portalError, message: "answered 503 (Service Unavailable)"),
            Failure(fault: "reset", timeoutSeconds: nil, kind: .portalUnreachable, message: "the connection to http://127.0.0.1:"),
            Failure(fault: "truncated", timeoutSeconds: nil, kind: .portalUnreachable, message: "the connection to http://127.0.0.1:"),
            Failure(
                fault: "huge-page", timeoutSeconds: nil, kind: .portalError,
                message: "the portal sent more than unitool accepts: the page at"),
            Failure(fault: "redirect-loop", timeoutSeconds: nil, kind: .portalError, message: "redirected more than 20 times"),
        ])
    func failingPortal(failure: Failure) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await warmUp(bench)
        let before = bench.sandbox.snapshot()
        let configuration: HTTPSession.Configuration = {
            var configuration = HTTPSession.Configuration()
            if let seconds = failure.timeoutSeconds { configuration.requestTimeout = .seconds(seconds) }
            return configuration
        }()
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: failure.fault)) { demo in
            let error = await #expect(throws: UniToolError.self) {
                try await grades(bench, on: demo, term: "2026-spring", configuration: configuration)
            }
            #expect(error?.kind == failure.kind, "\(String(describing: error))")
            #expect(error?.message.contains(failure.message) == true, "\(String(describing: error))")
            #expect(error?.hint?.isEmpty == false, "every error says what to do: \(String(describing: error))")
            #expect(bench.sandbox.snapshot().files == before.files, "the saved state changed")
            #expect(bench.sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test("added latency slows the run down but it succeeds")
    func latency() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "latency=150")) { demo in
            let before = bench.sandbox.snapshot()
            let set = try await grades(bench, on: demo)
            #expect(courses(set).contains("Probability Theory"), "\(courses(set))")
            #expect(bench.sandbox.stateProblems(since: before).isEmpty, "the new session is saved whole")
        }
    }

    @Test("a page with bytes that are not UTF-8 is read with replacement characters; no row is lost")
    func invalidUTF8() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let expected = try await DemoUniversity.withRunning { clean in
            try await grades(bench, on: clean, term: "2026-spring")
        }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "invalid-utf8")) { demo in
            let before = bench.sandbox.snapshot()
            let set = try await grades(bench, on: demo, term: "2026-spring")
            #expect(set.records.count == expected.records.count && set.records.count > 1, "\(set)")
            let damaged = set.records.contains { record in record.fields.contains { $0.value.text.contains("\u{FFFD}") } }
            #expect(damaged, "the damaged bytes show as U+FFFD: \(set)")
            #expect(Array(set.records.dropFirst()) == Array(expected.records.dropFirst()))
            #expect(bench.sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test("a session that expires in the middle of a run is renewed once, and every term is still read")
    func sessionExpiresMidRun() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "expire-after=2")) { demo in
            let before = bench.sandbox.snapshot()
            let set = try await grades(bench, on: demo, term: "all")
            for term in ["2025-fall", "2026-spring", "2026-fall"] {
                #expect(set.records.contains { $0["term"]?.text == term }, "\(term)")
            }
            let requests = await demo.requests
            let logins = requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }
            #expect(logins.count == 2, "one login, one renewal: \(requests)")
            #expect(bench.sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test(
        "an IdP that is down while the portal is up: sign-in fails (portal_error, exit 22) naming the login service; a saved session still works"
    )
    func idpDown() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "idp-down")) { demo in
            let before = bench.sandbox.snapshot()
            let cold = await #expect(throws: UniToolError.self) { try await grades(bench, on: demo) }
            #expect(cold?.kind == .portalError, "\(String(describing: cold))")
            #expect(cold?.message.contains("login service answered 503") == true, "\(String(describing: cold))")
            #expect(cold?.message.contains("the portal itself may be up") == true, "\(String(describing: cold))")
            #expect(bench.sandbox.snapshot().files == before.files)
            // With a session saved while the IdP was up, the portal's pages need no sign-in.
            try await warmUp(bench)
            let warm = try await grades(bench, on: demo, term: "2026-spring")
            #expect(!warm.records.isEmpty)
        }
    }

    // MARK: Real logins (from EndToEndTests/RealLoginsTests)

    @Test(
        "a re-login through a live IdP session costs the SAML round trip and no request more, though the SP rebuilds the address it returns to"
    )
    func reloginCostsNoExtraRequest() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=idp-session,login=rebuilt-target")) { demo in
            _ = try await grades(bench, on: demo, user: "bence", term: "2026-fall")
            try endPortalSession(bench)
            let before = await demo.requests.count
            let again = try await grades(bench, on: demo, user: "bence", term: "2026-fall")
            #expect(courses(again).contains("Számítógépes hálózatok"), "\(courses(again))")
            let all = await demo.requests
            let requests = all.dropFirst(before).filter { !$0.isTermsCheck }.map { "\($0.method) \($0.path)" }
            // The page, the IdP's single sign-on (answered at once from its session), the SAML POST
            // to the SP, and the SP's redirect back to the page: four requests, the page never asked a third time.
            #expect(
                requests == [
                    "GET /grades", "GET /idp/profile/SAML2/Redirect/SSO", "POST /Shibboleth.sso/SAML2/POST", "GET /grades",
                ], "\(requests)")
        }
    }

    @Test(
        "a re-login through a live IdP session needs no password: a password source that fails is never read; without the IdP session its failure is the error (credentials_missing, exit 40)"
    )
    func reloginThroughIdPSession() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let password = FailingPasswordSource()
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=idp-session")) { demo in
            _ = try await grades(bench, on: demo, user: "bence", term: "2026-fall")
            try endPortalSession(bench)
            let before = await demo.requests.count

            let again = try await grades(bench, on: demo, user: "bence", term: "2026-fall", passwordSource: password.source)
            #expect(courses(again).contains("Számítógépes hálózatok"), "\(courses(again))")
            #expect(password.calls == 0, "the password source was read")
            let all = await demo.requests
            let requests = Array(all.dropFirst(before))
            #expect(requests.contains { $0.path == "/Shibboleth.sso/SAML2/POST" }, "the login went through the IdP: \(requests)")
            #expect(!requests.contains { $0.method == "POST" && $0.path.hasPrefix("/idp/") }, "no form was posted to the IdP: \(requests)")

            // Without the IdP session, the same run needs the password, and says where it failed.
            try bench.sessions.save(CookieJar(), portal: "demo", user: "bence")
            let cold = await #expect(throws: UniToolError.self) {
                try await grades(bench, on: demo, user: "bence", passwordSource: password.source)
            }
            #expect(cold?.kind == .credentialsMissing, "\(String(describing: cold))")
            #expect(cold?.message.contains(FailingPasswordSource.failure) == true, "\(String(describing: cold))")
            #expect(password.calls == 1)
        }
    }

    struct Variant: Sendable, CustomTestStringConvertible {
        let fault: String
        /// A request the login must have made (method and path).
        let visited: (String, String)
        var testDescription: String { fault }
    }

    @Test(
        "pages around the login that the demo recipe's rules handle: a cold run works in one call, with one login",
        arguments: [
            Variant(fault: "login=login-link", visited: ("GET", "/Shibboleth.sso/Login")),  // follow: a "Log in" link
            Variant(fault: "login=reminder-link", visited: ("GET", "/reminder")),  // after_login follow
            Variant(fault: "login=reminder-form", visited: ("POST", "/reminder")),  // after_login form
            Variant(fault: "login=page-expired", visited: ("GET", "/idp/profile/SAML2/Redirect/SSO")),  // restart link
            Variant(fault: "login=post-binding", visited: ("POST", "/idp/profile/SAML2/POST/SSO")),  // SP-initiated POST binding
        ])
    func pagesAroundTheLogin(variant: Variant) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: variant.fault)) { demo in
            let set = try await grades(bench, on: demo, term: "2026-fall")
            #expect(courses(set).contains("Probability Theory"), "\(courses(set))")
            let posts = await samlPosts(demo)
            #expect(posts == 1)
            let requests = await demo.requests
            #expect(requests.contains { $0.method == variant.visited.0 && $0.path == variant.visited.1 }, "\(requests)")
            if variant.fault == "login=page-expired" {
                #expect(requests.filter { $0.path == "/idp/profile/SAML2/Redirect/SSO" && $0.method == "GET" }.count == 2)
            }
            // A login from an empty session, as `doctor login` makes it, ends logged in.
            let steps = try await bench.withService(on: demo, startEmpty: true) { _, connection in
                let seen = StepLog()
                _ = try await connection.logIn { seen.append($0) }
                return seen.all
            }
            #expect(steps.last?.action == .loggedIn, "\(steps.map(\.action))")
        }
    }

    /// Login steps from the observer, which may call from another task.
    final class StepLog: Sendable {
        private let steps = Mutex<[LoginStep]>([])
        func append(_ step: LoginStep) { steps.withLock { $0.append(step) } }
        var all: [LoginStep] { steps.withLock { $0 } }
    }

    @Test(
        "without after_login, a post-login page is refused as a second login (login_failed, exit 14), and the error says what to mark"
    )
    func postLoginPageWithoutRule() async throws {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=reminder-form")) { demo in
            try recipes.installPortalCopy("campus", at: demo.baseURL) { portal in
                portal.replacingOccurrences(
                    of: "      submit: \".//button[@name='later']\"\n      after_login: true\n",
                    with: "      submit: \".//button[@name='later']\"\n")
            }
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            try bench.sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let recipe = try bench.recipe("grades", portal: "campus")
            let request = try bench.request("grades", ["term": "2026-fall"], portal: "campus")
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo, user: "alice", password: "wonderland", portal: "campus") { service, _ in
                    try await service.execute(request, of: recipe, interaction: Unattended()).records
                }
            }
            #expect(error?.kind == .loginFailed, "\(String(describing: error))")
            let text = error?.description ?? ""
            #expect(text.contains("asked for a login again right after a successful one"), "\(text)")
            #expect(text.contains("after_login: true"), "\(text)")
        }
    }

    @Test("the portal's own time-out page (200): one fresh login in the same run, which then works")
    func timeoutPageRestartsTheLogin() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { clean in
            _ = try await grades(bench, on: clean, term: "2026-spring")
        }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=timeout-page")) { demo in
            let set = try await grades(bench, on: demo, term: "2026-spring")
            #expect(courses(set).contains("Analysis II"), "\(courses(set))")
            let posts = await samlPosts(demo)
            #expect(posts == 1, "exactly one fresh login")
        }
    }

    @Test(
        "a time-out page on a host the IdP shares forgets the portal's cookies, not the IdP's: the IdP's session signs in again with no password"
    )
    func timeoutPageKeepsTheIdPSession() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=idp-session")) { clean in
            _ = try await grades(bench, on: clean, term: "2026-spring")
            let received = await clean.passwordsReceived
            #expect(received == 1)
        }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=timeout-page,login=idp-session")) { demo in
            let set = try await grades(bench, on: demo, term: "2026-spring")
            #expect(courses(set).contains("Analysis II"), "\(courses(set))")
            let posts = await samlPosts(demo)
            #expect(posts == 1, "exactly one fresh sign-on")
            let received = await demo.passwordsReceived
            #expect(received == 0, "the IdP's session, kept, signed the user in")
        }
    }
}
