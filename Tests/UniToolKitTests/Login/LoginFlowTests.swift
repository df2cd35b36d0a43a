import DemoUniversity
import Foundation
import Logging
import Testing
import UniToolKit
import UniToolTestSupport

/// The login flow over real HTTP against the demo university on loopback.
@Suite("Login flow against the demo university")
struct LoginFlowTests {
    func withDemo(
        faults: DemoFaults = DemoFaults(), _ body: (PortalRecipe, DataRecipe, URL) async throws -> Void
    ) async throws {
        let demo = try await DemoUniversity.start(faults: faults)
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let portal = try catalog.portal("demo").relocated(to: demo.baseURL)
        let grades = try catalog.recipe(portal: "demo", command: "grades")
        let sandbox = try Sandbox()
        let result = await Result { try await body(portal, grades, sandbox.root) }
        sandbox.remove()
        await demo.stop()
        try result.get()
    }

    /// Runs `body` on the connection and closes it whatever happens: async-http-client traps
    /// on a client that is never shut down, which would turn one failed test into a crash.
    func using<T: Sendable>(_ connection: PortalConnection, _ body: (PortalConnection) async throws -> T) async throws -> T {
        let result = await Result { try await body(connection) }
        await connection.close()
        return try result.get()
    }

    /// Folders of the tests' own for what a run keeps besides the session (offered values, drift
    /// reports): nothing of these tests reaches the user's folders.
    static let scratch = Locations.sandbox(
        FileManager.default.temporaryDirectory.appendingPathComponent("unitool-login-flow-\(UUID().uuidString)"))

    /// The demo's terms, accepted in the scratch folders: these tests are about the login.
    static let termsAccepted: Void = {
        try! AcceptedTermsStore(directory: scratch.acceptedTerms)
            .save(AcceptedTerms(portal: "demo", version: DemoUniversity.initialTermsVersion))
    }()

    /// The workspace of these tests: the scratch folders, with sessions kept under `store`
    /// (`nil`: none kept), or the terms accepted in `terms` instead of the scratch folders'.
    func workspace(sessionsIn store: URL? = nil, terms: URL? = nil) -> Workspace {
        Self.termsAccepted
        var locations = Self.scratch
        if let store { locations.state = store }
        if let terms { locations.config = terms }
        return Workspace(locations: locations, logger: Logger(label: "test"))
    }

    func connection(_ portal: PortalRecipe, user: String, password: String, store: URL?) -> PortalConnection {
        workspace(sessionsIn: store).connection(
            to: portal, as: user, credentials: { Credentials(username: user, password: Secret(password)) },
            use: store == nil ? .untouched : .saved)
    }

    @Test("SAML login through user ID and password pages, then the grades of the current term")
    func loginAndGrades() async throws {
        try await withDemo { portal, grades, _ in
            let connection = connection(portal, user: "alice", password: "wonderland", store: nil)
            let set = try await using(connection) { try await $0.run(grades, options: [:]) }
            #expect(set.records.count == 4)
            #expect(set.records.allSatisfy { $0["term"] == .string("2026-fall") })
            #expect(set.records[1]["course"] == .string("情報理論 (Information Theory)"))
        }
    }

    @Test("an explicit login ends on the logged-in home page")
    func explicitLogin() async throws {
        try await withDemo { portal, _, _ in
            let connection = connection(portal, user: "bence", password: "Kaland-2026", store: nil)
            let page = try await using(connection) { try await $0.logIn() }
            #expect(page.url.path == "/home")
            #expect(try page.document().title?.contains("Home") == true)
        }
    }

    @Test("a wrong password is reported as such, with the portal's own words")
    func wrongPassword() async throws {
        try await withDemo { portal, grades, _ in
            let connection = connection(portal, user: "alice", password: "not-it", store: nil)
            let result = await Result { try await connection.run(grades, options: [:]) }
            await connection.close()
            #expect { try result.get() } throws: { ($0 as? UniToolError)?.kind == .wrongCredentials }
            if case .failure(let error as UniToolError) = result {
                #expect(error.kind == .wrongCredentials)
                #expect(error.message.contains("incorrect"))
                #expect(!error.message.contains("not-it"))
            }
        }
    }

    @Test(
        "a portal that repeats the wrong password in its error: the message quotes the portal without it, whatever its length",
        arguments: ["q", "Zq", "not-it", "Wrong-Canary-77"])
    func echoedPasswordIsScrubbedFromTheError(password: String) async throws {
        try await withDemo(faults: try DemoFaults(parsing: "echo-secrets")) { portal, grades, _ in
            let connection = connection(portal, user: "alice", password: password, store: nil)
            let result = await Result { try await connection.run(grades, options: [:]) }
            await connection.close()
            guard case .failure(let error as UniToolError) = result else {
                Issue.record("a wrong password was accepted")
                return
            }
            #expect(error.kind == .wrongCredentials)
            #expect(error.message.contains("the portal says"), "\(error.message)")
            #expect(error.message.contains("you typed '<redacted>'"), "\(error.message)")
            #expect(!error.message.contains("'\(password)'"), "\(error.message)")
        }
    }

    @Test("a saved session is reused: the second run needs one request for the data (and the terms check)")
    func sessionReuse() async throws {
        try await withDemo { portal, grades, store in
            let first = connection(portal, user: "alice", password: "wonderland", store: store)
            try await using(first) {
                _ = try await $0.run(grades, options: ["term": "2026-spring"])
                try $0.saveSession()
            }
            #expect(first.session.requestCount > 4)

            let second = workspace(sessionsIn: store).connection(
                to: portal, as: "alice",
                credentials: { throw UniToolError(.credentialsMissing, "the saved session should have been enough") })
            let set = try await using(second) { try await $0.run(grades, options: ["term": "2026-spring"]) }
            // One request for the data, and the terms-of-use version that every run asks first.
            #expect(second.session.requestCount == 2)
            #expect(set.records.count == 4)

            let attributes = try FileManager.default.attributesOfItem(
                atPath: workspace(sessionsIn: store).sessions.file(portal: "demo", user: "alice").path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test("an expired session is renewed by logging in again")
    func expiredSessionIsRenewed() async throws {
        let store = try Sandbox()
        defer { store.remove() }
        try await withDemo { portal, grades, _ in
            let first = connection(portal, user: "alice", password: "wonderland", store: store.root)
            try await using(first) {
                _ = try await $0.run(grades, options: ["term": "2025-fall"])
                try $0.saveSession()
            }
        }
        // A new demo that rejects every session issued before it started.
        var faults = DemoFaults()
        faults.expireSessions = true
        try await withDemo(faults: faults) { portal, grades, _ in
            let second = connection(portal, user: "alice", password: "wonderland", store: store.root)
            let set = try await using(second) { try await $0.run(grades, options: ["term": "2025-fall"]) }
            #expect(second.session.requestCount > 1)
            #expect(set.records.count == 4)
        }
    }

    @Test("a password is never posted to an origin the recipe does not allow")
    func credentialOriginIsEnforced() async throws {
        try await withDemo { portal, grades, _ in
            var restricted = portal
            restricted.credentialTargets = ["https://idp.elsewhere.example"]
            let connection = connection(restricted, user: "alice", password: "wonderland", store: nil)
            let result = await Result { try await connection.run(grades, options: [:]) }
            await connection.close()
            guard case .failure(let error as UniToolError) = result else {
                Issue.record("expected the password to be withheld")
                return
            }
            #expect(error.kind == .unsafeRequest)
        }
    }

    @Test("a closed port is an unreachable portal, not a crash or an empty result")
    func unreachablePortal() async throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let portal = try catalog.portal("demo").relocated(to: URL(string: "http://127.0.0.1:9")!)
        let grades = try catalog.recipe(portal: "demo", command: "grades")
        let connection = connection(portal, user: "alice", password: "wonderland", store: nil)
        let result = await Result { try await connection.run(grades, options: [:]) }
        await connection.close()
        guard case .failure(let error as UniToolError) = result else {
            Issue.record("expected an error")
            return
        }
        #expect(error.kind == .portalUnreachable)
    }

    @Test("the terms gate is inside the service: PortalConnection.run refuses unaccepted terms before any data request")
    func termsGateInsideTheService() async throws {
        try await withDemo { portal, grades, root in
            let empty = workspace(terms: root.appendingPathComponent("config"))
            let connection = empty.connection(
                to: portal, as: "alice", credentials: { Credentials(username: "alice", password: Secret("wonderland")) },
                use: .untouched)
            for call in ["run", "fetch"] {
                do {
                    _ = try await using(connection) { connection -> Int in
                        if call == "run" { return try await connection.run(grades, options: [:]).records.count }
                        return try await connection.fetch("/grades").body.count
                    }
                    Issue.record("\(call) went through with unaccepted terms")
                } catch let error as UniToolError {
                    #expect(error.kind == .termsNotAccepted, "\(call): \(error)")
                }
            }
            #expect(connection.session.requestCount == 1, "only the terms API was asked")

            // A front end that asks (a person at a terminal) may accept; the service records it.
            let accepting = empty.connection(
                to: portal, as: "alice", credentials: { Credentials(username: "alice", password: Secret("wonderland")) },
                use: .untouched)
            let person = ScriptedInteraction(acceptsTerms: true)
            let set = try await using(accepting) { connection in
                try await PortalService(connection: connection).run(grades, options: ["term": "2026-spring"], interaction: person)
            }
            #expect(set.records.count == 4)
            #expect(person.events.first == .terms(version: DemoUniversity.initialTermsVersion), "\(person.events)")
            #expect(try empty.acceptedTerms.load(portal: "demo")?.version == DemoUniversity.initialTermsVersion)
        }
    }
}
