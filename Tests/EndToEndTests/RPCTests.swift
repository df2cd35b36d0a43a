import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// `unitool rpc` as a subprocess, driven message by message like a GUI would drive it.
@Suite("JSON-RPC over stdio, end to end")
struct RPCTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func start(_ arguments: [String] = [], demo: DemoUniversity? = nil) async throws -> RPCClientProcess {
        var environment = sandbox.environment
        if let demo { environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString }
        return try await RPCClientProcess.start(arguments: arguments, environment: environment)
    }

    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
    }

    func errorCode(_ message: JSONValue?) -> Double? {
        guard case .number(let code)? = message?["error"]?["code"] else { return nil }
        return code
    }

    @Test("a message over the size limit is refused and skipped, in both framings")
    func oversized() async throws {
        let big =
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":""# + String(repeating: "x", count: 5000)
            + #""}}}"#
        let lines = try await start(["--max-message-bytes", "1000"])
        defer { lines.terminate() }
        lines.sendLine(big)
        let refused = await lines.nextLine()
        #expect(errorCode(refused) == -32600)
        #expect(refused?["error"]?["message"]?.stringValue?.contains("the limit is 1000") == true)
        lines.sendLine(Self.request(2, "portals.list"))
        #expect(await lines.nextLine()?["id"] == .number(2))

        let framed = try await start(["--framing", "content-length", "--max-message-bytes", "1000"])
        defer { framed.terminate() }
        framed.sendRaw("Content-Length: \(big.utf8.count)\r\n\r\n\(big)")
        let next = Self.request(3, "portals.list")
        framed.sendRaw("Content-Length: \(next.utf8.count)\r\n\r\n\(next)")
        #expect(errorCode(await framed.nextFramed()) == -32600)
        #expect(await framed.nextFramed()?["id"] == .number(3))
    }

    @Test("Content-Length framing carries requests and responses, string ids included")
    func contentLengthFraming() async throws {
        let client = try await start(["--framing", "content-length"])
        defer { client.terminate() }
        let request =
            #"{"jsonrpc":"2.0","id":"grades-1","method":"recipes.run","params":{"portal":"demo","recipe":"grades","options":{"term":"2025-fall"}}}"#
        // Split in the middle of the header and of the body, as a pipe may deliver it.
        let bytes = "Content-Length: \(request.utf8.count)\r\n\r\n\(request)"
        let middle = bytes.index(bytes.startIndex, offsetBy: 10)
        client.sendRaw(String(bytes[..<middle]))
        try await Task.sleep(for: .milliseconds(100))
        client.sendRaw(String(bytes[middle...]))
        let answer = await client.nextFramed()
        #expect(answer?["id"] == .string("grades-1"))
        #expect(answer?["result"]?["records"]?.serialized.contains("Linear Algebra I") == true)
    }

    @Test("a batch is answered as one array, in order, without the notifications")
    func batch() async throws {
        let client = try await start()
        defer { client.terminate() }
        client.sendLine(
            "["
                + [
                    Self.request(1, "portals.list"), #"{"jsonrpc":"2.0","method":"portals.list"}"#, Self.request(2, "no.such.method"),
                    #"{"jsonrpc":"2.0","id":"three","method":"recipes.list","params":{"portal":"demo"}}"#, "17",
                ].joined(separator: ",") + "]")
        guard case .array(let answers)? = await client.nextLine() else {
            Issue.record("the batch was not answered with an array")
            return
        }
        #expect(answers.count == 4)
        #expect(answers[0]["id"] == .number(1) && answers[0]["result"] != nil)
        #expect(errorCode(answers[1]) == -32601)
        #expect(answers[2]["id"] == .string("three"))
        #expect(errorCode(answers[3]) == -32600)
        // A batch of notifications only gets no answer at all.
        client.sendLine(#"[{"jsonrpc":"2.0","method":"portals.list"}]"#)
        client.sendLine(Self.request(4, "portals.list"))
        #expect(await client.nextLine()?["id"] == .number(4))
    }

    @Test("requests are served concurrently: a quick one overtakes a slow one")
    func outOfOrder() async throws {
        var faults = DemoFaults()
        faults.latencyMilliseconds = 400
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let client = try await start(demo: demo)
            defer { client.terminate() }
            client.sendLine(Self.request(1, "recipes.run", #"{"portal":"demo","recipe":"grades","options":{"term":"2026-fall"}}"#))
            client.sendLine(Self.request(2, "recipes.describe", #"{"portal":"demo","recipe":"loans"}"#))
            let first = await client.nextLine()
            let second = await client.nextLine()
            #expect(first?["id"] == .number(2))
            #expect(second?["id"] == .number(1))
            #expect(second?["result"]?["records"] != nil)
            // The answer is in the history: offline, the same records come back with their age.
            client.sendLine(
                Self.request(3, "recipes.run", #"{"portal":"demo","recipe":"grades","options":{"term":"2026-fall"},"offline":true}"#))
            let offline = await client.nextLine()
            #expect(offline?["result"]?["records"] == second?["result"]?["records"], "\(String(describing: offline))")
            #expect(offline?["result"]?["asOf"]?.stringValue != nil)
            client.sendLine(Self.request(4, "history.query", #"{"portal":"demo","recipe":"grades","since":"1d"}"#))
            let history = await client.nextLine()
            #expect(history?["result"]?["records"] == .array([]), "one run has no changes yet: \(String(describing: history))")
            client.sendLine(Self.request(6, "search", #"{"portal":"demo","query":"probabilty"}"#))
            let found = await client.nextLine()
            #expect(
                found?["result"]?["records"]?.arrayValue?.first?["text"]?.stringValue?.contains("Probability Theory") == true,
                "\(String(describing: found))")
            client.sendLine(Self.request(5, "recipes.run", #"{"portal":"demo","recipe":"loans","offline":true}"#))
            #expect(await client.nextLine()?["error"]?["code"] == .number(-32051))
        }
    }

    @Test("$/cancelRequest stops work in flight with -32800; the server goes on")
    func cancellation() async throws {
        var faults = DemoFaults()
        faults.latencyMilliseconds = 1500
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let client = try await start(demo: demo)
            defer { client.terminate() }
            let started = Date()
            let before = await demo.requestCount
            client.sendLine(Self.request(7, "recipes.run", #"{"portal":"demo","recipe":"loans"}"#))
            // Cancelled once it is under way: the demo has seen its first request (then held for 1.5 s).
            for _ in 0..<500 where await demo.requestCount == before { try await Task.sleep(for: .milliseconds(10)) }
            client.sendLine(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#)
            let answer = await client.nextLine()
            #expect(answer?["id"] == .number(7))
            #expect(errorCode(answer) == -32800, "\(String(describing: answer))")
            #expect(Date().timeIntervalSince(started) < 10, "a login and three pages at 1.5 s each would take far longer")
            client.sendLine(Self.request(8, "portals.list"))
            #expect(await client.nextLine()?["id"] == .number(8))
        }
    }

    @Test("stdout carries protocol messages only, even with -v")
    func stdoutIsProtocolOnly() async throws {
        let client = try await start(["-v"])
        client.sendLine(Self.request(1, "recipes.run", #"{"portal":"demo","recipe":"grades"}"#))
        client.closeInput()
        #expect(await client.waitForExit() == 0)
        let lines = client.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.allSatisfy { (try? JSONParser.parse(String($0))) != nil })
        #expect(client.stderr.contains("debug"), "the log went to stderr")
    }

    @Test("stdin closed in the middle of a request: the answer is still sent, then a clean exit")
    func closedInput() async throws {
        let client = try await start()
        client.sendRaw(Self.request(1, "recipes.run", #"{"portal":"demo","recipe":"courses"}"#) + "\n" + #"{"jsonrpc":"2.0","id":2,"met"#)
        client.closeInput()
        // Two answers, in whichever order they finish: the request's, and the cut-off message's error.
        let answers = [await client.nextLine(), await client.nextLine()]
        #expect(answers.contains { $0?["id"] == .number(1) && $0?["result"] != nil }, "\(answers)")
        #expect(answers.contains { errorCode($0) == -32700 }, "the cut-off message is reported")
        #expect(await client.waitForExit() == 0)
    }

    @Test("a client that never reads its responses makes the server stop cleanly (exit 75), not grow or hang")
    func clientNeverReads() async throws {
        let client = try await RPCClientProcess.start(
            arguments: ["--max-unread-bytes", "200000"], environment: sandbox.environment, readsOutput: false)
        defer { client.terminate() }
        let request = Self.request(1, "recipes.describe", #"{"portal":"demo","recipe":"news"}"#) + "\n"
        // Written from a thread: once the server stops, the write fails instead of blocking the test.
        Thread.detachNewThread {
            for _ in 0..<2000 where (try? client.sendRawChecked(request)) != nil {}
        }
        #expect(await client.waitForExit(timeout: 60) == 75)
        #expect(client.stderr.contains("has not read"), "\(client.stderr)")
    }

    @Test("shutdown refuses new work; exit ends the process (0 after shutdown, 1 without)")
    func lifecycle() async throws {
        let client = try await start()
        client.sendLine(Self.request(1, "shutdown"))
        #expect(await client.nextLine()?["result"] == .null)
        client.sendLine(Self.request(2, "portals.list"))
        #expect(await client.nextLine()?["error"]?["data"]?["kind"] == .string("shutting_down"))
        client.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(await client.waitForExit() == 0)

        let abrupt = try await start()
        abrupt.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
        #expect(await abrupt.waitForExit() == 1)
    }

    // MARK: Issue 17, section 8

    /// The messages in a run's stdout, cut by the framing.
    static func messages(_ stdout: String, framing: RPCFraming) -> [JSONValue] {
        var reader = RPCMessageReader(framing: framing, maxMessageBytes: .max)
        return (reader.feed(Array(stdout.utf8)) + reader.finish()).compactMap { item in
            guard case .message(let bytes) = item else { return nil }
            return try? JSONParser.parse(bytes)
        }
    }

    @Test(
        "a request followed at once by the end of input gets exactly one answer, 50 runs of the real executable per framing",
        arguments: RPCFraming.allCases)
    func endOfInputRightAfterARequest(framing: RPCFraming) async throws {
        // The 1,000-run loop is RPCServerTests.endOfInputRightAfterARequest, in process; this is
        // the README's `echo ... | unitool rpc` itself, which printed nothing in 25 of 100 runs.
        var failures: [String] = []
        for run in 0..<50 {
            let request = String(decoding: framing.frame(Self.request(run, "nosuch")), as: UTF8.self)
            let outcome = try await UniToolProcess.run(
                ["rpc", "--framing", framing.rawValue], stdin: request, environment: sandbox.environment, timeout: 30)
            let answers = Self.messages(outcome.stdout, framing: framing)
            if outcome.exitCode != 0 || answers.count != 1 || answers.first?["id"] != .number(Double(run))
                || errorCode(answers.first) != -32601
            {
                failures.append("run \(run): \(outcome)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of 50 runs failed; first: \(failures.first ?? "")")
    }

    @Test("ids come back byte for byte: 1e15 and more, 2^53+1, a 40-digit integer, 1.5e3")
    func idsEchoedExactly() async throws {
        let ids = ["1000000000000000", "123456789012345678", "9007199254740993", String(repeating: "9", count: 40), "1.5e3", "-0"]
        let input = ids.map { #"{"jsonrpc":"2.0","id":\#($0),"method":"portals.list"}"# }.joined(separator: "\n") + "\n"
        let outcome = try await UniToolProcess.run(["rpc"], stdin: input, environment: sandbox.environment)
        #expect(outcome.exitCode == 0)
        for id in ids {
            #expect(outcome.stdout.contains(#""id":\#(id),"result""#), "\(id): \(outcome)")
        }
    }

    @Test("initialize reports the limits in force, from the flags")
    func initializeReportsLimits() async throws {
        let client = try await start(["--max-message-bytes", "12345", "--max-unread-bytes", "678901"])
        defer { client.terminate() }
        client.sendLine(Self.request(1, "initialize"))
        let capabilities = await client.nextLine()?["result"]?["capabilities"]
        #expect(capabilities?["maxMessageBytes"] == .number(12345))
        #expect(capabilities?["maxNestingDepth"] == .number(64))
        #expect(capabilities?["maxUnreadBytes"] == .number(678901))
    }

    @Test("a Content-Length message cut off by the end of input is answered with -32700")
    func contentLengthCutOff() async throws {
        let outcome = try await UniToolProcess.run(
            ["rpc", "--framing", "content-length"], stdin: "Content-Length: 80\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1",
            environment: sandbox.environment)
        #expect(outcome.exitCode == 0)
        let answers = Self.messages(outcome.stdout, framing: .contentLength)
        #expect(answers.count == 1, "\(outcome)")
        #expect(errorCode(answers.first) == -32700)
    }

    @Test("a notification after shutdown never runs; one before the end of input runs to completion first")
    func notificationsAfterShutdownAndAtTheEnd() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "terms-version=2027-01")) { demo in
            let accept = #"{"jsonrpc":"2.0","method":"terms.accept","params":{"portal":"demo","version":"2027-01"}}"#

            let late = try await start(demo: demo)
            late.sendLine(Self.request(1, "shutdown"))
            #expect(await late.nextLine()?["result"] == .null)
            late.sendLine(accept)
            late.sendLine(#"{"jsonrpc":"2.0","method":"exit"}"#)
            #expect(await late.waitForExit() == 0)
            #expect(try await acceptedVersion(demo) == DemoUniversity.initialTermsVersion, "terms.accept ran after shutdown")

            // Sent, then the end of input at once: the server may not exit before it has finished.
            let outcome = try await sandbox.run(["rpc"], demo: demo.baseURL, stdin: accept + "\n")
            #expect(outcome.exitCode == 0)
            #expect(outcome.stdout.isEmpty, "a notification has no answer")
            #expect(try await acceptedVersion(demo) == "2027-01", "the notification was not run to completion")
        }
    }

    /// The accepted terms version as a fresh server reads it.
    func acceptedVersion(_ demo: DemoUniversity) async throws -> String? {
        let client = try await start(demo: demo)
        defer { client.terminate() }
        client.sendLine(Self.request(1, "terms.status", #"{"portal":"demo"}"#))
        return await client.nextLine()?["result"]?["accepted"]?.stringValue
    }

    @Test(
        "interop: python-lsp-jsonrpc drives unitool rpc over Content-Length framing",
        .enabled(if: InteropPython.isAvailableOrRequired, "UNITOOL_SKIP_INTEROP=1 and no interop venv"))
    func interopWithPylspJsonrpc() async throws {
        // Scripts/test.sh sets UNITOOL_INTEROP_PYTHON from Scripts/interop-venv.sh.
        let environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
        guard InteropPython.isInstalled else {
            Issue.record(Comment(rawValue: InteropPython.missing))
            return
        }
        let python = InteropPython.path
        let script = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/pylsp_jsonrpc_client.py").path
        let (status, text, stderr) = try await runOnThread(python, [script, UniToolProcess.executable.path], environment: environment)
        #expect(status == 0, "\(text)\n\(stderr)")
        #expect(text.contains("ok"))
    }

    /// Runs a program to its end on a thread of its own, never on the cooperative pool.
    func runOnThread(_ program: String, _ arguments: [String], environment: [String: String]) async throws -> (Int32, String, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { () throws -> (Int32, String, String) in
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: program)
                        process.arguments = arguments
                        process.environment = environment
                        let output = Pipe()
                        let errors = Pipe()
                        process.standardOutput = output
                        process.standardError = errors
                        try process.run()
                        // The client writes little to stderr, so reading it second cannot block it.
                        let data = output.fileHandleForReading.readDataToEndOfFile()
                        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
                        let status = UniToolProcess.exitStatus(of: process)
                        return (
                            status, String(decoding: data, as: UTF8.self), String(decoding: errorData, as: UTF8.self)
                        )
                    })
            }
        }
    }

    @Test("the example client prints the demo grades through unitool rpc, and an error as two lines with unitool's exit code")
    func exampleClient() async throws {
        let script = Fixtures.root.appendingPathComponent("Examples/rpc_client.py").path
        let environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
        func client(_ arguments: [String]) async throws -> UniToolProcess.Outcome {
            try await UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--unitool", UniToolProcess.executable.path] + arguments,
                environment: environment)
        }
        let grades = try await client([])
        #expect(grades.exitCode == 0, "\(grades)")
        #expect(grades.stdout.contains("Probability Theory"))
        #expect(grades.stdout.contains("情報理論 (Information Theory)"))
        #expect(!grades.stdout.contains(".0 "), "whole credits print without '.0': \(grades.stdout)")
        let typo = try await client(["--term", "fall"])
        #expect(typo.exitCode == 64, "\(typo)")
        #expect(typo.stderr.contains("rpc_client.py: error: ") && typo.stderr.contains("hint: "), "\(typo)")
        #expect(!typo.stderr.contains("Traceback"), "\(typo)")
    }
}
