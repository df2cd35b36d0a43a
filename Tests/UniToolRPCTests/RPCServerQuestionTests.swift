import Foundation
import Logging
import Testing
import UniToolKit
import UniToolRPC

/// The server's own requests to the client (MCP's `elicitation/create`): a method asks through
/// `RPCRequest.client` and gets the client's answer, its error, or word that nobody is left to
/// answer; an answer is never itself answered.
@Suite("JSON-RPC server in process: a method asks the client and gets its answer")
struct RPCServerQuestionTests {
    /// A method that asks the client `ask/user` and answers with what it got, or what failed.
    static let methods: [String: RPCMethod] = [
        "confirm": { request in
            do {
                let answer = try await request.client?.request("ask/user", params: .object([("message", .string("Send it?"))]))
                return .object([("answer", answer ?? .null)])
            } catch let failure as RPCClientLink.Failure {
                switch failure {
                case .answered(let code, let message): return .object([("error", .string("\(code) \(message)"))])
                case .clientGone: return .object([("gone", .bool(true))])
                }
            }
        }
    ]

    /// A server whose input the test writes piece by piece.
    struct Running {
        let output = CollectedOutput()
        let input: AsyncStream<[UInt8]>
        let writer: AsyncStream<[UInt8]>.Continuation
        let served: Task<Int32, Never>

        init() {
            (input, writer) = AsyncStream<[UInt8]>.makeStream()
            let server = RPCServer(methods: RPCServerQuestionTests.methods, output: output, logger: Logger(label: "rpc-question"))
            served = Task { [input] in await server.serve(input) }
        }

        func send(_ line: String) { writer.yield(Array((line + "\n").utf8)) }

        /// The question the server sent, once it is out.
        func question() async -> JSONValue? {
            await output.waitFor(1).first { $0["method"] == .string("ask/user") }
        }
    }

    @Test("the client's result reaches the method, and the method's answer carries it")
    func answered() async throws {
        let server = Running()
        server.send(#"{"jsonrpc":"2.0","id":1,"method":"confirm"}"#)
        let question = try #require(await server.question())
        #expect(question["params"]?["message"] == .string("Send it?"))
        let id = try #require(question["id"])
        server.send(#"{"jsonrpc":"2.0","id":\#(id.serialized),"result":{"action":"accept"}}"#)
        let messages = await server.output.waitFor(2)
        server.writer.finish()
        _ = await server.served.value
        let answer = messages.first { $0["id"] == .number(1) }
        #expect(answer?["result"]?["answer"]?["action"] == .string("accept"), "\(messages)")
        // The client's answer is not answered: two messages, the question and the reply.
        #expect(server.output.messages(.newline).count == 2, "\(server.output.text)")
    }

    @Test("the client's error reaches the method as its code and message; a code out of range is 0, not a crash")
    func clientError() async throws {
        for (code, read) in [("-32601", "-32601"), ("1e300", "0")] {
            let server = Running()
            server.send(#"{"jsonrpc":"2.0","id":1,"method":"confirm"}"#)
            let id = try #require(await server.question()?["id"])
            server.send(#"{"jsonrpc":"2.0","id":\#(id.serialized),"error":{"code":\#(code),"message":"Method not found"}}"#)
            let messages = await server.output.waitFor(2)
            server.writer.finish()
            _ = await server.served.value
            #expect(
                messages.first { $0["id"] == .number(1) }?["result"]?["error"] == .string("\(read) Method not found"), "\(messages)")
        }
    }

    @Test("the end of input before an answer ends the wait (nobody is left to answer), and the server still answers the method")
    func inputEnds() async throws {
        let server = Running()
        server.send(#"{"jsonrpc":"2.0","id":1,"method":"confirm"}"#)
        _ = try #require(await server.question())
        server.writer.finish()
        #expect(await server.served.value == 0)
        let answer = server.output.messages(.newline).first { $0["id"] == .number(1) }
        #expect(answer?["result"]?["gone"] == .bool(true), "\(server.output.text)")
    }

    @Test("a cancel while the method waits for the client stops the wait; an answer arriving after it is ignored")
    func cancelledWhileAsking() async throws {
        let server = Running()
        server.send(#"{"jsonrpc":"2.0","id":1,"method":"confirm"}"#)
        let id = try #require(await server.question()?["id"])
        server.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#)
        let cancelled = await server.output.waitFor(3)
        server.send(#"{"jsonrpc":"2.0","id":\#(id.serialized),"result":{"action":"accept"}}"#)
        server.writer.finish()
        _ = await server.served.value
        #expect(cancelled.first { $0["id"] == .number(1) }?["error"]?["code"] == .number(-32800), "\(cancelled)")
        // The client hears that its answer is no longer wanted; the late answer is not answered.
        let all = server.output.messages(.newline)
        #expect(
            all.contains { $0["method"] == .string("$/cancelRequest") && $0["params"]?["id"] == id }, "\(server.output.text)")
        #expect(all.count == 3, "\(server.output.text)")
    }
}
