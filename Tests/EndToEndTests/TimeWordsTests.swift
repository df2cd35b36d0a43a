import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The words for time a person types (issue 50, deliverable 9): `--timeout` for the whole
/// command, and days named as a person names them.
@Suite("Time words: --timeout bounds the command; --day and --since as a person says them")
struct TimeWordsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    @Test("--timeout 1 against a portal whose pages never answer ends with portal_timeout (21) naming the command's --timeout")
    func timeoutBoundsTheCommand() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "hang")) { demo in
            // Given before or after the command, and as --timeout=1, it is the same deadline.
            for arguments in [["--timeout", "1", "--portal", "demo", "grades"], ["--portal", "demo", "grades", "--timeout=1"]] {
                let outcome = try await sandbox.run(arguments, demo: demo.baseURL)
                #expect(outcome.exitCode == 21, "\(outcome)")
                #expect(outcome.stderr.contains("the command's time ran out: --timeout 1 seconds passed"), "\(outcome)")
                #expect(outcome.stderr.contains("bounds the whole command"), "\(outcome)")
            }
        }
    }

    @Test("--help says what --timeout bounds, in the same words as the overview")
    func timeoutHelp() async throws {
        defer { sandbox.remove() }
        let help = try await sandbox.run(["today", "--help"])
        let overview = try await sandbox.run(["--help"])
        let sentence = "Default: no limit for the whole command, 30 seconds for each request."
        #expect(
            help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(
                "every request, retry and login step together"), "\(help)")
        for text in [help.stdout, overview.stdout] {
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(flat.contains(sentence), "\(text)")
            #expect(flat.contains("Default: $UNITOOL_PORTAL, then config.yaml, then the only portal installed."), "\(text)")
        }
    }
}
