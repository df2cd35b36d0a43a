import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The samples in README.md and docs/USING.md are real runs: each block introduced by
/// "captured with `COMMAND`:" is run again here, in a fresh sandbox against the demo, and must
/// print what the block shows. A sample that drifts from what unitool prints fails here.
@Suite("Documentation samples are what unitool prints")
struct DocumentationSamplesTests {
    struct Sample: CustomStringConvertible {
        var file: String
        var command: String
        var output: String
        var description: String { "\(file): \(command)" }
    }

    static let documents = ["README.md", "docs/USING.md"]

    /// Every "captured with `COMMAND`:" followed by a ```text block, in the documents.
    static func samples() throws -> [Sample] {
        var found: [Sample] = []
        let pattern = try Regex(#"captured with `([^`]+)`:\s*\n\s*```text\n((?:.*\n)*?)```"#)
        for file in documents {
            let url = Fixtures.root.appendingPathComponent(file)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for match in text.matches(of: pattern) {
                let command = match.output[1].substring.map(String.init) ?? ""
                let output = match.output[2].substring.map(String.init) ?? ""
                found.append(Sample(file: file, command: command, output: output))
            }
        }
        return found
    }

    /// `A=1 B=2 unitool args...`: the variables and unitool's arguments (no quoting in samples).
    static func parse(_ command: String) -> (environment: [String: String], arguments: [String])? {
        var words = command.split(separator: " ").map(String.init)
        var environment: [String: String] = [:]
        while let first = words.first, let equals = first.firstIndex(of: "="), first.first?.isUppercase == true {
            environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
            words.removeFirst()
        }
        // One unitool command; a sample of several steps (`...; khal list ...`) has its own test.
        guard words.first == "unitool", !command.contains("; ") else { return nil }
        return (environment, Array(words.dropFirst()))
    }

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
        }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    @Test("the README and USING.md have samples, and every unitool sample prints what it shows")
    func unitoolSamples() async throws {
        let samples = try Self.samples()
        #expect(samples.contains { $0.file == "README.md" && $0.command.contains("grades") }, "\(samples)")
        #expect(samples.contains { $0.file == "README.md" && $0.command.contains("today") }, "\(samples)")
        for sample in samples {
            guard let (environment, arguments) = Self.parse(sample.command) else { continue }
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
            let outcome = try await sandbox.run(arguments, extra: environment.merging(["TZ": "Europe/Budapest"]) { first, _ in first })
            #expect(outcome.exitCode == 0, "\(sample): \(outcome)")
            #expect(
                Self.lines(outcome.stdout) == Self.lines(sample.output),
                "\(sample) drifted; unitool prints:\n\(outcome.stdout)")
        }
    }

    @Test(
        "the calendar steps in USING.md work on a fresh machine: khal's config as written, the import, and the listing shown",
        .enabled(if: Needs.program("/usr/bin/khal")))
    func khalSteps() async throws {
        let text = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/USING.md"), encoding: .utf8)
        let sample = try #require(try Self.samples().first { $0.command.contains("khal list") }, "no khal sample in docs/USING.md")
        let block = try #require(text.firstMatch(of: try Regex(#"```(?:ini)?\n(\[calendars\]\n(?:.*\n)*?)```"#)), "no khal config")
        let config = String(block.output[1].substring ?? "")
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        // khal reads $XDG_CONFIG_HOME/khal/config; the sandbox's HOME is its root, for the ~ in it.
        let folder = sandbox.root.appendingPathComponent("config/khal")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try config.write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        for line in config.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("path") {
            let path = (line.split(separator: "=", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
            try FileManager.default.createDirectory(
                atPath: path.replacingOccurrences(of: "~", with: sandbox.root.path), withIntermediateDirectories: true)
        }
        // A person in the portal's city reads the listing in its zone.
        let zone = ["TZ": "Europe/Budapest"]
        var last: UniToolProcess.Outcome?
        for step in sample.command.components(separatedBy: "; ") {
            let outcome: UniToolProcess.Outcome
            if let (environment, arguments) = Self.parse(step) {
                outcome = try await sandbox.run(
                    arguments, extra: environment.merging(zone) { first, _ in first }, currentDirectory: sandbox.root)
            } else {
                let words = step.split(separator: " ").map(String.init)
                outcome = try await UniToolProcess.run(
                    URL(fileURLWithPath: "/usr/bin/" + words[0]), Array(words.dropFirst()),
                    environment: sandbox.environment.merging(zone) { $1 }, currentDirectory: sandbox.root)
            }
            #expect(outcome.exitCode == 0, "\(step): \(outcome)")
            last = outcome
        }
        #expect(Self.lines(last?.stdout ?? "") == Self.lines(sample.output), "khal prints:\n\(last?.stdout ?? "")")
    }
}
