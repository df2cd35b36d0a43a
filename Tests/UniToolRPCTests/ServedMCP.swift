import Foundation
import Logging
import UniToolKit
import UniToolMCP
import UniToolRPC
import UniToolTestSupport

/// The MCP server over `host`, served in process; the test writes its input line by line.
struct ServedMCP {
    /// `initialize` for MCP 2025-06-18, as id 1.
    static let initialize =
        #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#

    let server: UniToolMCPServer
    let rpc: RPCServer
    let output = CollectedOutput()
    let writer: AsyncStream<[UInt8]>.Continuation
    let serving: Task<Int32, Never>

    init(_ host: DemoRPCHost, warnings: [String] = []) throws {
        server = UniToolMCPServer(host: host, portal: try host.catalog.portal("demo"), user: "alice", warnings: warnings)
        rpc = RPCServer(
            methods: server.methods, output: output, dialect: .mcp, batchRefusal: server.batchRefusal,
            logger: Logger(label: "mcp-resources"))
        let (input, writer) = AsyncStream<[UInt8]>.makeStream()
        self.writer = writer
        serving = Task { [rpc] in await rpc.serve(input) }
    }

    func send(_ line: String) { writer.yield(Array((line + "\n").utf8)) }

    /// The methods of every notification written so far, in order, and the ids of the answers.
    var sequence: [String] {
        output.messages(.newline).map { message in
            message["method"]?.stringValue.map { "\($0) \(message["params"]?["uri"]?.stringValue ?? "")" }
                ?? "answer \(message["id"]?.serialized ?? "")"
        }
    }

    /// Waits until the answer to `id` is out.
    func waitForAnswer(_ id: Int) async {
        await eventually { output.messages(.newline).contains { $0["id"] == .number(Double(id)) } }
    }

    func end() async {
        writer.finish()
        _ = await serving.value
    }
}
