import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Every way the demo university can fail, against the real executable: each fault gets a clear
/// message and its own exit code, nothing crashes or hangs, and unitool's saved state (session,
/// settings, accepted terms) is exactly as before or validly updated.
@Suite("Faults injected into the demo university, end to end")
struct FaultInjectionTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, demo: demo.baseURL, extra: extra)
    }

    /// Logs in once against a well-behaved demo, so that a saved session and settings exist to be
    /// kept safe by the faulty run that follows.
    func warmUp() async throws {
        try await DemoUniversity.withRunning { demo in
            #expect(try await run(["config", "set", "format", "table"], demo: demo).exitCode == 0)
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-spring"], demo: demo)
            try #require(outcome.exitCode == 0, "\(outcome)")
            // The state the faulty run must keep: without it the comparisons below would prove nothing.
            let saved = Set(sandbox.snapshot().files.keys)
            try #require(
                saved.isSuperset(of: [
                    "state/unitool/sessions/demo/alice.json", "config/unitool/config.yaml", "config/unitool/terms/demo.json",
                ]
                ),
                "\(saved)")
        }
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        let fault: String
        let arguments: [String]
        let exitCode: Int32
        let message: String
        var testDescription: String { fault }
    }

    @Test(
        "a failing portal gives its own exit code and message, quickly, and the saved state is untouched",
        arguments: [
            Failure(fault: "hang", arguments: ["--timeout", "1"], exitCode: 21, message: "did not answer in time"),
            Failure(fault: "server-error", arguments: [], exitCode: 22, message: "answered 500 (Internal Server Error)"),
            Failure(fault: "server-error=502", arguments: [], exitCode: 22, message: "answered 502 (Bad Gateway)"),
            Failure(fault: "server-error=503", arguments: [], exitCode: 22, message: "answered 503 (Service Unavailable)"),
            Failure(fault: "reset", arguments: [], exitCode: 20, message: "the connection to http://127.0.0.1:"),
            Failure(fault: "truncated", arguments: [], exitCode: 20, message: "the connection to http://127.0.0.1:"),
            Failure(fault: "huge-page", arguments: [], exitCode: 22, message: "the portal sent more than unitool accepts: the page at"),
            Failure(fault: "redirect-loop", arguments: [], exitCode: 22, message: "redirected more than 20 times"),
            Failure(fault: "layout-changed", arguments: [], exitCode: 30, message: "recipe demo/grades"),
        ])
    func failingPortal(failure: Failure) async throws {
        try await warmUp()
        let before = sandbox.snapshot()
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: failure.fault)) { demo in
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-spring"] + failure.arguments, demo: demo)
            #expect(outcome.exitCode == failure.exitCode, "\(outcome)")
            #expect(outcome.stderr.contains(failure.message), "\(outcome)")
            #expect(outcome.stderr.contains("hint:"), "every error says what to do: \(outcome)")
            #expect(outcome.stdout.isEmpty, "a failure is never printed as a result: \(outcome)")
            #expect(!outcome.stderr.contains("Fatal error"), "\(outcome)")
            #expect(outcome.seconds < 20, "gave up after \(outcome.seconds) s")
            #expect(sandbox.snapshot().files == before.files, "the saved state changed")
            #expect(sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test("the same failures reach a JSON-RPC client as error codes with data.kind")
    func failuresOverRPC() async throws {
        try await warmUp()
        for (fault, code, kind) in [("server-error=502", -32022, "portal_error"), ("reset", -32020, "portal_unreachable")] {
            try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: fault)) { demo in
                let request =
                    #"{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"recipe":"grades","options":{"term":"2026-spring"}}}"#
                let outcome = try await sandbox.run(["rpc", "--portal", "demo"], demo: demo.baseURL, stdin: request + "\n")
                #expect(outcome.exitCode == 0, "\(outcome)")
                #expect(outcome.stdout.contains(#""code":\#(code)"#), "\(fault): \(outcome)")
                #expect(outcome.stdout.contains(#""kind":"\#(kind)""#), "\(fault): \(outcome)")
            }
        }
    }

    @Test("added latency slows the run down but it succeeds")
    func latency() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "latency=150")) { demo in
            let before = sandbox.snapshot()
            let outcome = try await run(["--portal", "demo", "grades", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            #expect(outcome.stdout.contains("Probability Theory"))
            #expect(sandbox.stateProblems(since: before).isEmpty, "the new session is saved whole")
        }
    }

    @Test("a page with bytes that are not UTF-8 is read with replacement characters; no row is lost")
    func invalidUTF8() async throws {
        let clean = try await DemoUniversity.start()
        let expected = try await run(["--portal", "demo", "grades", "--term", "2026-spring", "--format", "jsonl"], demo: clean)
        await clean.stop()
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "invalid-utf8")) { demo in
            let before = sandbox.snapshot()
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-spring", "--format", "jsonl"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let rows = outcome.stdout.split(separator: "\n")
            #expect(rows.count == expected.stdout.split(separator: "\n").count && rows.count > 1, "\(outcome)")
            #expect(outcome.stdout.contains("\u{FFFD}"), "the damaged bytes show as U+FFFD: \(outcome.stdout)")
            #expect(Array(rows.dropFirst()) == Array(expected.stdout.split(separator: "\n").dropFirst()))
            #expect(sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test("a session that expires in the middle of a run is renewed once, and every term is still read")
    func sessionExpiresMidRun() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "expire-after=2")) { demo in
            let before = sandbox.snapshot()
            let outcome = try await run(["--portal", "demo", "grades", "--term", "all", "--format", "jsonl"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            for term in ["2025-fall", "2026-spring", "2026-fall"] { #expect(outcome.stdout.contains(term), "\(term)") }
            let requests = await demo.requests
            let logins = requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }
            #expect(logins.count == 2, "one login, one renewal: \(requests)")
            #expect(sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test("an IdP that is down while the portal is up: sign-in fails naming the login service; a saved session still works")
    func idpDown() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "idp-down")) { demo in
            let before = sandbox.snapshot()
            let cold = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(cold.exitCode == 22, "\(cold)")
            #expect(cold.stderr.contains("login service answered 503"), "\(cold)")
            #expect(cold.stderr.contains("the portal itself may be up"), "\(cold)")
            #expect(sandbox.snapshot().files == before.files)
            // With a session saved while the IdP was up, the portal's pages need no sign-in.
            try await warmUp()
            let warm = try await run(["--portal", "demo", "grades", "--term", "2026-spring"], demo: demo)
            #expect(warm.exitCode == 0, "\(warm)")
        }
    }
}
