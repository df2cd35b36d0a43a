import Foundation
import Testing
import UniToolTestSupport

/// Issue 52's promise that no library default reads or writes the user's real folders: the
/// in-process tests that use every store (sessions, terms, offered values, drift reports, the
/// history, the keyring), run as a bare `swift test` runs them, with HOME pointing at an empty
/// folder and no XDG or D-Bus variables, leave that folder empty.
@Suite("A bare test run leaves HOME alone")
struct HomeUntouchedTests {
    /// Suites that exercise the stores through the production wiring (`Workspace`), the JSON-RPC
    /// host and the keyring; not this suite, which would start itself again.
    static let suites = [
        "WorkspaceTests", "RPCMethodsTests", "CampusRecipesTests", "WarmRunTests", "LoginFlowTests", "TermsGateTests",
        "PortalServiceTests", "AccountTests", "DailyCommandsServiceTests", "MCPLifecycleTests",
    ]

    @Test("the store-touching suites, run with HOME empty and no XDG or D-Bus variables, leave HOME empty")
    func homeStaysEmpty() async throws {
        let testRunner = try #require(Bundle.main.executableURL, "the test runner's own executable")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-empty-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try await UniToolProcess.run(
            testRunner, ["--testing-library", "swift-testing", "--filter", Self.suites.joined(separator: "|")],
            environment: ["HOME": home.path],
            removingEnvironment: [
                "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "UNITOOL_TEST_SANDBOX",
                "DBUS_SESSION_BUS_ADDRESS", "GNOME_KEYRING_CONTROL", "DISPLAY",
            ], timeout: 600)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect((outcome.stdout + outcome.stderr).contains("Test run with"), "\(outcome)")
        let left = FileManager.default.enumerator(atPath: home.path)?.allObjects as? [String] ?? []
        #expect(left.isEmpty, "left in HOME: \(left)")
    }
}
