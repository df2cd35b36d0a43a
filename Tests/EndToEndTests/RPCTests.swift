import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// `unitool rpc` as a subprocess, driven message by message like a GUI would drive it: what
/// needs the real process (stdout, stdin closing, exit codes, interop). The protocol itself is
/// tested in process in UniToolRPCTests (RPCServerTests, RPCServerProtocolTests).
@Suite("JSON-RPC over stdio, end to end")
struct RPCTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func start(_ arguments: [String] = []) async throws -> RPCClientProcess {
        try await RPCClientProcess.start(arguments: arguments, environment: sandbox.environment)
    }

    static func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + (params.map { #","params":\#($0)"# } ?? "") + "}"
    }

    func errorCode(_ message: JSONValue?) -> Double? {
        guard case .number(let code)? = message?["error"]?["code"] else { return nil }
        return code
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

    @Test(
        "interop: pjrpc, which sends id 1 on every call, loses no call: 8 sessions of 200 calls at once",
        .enabled(if: Needs.check(InteropPython.isAvailableOrRequired, "the interop Python"), "UNITOOL_SKIP_INTEROP=1 and no interop venv"))
    func interopWithPjrpc() async throws {
        guard let (status, text, stderr) = try await interopClient("pjrpc_client.py", ["8", "200"]) else { return }
        #expect(status == 0, "\(text)\n\(stderr)")
        let report = try JSONParser.parse(Array(text.utf8))
        let sessions = report["sessions"]?.arrayValue ?? []
        #expect(sessions.count == 8, "\(text)")
        for session in sessions {
            #expect(session["answered"] == .number(200), "\(session.serialized)")
        }
    }

    @Test(
        "interop: python-lsp-jsonrpc drives unitool rpc over Content-Length framing",
        .enabled(if: Needs.check(InteropPython.isAvailableOrRequired, "the interop Python"), "UNITOOL_SKIP_INTEROP=1 and no interop venv"))
    func interopWithPylspJsonrpc() async throws {
        guard let (status, text, stderr) = try await interopClient("pylsp_jsonrpc_client.py", []) else { return }
        #expect(status == 0, "\(text)\n\(stderr)")
        #expect(text.contains("ok"))
    }

    /// Runs the interop client `script` (Tests/EndToEndTests/Interop) against this unitool, with
    /// `arguments` after it, in the sandbox; nil, with the reason recorded, when the venv is missing.
    /// Scripts/test.sh sets UNITOOL_INTEROP_PYTHON from Scripts/interop-venv.sh.
    func interopClient(_ script: String, _ arguments: [String]) async throws -> (Int32, String, String)? {
        guard InteropPython.isInstalled else {
            Issue.record(Comment(rawValue: InteropPython.missing))
            return nil
        }
        let path = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/\(script)").path
        return try await runOnThread(
            InteropPython.path, [path, UniToolProcess.executable.path] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 })
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
