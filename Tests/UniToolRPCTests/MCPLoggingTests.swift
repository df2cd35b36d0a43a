import Foundation
import Testing
import UniToolKit
import UniToolMCP
import UniToolRPC
import UniToolTestSupport

/// MCP's `logging` (issue 51, deliverable 7): what the command line writes to stderr reaches the
/// client as `notifications/message`, from the level it chose.
@Suite("MCP logging: stderr's progress, notes and warnings as notifications/message")
struct MCPLoggingTests {

    func messages(_ served: ServedMCP) -> [(level: String, data: String)] {
        served.output.messages(.newline).filter { $0["method"] == .string("notifications/message") }.map {
            ($0["params"]?["level"]?.stringValue ?? "", $0["params"]?["data"]?.stringValue ?? "")
        }
    }

    @Test("the start's warnings go out once the client is initialized; progress only once the client asks for info")
    func levels() async throws {
        try await RPCMethodsTests.withHost { host in
            let served = try ServedMCP(host, warnings: ["DBUS_SESSION_BUS_ADDRESS is not set"])
            served.send(ServedMCP.initialize)
            await served.waitForAnswer(1)
            served.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            // The notification runs as its own work: its warning is out before the next step.
            await eventually { !messages(served).isEmpty }
            served.send(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grades","arguments":{"term":"2026-spring"}}}"#)
            await served.waitForAnswer(2)
            let atWarning = messages(served)
            served.send(#"{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}"#)
            served.send(#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"courses","arguments":{}}}"#)
            await served.waitForAnswer(4)
            served.send(#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"loud"}}"#)
            await served.waitForAnswer(5)
            await served.end()
            #expect(atWarning.map(\.level) == ["warning"] && atWarning.first?.data == "DBUS_SESSION_BUS_ADDRESS is not set", "\(atWarning)")
            let atInfo = messages(served).dropFirst(atWarning.count)
            #expect(!atInfo.isEmpty && atInfo.allSatisfy { $0.level == "info" || $0.level == "notice" }, "\(atInfo)")
            #expect(atInfo.contains { $0.data.contains("courses") || $0.data.contains("Demo University") }, "\(atInfo)")
            let refused = served.output.messages(.newline).first { $0["id"] == .number(5) }
            #expect(refused?["error"]?["code"] == .number(-32602), "\(String(describing: refused))")
            let capabilities = served.output.messages(.newline).first { $0["id"] == .number(1) }?["result"]?["capabilities"]
            #expect(capabilities?["logging"] == .object([]))
        }
    }
}
