import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// A value of the user's own for a recipe (issue 35): a Moodle calendar export's user id and
/// token come from the user's settings (`config set value.NAME`), not the university's folder.
/// A missing value's error and the values reaching the recipe are tested through the service
/// (UniToolKitTests/Service/RecipeSourcesServiceTests); here, the settings file and `--trace`.
@Suite("The user's own values for a recipe, from their settings")
struct UserValuesTests {
    let sandbox: Sandbox
    let examples = Fixtures.root.appendingPathComponent("Recipes/examples").path

    init() throws { sandbox = try Sandbox() }

    @Test(
        "moodle/deadlines with the user's token from 'config set value.…': the deadlines, the token in the settings file and scrubbed from the trace"
    )
    func calendarToken() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=cas"), serviceHosts: ["127.0.0.2", "127.0.0.3"]) {
            demo in
            let services = demo.serviceHosts.values.map(\.absoluteString).sorted().joined(separator: " ")
            func run(_ arguments: [String]) async throws -> UniToolProcess.Outcome {
                try await sandbox.run(
                    ["--recipes", examples, "--portal", "uni-cas-moodle"] + arguments, demo: demo.baseURL,
                    extra: ["UNITOOL_DEMO_SERVICES": services])
            }
            for (name, value) in [("userid", "2"), ("authtoken", "demo")] {
                let set = try await run(["config", "set", "value.\(name)", value])
                #expect(set.exitCode == 0 && !set.stderr.contains(value == "demo" ? "demo" : "\u{0}"), "\(set)")
            }
            let trace = sandbox.root.appendingPathComponent("deadlines.har")
            let deadlines = try await run(["--trace", trace.path, "deadlines", "--json"])
            #expect(deadlines.exitCode == 0, "\(deadlines)")
            #expect(deadlines.stdout.contains("CS-340"), "\(deadlines)")
            let traced = try String(contentsOf: trace, encoding: .utf8)
            #expect(traced.contains("export_execute.php") && !traced.contains("authtoken=demo"), "the token is scrubbed from the trace")
            let settings = try String(contentsOf: sandbox.root.appendingPathComponent("config/unitool/config.yaml"), encoding: .utf8)
            #expect(settings.contains("uni-cas-moodle:") && settings.contains("authtoken: demo"), "\(settings)")
        }
    }
}
