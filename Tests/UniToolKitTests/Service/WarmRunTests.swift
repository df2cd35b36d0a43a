import DemoUniversity
import Foundation
import Logging
import Synchronization
import Testing
import UniToolKit
import UniToolTestSupport

/// A warm run (a saved session, terms accepted before) against the demo on loopback: what it
/// asks the portal for, and what it never does while the terms are in doubt.
@Suite("Warm runs: one round trip, and the terms gate still closed")
struct WarmRunTests {
    /// Alice's session saved and the demo's terms accepted (by a first run against a plain demo),
    /// then `body` against a demo with `faults`, with fresh connections that load that session
    /// (the demo signs its sessions with a fixed key, so they outlive it). `asked` counts the
    /// times a login needed the credentials.
    func withWarmSession(
        faults: DemoFaults = DemoFaults(),
        _ body: (DemoUniversity, RecipeCatalog, () -> PortalConnection, _ credentialsAsked: () -> Int) async throws -> Void
    ) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let workspace = Workspace(locations: sandbox.locations, logger: Logger(label: "test"))
        let asked = Counter()
        func connection(to demo: DemoUniversity) throws -> PortalConnection {
            workspace.connection(
                to: try catalog.portal("demo").relocated(to: demo.baseURL), as: "alice",
                credentials: {
                    asked.add()
                    return Credentials(username: "alice", password: Secret("wonderland"))
                })
        }
        let first = try await DemoUniversity.start()
        let warmedUp = await Result {
            let courses = try catalog.recipe(portal: "demo", command: "courses")
            _ = try await Self.using(try connection(to: first)) { try await $0.settlingSession { try await $0.run(courses, options: [:]) } }
        }
        await first.stop()
        try warmedUp.get()
        #expect(asked.value == 1)
        asked.reset()

        let demo = try await DemoUniversity.start(faults: faults)
        let result = await Result { try await body(demo, catalog, { try! connection(to: demo) }, { asked.value }) }
        await demo.stop()
        try result.get()
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
        func reset() { count.withLock { $0 = 0 } }
    }

    static func using<T: Sendable>(_ connection: PortalConnection, _ body: (PortalConnection) async throws -> T) async throws -> T {
        let result = await Result { try await body(connection) }
        await connection.close()
        return try result.get()
    }

    /// Runs `body`, which must be refused for terms that are not accepted; the refusal is returned.
    func refusal(_ what: String, _ body: () async throws -> Void) async -> UniToolError? {
        do {
            try await body()
            Issue.record("\(what) went through with terms that were not accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .termsNotAccepted, "\(error)")
            return error
        } catch {
            Issue.record("unexpected \(error)")
        }
        return nil
    }

    /// The requests the demo saw after `before` of them, terms checks apart.
    func dataRequests(_ demo: DemoUniversity, after before: Int) async -> [String] {
        await demo.requests.dropFirst(before).filter { !$0.isTermsCheck }.map(\.path)
    }

    @Test("--term current on a warm session: one data request (the page that names the term shows its grades), beside the terms check")
    func currentTermInOneRequest() async throws {
        try await withWarmSession { demo, catalog, make, asked in
            let grades = try catalog.recipe(portal: "demo", command: "grades")
            let before = await demo.requestCount
            let current = try await Self.using(make()) { try await $0.run(grades, options: ["term": "current"]) }
            #expect(await dataRequests(demo, after: before) == ["/grades"])
            #expect(await demo.requests.dropFirst(before).filter(\.isTermsCheck).count == 1)

            // The same records as the term asked by name, which fetches that term's own address.
            let named = await demo.requestCount
            let explicit = try await Self.using(make()) { try await $0.run(grades, options: ["term": "2026-fall"]) }
            #expect(await dataRequests(demo, after: named) == ["/grades"], "one request for a term by name too (the demo logs paths only)")
            #expect(current.records.count == 4)
            #expect(current.records.map { $0.fields.map(\.value) } == explicit.records.map { $0.fields.map(\.value) })
            #expect(asked() == 0, "the saved session was enough")
        }
    }

    @Test(
        "a cold run (terms accepted before, no saved session): the data page goes out beside the terms check, then one login and no request more"
    )
    func coldRunBesideTheTermsCheck() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let workspace = Workspace(locations: sandbox.locations, logger: Logger(label: "test"))
        let demo = try await DemoUniversity.start()
        let outcome = await Result {
            let connection = workspace.connection(
                to: try catalog.portal("demo").relocated(to: demo.baseURL), as: "alice",
                credentials: { Credentials(username: "alice", password: Secret("wonderland")) })
            let grades = try catalog.recipe(portal: "demo", command: "grades")
            // The terms check is kept waiting at the demo: the data page must arrive meanwhile.
            let terms = demo.hold("GET", "/api/terms/version")
            let page = demo.hold("GET", "/grades")
            async let ran = Self.using(connection) { try await $0.run(grades, options: ["term": "2026-spring"]) }
            let bothInFlight = await eventually { terms.hasArrived && page.hasArrived }
            terms.release()
            page.release()
            let result = try await ran
            #expect(bothInFlight, "the data page waited for the terms check")
            #expect(result.records.count == 4)
            #expect(await demo.passwordsReceived == 1)
            // The page's own redirect led to the login (its cookies kept): the login service's
            // pages, then the page once, by the login's RelayState; never asked for a third time.
            let paths = await demo.requests.filter { !$0.isTermsCheck }.map(\.path)
            #expect(paths.filter { $0 == "/grades" }.count == 2, "\(paths)")
            #expect(paths.first == "/grades", "\(paths)")
        }
        await demo.stop()
        try outcome.get()
    }

    @Test("new terms on a warm run: whatever was fetched beside the check is thrown away, and the refusal is the answer")
    func newTermsDiscardTheFetch() async throws {
        var faults = DemoFaults()
        faults.termsVersion = "2027-02"
        try await withWarmSession(faults: faults) { demo, catalog, make, asked in
            let grades = try catalog.recipe(portal: "demo", command: "grades")
            let refused = await refusal("the run") {
                _ = try await Self.using(make()) { try await $0.run(grades, options: ["term": "2026-spring"]) }
            }
            #expect(refused?.message.contains("2027-02") == true, "\(String(describing: refused))")
            #expect(asked() == 0)
            #expect(await demo.passwordsReceived == 0)
        }
    }

    @Test("new terms and an expired session: the login the fetch meets waits for the verdict, so no password is asked for or sent")
    func noLoginBeforeTheVerdict() async throws {
        var faults = DemoFaults()
        faults.termsVersion = "2027-02"
        faults.expireSessions = true
        try await withWarmSession(faults: faults) { demo, catalog, make, asked in
            let grades = try catalog.recipe(portal: "demo", command: "grades")
            _ = await refusal("the run") {
                _ = try await Self.using(make()) { try await $0.run(grades, options: ["term": "2026-spring"]) }
            }
            #expect(asked() == 0, "credentials were asked for before the terms were accepted")
            #expect(await demo.passwordsReceived == 0)
            #expect(await demo.requests.filter { $0.method == "POST" }.isEmpty, "a form was posted")
        }
    }

    @Test("an action on a warm session still asks about the terms before it sends anything")
    func actionsCheckFirst() async throws {
        var faults = DemoFaults()
        faults.termsVersion = "2027-02"
        try await withWarmSession(faults: faults) { demo, catalog, make, _ in
            let loans = try catalog.recipe(portal: "demo", command: "loans")
            let renew = try #require(loans.actions.first)
            _ = await refusal("the action") {
                _ = try await Self.using(make()) { try await $0.perform(renew, of: loans, argument: "39010000123") }
            }
            let sent = await demo.requests
            #expect(sent.count == 1 && sent.allSatisfy(\.isTermsCheck), "\(sent)")
        }
    }
}
