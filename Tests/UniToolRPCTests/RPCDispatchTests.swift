import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// The pure decisions behind the server: the lifecycle, the work ledger, and recipes.run's
/// parameter checks (issue 17, section 8).
@Suite("JSON-RPC decisions: routes, the work ledger, recipes.run's parameters")
struct RPCDispatchTests {
    static func request(_ method: String, id: JSONValue? = nil, params: String? = nil) throws -> RPCRequest {
        RPCRequest(id: id, method: method, params: try params.map { try JSONParser.parse($0) })
    }

    static var shutDown: RPCLifecycle {
        var lifecycle = RPCLifecycle()
        lifecycle.requestShutdown()
        return lifecycle
    }

    @Test("a request with id null is refused in MCP's dialect (-32600) and run in unitool's, which JSON-RPC 2.0 allows")
    func nullID() throws {
        let ping = try Self.request("ping", id: .null)
        guard case .refuse(let error) = RPCRoute.decide(ping, lifecycle: RPCLifecycle(), dialect: .mcp) else {
            Issue.record("MCP ran a request with id null")
            return
        }
        #expect(error.code == -32600 && error.message.contains("never null"))
        #expect(RPCRoute.decide(ping, lifecycle: RPCLifecycle(), dialect: .unitool) == .run)
        // A notification has no id at all, which is not a null one.
        #expect(RPCRoute.decide(try Self.request("ping"), lifecycle: RPCLifecycle(), dialect: .mcp) == .run)
    }

    @Test("exit and $/cancelRequest sent with an id are refused with -32600 that says they are notifications")
    func controlNotificationsAsRequests() throws {
        for method in ["exit", "$/cancelRequest"] {
            guard case .refuse(let error) = RPCRoute.decide(try Self.request(method, id: .number(5)), lifecycle: RPCLifecycle())
            else {
                Issue.record("\(method) with an id was not refused")
                continue
            }
            #expect(error.code == -32600)
            #expect(error.message.contains("is a notification"))
        }
        #expect(RPCRoute.decide(try Self.request("exit"), lifecycle: RPCLifecycle()) == .exit)
        #expect(
            RPCRoute.decide(try Self.request("$/cancelRequest", params: #"{"id":7}"#), lifecycle: RPCLifecycle()) == .cancel(.number(7)))
    }

    @Test("after shutdown, requests are refused as shutting_down and notifications are not run")
    func afterShutdown() throws {
        #expect(RPCRoute.decide(try Self.request("portals.list", id: .number(1)), lifecycle: Self.shutDown) == .refuse(.shuttingDown))
        #expect(RPCRoute.decide(try Self.request("shutdown", id: .number(2)), lifecycle: Self.shutDown) == .refuse(.shuttingDown))
        for method in ["terms.accept", "auth.logout"] {
            guard case .ignore = RPCRoute.decide(try Self.request(method, params: #"{"portal":"demo"}"#), lifecycle: Self.shutDown) else {
                Issue.record("the notification \(method) would run after shutdown")
                continue
            }
        }
        // exit and cancellation still act: they are how a client finishes.
        #expect(RPCRoute.decide(try Self.request("exit"), lifecycle: Self.shutDown) == .exit)
        #expect(RPCRoute.decide(try Self.request("$/cancelRequest", params: #"{"id":1}"#), lifecycle: Self.shutDown) == .cancel(.number(1)))
    }

    @Test("shutdown takes no params but progressToken: arrays and unknown names are -32602")
    func shutdownParams() throws {
        let fresh = RPCLifecycle()
        #expect(RPCRoute.decide(try Self.request("shutdown", id: .number(1)), lifecycle: fresh) == .shutdown)
        #expect(RPCRoute.decide(try Self.request("shutdown", id: .number(1), params: "{}"), lifecycle: fresh) == .shutdown)
        #expect(
            RPCRoute.decide(try Self.request("shutdown", id: .number(1), params: #"{"progressToken":"t"}"#), lifecycle: fresh) == .shutdown)
        for params in ["[]", "[1]", #"{"now":true}"#, #"{"progressToken":{}}"#] {
            guard case .refuse(let error) = RPCRoute.decide(try Self.request("shutdown", id: .number(1), params: params), lifecycle: fresh)
            else {
                Issue.record("shutdown accepted \(params)")
                continue
            }
            #expect(error.code == -32602, "\(params)")
        }
    }

    @Test("the lifecycle's exit code: 0 after shutdown or at the end of input, 1 for exit without shutdown")
    func exitCodes() {
        var plain = RPCLifecycle()
        #expect(plain.exitCode == 0)
        plain.requestExit()
        #expect(plain.exitCode == 1)
        var orderly = RPCLifecycle()
        orderly.requestShutdown()
        orderly.requestExit()
        #expect(orderly.exitCode == 0)
    }

    @Test("the ledger refuses an id already in flight, frees it when done, and is idle only when all work is done")
    func ledger() {
        var ledger = RPCWorkLedger()
        #expect(ledger.isIdle)
        guard case .admitted(let first) = ledger.admitRequest(id: .number(1)) else {
            Issue.record("the first request was not admitted")
            return
        }
        let again = ledger.admitRequest(id: .number(1))
        #expect(again == .duplicateID)
        guard case .admitted(let text) = ledger.admitRequest(id: .string("1")) else {
            Issue.record("\"1\" is another id than 1")
            return
        }
        let notification = ledger.admitWork()
        #expect(ledger.ticket(forID: .number(1)) == first)
        #expect(ledger.openCount == 3)
        ledger.finish(first)
        #expect(ledger.ticket(forID: .number(1)) == nil)
        guard case .admitted = ledger.admitRequest(id: .number(1)) else {
            Issue.record("a finished request's id could not be used again")
            return
        }
        ledger.finish(text)
        ledger.finish(notification)
        #expect(!ledger.isIdle, "the reused id 1 is still open")
    }

    @Test("ids are told apart by their exact text: 2^53 and 2^53+1 are two ids")
    func ledgerKeepsLargeIDsApart() throws {
        var ledger = RPCWorkLedger()
        guard case .admitted = ledger.admitRequest(id: try JSONParser.parse("9007199254740992")),
            case .admitted = ledger.admitRequest(id: try JSONParser.parse("9007199254740993"))
        else {
            Issue.record("two different large ids collided")
            return
        }
    }

    // MARK: recipes.run

    static let grades: DataRecipe = {
        let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
        return try! catalog.recipe(portal: "demo", command: "grades")
    }()

    static func refusal(_ params: String, recipe: DataRecipe = grades) -> RPCError? {
        do {
            _ = try RecipeRunParameters(checking: try JSONParser.parse(params), against: recipe)
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            return RPCError.internalError("\(error)")
        }
    }

    @Test(
        "recipes.run: wrong option types, unknown options, sources and fields are -32602 in protocol words",
        arguments: [
            (#"{"options":{"term":5}}"#, "'options.term' must be a string, not a number"),
            (#"{"options":{"term":true}}"#, "'options.term' must be a string, not a boolean"),
            (#"{"options":{"term":["2026-spring"]}}"#, "'options.term' must be a string, not an array"),
            (#"{"options":{"trem":"2026-spring"}}"#, "'options.trem' is not an option of 'grades'"),
            (#"{"options":"term=all"}"#, "'options' must be an object"),
            (#"{"source":"rss"}"#, "is not a source of 'grades'"),
            (#"{"fields":["code","nosuch"]}"#, "'fields' names 'nosuch'"),
            (#"{"fields":["gpa"]}"#, "'fields' names 'gpa'"),
            (#"{"summary":true,"fields":["grade"]}"#, "'fields' names 'grade'"),
            (#"{"summary":"yes"}"#, "'summary' must be true or false"),
        ])
    func recipeRunRefusals(params: String, expected: String) {
        let error = Self.refusal(params)
        #expect(error?.code == -32602, "\(String(describing: error))")
        #expect(error?.message.contains(expected) == true, "\(String(describing: error?.message))")
        #expect(error?.message.contains("--help") == false)
        #expect(error?.message.contains("--") == false, "no command-line wording")
    }

    @Test("recipes.run: valid parameters pass through unchanged")
    func recipeRunAccepted() throws {
        let checked = try RecipeRunParameters(
            checking: try JSONParser.parse(
                #"{"recipe":"grades","options":{"term":"2026-spring"},"fields":["code","grade"],"progressToken":1}"#),
            against: Self.grades)
        #expect(checked.options == ["term": "2026-spring"])
        #expect(checked.fields == ["code", "grade"])
        #expect(!checked.summary)
        let summary = try RecipeRunParameters(
            checking: try JSONParser.parse(#"{"options":{"term":"all"},"summary":true,"fields":["term","gpa"]}"#), against: Self.grades)
        #expect(summary.summary)
    }

    @Test(
        "MCP's dialect: notifications/cancelled names the request by requestId; shutdown and exit are ordinary methods; $/cancelRequest is not MCP's"
    )
    func mcpDialect() throws {
        #expect(
            RPCRoute.decide(
                try Self.request("notifications/cancelled", params: #"{"requestId":7}"#), lifecycle: RPCLifecycle(), dialect: .mcp)
                == .cancel(.number(7)))
        #expect(RPCRoute.decide(try Self.request("exit"), lifecycle: RPCLifecycle(), dialect: .mcp) == .run)
        #expect(RPCRoute.decide(try Self.request("shutdown", id: .number(1)), lifecycle: RPCLifecycle(), dialect: .mcp) == .run)
        #expect(
            RPCRoute.decide(try Self.request("$/cancelRequest", params: #"{"id":7}"#), lifecycle: RPCLifecycle(), dialect: .mcp) == .run)
        #expect(!RPCDialect.mcp.answersCancelledRequests && RPCDialect.unitool.answersCancelledRequests)
    }

    @Test("an id is free again once its answer is about to be written, while the work stays on the books until it finishes")
    func idReleasedBeforeTheAnswer() {
        var ledger = RPCWorkLedger()
        guard case .admitted(let ticket) = ledger.admitRequest(id: .number(1)) else {
            Issue.record("not admitted")
            return
        }
        #expect(ledger.admitRequest(id: .number(1)) == .duplicateID)
        ledger.releaseID(of: ticket)
        #expect(!ledger.isIdle, "the work is not finished yet")
        guard case .admitted(let next) = ledger.admitRequest(id: .number(1)) else {
            Issue.record("the released id was refused")
            return
        }
        ledger.finish(ticket)
        ledger.finish(next)
        #expect(ledger.isIdle)
    }
}
