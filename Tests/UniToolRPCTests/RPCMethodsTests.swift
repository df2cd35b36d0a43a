import DemoUniversity
import Foundation
import Logging
import Synchronization
import Testing
import UniToolHost
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// The command line's own `RPCHost` (`CommandLineRPCHost`, its connections made by a
/// `Workspace`) over a demo university the test runs, with the user's files in a folder of the
/// test's own: the methods of docs/RPC.md in process, with the production wiring, without the
/// CLI or a child process.
final class DemoRPCHost: RPCHost {
    let demo: DemoUniversity
    let served: CommandLineRPCHost
    /// The test's own folders, laid out as unitool lays out its XDG folders.
    let locations: Locations

    init(demo: DemoUniversity, termsFolder: URL, accept: Bool = true) throws {
        self.demo = demo
        locations = .sandbox(termsFolder.deletingLastPathComponent())
        let workspace = Workspace(
            locations: locations, history: .kept(retentionDays: 365),
            locate: { portal in (portal.relocated(to: demo.baseURL, hosts: demo.serviceHosts), nil) },
            logger: Logger(label: "rpc-methods-test"))
        served = CommandLineRPCHost(
            workspace: workspace, catalog: try RecipeCatalog(directories: [Fixtures.recipes]), defaultPortal: { "demo" },
            defaultUser: { _ in DemoData.defaultUser.username })
        if accept { try acceptedTerms.save(AcceptedTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)) }
    }

    /// Sessions in the test's own folder, never the user's.
    var sessions: SessionStore { workspace.sessions }

    var workspace: Workspace { served.workspace }
    var catalog: RecipeCatalog { served.catalog }
    func defaultPortal() throws -> String { try served.defaultPortal() }
    func defaultUser(for portal: PortalRecipe) throws -> String { try served.defaultUser(for: portal) }
    func connection(portal: PortalRecipe, user: String) async throws -> PortalConnection {
        try await served.connection(portal: portal, user: user)
    }
    func publicConnection(portal: PortalRecipe, namedUser: String?) async throws -> PortalConnection {
        try await served.publicConnection(portal: portal, namedUser: namedUser)
    }
    func freshConnection(portal: PortalRecipe, user: String, password: Secret) async throws -> PortalConnection {
        try await served.freshConnection(portal: portal, user: user, password: password)
    }
    func usePassword(_ password: Secret, portal: String, user: String) { served.usePassword(password, portal: portal, user: user) }
    func dropConnection(portal: String, user: String) async { await served.dropConnection(portal: portal, user: user) }
    func closeAll() async { await served.closeAll() }
}

@Suite("Every JSON-RPC method in process, over in-memory streams and a demo university")
struct RPCMethodsTests {
    /// Serves `requests` (one per line) to the methods over `host`, then the end of input, and
    /// returns the answers by id.
    static func call(_ requests: [String], host: DemoRPCHost) async -> [String: JSONValue] {
        await exchange(requests, host: host).answers
    }

    /// As `call`, with every message the server wrote, notifications included, in order.
    static func exchange(_ requests: [String], host: DemoRPCHost) async -> (answers: [String: JSONValue], all: [JSONValue]) {
        let output = CollectedOutput()
        let server = RPCServer(methods: RPCMethods(host: host).table, output: output, framing: .newline, logger: Logger(label: "rpc"))
        let input = AsyncStream<[UInt8]> { continuation in
            for request in requests { continuation.yield(Array((request + "\n").utf8)) }
            continuation.finish()
        }
        _ = await server.serve(input)
        var answers: [String: JSONValue] = [:]
        let all = output.messages(.newline)
        for message in all {
            if let id = message["id"]?.doubleValue { answers[String(Int(id))] = message }
        }
        return (answers, all)
    }

    /// Runs `body` with a demo and a host over it, and stops both whatever happens.
    static func withHost(accept: Bool = true, faults: DemoFaults = DemoFaults(), _ body: (DemoRPCHost) async throws -> Void) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: faults) { demo in
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
            let methods = initialize["capabilities"]?["methods"]?.arrayValue ?? []
            for name in RPCMethods.names { #expect(methods.contains(.string(name)), "\(name)") }
            #expect(answers["2"]?["result"]?.arrayValue?.first?["id"] == .string("demo"))
            let commands = answers["3"]?["result"]?.arrayValue?.compactMap { $0["recipe"]?.stringValue } ?? []
            #expect(Set(commands).isSuperset(of: ["grades", "loans", "headlines"]))
            let term = answers["4"]?["result"]?["optionsSchema"]?["properties"]?["term"]
            #expect(term?["type"] == .string("string") && term?["default"] == .string("current"), "\(String(describing: answers["4"]))")
            #expect(answers["4"]?["result"]?["summaryFields"]?.serialized.contains("gpa") == true)
            #expect(answers["5"]?["error"]?["code"] == .number(-32601))
        }
    }

    @Test("a login or logout (dropConnection) drops the public connection that read the terms through that user's session")
    func publicConnectionDropped() async throws {
        try await Self.withHost { host in
            let portal = try host.catalog.portal("demo")
            let first = try await host.publicConnection(portal: portal, namedUser: "alice")
            #expect(first.user == "")
            let again = try await host.publicConnection(portal: portal, namedUser: "alice")
            #expect(first === again, "one public connection per portal and named user, shared")
            await host.dropConnection(portal: "demo", user: "alice")
            let after = try await host.publicConnection(portal: portal, namedUser: "alice")
            #expect(first !== after)
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

    @Test(
        "today and calendar: one object with a section per part, then the same from the history offline; the calendar as text and records")
    func dayMethods() async throws {
        try await Self.withHost { host in
            let answers = await Self.call(
                [
                    Self.request(1, "today", #"{"portal":"demo","user":"bence"}"#),
                    Self.request(2, "calendar", #"{"portal":"demo","user":"bence"}"#),
                ], host: host)
            let sections = answers["1"]?["result"]?["sections"]
            #expect(sections?["classes_today"]?["events"]?.arrayValue != nil, "\(String(describing: answers["1"]))")
            #expect(sections?["grades_since_you_last_looked"]?["first_look"] == .bool(true))
            #expect(answers["1"]?["result"]?["terms"]?["status"] == .string("accepted"))
            let events = answers["2"]?["result"]?["records"]?.arrayValue ?? []
            #expect(events.contains { $0["summary"] == .string("Számítógépes hálózatok") && $0["weekly_until"] != .null })
            #expect(events.contains { $0["summary"] == .string("Final: Fizika I") })
            #expect(answers["2"]?["result"]?["ics"]?.stringValue?.hasPrefix("BEGIN:VCALENDAR\r\n") == true)

            let offline = await Self.call([Self.request(3, "today", #"{"portal":"demo","user":"bence","offline":true}"#)], host: host)
            #expect(offline["3"]?["result"]?["sections"]?["exams_in_the_next_14_days"]?["from_history"] == .bool(true), "\(offline)")

            // A front end polling for a status bar is no one looking: the mark moves only with
            // mark_seen, so the first look is still to come until the person's front end says so.
            let grades = "grades_since_you_last_looked"
            #expect(answers["1"]?["result"]?["marked_seen"] == .bool(false))
            #expect(offline["3"]?["result"]?["sections"]?[grades]?["first_look"] == .bool(true), "\(offline)")
            let looked = await Self.call(
                [Self.request(4, "today", #"{"portal":"demo","user":"bence","offline":true,"mark_seen":true}"#)], host: host)
            #expect(looked["4"]?["result"]?["marked_seen"] == .bool(true), "\(looked)")
            let after = await Self.call([Self.request(5, "today", #"{"portal":"demo","user":"bence","offline":true}"#)], host: host)
            #expect(after["5"]?["result"]?["sections"]?[grades]?["first_look"] == .bool(false), "\(after)")
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
            #expect(
                answers["2"]?["error"]?["data"]?["hint"]
                    == .string("show the terms to the user (terms.status gives their URL), then call terms.accept"))
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
        "auth.login with no password given and none stored is -32040, saying what to pass",
        .enabled(if: Needs.testSandbox, "needs the keyring of Scripts/test.sh"))
    func loginWithoutPassword() async throws {
        try await Self.withHost { host in
            let user = "rpc-nopassword-\(UUID().uuidString.prefix(6))"
            let answers = await Self.call([Self.request(1, "auth.login", #"{"portal":"demo","user":"\#(user)"}"#)], host: host)
            let error = try #require(answers["1"]?["error"], "\(String(describing: answers["1"]))")
            #expect(error["code"] == .number(-32040))
            #expect(
                error.serialized.contains("none is stored for \(user)") && error.serialized.contains("pass 'password'"),
                "\(error.serialized)")
        }
    }

    @Test(
        "auth.logout is the service's one logout: the saved session goes, and it says what it removed",
        .enabled(if: Needs.testSandbox, "needs the keyring of Scripts/test.sh"))
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

    @Test("recipes.run gives typed records; fields and summary work as on the command line")
    func runWithFieldsAndSummary() async throws {
        try await Self.withHost { host in
            let answers = await Self.call(
                [
                    Self.request(1, "recipes.run", #"{"portal":"demo","recipe":"grades","options":{"term":"2026-spring"}}"#),
                    Self.request(
                        2, "recipes.run",
                        #"{"portal":"demo","recipe":"grades","options":{"term":"all"},"summary":true,"fields":["term","gpa"]}"#),
                ], host: host)
            let records = answers["1"]?["result"]?["records"]?.arrayValue ?? []
            #expect(records.count == 4)
            #expect(records.first?["credits"] == .number(8) && records.first?["date"] == .string("2026-07-10"))
            let summary = answers["2"]?["result"]
            #expect(summary?["columns"] == .array([.string("term"), .string("gpa")]))
            #expect(summary?["records"]?.serialized.contains(#"{"term":"2026-fall","gpa":3.52}"#) == true)
        }
    }

    /// Every malformed message of the protocol and the error it must get (docs/RPC.md).
    static let malformedMessages: [(String, Double)] = [
        (#"{"jsonrpc":"2.0","id":1,"method":"initialize""#, -32700.0),
        ("not json at all", -32700),
        (#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"\u{01}"}}"#, -32700),
        (#"{"jsonrpc":"1.0","id":1,"method":"initialize"}"#, -32600),
        (#"{"id":1,"method":"initialize"}"#, -32600),
        (#"{"jsonrpc":"2.0","id":1,"method":7}"#, -32600),
        (#"{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}"#, -32600),
        (#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}"#, -32600),
        ("42", -32600),
        ("[]", -32600),
        (#"{"jsonrpc":"2.0","id":1,"method":"grades.fetch"}"#, -32601),
        (#"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"recipe":["grades"]}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades","optoins":{}}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":["demo","grades"]}"#, -32602),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades","options":{"term":[1]}}}"#,
            -32602
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades","options":{"term":2026}}}"#,
            -32602
        ),
        (
            #"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades","options":{"trem":"all"}}}"#,
            -32602
        ),
        (#"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades","fields":["nosuch"]}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":"me"}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":[]}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":[]}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"shutdown","params":{"now":true}}"#, -32602),
        (#"{"jsonrpc":"2.0","id":1,"method":"exit"}"#, -32600),
        (#"{"jsonrpc":"2.0","id":1,"method":"$/cancelRequest","params":{"id":2}}"#, -32600),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), -32700),
    ]

    @Test("each malformed message gets its specified error, and the next valid request is answered")
    func malformed() async throws {
        // One demo for the whole table: a demo per case would start dozens of servers at once.
        try await Self.withHost { host in
            for (message, code) in Self.malformedMessages {
                let (_, all) = await Self.exchange([message, Self.request(99, "portals.list")], host: host)
                let answer = all.first { $0["id"] != .number(99) }
                #expect(answer?["error"]?["code"] == .number(code), "\(message): \(String(describing: answer))")
                #expect(answer?["jsonrpc"] == .string("2.0"))
                #expect(all.contains { $0["id"] == .number(99) && $0["result"] != nil }, "\(message)")
            }
        }
    }

    @Test("recipes.perform renews a loan; a refusal is -32024 with the portal's words")
    func perform() async throws {
        try await Self.withHost { host in
            let answers = await Self.call(
                [
                    Self.request(
                        1, "recipes.perform", #"{"portal":"demo","user":"alice","recipe":"loans","action":"renew","argument":"31000105"}"#)
                ],
                host: host)
            #expect(answers["1"]?["result"]?["records"]?.serialized.contains("Elements of Information Theory") == true)
            let refused = await Self.call(
                [
                    Self.request(
                        2, "recipes.perform", #"{"portal":"demo","user":"alice","recipe":"loans","action":"renew","argument":"31000104"}"#)
                ],
                host: host)
            #expect(refused["2"]?["error"]?["code"] == .number(-32024))
            #expect(refused["2"]?["error"]?["message"]?.stringValue?.contains("reserved by another reader") == true)
        }
    }

    @Test("with a progressToken, $/progress notifications come before the response, from every method")
    func progress() async throws {
        try await Self.withHost { host in
            let calls: [(String, String)] = [
                ("initialize", "{}"), ("portals.list", "{}"), ("auth.status", #"{"portal":"demo"}"#),
                ("recipes.list", #"{"portal":"demo"}"#),
                ("recipes.describe", #"{"portal":"demo","recipe":"grades"}"#), ("terms.status", #"{"portal":"demo"}"#),
                ("recipes.run", #"{"portal":"demo","recipe":"news"}"#), ("session.fetch", #"{"portal":"demo","url":"/library"}"#),
            ]
            for (index, call) in calls.enumerated() {
                var params = call.1
                params.insert(
                    contentsOf: #""progressToken":"t\#(index)""# + (params == "{}" ? "" : ","), at: params.index(after: params.startIndex))
                let (answers, all) = await Self.exchange([Self.request(index + 1, call.0, params)], host: host)
                let answer = answers[String(index + 1)]
                #expect(answer?["result"] != nil, "\(call.0): \(String(describing: answer))")
                let progress = all.prefix { $0["id"] == nil }
                #expect(progress.allSatisfy { $0["method"] == .string("$/progress") && $0["params"]?["token"] == .string("t\(index)") })
                if call.0 == "recipes.run" { #expect(!progress.isEmpty, "a run reports its progress") }
            }
        }
    }

    @Test("concurrent calls on a fresh session log in once; a login while a run is in flight leaves that run alone")
    func sharedLogin() async throws {
        try await Self.withHost(faults: try DemoFaults(parsing: "latency=150")) { host in
            let answers = await Self.call(
                [
                    Self.request(1, "recipes.run", #"{"portal":"demo","user":"alice","recipe":"grades","options":{"term":"2026-spring"}}"#),
                    Self.request(2, "recipes.run", #"{"portal":"demo","user":"alice","recipe":"courses"}"#),
                    Self.request(3, "auth.login", #"{"portal":"demo","user":"alice","password":"wonderland","remember":false}"#),
                ], host: host)
            #expect(answers["1"]?["result"]?["records"] != nil, "\(String(describing: answers["1"]))")
            #expect(answers["2"]?["result"]?["records"] != nil, "\(String(describing: answers["2"]))")
            #expect(answers["3"]?["result"]?["loggedIn"] == .bool(true))
            let logins = await host.demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }.count
            #expect(logins == 2, "one shared login for the runs, and auth.login's own")
        }
    }

    @Test("session.fetch gives a Shift_JIS page as the characters it shows")
    func fetchDecodes() async throws {
        try await Self.withHost(faults: try DemoFaults(parsing: "legacy-charset")) { host in
            let answers = await Self.call(
                [Self.request(1, "session.fetch", #"{"portal":"demo","url":"/grades?term=2025-fall"}"#)], host: host)
            let page = answers["1"]?["result"]
            #expect(page?["contentType"] == .string("text/html; charset=Shift_JIS"))
            #expect(page?["body"]?.stringValue?.contains("日本語初級Ⅰ (Japanese for Beginners I)") == true)
        }
    }
}
