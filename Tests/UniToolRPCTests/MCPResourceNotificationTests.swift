import Foundation
import Logging
import Testing
import UniToolKit
import UniToolMCP
import UniToolRPC
import UniToolTestSupport

/// The resource list and its notifications (issue 51, deliverable 5): a command's first kept
/// answer is announced with `notifications/resources/list_changed`, a newer answer of a
/// subscribed resource with `notifications/resources/updated`, whether a tool call or another
/// unitool process (a watch) kept it.
@Suite("MCP resources: new and newer answers are announced")
struct MCPResourceNotificationTests {
    static let grades = "unitool://demo/records/grades"

    @Test("a tool call's first answer is list_changed, then updated for the subscribed resource; a second call is updated only")
    func toolCalls() async throws {
        try await RPCMethodsTests.withHost { host in
            let served = try ServedMCP(host)
            served.send(ServedMCP.initialize)
            await served.waitForAnswer(1)
            served.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            served.send(#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"\#(Self.grades)"}}"#)
            await served.waitForAnswer(2)
            served.send(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"grades","arguments":{"term":"2026-spring"}}}"#)
            await served.waitForAnswer(3)
            served.send(#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"grades","arguments":{"term":"2026-spring"}}}"#)
            await served.waitForAnswer(4)
            served.send(#"{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"unitool://demo/records/nosuch"}}"#)
            await served.waitForAnswer(5)
            await served.end()
            let sequence = served.sequence
            #expect(
                sequence == [
                    "answer 1", "answer 2",
                    "notifications/resources/list_changed ", "notifications/resources/updated \(Self.grades)", "answer 3",
                    "notifications/resources/updated \(Self.grades)", "answer 4", "answer 5",
                ], "\(sequence)")
            let unknown = served.output.messages(.newline).first { $0["id"] == .number(5) }
            #expect(unknown?["error"]?["code"] == .number(-32002), "\(String(describing: unknown))")
            let capabilities = served.output.messages(.newline).first { $0["id"] == .number(1) }?["result"]?["capabilities"]
            #expect(capabilities?["resources"]?["listChanged"] == .bool(true) && capabilities?["resources"]?["subscribe"] == .bool(true))
        }
    }

    @Test("an answer another process keeps (a watch writing the history) is announced by the server's look at the history")
    func anotherProcess() async throws {
        try await RPCMethodsTests.withHost { host in
            let served = try ServedMCP(host)
            served.send(ServedMCP.initialize)
            await served.waitForAnswer(1)
            served.send(#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"unitool://demo/records/loans"}}"#)
            await served.waitForAnswer(2)
            let following = Task { [server = served.server, client = served.rpc.client] in
                await server.followHistory(client: client, every: .milliseconds(20))
            }
            let history = try #require(host.history)
            try history.record(
                portal: "demo", user: "alice", recipe: "loans", options: "",
                records: RecordSet(columns: ["barcode"], records: [Record(fields: [("barcode", .string("31000101"))])]))
            await eventually { served.sequence.contains("notifications/resources/updated unitool://demo/records/loans") }
            following.cancel()
            await following.value
            await served.end()
            #expect(
                Array(served.sequence.dropFirst(2).prefix(2)) == [
                    "notifications/resources/list_changed ", "notifications/resources/updated unitool://demo/records/loans",
                ], "\(served.sequence)")
        }
    }

    @Test("a command whose kept answers are all forgotten leaves the list: the server's look at the history reads it whole")
    func forgottenAnswers() async throws {
        try await RPCMethodsTests.withHost { host in
            let history = try #require(host.history)
            try history.record(
                portal: "demo", user: "alice", recipe: "loans", options: "",
                records: RecordSet(columns: ["barcode"], records: [Record(fields: [("barcode", .string("31000101"))])]),
                at: Date(timeIntervalSince1970: 1_700_000_000))
            let served = try ServedMCP(host)
            served.send(ServedMCP.initialize)
            await served.waitForAnswer(1)
            let following = Task { [server = served.server, client = served.rpc.client] in
                await server.followHistory(client: client, every: .milliseconds(20))
            }
            #expect(try history.prune(before: Date(timeIntervalSince1970: 1_700_000_001)) == 1)
            let announced = await eventually { served.sequence.contains("notifications/resources/list_changed ") }
            following.cancel()
            await following.value
            await served.end()
            #expect(announced, "\(served.sequence)")
        }
    }
}
