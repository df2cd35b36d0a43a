import DemoUniversity
import Foundation
import Logging
import Synchronization
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// The server and every method of `unitool rpc` in process, fed message by message as a client
/// would feed it, over an in-memory output.
final class InProcessRPCClient: Sendable {
    let output: CollectedOutput
    let framing: RPCFraming
    private let feed: AsyncStream<[UInt8]>.Continuation
    private let serving: Task<Int32, Never>
    /// How many of the output's messages `next()` has handed out.
    private let read = Mutex(0)

    convenience init(host: DemoRPCHost, framing: RPCFraming = .newline, limits: RPCLimits = RPCLimits()) {
        self.init(methods: RPCMethods(host: host, limits: limits).table, framing: framing, limits: limits)
    }

    /// A server of other methods, in another dialect: `unitool mcp`'s over the same core.
    init(methods: [String: RPCMethod], framing: RPCFraming = .newline, limits: RPCLimits = RPCLimits(), dialect: RPCDialect = .unitool) {
        let output = CollectedOutput()
        let (input, feed) = AsyncStream<[UInt8]>.makeStream()
        let server = RPCServer(
            methods: methods, output: output, framing: framing, maxMessageBytes: limits.maxMessageBytes, dialect: dialect,
            logger: Logger(label: "rpc-protocol-test"))
        self.output = output
        self.framing = framing
        self.feed = feed
        serving = Task { await server.serve(input) }
    }

    /// Sends one message in the client's framing.
    func send(_ message: String) { feed.yield(framing.frame(message)) }

    /// Sends bytes as they are, framing and all.
    func sendRaw(_ text: String) { feed.yield(Array(text.utf8)) }

    /// The next message the server wrote, waiting up to 10 s for it.
    func next() async -> JSONValue? {
        let index = read.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        let messages = await output.waitFor(index + 1, framing)
        return index < messages.count ? messages[index] : nil
    }

    /// Ends the input; the server finishes its work in the background.
    func close() { feed.finish() }

    /// Ends the input and waits for the server to end; its exit code.
    func finish() async -> Int32 {
        feed.finish()
        return await serving.value
    }
}

/// The protocol behaviour of `unitool rpc` (framing, limits, batches, concurrency, cancellation,
/// shutdown) over its real methods and a demo university, without a child process.
@Suite("JSON-RPC protocol in process, over the real methods and a demo university")
struct RPCServerProtocolTests {
    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        RPCMethodsTests.request(id, method, params)
    }

    static func errorCode(_ message: JSONValue?) -> Double? { message?["error"]?["code"]?.doubleValue }

    @Test("a message over the size limit is refused and skipped, in both framings")
    func oversized() async throws {
        let big =
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":""# + String(repeating: "x", count: 5000)
            + #""}}}"#
        try await RPCMethodsTests.withHost { host in
            let lines = InProcessRPCClient(host: host, limits: RPCLimits(maxMessageBytes: 1000))
            lines.send(big)
            let refused = await lines.next()
            #expect(Self.errorCode(refused) == -32600)
            #expect(refused?["error"]?["message"]?.stringValue?.contains("the limit is 1000") == true)
            lines.send(Self.request(2, "portals.list"))
            let after = await lines.next()
            #expect(after?["id"] == .number(2))
            _ = await lines.finish()

            let framed = InProcessRPCClient(host: host, framing: .contentLength, limits: RPCLimits(maxMessageBytes: 1000))
            framed.sendRaw("Content-Length: \(big.utf8.count)\r\n\r\n\(big)")
            let next = Self.request(3, "portals.list")
            framed.sendRaw("Content-Length: \(next.utf8.count)\r\n\r\n\(next)")
            let refusedFramed = await framed.next()
            #expect(Self.errorCode(refusedFramed) == -32600)
            let afterFramed = await framed.next()
            #expect(afterFramed?["id"] == .number(3))
            _ = await framed.finish()
        }
    }

    @Test("Content-Length framing carries requests and responses, string ids included")
    func contentLengthFraming() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = InProcessRPCClient(host: host, framing: .contentLength)
            let request =
                #"{"jsonrpc":"2.0","id":"grades-1","method":"recipes.run","params":{"portal":"demo","recipe":"grades","options":{"term":"2025-fall"}}}"#
            // Split in the middle of the header and of the body, as a pipe may deliver it.
            let bytes = "Content-Length: \(request.utf8.count)\r\n\r\n\(request)"
            let header = bytes.index(bytes.startIndex, offsetBy: 10)
            let body = bytes.index(bytes.endIndex, offsetBy: -20)
            client.sendRaw(String(bytes[..<header]))
            client.sendRaw(String(bytes[header..<body]))
            client.sendRaw(String(bytes[body...]))
            let answer = await client.next()
            #expect(answer?["id"] == .string("grades-1"))
            #expect(answer?["result"]?["records"]?.serialized.contains("Linear Algebra I") == true, "\(String(describing: answer))")
            _ = await client.finish()
        }
    }

    @Test("a batch is answered as one array, in order, without the notifications")
    func batch() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = InProcessRPCClient(host: host)
            client.send(
                "["
                    + [
                        Self.request(1, "portals.list"), #"{"jsonrpc":"2.0","method":"portals.list"}"#,
                        Self.request(2, "no.such.method"),
                        #"{"jsonrpc":"2.0","id":"three","method":"recipes.list","params":{"portal":"demo"}}"#, "17",
                    ].joined(separator: ",") + "]")
            let answer = await client.next()
            guard case .array(let answers)? = answer else {
                Issue.record("the batch was not answered with an array: \(String(describing: answer))")
                _ = await client.finish()
                return
            }
            #expect(answers.count == 4)
            #expect(answers.first?["id"] == .number(1) && answers.first?["result"] != nil)
            if answers.count == 4 {
                #expect(answers[1]["id"] == .number(2) && Self.errorCode(answers[1]) == -32601)
                #expect(answers[2]["id"] == .string("three") && answers[2]["result"] != nil)
                #expect(Self.errorCode(answers[3]) == -32600)
            }
            // A batch of notifications only gets no answer at all.
            client.send(#"[{"jsonrpc":"2.0","method":"portals.list"}]"#)
            client.send(Self.request(4, "portals.list"))
            let next = await client.next()
            #expect(next?["id"] == .number(4))
            _ = await client.finish()
            #expect(client.output.messages(.newline).count == 2, "\(client.output.text)")
        }
    }

    @Test("requests are served concurrently: a quick one overtakes a slow one; the slow one's answer is in the history")
    func outOfOrder() async throws {
        var faults = DemoFaults()
        faults.latencyMilliseconds = 400
        try await RPCMethodsTests.withHost(faults: faults) { host in
            let client = InProcessRPCClient(host: host)
            client.send(Self.request(1, "recipes.run", #"{"portal":"demo","recipe":"grades","options":{"term":"2026-fall"}}"#))
            client.send(Self.request(2, "recipes.describe", #"{"portal":"demo","recipe":"loans"}"#))
            let first = await client.next()
            let second = await client.next()
            #expect(first?["id"] == .number(2))
            #expect(second?["id"] == .number(1))
            #expect(second?["result"]?["records"] != nil, "\(String(describing: second))")
            // The answer is in the history: offline, the same records come back with their age.
            client.send(
                Self.request(3, "recipes.run", #"{"portal":"demo","recipe":"grades","options":{"term":"2026-fall"},"offline":true}"#))
            let offline = await client.next()
            #expect(offline?["result"]?["records"] == second?["result"]?["records"], "\(String(describing: offline))")
            #expect(offline?["result"]?["asOf"]?.stringValue != nil)
            client.send(Self.request(4, "history.query", #"{"portal":"demo","recipe":"grades","since":"1d"}"#))
            let history = await client.next()
            #expect(history?["result"]?["records"] == .array([]), "one run has no changes yet: \(String(describing: history))")
            client.send(Self.request(6, "search", #"{"portal":"demo","query":"probabilty"}"#))
            let found = await client.next()
            #expect(
                found?["result"]?["records"]?.arrayValue?.first?["text"]?.stringValue?.contains("Probability Theory") == true,
                "\(String(describing: found))")
            client.send(Self.request(5, "recipes.run", #"{"portal":"demo","recipe":"loans","offline":true}"#))
            let never = await client.next()
            #expect(never?["error"]?["code"] == .number(-32051), "\(String(describing: never))")
            _ = await client.finish()
        }
    }

    @Test("$/cancelRequest stops work in flight with -32800; the server goes on")
    func cancellation() async throws {
        // How many requests the whole run sends (a login, the terms, the page), on a demo
        // without delay: a cancelled run must stop well short of that.
        var whole = 0
        try await RPCMethodsTests.withHost { host in
            let client = InProcessRPCClient(host: host)
            let before = await host.demo.requestCount
            client.send(Self.request(7, "recipes.run", #"{"portal":"demo","recipe":"loans"}"#))
            let answer = await client.next()
            #expect(answer?["result"] != nil, "\(String(describing: answer))")
            whole = await host.demo.requestCount - before
            _ = await client.finish()
        }
        #expect(whole >= 4, "a login and the page take several requests: \(whole)")
        var faults = DemoFaults()
        faults.latencyMilliseconds = 1500
        try await RPCMethodsTests.withHost(faults: faults) { host in
            let client = InProcessRPCClient(host: host)
            let before = await host.demo.requestCount
            client.send(Self.request(7, "recipes.run", #"{"portal":"demo","recipe":"loans"}"#))
            // Cancelled once it is under way: the demo has seen its first request (then held for 1.5 s).
            for _ in 0..<500 {
                let count = await host.demo.requestCount
                if count != before { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            client.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#)
            let answer = await client.next()
            #expect(answer?["id"] == .number(7))
            #expect(Self.errorCode(answer) == -32800, "\(String(describing: answer))")
            // What the demo had been asked when the answer came: the run stopped, it did not go on
            // to its end (counted, not timed, so that a busy machine cannot fail it).
            let sent = await host.demo.requestCount - before
            #expect(sent < whole, "the cancelled run sent \(sent) of the whole run's \(whole) requests")
            client.send(Self.request(8, "portals.list"))
            let after = await client.next()
            #expect(after?["id"] == .number(8))
            _ = await client.finish()
        }
    }

    @Test("initialize reports the limits in force, from the configuration the server was given")
    func initializeReportsLimits() async throws {
        try await RPCMethodsTests.withHost { host in
            let client = InProcessRPCClient(host: host, limits: RPCLimits(maxMessageBytes: 12345, maxUnreadBytes: 678901))
            client.send(Self.request(1, "initialize"))
            let answer = await client.next()
            let capabilities = answer?["result"]?["capabilities"]
            #expect(capabilities?["maxMessageBytes"] == .number(12345), "\(String(describing: answer))")
            #expect(capabilities?["maxNestingDepth"] == .number(64))
            #expect(capabilities?["maxUnreadBytes"] == .number(678901))
            _ = await client.finish()
        }
    }

    @Test("terms.accept as a notification after shutdown never runs; one before the end of input runs to completion first")
    func notificationsAfterShutdownAndAtTheEnd() async throws {
        let faults = try DemoFaults(parsing: "terms-version=2027-01")
        try await RPCMethodsTests.withHost(faults: faults) { host in
            let accept = #"{"jsonrpc":"2.0","method":"terms.accept","params":{"portal":"demo","version":"2027-01"}}"#

            let (late, _) = await RPCMethodsTests.exchange(
                [Self.request(1, "shutdown"), accept, #"{"jsonrpc":"2.0","method":"exit"}"#], host: host)
            #expect(late["1"]?["result"] == .null)
            let afterShutdown = await Self.acceptedVersion(host)
            #expect(afterShutdown == DemoUniversity.initialTermsVersion, "terms.accept ran after shutdown")

            // Sent, then the end of input at once: the server may not end before it has finished.
            let (_, all) = await RPCMethodsTests.exchange([accept], host: host)
            #expect(all.isEmpty, "a notification has no answer: \(all)")
            let atTheEnd = await Self.acceptedVersion(host)
            #expect(atTheEnd == "2027-01", "the notification was not run to completion")
        }
    }

    /// The accepted terms version as a fresh server reads it.
    static func acceptedVersion(_ host: DemoRPCHost) async -> String? {
        let answers = await RPCMethodsTests.call([request(1, "terms.status", #"{"portal":"demo"}"#)], host: host)
        return answers["1"]?["result"]?["accepted"]?.stringValue
    }
}
