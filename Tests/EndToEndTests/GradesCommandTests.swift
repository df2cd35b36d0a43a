import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The real `unitool` executable against the demo university it starts itself: what it prints.
/// The records, a wrong password and other users are tested in process (UniToolKitTests:
/// DailyCommandsServiceTests, LoginFlowTests).
@Suite("unitool grades, end to end")
struct GradesCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, extra: extra)
    }

    @Test("the quick start command prints the current term's grades as a table")
    func quickStart() async throws {
        let outcome = try await run(["--portal", "demo", "grades", "--term", "current"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("Probability Theory"))
        #expect(outcome.stdout.contains("情報理論 (Information Theory)"))
        #expect(outcome.stdout.contains("Magyar irodalom a XX. században"))
        #expect(!outcome.stdout.contains("Linear Algebra I"), "another term's grades leaked in")
    }

    @Test("errors are JSON on stderr when JSON output was asked for")
    func jsonErrors() async throws {
        let outcome = try await run(["--portal", "demo", "grades", "--json"], extra: ["UNITOOL_DEMO_FAULTS": "layout-changed"])
        #expect(outcome.exitCode == 30)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stderr.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["kind"] as? String == "layout_changed")
    }

    @Test("an unknown command or option is a usage error with a pointer to help")
    func usageErrors() async throws {
        let unknown = try await run(["--portal", "demo", "gardes"])
        #expect(unknown.exitCode == 64)
        #expect(unknown.stderr.contains("unknown command 'gardes'"))
        let badOption = try await run(["--portal", "demo", "grades", "--trem", "x"])
        #expect(badOption.exitCode == 64, "\(badOption)")
    }

    @Test("recipe commands have help written from the recipe")
    func recipeHelp() async throws {
        let outcome = try await run(["--portal", "demo", "grades", "--help"])
        #expect(outcome.exitCode == 0)
        #expect(outcome.stdout.contains("--term <term>"))
        #expect(outcome.stdout.contains("(default: current)"))
        let overview = try await run(["--help"])
        #expect(overview.exitCode == 0)
        #expect(overview.stdout.contains("grades"))
    }

}
