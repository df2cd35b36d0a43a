import Foundation
import Testing
import UniToolKit
import UniToolMCP
import UniToolRPC
import UniToolTestSupport

/// A value found wrong only at the portal (a term it does not offer) is still the caller's
/// argument, named in the caller's words (issue 51, deliverable 4): `options.term` with -32602
/// over JSON-RPC, `term` in an MCP tool's error, never the command line's `--term`.
@Suite("A value the portal does not offer is named as the caller's own argument")
struct ArgumentNamingTests {
    @Test("recipes.run with options.term 1999-winter is -32602 naming options.term and the terms the portal offers")
    func jsonRPC() async throws {
        try await RPCMethodsTests.withHost { host in
            let answers = await RPCMethodsTests.call(
                [RPCMethodsTests.request(1, "recipes.run", #"{"portal":"demo","recipe":"grades","options":{"term":"1999-winter"}}"#)],
                host: host)
            let error = answers["1"]?["error"]
            #expect(error?["code"] == .number(-32602), "\(String(describing: answers["1"]))")
            let message = error?["message"]?.stringValue ?? ""
            #expect(message.contains("'options.term'") && !message.contains("--term"), "\(message)")
            #expect(error?["data"]?["hint"]?.stringValue?.contains("2026-fall") == true, "\(String(describing: error))")
            #expect(error?["data"]?["exit_code"] == .number(64), "a usage mistake, as on the command line")
        }
    }

    @Test("attendance's warning is a boolean for a tool: true keeps the course with one absence left; 'ture' names the argument")
    func yesNoArgument() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = try PointOfNoReturnTests.mcpClient(host)
            client.send(RPCMethodsTests.request(1, "tools/call", #"{"name":"attendance","arguments":{"warning":true}}"#))
            let answer = await client.next()
            client.send(RPCMethodsTests.request(2, "tools/call", #"{"name":"attendance","arguments":{"warning":"ture"}}"#))
            let wrong = await client.next()
            _ = await client.finish()
            let structured = answer?["result"]?["structuredContent"]?["records"]?.arrayValue ?? []
            #expect(answer?["result"]?["isError"] == .bool(false) && !structured.isEmpty, "\(String(describing: answer))")
            #expect(structured.allSatisfy { $0["warning"] == .bool(true) }, "\(structured)")
            #expect(wrong?["result"]?["isError"] == .bool(true), "\(String(describing: wrong))")
            let text = wrong?["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
            #expect(text.contains("'warning'") && !text.contains("--warning"), "\(text)")
        }
    }

    @Test("the grades tool with term 1999-winter is a tool error naming 'term' and the terms offered, not --term")
    func mcp() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = try PointOfNoReturnTests.mcpClient(host)
            client.send(RPCMethodsTests.request(1, "tools/call", #"{"name":"grades","arguments":{"term":"1999-winter"}}"#))
            let answer = await client.next()
            _ = await client.finish()
            #expect(answer?["result"]?["isError"] == .bool(true), "\(String(describing: answer))")
            let text = answer?["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
            #expect(text.contains("for 'term'") && text.contains("2026-fall") && !text.contains("--term"), "\(text)")
        }
    }
}
