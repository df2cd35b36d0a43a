import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// `unitool mcp` as the real executable, with raw messages on its stdin: what a one-shot client
/// sees when it writes its messages and closes the pipe, and how each protocol fault and tool
/// failure is answered (issue 38). The official SDK's client is MCPInteropTests.
@Suite("MCP conformance: every answer delivered, faults as JSON-RPC says, tool failures as isError")
struct MCPConformanceTests {
    static let initialize =
        #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#
    static let initialized = #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#

    /// Runs `unitool mcp` on the demo with `lines` on stdin, closed after them, and returns the
    /// answers by id (null ids under "null").
    func exchange(_ lines: [String], sandbox: Sandbox, demo: DemoUniversity) async throws -> (UniToolProcess.Outcome, [String: JSONValue]) {
        let outcome = try await UniToolProcess.run(
            ["--portal", "demo", "mcp"], stdin: lines.joined(separator: "\n") + "\n",
            environment: sandbox.environment.merging(["UNITOOL_DEMO_URL": demo.baseURL.absoluteString]) { $1 }, timeout: 60)
        var answers: [String: JSONValue] = [:]
        for line in outcome.stdout.split(separator: "\n") {
            guard let message = try? JSONParser.parse(Array(line.utf8)), message["method"] == nil else { continue }
            answers[message["id"]?.serialized ?? "null"] = message
        }
        return (outcome, answers)
    }

    @Test(
        "initialize, tools/list and tools/call are each answered 40 of 40 times when the input ends right after them",
        arguments: ["initialize", "tools/list", "tools/call"])
    func answeredAtTheEndOfInput(method: String) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            let last: [String] =
                switch method {
                case "initialize": [Self.initialize]
                case "tools/list": [Self.initialize, Self.initialized, #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#]
                default:
                    [
                        Self.initialize, Self.initialized,
                        #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grades","arguments":{"term":"2026-spring"}}}"#,
                    ]
                }
            let id = method == "initialize" ? "1" : "2"
            var lost: [String] = []
            // Eight clients at a time, as a busy host would start them.
            for batch in stride(from: 0, to: 40, by: 8) {
                let outcomes = try await withThrowingTaskGroup(of: (Int, UniToolProcess.Outcome, JSONValue?).self) { group in
                    for run in batch..<(batch + 8) {
                        group.addTask {
                            let (outcome, answers) = try await exchange(last, sandbox: sandbox, demo: demo)
                            return (run, outcome, answers[id])
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for (run, outcome, answer) in outcomes where answer?["result"] == nil || outcome.exitCode != 0 {
                    lost.append("run \(run): \(outcome)")
                }
            }
            #expect(lost.isEmpty, "\(lost.count) of 40 lost; first: \(lost.first ?? "")")
        }
    }

    @Test("protocol faults: a parse error and invalid requests are answered with id null and their own codes; odd ids come back as sent")
    func protocolFaults() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let (outcome, answers) = try await exchange(
                [
                    Self.initialize, "hello", #"{"jsonrpc":"2.0","id":11}"#, #"{"jsonrpc":"1.0","id":12,"method":"ping"}"#,
                    #"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#, #"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                    #"{"jsonrpc":"2.0","id":"s","method":"nosuch"}"#,
                ], sandbox: sandbox, demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let lines = outcome.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
            let parseError = lines.first { $0["error"]?["code"] == .number(-32700) }
            #expect(parseError?["id"] == .null, "a parse error is answered with id null: \(outcome.stdout)")
            #expect(answers["11"]?["error"]?["code"] == .number(-32600), "no method: \(outcome.stdout)")
            #expect(answers["12"]?["error"]?["code"] == .number(-32600), "jsonrpc 1.0: \(outcome.stdout)")
            #expect(answers["18446744073709551616"]?["result"] == .object([]), "a big id comes back as sent: \(outcome.stdout)")
            #expect(answers["1.5"]?["result"] == .object([]), "\(outcome.stdout)")
            #expect(answers["\"s\""]?["error"]?["code"] == .number(-32601), "\(outcome.stdout)")
        }
    }

    @Test("strict where MCP is: id null is -32600, a batch after 2025-06-18 is -32600 and runs nothing, initialize comes once")
    func strictWhereMCPIs() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let (outcome, answers) = try await exchange(
                [
                    Self.initialize, Self.initialized, #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                    #"[{"jsonrpc":"2.0","id":22,"method":"ping"},{"jsonrpc":"2.0","id":23,"method":"tools/list"}]"#,
                    #"{"jsonrpc":"2.0","id":24,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
                    #"{"jsonrpc":"2.0","id":25,"method":"ping"}"#,
                ], sandbox: sandbox, demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let all = outcome.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
            let refusedWithoutID = all.filter { $0["id"] == .null && $0["error"]?["code"] == .number(-32600) }
                .compactMap { $0["error"]?["message"]?.stringValue }
            #expect(refusedWithoutID.contains { $0.contains("never null") }, "\(outcome.stdout)")
            #expect(refusedWithoutID.contains { $0.contains("has no batches") }, "\(outcome.stdout)")
            #expect(answers["22"] == nil && answers["23"] == nil, "nothing of the batch ran: \(outcome.stdout)")
            // Two initialize requests: the one handled first is answered, the other refused.
            let handshakes = [answers["1"], answers["24"]]
            #expect(handshakes.filter { $0?["result"]?["protocolVersion"] != nil }.count == 1, "\(outcome.stdout)")
            #expect(handshakes.filter { $0?["error"]?["code"] == .number(-32600) }.count == 1, "\(outcome.stdout)")
            #expect(answers["25"]?["result"] == .object([]), "the session goes on: \(outcome.stdout)")
        }
    }

    @Test(
        "a tool's failure is its answer, isError with text a model can act on: a refused renewal, a wrong argument; an unknown tool is a protocol error"
    )
    func toolFailures() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            let (outcome, answers) = try await exchange(
                [
                    Self.initialize, Self.initialized,
                    #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"loans_renew","arguments":{"barcode":"31000104"}}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"grades","arguments":{"term":2026}}}"#,
                    #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}"#,
                ], sandbox: sandbox, demo: demo)
            let refused = answers["2"]?["result"]
            #expect(refused?["isError"] == .bool(true), "\(outcome.stdout)")
            let refusal = refused?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
            #expect(refusal.contains("reserved by another reader") && refusal.contains("[action_refused]"), "\(refusal)")
            let wrong = answers["3"]?["result"]
            #expect(wrong?["isError"] == .bool(true), "\(outcome.stdout)")
            let text = wrong?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
            #expect(text.contains("'term'") && !text.contains("--term"), "named as the tool's argument: \(text)")
            #expect(answers["4"]?["error"]?["code"] == .number(-32602), "\(outcome.stdout)")
        }
    }

    @Test("resources: every listed one can be read; a missing one is -32002; templates are listed")
    func resources() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            // An answer kept with options of its own: listed, so it must be readable.
            _ = try await exchange(
                [
                    Self.initialize, Self.initialized,
                    #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grades","arguments":{"term":"2026-spring"}}}"#,
                ], sandbox: sandbox, demo: demo)
            let (_, listed) = try await exchange(
                [Self.initialize, #"{"jsonrpc":"2.0","id":2,"method":"resources/list"}"#], sandbox: sandbox, demo: demo)
            let uris = listed["2"]?["result"]?["resources"]?.arrayValue?.compactMap { $0["uri"]?.stringValue } ?? []
            #expect(uris.contains("unitool://demo/records/grades"), "\(uris)")
            let reads = uris.enumerated().map { index, uri in
                #"{"jsonrpc":"2.0","id":\#(index + 10),"method":"resources/read","params":{"uri":"\#(uri)"}}"#
            }
            let (outcome, answers) = try await exchange(
                [Self.initialize] + reads + [
                    #"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"unitool://demo/records/nosuch"}}"#,
                    #"{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}"#,
                ], sandbox: sandbox, demo: demo)
            for index in uris.indices {
                #expect(answers["\(index + 10)"]?["result"]?["contents"] != nil, "\(uris[index]): \(outcome.stdout)")
            }
            #expect(answers["3"]?["error"]?["code"] == .number(-32002), "\(outcome.stdout)")
            #expect(answers["4"]?["result"]?["resourceTemplates"]?.arrayValue?.isEmpty == false, "\(outcome.stdout)")
        }
    }
}
