import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `unitool terms` and the terms prompt of a data command on a terminal, against the demo's terms
/// API. The gate itself (refusals, bumps, broken APIs) is tested in process
/// (UniToolKitTests/Terms/TermsGateTests).
@Suite("Terms of use, end to end")
struct TermsCommandTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, extra: extra)
    }

    var acceptedFile: URL { sandbox.root.appendingPathComponent("config/unitool/terms/demo.json") }

    @Test("after 'terms accept', the data command works, and status says up to date")
    func acceptThenWork() async throws {
        let accept = try await run(["--portal", "demo", "terms", "accept"])
        #expect(accept.exitCode == 0, "\(accept)")
        #expect(accept.stderr.contains("Accepted the terms of use of Demo University, version 2026-09"))
        let grades = try await run(["--portal", "demo", "grades", "--json"])
        #expect(grades.exitCode == 0, "\(grades)")
        #expect(grades.stdout.contains("Probability Theory"))

        let status = try await run(["--portal", "demo", "terms", "status", "--json"])
        #expect(status.exitCode == 0, "\(status)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(object["current"] as? String == "2026-09")
        #expect(object["accepted"] as? String == "2026-09")
        #expect(object["up_to_date"] as? Bool == true)
        #expect(object["accepted_at"] is String)
    }

    @Test(
        "a terms version that carries terminal escapes is shown escaped by terms status and show, and by a refused data command; --json escapes it as JSON"
    )
    func hostileVersionIsEscaped() async throws {
        var faults = DemoFaults()
        faults.termsVersion = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m"
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let external = ["UNITOOL_DEMO_URL": demo.baseURL.absoluteString]
            let shown = "\\x1b]0;pwned\\x07\\x1b[2J\\u009b31m"

            let status = try await run(["--portal", "demo", "terms", "status"], extra: external)
            #expect(status.exitCode == 0, "\(status)")
            #expect(status.stdout.contains("current:   \(shown)"), "\(status.stdout)")
            let show = try await run(["--portal", "demo", "terms", "show"], extra: external)
            #expect(show.exitCode == 0, "\(show)")
            #expect(show.stdout.contains("version \(shown)"), "\(show.stdout)")
            let refused = try await run(["--portal", "demo", "grades"], extra: external)
            #expect(refused.exitCode == 15, "\(refused)")
            #expect(refused.stderr.contains("current version \(shown)"), "\(refused.stderr)")
            let verbose = try await run(["--portal", "demo", "grades", "-v"], extra: external)
            #expect(verbose.exitCode == 15, "\(verbose)")
            let json = try await run(["--portal", "demo", "terms", "status", "--json"], extra: external)
            #expect(json.stdout.contains("\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m"), "\(json.stdout)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["current"] as? String == faults.termsVersion, "JSON must read back as the very version served")

            for outcome in [status, show, refused, verbose, json] {
                for text in [outcome.stdout, outcome.stderr] {
                    #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(outcome)")
                }
            }
        }
    }

    @Test("terms show prints the terms text, asking the version API once")
    func showPrintsText() async throws {
        let outcome = try await run(["--portal", "demo", "terms", "show", "-v"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("Terms of use of Demo University, version 2026-09"))
        #expect(outcome.stdout.contains("Use it for testing unitool only."))
        #expect(outcome.stdout.contains("unitool terms accept --portal demo --version 2026-09"))
        let versionRequests = outcome.stderr.split(separator: "\n").filter { $0.contains("GET ") && $0.contains("/api/terms/version") }
        #expect(versionRequests.count == 1, "\(outcome.stderr)")
    }

    @Test("on a terminal, a data command shows the new terms on request, asks, and goes on once accepted")
    func terminalPrompt() async throws {
        // script(1) gives unitool a pseudo-terminal, as a person at a terminal would have.
        let command = [UniToolProcess.executable.path, "--portal", "demo", "grades", "--json"].joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data("s\ny\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(UniToolProcess.exitStatus(of: process) == 0, "\(text)")
        #expect(text.contains("Accept version 2026-09? [y]es, [n]o, [s]how them"))
        #expect(text.contains("Use it for testing unitool only."), "answering s should show the terms")
        #expect(text.contains("Probability Theory"))
        let accepted = try String(contentsOf: acceptedFile, encoding: .utf8)
        #expect(accepted.contains("\"version\" : \"2026-09\""))
    }
}
