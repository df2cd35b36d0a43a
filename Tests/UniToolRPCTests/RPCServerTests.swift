import Foundation
import Logging
import Synchronization
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// What the server wrote, kept in memory.
final class CollectedOutput: RPCOutput {
    private let bytes = Mutex<[UInt8]>([])

    func send(_ chunk: [UInt8]) { bytes.withLock { $0 += chunk } }

    var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Every message written so far, in order, cut by the framing the server used.
    func messages(_ framing: RPCFraming) -> [JSONValue] {
        var reader = RPCMessageReader(framing: framing, maxMessageBytes: .max)
        let items = reader.feed(bytes.withLock { $0 }) + reader.finish()
        return items.compactMap { item in
            guard case .message(let message) = item else { return nil }
            return try? JSONParser.parse(message)
        }
    }

    /// Waits until at least `count` messages were written, for up to two minutes: a guard
    /// against a hang, long enough for the whole suite's load on two cores.
    func waitFor(_ count: Int, _ framing: RPCFraming = .newline) async -> [JSONValue] {
        await eventually { messages(framing).count >= count }
        return messages(framing)
    }
}

/// The server in process, over an in-memory output: the lifecycle, ids, batches and the end of
/// input, without the cost of a process per run (issue 17, section 8).
@Suite("JSON-RPC server in process: every request answered once, lifecycle, ids, batches")
struct RPCServerTests {
    /// What the notifications of a test did, in order.
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        let waiting = Mutex<[(entry: String, resume: CheckedContinuation<Void, Never>)]>([])

        func add(_ entry: String) {
            entries.withLock { $0.append(entry) }
            let due = waiting.withLock { waiting in
                let due = waiting.filter { $0.entry == entry }
                waiting.removeAll { $0.entry == entry }
                return due
            }
            for waiter in due { waiter.resume.resume() }
        }

        var all: [String] { entries.withLock { $0 } }

        /// Returns once `entry` is in the journal: what a test waits for instead of a sleep.
        func waitFor(_ entry: String) async {
            await withCheckedContinuation { continuation in
                let noted = waiting.withLock { waiting in
                    // Checked under the same lock `add` resumes under, so no entry slips between.
                    if entries.withLock({ $0.contains(entry) }) { return true }
                    waiting.append((entry, continuation))
                    return false
                }
                if noted { continuation.resume() }
            }
        }
    }

    static func methods(_ journal: Journal = Journal()) -> [String: RPCMethod] {
        [
            "echo": { request in request.params ?? .null },
            // Runs until cancelled (or 10 s).
            "slow": { _ in
                journal.add("slow started")
                try await Task.sleep(for: .seconds(10))
                return .string("finished")
            },
            // Takes a while, then notes its `mark`: shows whether a notification ran to the end.
            "record": { request in
                try? await Task.sleep(for: .milliseconds(100))
                journal.add(request.params?["mark"]?.stringValue ?? "?")
                return .null
            },
            "progressing": { request in
                request.progress?("half way")
                return .bool(true)
            },
        ]
    }

    static func server(_ output: CollectedOutput, framing: RPCFraming = .newline, journal: Journal = Journal()) -> RPCServer {
        RPCServer(methods: methods(journal), output: output, framing: framing, logger: Logger(label: "rpc-test"))
    }

    /// Serves exactly these chunks, then the end of input.
    static func serve(_ chunks: [String], framing: RPCFraming = .newline, journal: Journal = Journal()) async -> (
        code: Int32, output: CollectedOutput
    ) {
        let output = CollectedOutput()
        let input = AsyncStream<[UInt8]> { continuation in
            for chunk in chunks { continuation.yield(Array(chunk.utf8)) }
            continuation.finish()
        }
        let code = await server(output, framing: framing, journal: journal).serve(input)
        return (code, output)
    }

    static func request(_ id: String, _ method: String, _ params: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
    }

    static func notification(_ method: String, _ params: String? = nil) -> String {
        #"{"jsonrpc":"2.0","method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
    }

    static func errorCode(_ message: JSONValue?) -> Double? { message?["error"]?["code"]?.doubleValue }

    @Test(
        "1,000 runs of a request followed at once by the end of input: each gets exactly one answer",
        arguments: RPCFraming.allCases)
    func endOfInputRightAfterARequest(framing: RPCFraming) async {
        var failures: [String] = []
        for run in 0..<1000 {
            // Alternate an unknown method (answered at once) and a method that runs.
            let method = run.isMultiple(of: 2) ? "nosuch" : "echo"
            let message = String(decoding: framing.frame(Self.request("\(run)", method)), as: UTF8.self)
            let (code, output) = await Self.serve([message], framing: framing)
            let answers = output.messages(framing)
            if code != 0 || answers.count != 1 || answers.first?["id"] != .number(Double(run)) {
                failures.append("run \(run): exit \(code), \(answers.count) answers: \(output.text)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 1000 runs failed; first: \(failures.first ?? "")")
    }

    @Test("the last line without its newline is still answered at the end of input")
    func lastLineWithoutNewline() async {
        let (_, output) = await Self.serve([Self.request("1", "echo")])
        #expect(output.messages(.newline).map { $0["id"] } == [.number(1)])
    }

    @Test("ids come back byte for byte: large integers, exponents, -0, strings")
    func idsEchoedExactly() async {
        let ids = [
            "1000000000000000", "123456789012345678", "9007199254740993", "1.5e3", "-0", "2.50", "1e999",
            String(repeating: "7", count: 300), #""abc""#,
        ]
        let (_, output) = await Self.serve(ids.map { Self.request($0, "echo") + "\n" })
        let text = output.text
        for id in ids {
            #expect(text.contains(#""id":\#(id),"#), "\(id) did not come back as sent: \(text)")
        }
    }

    @Test("a second request with an id still in flight is refused; the first still gets its answer")
    func duplicateID() async {
        let output = CollectedOutput()
        let (input, feed) = AsyncStream<[UInt8]>.makeStream()
        let server = Self.server(output)
        let serving = Task { await server.serve(input) }
        feed.yield(Array((Self.request("1", "slow") + "\n" + Self.request("1", "echo") + "\n").utf8))
        let refused = await output.waitFor(1)
        #expect(refused.first?["id"] == .number(1))
        #expect(Self.errorCode(refused.first) == -32600)
        #expect(refused.first?["error"]?["message"]?.stringValue?.contains("still in flight") == true)
        feed.yield(Array((Self.notification("$/cancelRequest", #"{"id":1}"#) + "\n").utf8))
        let both = await output.waitFor(2)
        #expect(Self.errorCode(both.last) == -32800, "the first request answered (cancelled)")
        feed.finish()
        #expect(await serving.value == 0)
        #expect(output.messages(.newline).count == 2)
    }

    @Test("notifications after shutdown never run; one accepted before runs to completion before the server ends")
    func notificationsAndShutdown() async {
        let journal = Journal()
        let (code, output) = await Self.serve(
            [
                Self.notification("record", #"{"mark":"before"}"#) + "\n" + Self.request("1", "shutdown") + "\n"
                    + Self.notification("record", #"{"mark":"after"}"#) + "\n" + Self.request("2", "echo") + "\n"
                    + Self.notification("exit") + "\n"
            ], journal: journal)
        #expect(code == 0)
        #expect(journal.all == ["before"], "the notification before shutdown finished, the one after never ran")
        let answers = output.messages(.newline)
        #expect(answers.count == 2)
        #expect(answers.first { $0["id"] == .number(1) }?["result"] == .null)
        #expect(answers.first { $0["id"] == .number(2) }?["error"]?["data"]?["kind"] == .string("shutting_down"))
    }

    @Test("shutdown: array or unknown params are -32602 and do not shut down; a second shutdown is shutting_down")
    func shutdownRules() async {
        let (_, output) = await Self.serve([
            [
                Self.request("1", "shutdown", "[]"), Self.request("2", "shutdown", #"{"force":true}"#), Self.request("3", "echo"),
                Self.request("4", "shutdown", #"{"progressToken":"t"}"#), Self.request("5", "shutdown"),
            ].joined(separator: "\n") + "\n"
        ])
        let answers = Dictionary(output.messages(.newline).map { ($0["id"]?.serialized ?? "", $0) }) { first, _ in first }
        #expect(Self.errorCode(answers["1"]) == -32602)
        #expect(Self.errorCode(answers["2"]) == -32602)
        #expect(answers["3"]?["result"] != nil, "not shut down by the invalid ones")
        #expect(answers["4"]?["result"] == .null)
        #expect(Self.errorCode(answers["5"]) == -32600)
        #expect(answers["5"]?["error"]?["data"]?["kind"] == .string("shutting_down"))
    }

    @Test("exit and $/cancelRequest with an id are answered, alone and inside a batch, and do not act")
    func controlNotificationsWithID() async {
        let (code, output) = await Self.serve([
            Self.request("1", "exit") + "\n" + Self.request("2", "$/cancelRequest", #"{"id":1}"#) + "\n" + "["
                + [Self.request("3", "exit"), Self.request("4", "echo")].joined(separator: ",") + "]\n"
        ])
        #expect(code == 0, "exit with an id did not end the server")
        let answers = output.messages(.newline)
        #expect(answers.count == 3)
        #expect(Self.errorCode(answers.first { $0["id"] == .number(1) }) == -32600)
        #expect(Self.errorCode(answers.first { $0["id"] == .number(2) }) == -32600)
        // The batch answer is the one message that is an array (it has no "jsonrpc" of its own).
        guard case .array(let batch)? = answers.first(where: { $0["jsonrpc"] == nil }) else {
            Issue.record("no batch answer: \(output.text)")
            return
        }
        #expect(batch.count == 2)
        #expect(batch.first?["id"] == .number(3) && Self.errorCode(batch.first) == -32600)
        #expect(batch.last?["id"] == .number(4) && batch.last?["result"] != nil)
    }

    @Test("$/cancelRequest reaches a request inside a batch; the batch answer carries -32800 for it")
    func cancelInsideBatch() async {
        let output = CollectedOutput()
        let (input, feed) = AsyncStream<[UInt8]>.makeStream()
        let journal = Journal()
        let server = Self.server(output, journal: journal)
        let serving = Task { await server.serve(input) }
        feed.yield(Array(("[" + [Self.request(#""a""#, "slow"), Self.request(#""b""#, "echo")].joined(separator: ",") + "]\n").utf8))
        await journal.waitFor("slow started")
        feed.yield(Array((Self.notification("$/cancelRequest", #"{"id":"a"}"#) + "\n").utf8))
        let answers = await output.waitFor(1)
        feed.finish()
        _ = await serving.value
        guard case .array(let batch)? = answers.first else {
            Issue.record("no batch answer: \(output.text)")
            return
        }
        #expect(batch.first?["id"] == .string("a") && Self.errorCode(batch.first) == -32800)
        #expect(batch.last?["id"] == .string("b"))
    }

    @Test("a Content-Length message cut off by the end of input is answered with -32700")
    func cutOffAtEnd() async {
        let request = Self.request("1", "echo")
        let (_, output) = await Self.serve(
            ["Content-Length: \(request.utf8.count)\r\n\r\n\(request)Content-Length: 50\r\n\r\n{\"jsonrpc\""], framing: .contentLength)
        let answers = output.messages(.contentLength)
        #expect(answers.count == 2)
        #expect(answers.contains { $0["id"] == .number(1) })
        #expect(answers.contains { Self.errorCode($0) == -32700 && $0["id"] == .null })
    }

    @Test("a progressToken gets $/progress before the answer; a message 64 containers deep is served")
    func progressAndNesting() async {
        // The request object, its params object and 62 arrays: 64 levels around the scalar.
        let nested = String(repeating: "[", count: 62) + "1" + String(repeating: "]", count: 62)
        let (_, output) = await Self.serve([
            Self.request("1", "progressing", #"{"progressToken":42}"#) + "\n" + Self.request("2", "echo", #"{"deep":\#(nested)}"#) + "\n"
        ])
        let answers = output.messages(.newline)
        #expect(answers.first?["method"] == .string("$/progress"))
        #expect(answers.first?["params"]?["token"] == .number(42))
        #expect(answers.first { $0["id"] == .number(2) }?["result"] != nil, "\(output.text)")
    }

    @Test("an id reused the moment its answer arrives is never refused as in flight: 200 calls with id 1, each sent on the last's answer")
    func idReusedAtOnce() async {
        let output = CollectedOutput()
        let (input, feed) = AsyncStream<[UInt8]>.makeStream()
        let server = Self.server(output)
        let serving = Task { await server.serve(input) }
        var refused = 0
        for count in 1...200 {
            feed.yield(Array((Self.request("1", "echo", #"{"n":\#(count)}"#) + "\n").utf8))
            let answers = await output.waitFor(count)
            if Self.errorCode(answers.last) != nil { refused += 1 }
        }
        feed.finish()
        _ = await serving.value
        #expect(refused == 0, "\(refused) of 200 calls refused")
    }
}
