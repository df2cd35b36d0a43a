import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolMCP
import UniToolRPC

/// A cancel that arrives while an action's form is being sent is too late: the portal may have
/// acted, so the call finishes and answers what the portal said (issue 47, item 4). One that
/// arrives before sends nothing. The demo holds the request in flight (`DemoUniversity.hold`)
/// until the cancel is known to have reached the server, so nothing here depends on timing.
@Suite("A cancel after an action's point of no return is answered with what the portal did")
struct PointOfNoReturnTests {
    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        RPCMethodsTests.request(id, method, params)
    }

    static let renew = #"{"portal":"demo","user":"alice","recipe":"loans","action":"renew","argument":"31000105"}"#

    /// Sends `cancel`, then a request the server answers at once, and returns that answer. The
    /// server reads its input in order, so once `marker` is answered the cancel has been acted on.
    static func cancel(_ cancel: String, then marker: String, on client: InProcessRPCClient) async -> JSONValue? {
        client.send(cancel)
        client.send(marker)
        return await client.next()
    }

    @Test("the decision: a result is answered; a cancellation error is 'cancelled'; a failure is, unless past the point")
    func decision() {
        #expect(!RPCCancellation.answersCancelled(.result, cancelled: true, pastPointOfNoReturn: false))
        #expect(!RPCCancellation.answersCancelled(.result, cancelled: true, pastPointOfNoReturn: true))
        #expect(RPCCancellation.answersCancelled(.cancellationError, cancelled: true, pastPointOfNoReturn: true))
        #expect(RPCCancellation.answersCancelled(.failure, cancelled: true, pastPointOfNoReturn: false))
        #expect(!RPCCancellation.answersCancelled(.failure, cancelled: true, pastPointOfNoReturn: true))
        #expect(!RPCCancellation.answersCancelled(.failure, cancelled: false, pastPointOfNoReturn: false))
    }

    @Test("JSON-RPC: $/cancelRequest while the renewal's POST is in flight gets the renewal's result; the POST was sent once")
    func rpcCancelDuringFinalPost() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = InProcessRPCClient(host: host)
            let post = host.demo.hold("POST", "/library/renew")
            client.send(Self.request(7, "recipes.perform", Self.renew))
            await post.arrival()
            let marker = await Self.cancel(
                #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#, then: Self.request(8, "portals.list"), on: client)
            #expect(marker?["id"] == .number(8), "the renewal is held, so the marker is answered first: \(String(describing: marker))")
            post.release()
            let answer = await client.next()
            #expect(answer?["id"] == .number(7))
            #expect(answer?["error"] == nil, "answered as cancelled although the portal renewed: \(String(describing: answer))")
            #expect(answer?["result"]?["records"]?.serialized.contains("Elements of Information Theory") == true)
            let posts = await host.demo.requests.filter { $0.method == "POST" && $0.path == "/library/renew" }
            #expect(posts.count == 1)
            _ = await client.finish()
        }
    }

    @Test("JSON-RPC: $/cancelRequest while the action's form page is being read is -32800, and no POST is sent")
    func rpcCancelBeforeFinalPost() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = InProcessRPCClient(host: host)
            let page = host.demo.hold("GET", "/library/renew")
            client.send(Self.request(7, "recipes.perform", Self.renew))
            await page.arrival()
            let marker = await Self.cancel(
                #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#, then: Self.request(8, "portals.list"), on: client)
            #expect(marker?["id"] == .number(8))
            page.release()
            let answer = await client.next()
            #expect(answer?["id"] == .number(7))
            #expect(answer?["error"]?["code"] == .number(-32800), "\(String(describing: answer))")
            // Served once the server has ended: every request the call made has been answered.
            _ = await client.finish()
            let posts = await host.demo.requests.filter { $0.method == "POST" && $0.path.hasPrefix("/library/renew") }
            #expect(posts.isEmpty, "a cancel before the point of no return sends nothing: \(posts)")
        }
    }

    static func mcpClient(_ host: DemoRPCHost) throws -> InProcessRPCClient {
        let server = UniToolMCPServer(host: host, portal: try host.catalog.portal("demo"), user: "alice")
        return InProcessRPCClient(methods: server.methods, dialect: .mcp)
    }

    static let mcpCancel = #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#

    @Test("MCP: notifications/cancelled while renew-all's POST is in flight gets the tool's result, not silence; one POST")
    func mcpCancelDuringFinalPost() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = try Self.mcpClient(host)
            let post = host.demo.hold("POST", "/library/renew-all")
            client.send(Self.request(7, "tools/call", #"{"name":"loans_renew-all","arguments":{"confirm":true}}"#))
            await post.arrival()
            let marker = await Self.cancel(Self.mcpCancel, then: Self.request(8, "ping"), on: client)
            #expect(marker?["id"] == .number(8), "\(String(describing: marker))")
            post.release()
            let answer = await client.next()
            #expect(answer?["id"] == .number(7), "a call whose renewals were made was answered with silence")
            #expect(answer?["result"]?["isError"] == .bool(false), "\(String(describing: answer))")
            // The loans renewed, each with the renewals it has left.
            #expect(answer?["result"]?["content"]?.serialized.contains("renewals_left") == true, "\(String(describing: answer))")
            let posts = await host.demo.requests.filter { $0.method == "POST" && $0.path == "/library/renew-all" }
            #expect(posts.count == 1)
            _ = await client.finish()
        }
    }

    @Test("MCP: notifications/cancelled before the POST is answered by silence, and nothing is sent")
    func mcpCancelBeforeFinalPost() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = try Self.mcpClient(host)
            let page = host.demo.hold("GET", "/library/renew-all")
            client.send(Self.request(7, "tools/call", #"{"name":"loans_renew-all","arguments":{"confirm":true}}"#))
            await page.arrival()
            let marker = await Self.cancel(Self.mcpCancel, then: Self.request(8, "ping"), on: client)
            #expect(marker?["id"] == .number(8))
            page.release()
            _ = await client.finish()
            let messages = client.output.messages(.newline)
            #expect(!messages.contains { $0["id"] == .number(7) }, "a cancelled call is not answered: \(messages)")
            let posts = await host.demo.requests.filter { $0.method == "POST" && $0.path == "/library/renew-all" }
            #expect(posts.isEmpty)
        }
    }

    @Test("MCP: tools/call with 'arguments' a string or an array is -32602, and nothing is asked of the portal")
    func mcpArgumentsMustBeAnObject() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = try Self.mcpClient(host)
            let calls = [
                #"{"name":"loans_renew-all","arguments":["x"]}"#, #"{"name":"loans_renew-all","arguments":"{\"term\":\"all\"}"}"#,
                #"{"name":"grades","arguments":"{\"term\":\"all\"}"}"#, #"{"name":"loans_renew-all","arguments":7}"#,
            ]
            for (index, params) in calls.enumerated() {
                client.send(Self.request(index + 1, "tools/call", params))
                let answer = await client.next()
                #expect(answer?["error"]?["code"] == .number(-32602), "\(params): \(String(describing: answer))")
            }
            _ = await client.finish()
            let requests = await host.demo.requests
            #expect(requests.isEmpty, "\(requests)")
        }
    }

    @Test("JSON-RPC: params, options and parameters that are not objects are -32602, and nothing is asked of the portal")
    func rpcParamsMustBeObjects() async throws {
        try await RPCMethodsTests.withHost { host in
            let answers = await RPCMethodsTests.call(
                [
                    Self.request(1, "recipes.perform", #"["demo","loans","renew-all"]"#),
                    Self.request(2, "recipes.run", #"{"portal":"demo","recipe":"grades","options":"{\"term\":\"all\"}"}"#),
                    Self.request(3, "recipes.run", #"{"portal":"demo","recipe":"grades","options":["all"]}"#),
                    Self.request(
                        4, "recipes.perform", #"{"portal":"demo","recipe":"library","action":"request","parameters":["A book"]}"#),
                ], host: host)
            for id in ["1", "2", "3", "4"] {
                #expect(answers[id]?["error"]?["code"] == .number(-32602), "\(id): \(String(describing: answers[id]))")
            }
            let requests = await host.demo.requests
            #expect(requests.isEmpty, "\(requests)")
        }
    }
}
