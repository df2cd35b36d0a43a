import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Every example a newcomer copies from the README, USING.md and WATCH.md runs (issue 50,
/// deliverable 8): each `unitool --portal demo …` line in a fenced block is run as written, in a
/// fresh sandbox against the demo, and must succeed. An example whose option was renamed, or
/// whose command went away, fails here before a reader meets it.
@Suite("Documented examples run as written")
struct DocumentedExamplesTests {
    @Test("every unitool --portal demo line of README.md, USING.md and WATCH.md exits 0 against the demo")
    func everyExampleRuns() async throws {
        let examples = try DocumentedExamples.examples()
        try await DemoUniversity.withRunning { demo in
            for example in examples {
                let sandbox = try Sandbox()
                defer { sandbox.remove() }
                try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
                // A watch in an example runs once here: its --every would otherwise wait.
                var arguments = example.arguments
                if arguments.contains("watch"), !arguments.contains("--once") { arguments.append("--once") }
                var outcome = try await sandbox.run(arguments, demo: demo.baseURL)
                // An action that asks first refuses without a terminal to ask on (exit 26,
                // nothing sent); answered yes, as its reader would, it must then succeed.
                if outcome.exitCode == 26, outcome.stderr.contains("nothing was sent") {
                    outcome = try await sandbox.run(arguments + ["--yes"], demo: demo.baseURL)
                }
                #expect(outcome.exitCode == 0, "\(example)\n\(outcome)")
            }
        }
    }
}
