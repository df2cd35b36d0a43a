import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// What only the executable shows of the demo's sources: an argument the CLI refuses. The sources
/// themselves (JSON over POST, iCalendar, a form POST, an action without argument) are read
/// through the service in UniToolKitTests/Service/RecipeSourcesServiceTests.
@Suite("JSON, iCalendar and POST sources, end to end")
struct SourcesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    @Test("an action with no argument given one is a usage error (exit 64), not a request")
    func actionWithoutArgumentGivenOne() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let extra = try await sandbox.run(["--portal", "demo", "loans", "renew-all", "31000101"], demo: demo.baseURL)
            #expect(extra.exitCode == 64 && extra.stderr.contains("takes no argument"), "\(extra)")
        }
    }
}
