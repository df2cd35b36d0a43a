import DemoUniversity
import Foundation
import Logging
import Synchronization
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// An `RPCHost` over a demo university the test runs, with the terms accepted in a folder of the
/// test's own: the methods of docs/RPC.md in process, without the CLI or a child process.
final class DemoRPCHost: RPCHost {
    let catalog: RecipeCatalog
    let demo: DemoUniversity
    let acceptedTerms: AcceptedTermsStore
    /// Sessions in the test's own folder, never the user's.
    let sessions: SessionStore
    private let connections = Mutex<[String: PortalConnection]>([:])
    private let passwords = Mutex<[String: Secret]>([:])
    private let retired = Mutex<[PortalConnection]>([])

    init(demo: DemoUniversity, termsFolder: URL, accept: Bool = true) throws {
        self.demo = demo
        catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        acceptedTerms = AcceptedTermsStore(directory: termsFolder)
        sessions = SessionStore(directory: termsFolder.deletingLastPathComponent().appendingPathComponent("sessions"))
        if accept { try acceptedTerms.save(AcceptedTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)) }
    }

    func account(portal: PortalRecipe, user: String) -> Account { Account(portal: portal, user: user, sessions: sessions) }

    func defaultPortal() throws -> String { "demo" }
    func defaultUser(for portal: PortalRecipe) throws -> String { DemoData.defaultUser.username }

    private var terms: TermsPolicy { TermsPolicy(accepted: acceptedTerms, refusalHint: "call terms.accept") }

    func connection(portal: PortalRecipe, user: String) async throws -> PortalConnection {
        connections.withLock { connections in
            if let connection = connections[user] { return connection }
            let account = self.account(portal: portal, user: user)
            let known = DemoData.users.first { $0.username == user }.map { Secret($0.password) }
            let given = passwords.withLock { $0[user] }
            let connection = PortalConnection(
                portal: portal.relocated(to: demo.baseURL), user: user,
                credentials: { account.credentials(given: given, known: known, oneTimeCode: nil, missingHint: "pass 'password'") },
                sessions: sessions, terms: terms, logger: Logger(label: "rpc-methods-test"))
            connections[user] = connection
            return connection
        }
    }

    func freshConnection(portal: PortalRecipe, user: String, password: Secret) async throws -> PortalConnection {
        PortalConnection(
            portal: portal.relocated(to: demo.baseURL), user: user, credentials: { Credentials(username: user, password: password) },
            sessions: sessions, startEmpty: true, terms: terms, logger: Logger(label: "rpc-methods-test"))
    }

    func usePassword(_ password: Secret, portal: String, user: String) { passwords.withLock { $0[user] = password } }

    func dropConnection(portal: String, user: String) async {
        if let connection = connections.withLock({ $0.removeValue(forKey: user) }) { retired.withLock { $0.append(connection) } }
    }

    func closeAll() async {
        let all = connections.withLock { Array($0.values) } + retired.withLock { $0 }
        for connection in all { await connection.close() }
    }
}

@Suite("Every JSON-RPC method in process, over in-memory streams and a demo university")
struct RPCMethodsTests {
    /// Serves `requests` (one per line) to the methods over `host`, then the end of input, and
    /// returns the answers by id.
    static func call(_ requests: [String], host: DemoRPCHost) async -> [String: JSONValue] {
        let output = CollectedOutput()
        let server = RPCServer(methods: RPCMethods(host: host).table, output: output, framing: .newline, logger: Logger(label: "rpc"))
        let input = AsyncStream<[UInt8]> { continuation in
            for request in requests { continuation.yield(Array((request + "\n").utf8)) }
            continuation.finish()
        }
        _ = await server.serve(input)
        var answers: [String: JSONValue] = [:]
        for message in output.messages(.newline) {
            if let id = message["id"]?.doubleValue { answers[String(Int(id))] = message }
        }
        return answers
    }

    /// Runs `body` with a demo and a host over it, and stops both whatever happens.
    static func withHost(accept: Bool = true, _ body: (DemoRPCHost) async throws -> Void) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let host = try DemoRPCHost(demo: demo, termsFolder: sandbox.root.appendingPathComponent("terms"), accept: accept)
            let outcome = await Result { try await body(host) }
            await host.closeAll()
            try outcome.get()
        }
    }

    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
    }

    @Test("initialize, portals.list, recipes.list and recipes.describe describe what there is")
    func describing() async throws {
        try await Self.withHost { host in
            let answers = await Self.call(
                [
                    Self.request(1, "initialize", #"{"clientInfo":{"name":"test"}}"#), Self.request(2, "portals.list"),
                    Self.request(3, "recipes.list", #"{"portal":"demo"}"#),
                    Self.request(4, "recipes.describe", #"{"portal":"demo","recipe":"grades"}"#),
                    Self.request(5, "no.such.method"),
                ], host: host)
            let initialize = try #require(answers["1"]?["result"])
            #expect(initialize["serverInfo"]?["name"] == .string("unitool"))
            #expect(initialize["capabilities"]?["methods"]?.arrayValue?.contains(.string("recipes.run")) == true)
            #expect(answers["2"]?["result"]?.arrayValue?.first?["id"] == .string("demo"))
            let commands = answers["3"]?["result"]?.arrayValue?.compactMap { $0["recipe"]?.stringValue } ?? []
            #expect(Set(commands).isSuperset(of: ["grades", "loans", "headlines"]))
            #expect(answers["4"]?["result"]?["optionsSchema"]?["properties"]?["term"] != nil, "\(String(describing: answers["4"]))")
            #expect(answers["5"]?["error"]?["code"] == .number(-32601))
        }
    }

    @Test("recipes.run, recipes.perform and session.fetch read and act through one shared login")
    func dataMethods() async throws {
        try await Self.withHost { host in
            let answers = await Self.call(
                [
                    Self.request(1, "recipes.run", #"{"portal":"demo","user":"bence","recipe":"grades","options":{"term":"2026-fall"}}"#),
                    Self.request(2, "session.fetch", #"{"portal":"demo","user":"bence","url":"/library"}"#),
                    Self.request(
                        3, "recipes.perform", #"{"portal":"demo","user":"bence","recipe":"loans","action":"renew","argument":"nope"}"#),
                    Self.request(4, "session.fetch", #"{"portal":"demo","user":"bence","url":"https://elsewhere.example/"}"#),
                ], host: host)
            let records = answers["1"]?["result"]?["records"]?.arrayValue ?? []
            #expect(records.contains { $0["course"] == .string("Számítógépes hálózatok") }, "\(String(describing: answers["1"]))")
            #expect(answers["2"]?["result"]?["status"] == .number(200))
            // An unknown barcode: the portal's page has no such form, which the action names.
            #expect(answers["3"]?["error"] != nil, "\(String(describing: answers["3"]))")
            #expect(answers["4"]?["error"]?["code"] == .number(-32023))
            let logins = await host.demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }.count
            #expect(logins == 1)
        }
    }

    @Test("the terms gate of the service holds over JSON-RPC: data methods refuse until terms.accept")
    func termsMethods() async throws {
        try await Self.withHost(accept: false) { host in
            let answers = await Self.call(
                [
                    Self.request(1, "terms.status", #"{"portal":"demo","user":"dora"}"#),
                    Self.request(2, "recipes.run", #"{"portal":"demo","user":"dora","recipe":"grades"}"#),
                    Self.request(3, "terms.accept", #"{"portal":"demo","user":"dora","version":"1999-01"}"#),
                ], host: host)
            #expect(answers["1"]?["result"]?["upToDate"] == .bool(false))
            #expect(answers["2"]?["error"]?["code"] == .number(-32015))
            #expect(answers["2"]?["error"]?["data"]?["hint"] == .string("call terms.accept"))
            #expect(answers["3"]?["error"]?["code"] == .number(-32017))
            // Requests run concurrently: the run is asked once the acceptance has answered.
            let accepted = await Self.call(
                [Self.request(4, "terms.accept", #"{"portal":"demo","user":"dora","version":"\#(DemoUniversity.initialTermsVersion)"}"#)],
                host: host
            )
            .merging(await Self.call([Self.request(5, "recipes.run", #"{"portal":"demo","user":"dora","recipe":"grades"}"#)], host: host)) {
                $1
            }
            #expect(accepted["4"]?["result"]?["accepted"] == .string(DemoUniversity.initialTermsVersion))
            #expect(accepted["5"]?["result"]?["records"] != nil, "\(accepted["5"]?.serialized ?? "no answer")")
        }
    }

    @Test("auth.login checks a password in a fresh jar (wrong: -32010); auth.status reports the session")
    func authMethods() async throws {
        try await Self.withHost { host in
            // Requests run concurrently: the status is asked once the login has answered.
            let answers = await Self.call(
                [
                    Self.request(1, "auth.login", #"{"portal":"demo","user":"yuki","password":"Nope-Canary-9","remember":false}"#),
                    Self.request(2, "auth.login", #"{"portal":"demo","user":"bence","password":"Kaland-2026","remember":false}"#),
                ], host: host)
            #expect(answers["1"]?["error"]?["code"] == .number(-32010))
            #expect(!(answers["1"]?.serialized.contains("Nope-Canary-9") ?? true), "the password is never echoed")
            #expect(answers["2"]?["result"]?["loggedIn"] == .bool(true))
            let status = await Self.call([Self.request(3, "auth.status", #"{"portal":"demo","user":"bence"}"#)], host: host)
            #expect(status["3"]?["result"]?["session"] == .string("valid"), "\(String(describing: status["3"]))")
        }
    }

    @Test(
        "auth.logout is the service's one logout: the saved session goes, and it says what it removed",
        .enabled(if: ProcessInfo.processInfo.environment["UNITOOL_TEST_SANDBOX"] != nil, "needs the keyring of Scripts/test.sh"))
    func logout() async throws {
        try await Self.withHost { host in
            let user = "rpc-logout-\(UUID().uuidString.prefix(6))"
            try host.sessions.save(CookieJar(), portal: "demo", user: user)
            #expect(host.sessions.exists(portal: "demo", user: user))
            let answers = await Self.call([Self.request(1, "auth.logout", #"{"portal":"demo","user":"\#(user)"}"#)], host: host)
            let result = try #require(answers["1"]?["result"], "\(String(describing: answers["1"]))")
            #expect(result["sessionRemoved"] == .bool(true))
            #expect(result["passwordRemoved"] == .bool(false) && result["totpRemoved"] == .bool(false))
            #expect(!host.sessions.exists(portal: "demo", user: user))
        }
    }
}
