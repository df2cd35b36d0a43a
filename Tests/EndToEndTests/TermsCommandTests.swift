import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `unitool terms` and the terms check of every data command, against the demo's terms API.
@Suite("Terms of use, end to end")
struct TermsCommandTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, extra: extra)
    }

    var acceptedFile: URL { sandbox.root.appendingPathComponent("config/unitool/terms/demo.json") }

    /// The accepted-terms file's bytes, or nil if there is none.
    func acceptedBytes() -> Data? { try? Data(contentsOf: acceptedFile) }

    @Test("on a fresh state, a data command in a pipe refuses, names 'terms accept', and fetches nothing")
    func firstRunRefuses() async throws {
        let outcome = try await run(["--portal", "demo", "grades", "-v"])
        #expect(outcome.exitCode == 15, "\(outcome)")
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("you have not accepted the terms of use of Demo University (current version 2026-09)"))
        #expect(outcome.stderr.contains("unitool terms accept --portal demo"))
        #expect(outcome.stderr.contains("unitool terms show --portal demo"))
        #expect(outcome.stderr.contains("GET http://127.0.0.1"), "--verbose should log the terms request")
        #expect(!outcome.stderr.contains("/grades"), "a data page was requested before the terms were accepted")
        #expect(!outcome.stderr.contains("/idp/"), "unitool logged in before the terms were accepted")
    }

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

    @Test("a damaged record of accepted terms stops data commands (exit 50), and 'terms accept' replaces it, as the hint says")
    func damagedRecordIsReplacedByAccept() async throws {
        try FileManager.default.createDirectory(at: acceptedFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "garbage".write(to: acceptedFile, atomically: true, encoding: .utf8)
        let refused = try await run(["--portal", "demo", "library-calendar"])
        #expect(refused.exitCode == 50, "\(refused)")
        #expect(refused.stderr.contains("run 'unitool terms accept --portal demo'"))
        let accepted = try await run(["--portal", "demo", "terms", "accept"])
        #expect(accepted.exitCode == 0, "\(accepted)")
        #expect(try await run(["--portal", "demo", "library-calendar"]).exitCode == 0)
    }

    @Test("a terms bump while the portal runs: refused with both versions until the new one is accepted; a stale --version is refused")
    func bumpAtRunTime() async throws {
        try await DemoUniversity.withRunning { demo in
            let external = ["UNITOOL_DEMO_URL": demo.baseURL.absoluteString]

            #expect(try await run(["--portal", "demo", "terms", "accept", "--version", "2026-09"], extra: external).exitCode == 0)
            #expect(try await run(["--portal", "demo", "grades"], extra: external).exitCode == 0)

            await demo.publishTerms(version: "2027-02")
            let refused = try await run(["--portal", "demo", "grades"], extra: external)
            #expect(refused.exitCode == 15, "\(refused)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("you accepted version 2026-09, the portal now has version 2027-02"))
            #expect(refused.stderr.contains("terms accept"))

            let before = try #require(acceptedBytes())
            let stale = try await run(["--portal", "demo", "terms", "accept", "--version", "2026-09"], extra: external)
            #expect(stale.exitCode == 17, "\(stale)")
            #expect(stale.stderr.contains("version 2026-09 is not the current version"))
            #expect(stale.stderr.contains("current: 2027-02"))
            #expect(acceptedBytes() == before, "a refused accept changed the record of accepted terms")
            #expect(try await run(["--portal", "demo", "grades"], extra: external).exitCode == 15)

            let status = try await run(["--portal", "demo", "terms", "status"], extra: external)
            #expect(status.stdout.contains("current:   2027-02"))
            #expect(status.stdout.contains("accepted:  2026-09"))
            #expect(status.stdout.contains("not accepted"))

            #expect(try await run(["--portal", "demo", "terms", "accept", "--version", "2027-02"], extra: external).exitCode == 0)
            let after = try await run(["--portal", "demo", "grades", "--json"], extra: external)
            #expect(after.exitCode == 0, "\(after)")
            #expect(after.stdout.contains("Probability Theory"))
        }
    }

    @Test(
        "every failure of the terms API is exit 16 with its cause; nothing is shown, no login is made, and the accepted terms are kept",
        arguments: [
            ("terms-api=error", "answered 500"),
            ("terms-api=not-json", "did not answer with JSON"),
            ("terms-api=no-version", "without the field 'version'"),
            ("terms-api=number-version", "gave 'version' as a number"),
        ])
    func apiFailures(fault: String, cause: String) async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let before = try #require(acceptedBytes())
        let outcome = try await run(["--portal", "demo", "grades", "--json", "-v"], extra: ["UNITOOL_DEMO_FAULTS": fault])
        #expect(outcome.exitCode == 16, "\(outcome)")
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains(cause), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("\"kind\": \"terms_unavailable\""))
        // With terms accepted before, the first page is asked for beside the check, but the
        // login it meets waits for the verdict: no form is posted to the IdP.
        #expect(!outcome.stderr.contains("POST http"), "\(outcome.stderr)")
        #expect(acceptedBytes() == before)

        let status = try await run(["--portal", "demo", "terms", "status"], extra: ["UNITOOL_DEMO_FAULTS": fault])
        #expect(status.exitCode == 16)
        let accept = try await run(["--portal", "demo", "terms", "accept"], extra: ["UNITOOL_DEMO_FAULTS": fault])
        #expect(accept.exitCode == 16, "terms of an unreadable version were accepted")
        #expect(acceptedBytes() == before)
    }

    @Test("an unreachable terms API fails closed with the network's exit code, 20, and says the terms could not be checked")
    func unreachableAPI() async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let outcome = try await run(["--portal", "demo", "grades"], extra: ["UNITOOL_DEMO_URL": "http://127.0.0.1:1"])
        #expect(outcome.exitCode == 20, "\(outcome)")
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("cannot check the terms of use of Demo University"))
        #expect(outcome.stderr.contains("127.0.0.1:1"))
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

    @Test("versions compare by exact code points: accepting an NFD version when the portal serves NFC is refused as stale")
    func decomposedVersionIsNotTheServedOne() async throws {
        var faults = DemoFaults()
        faults.termsVersion = "2026-\u{E9}t\u{E9}"
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let external = ["UNITOOL_DEMO_URL": demo.baseURL.absoluteString]
            let stale = try await run(["--portal", "demo", "terms", "accept", "--version", "2026-e\u{301}te\u{301}"], extra: external)
            #expect(stale.exitCode == 17, "\(stale)")
            #expect(acceptedBytes() == nil, "terms were accepted under a version the portal did not serve")

            try sandbox.acceptTerms(portal: "demo", version: "2026-e\u{301}te\u{301}")
            let refused = try await run(["--portal", "demo", "grades"], extra: external)
            #expect(refused.exitCode == 15, "\(refused)")

            #expect(
                try await run(["--portal", "demo", "terms", "accept", "--version", "2026-\u{E9}t\u{E9}"], extra: external).exitCode == 0)
            #expect(try await run(["--portal", "demo", "grades"], extra: external).exitCode == 0)
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
