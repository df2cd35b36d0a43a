import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The demo university failing, against the real executable: what only the process shows (a
/// JSON-RPC client's error codes, the drift report kept in the sandbox's cache). Each fault's
/// error kind, message and untouched saved state is tested in process, in
/// UniToolKitTests/Login/PortalFaultsServiceTests.
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

    @Test(
        "a recipe that no longer fits the page: exit 30 naming the recipe, its page kept in the sandbox's cache, the saved state untouched")
    func layoutChanged() async throws {
        try await warmUp()
        let before = sandbox.snapshot()
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "layout-changed")) { demo in
            let outcome = try await run(["--portal", "demo", "grades", "--term", "2026-spring"], demo: demo)
            #expect(outcome.exitCode == 30, "\(outcome)")
            #expect(outcome.stderr.contains("recipe demo/grades"), "\(outcome)")
            #expect(outcome.stderr.contains("hint:"), "every error says what to do: \(outcome)")
            #expect(outcome.stdout.isEmpty, "a failure is never printed as a result: \(outcome)")
            #expect(!outcome.stderr.contains("Fatal error"), "\(outcome)")
            let drift = sandbox.allFiles().filter { $0.path.contains("/cache/unitool/drift/demo-grades-") }
            #expect(!drift.isEmpty, "the page was not kept for the drift report")
            #expect(sandbox.snapshot().files == before.files, "the saved state changed")
            #expect(sandbox.stateProblems(since: before).isEmpty)
        }
    }

    @Test("portal failures reach a JSON-RPC client as error codes with data.kind")
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
}
