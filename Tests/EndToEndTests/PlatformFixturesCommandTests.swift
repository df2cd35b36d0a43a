import Foundation
import Testing
import UniToolTestSupport

/// `unitool recipes test --platforms`: the platform recipes against their products' pages,
/// version by version, from the command line (issue 35).
@Suite("recipes test --platforms")
struct PlatformFixturesCommandTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("every case of the platform fixtures passes; a copy with one wrong record fails with exit 30 naming the case")
    func command() async throws {
        defer { sandbox.remove() }
        let passed = try await sandbox.run(["recipes", "test", "--platforms"])
        #expect(passed.exitCode == 0, "\(passed)")
        #expect(passed.stdout.contains("moodle 4.5/timeline/upcoming") && passed.stdout.contains("koha 24.05/loans/checkouts"), "\(passed)")

        let copy = sandbox.root.appendingPathComponent("platforms")
        try FileManager.default.copyItem(at: Fixtures.root.appendingPathComponent("Fixtures/platforms"), to: copy)
        let expected = copy.appendingPathComponent("moodle/4.5/timeline/upcoming.json")
        let text = try String(contentsOf: expected, encoding: .utf8).replacingOccurrences(of: "Quiz 4 closes", with: "Quiz 5 closes")
        try text.write(to: expected, atomically: true, encoding: .utf8)
        let failed = try await sandbox.run(["recipes", "test", "--platforms", copy.path])
        #expect(failed.exitCode == 30, "\(failed)")
        #expect(failed.stdout.contains("FAIL moodle 4.5/timeline/upcoming"), "\(failed)")
    }
}
