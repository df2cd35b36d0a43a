import Foundation
import Testing
import UniToolTestSupport

/// Login platform recipes (Recipes/platforms/) as the binary shows them, via the example
/// universities in Recipes/examples that build on them. Their logins against the demo's pages of
/// each product are UniToolKitTests/Login/PlatformLoginServiceTests, in process.
@Suite("Login platforms, end to end")
struct PlatformLoginTests {
    let sandbox: Sandbox
    let examples = Fixtures.root.appendingPathComponent("Recipes/examples").path

    init() throws { sandbox = try Sandbox() }

    @Test("recipes list says what a portal took from its platform")
    func listed() async throws {
        let list = try await sandbox.run(["--recipes", examples, "recipes", "list", "--json"])
        #expect(list.exitCode == 0, "\(list)")
        #expect(list.stdout.contains("\"builds_on\": \"shibboleth-idp: 10 rules from it, 0 of its own\""), "\(list)")
    }
}
