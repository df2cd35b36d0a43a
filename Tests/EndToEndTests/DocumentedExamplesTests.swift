import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Every example a newcomer copies from the README, USING.md and WATCH.md runs (issue 50,
/// deliverable 8): each `unitool --portal demo …` line in a fenced block is run as written, in a
/// fresh sandbox against the demo, and must succeed. An example whose option was renamed, or
/// whose command went away, fails here before a reader meets it.
@Suite("Documented examples run as written")
struct DocumentedExamplesTests {
    static let documents = ["README.md", "docs/USING.md", "docs/WATCH.md"]

    struct Example: CustomStringConvertible, Sendable {
        var file: String
        var line: String
        var arguments: [String]
        var description: String { "\(file): \(line)" }
    }

    /// The words of a shell line as the shell splits them: quotes group, `#` starts a comment,
    /// and a redirection (`> file`) ends the command. Nil for a line that is more than one
    /// command (a pipe, `;`, `&&`), which is shown for reading, not for copying alone.
    static func words(_ line: String) -> [String]? {
        var words: [String] = []
        var current: String?
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current = (current ?? "") + String(character) }
                continue
            }
            switch character {
            case "\"", "'":
                quote = character
                current = current ?? ""
            case " ", "\t":
                if let word = current { words.append(word) }
                current = nil
            case "#" where current == nil:
                return words
            case ">" where current == nil:
                return words
            case "|", ";", "&", "$", "`":
                return nil
            default:
                current = (current ?? "") + String(character)
            }
        }
        if let word = current { words.append(word) }
        return words
    }

    static func examples() throws -> [Example] {
        var found: [Example] = []
        for file in documents {
            let text = try String(contentsOf: Fixtures.root.appendingPathComponent(file), encoding: .utf8)
            var inBlock = false
            for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("```") {
                    inBlock.toggle()
                    continue
                }
                guard inBlock, line.hasPrefix("unitool --portal demo "), let words = words(line) else { continue }
                found.append(Example(file: file, line: line, arguments: Array(words.dropFirst())))
            }
        }
        return found
    }

    @Test("the documents have demo examples, and the line reader reads them as a shell would")
    func found() throws {
        #expect(try Self.examples().count >= 30)
        #expect(
            Self.words(#"unitool --portal demo syllabus --search "information theory"  # a comment"#)
                == ["unitool", "--portal", "demo", "syllabus", "--search", "information theory"])
        #expect(
            Self.words("unitool --portal demo news --format csv > news.csv") == ["unitool", "--portal", "demo", "news", "--format", "csv"])
        #expect(Self.words("unitool --portal demo grades | head") == nil)
    }

    @Test("every unitool --portal demo line of README.md, USING.md and WATCH.md exits 0 against the demo")
    func everyExampleRuns() async throws {
        let examples = try Self.examples()
        try await DemoUniversity.withRunning { demo in
            for example in examples {
                let sandbox = try Sandbox()
                defer { sandbox.remove() }
                try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
                // A watch in an example runs once here: its --every would otherwise wait.
                var arguments = example.arguments
                if arguments.contains("watch"), !arguments.contains("--once") { arguments.append("--once") }
                var outcome = try await sandbox.run(arguments, demo: demo.baseURL)
                // An action that asks first refuses without a terminal to ask on (exit 26,
                // nothing sent); answered yes, as its reader would, it must then succeed.
                if outcome.exitCode == 26, outcome.stderr.contains("nothing was sent") {
                    outcome = try await sandbox.run(arguments + ["--yes"], demo: demo.baseURL)
                }
                #expect(outcome.exitCode == 0, "\(example)\n\(outcome)")
            }
        }
    }
}
