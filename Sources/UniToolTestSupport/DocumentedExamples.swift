import Foundation

/// The `unitool --portal demo …` lines of the documents a newcomer copies from (README.md,
/// USING.md, WATCH.md), read as a shell reads them: `EndToEndTests/DocumentedExamplesTests` runs
/// each as written.
public enum DocumentedExamples {
    public static let documents = ["README.md", "docs/USING.md", "docs/WATCH.md"]

    public struct Example: CustomStringConvertible, Sendable {
        public var file: String
        public var line: String
        public var arguments: [String]
        public var description: String { "\(file): \(line)" }
    }

    /// The words of a shell line as the shell splits them: quotes group, `#` starts a comment,
    /// and a redirection (`> file`) ends the command. Nil for a line that is more than one
    /// command (a pipe, `;`, `&&`), which is shown for reading, not for copying alone.
    public static func words(_ line: String) -> [String]? {
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

    public static func examples() throws -> [Example] {
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
}
