import Foundation
import Testing
import UniToolTestSupport

/// docs/ARCHITECTURE.md's promise that the stages of UniToolKit depend one way only, kept by
/// Scripts/check-stages.py: a type that lands in the wrong folder fails here, naming the line.
@Suite("The stages of UniToolKit")
struct StagesTests {
    /// Runs one of the project's own checks in `Scripts/`.
    static func check(_ script: String) throws -> UniToolProcess.Outcome {
        try UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [Fixtures.root.appendingPathComponent("Scripts/\(script)").path])
    }

    @Test("every stage names only the types of the stages before it, and of the base")
    func oneWayOnly() throws {
        let outcome = try Self.check("check-stages.py")
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("every dependency points backwards"), "\(outcome)")
    }

    /// docs/ARCHITECTURE.md's promise about the tests, kept by Scripts/check-test-split.py:
    /// behaviour is tested in process, and the binary is started only where the process is the point.
    @Test("files that start the unitool binary hold fewer than a fifth of the tests")
    func fewerThanAFifthSpawn() throws {
        let outcome = try Self.check("check-test-split.py")
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("are in files that start unitool"), "\(outcome)")
    }
}
