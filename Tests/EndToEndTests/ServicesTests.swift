import Foundation
import Testing
import UniToolTestSupport

/// A university of several services behind one IdP (Recipes/examples/demo-services), as the
/// binary checks its recipes. Signing on to the services, each on an origin of its own, is
/// UniToolKitTests/Service/ServicesAndExamplesServiceTests, in process.
@Suite("Several services behind one login, end to end")
struct ServicesTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("a command naming a service its portal does not declare is refused when the recipes are read")
    func unknownService() async throws {
        let folder = sandbox.root.appendingPathComponent("pack/uni")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try
            "portal: uni\nbase_url: https://portal.example.edu\nservices: { lms: { base_url: \"https://lms.example.edu/\" } }\nlogin: { pages: [{ when: \"//form\", auto_submit: true }] }\n"
            .write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try "command: loans\nservice: library\nfetch: /loans\nrows: //tr\nfields: { title: { xpath: td } }\n".write(
            to: folder.appendingPathComponent("loans.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await UniToolProcess.run(
            ["--recipes", sandbox.root.appendingPathComponent("pack").path, "recipes", "lint"], environment: sandbox.environment)
        #expect(outcome.exitCode == 31, "\(outcome)")
        #expect(outcome.stderr.contains("service: 'library' is not a service of portal 'uni' (services: lms)"), "\(outcome)")
    }
}
