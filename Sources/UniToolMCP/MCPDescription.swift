import Foundation
import UniToolKit

/// A recipe's description as a model reads it in `tools/list`. The recipe writes for the command
/// line (`--day today keeps one day`, `Export them with: unitool exams --format ics`); a tool has
/// arguments, not flags, and a model that reads a flag passes it, or believes what it says about
/// the command line (`--yes sends without asking`, which no tool has). So each sentence that
/// names a flag the tool has as an argument names the argument instead (`'day'`), and a sentence
/// that names anything else of the command line (another flag, a `unitool …` command) is left
/// out. A pure value, tested on its own and over every bundled tool.
struct MCPDescription {
    /// The tool's argument names: a flag `--name` among them is the argument `'name'`.
    let arguments: Set<String>
    /// The commands a `unitool NAME` in a sentence would be (the portal's, and the built-in ones
    /// recipes point to): "the answers unitool has kept" is prose, "unitool exams" a command line.
    var commands: Set<String> = []

    /// The built-in commands a recipe's description may point to.
    static let builtInCommands: Set<String> = ["calendar", "watch", "today", "auth", "terms", "search", "history", "page"]

    /// Whether `sentence` holds a command line: `unitool` followed by a command's name.
    func namesCommandLine(_ sentence: String) -> Bool {
        let words = sentence.split(whereSeparator: { $0 == " " || $0 == "'" || $0 == "`" || $0 == ":" }).map(String.init)
        return zip(words, words.dropFirst()).contains { $0 == "unitool" && (commands.contains($1) || Self.builtInCommands.contains($1)) }
    }

    /// `text` for a model: paragraphs kept, lines of a paragraph joined, and every sentence
    /// either free of the command line or left out.
    func text(_ text: String) -> String {
        let paragraphs = text.components(separatedBy: "\n\n").map { paragraph in
            let flowing = paragraph.split(separator: "\n").map { $0.trimmingWhitespace() }.joined(separator: " ")
            return Self.sentences(flowing).compactMap(rewritten).joined(separator: " ")
        }
        return paragraphs.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// The sentence with each `--argument` named as the tool's argument, or nil when it names the
    /// command line in another way.
    func rewritten(_ sentence: String) -> String? {
        if namesCommandLine(sentence) { return nil }
        var result = ""
        var rest = Substring(sentence)
        while let range = rest.range(of: "--") {
            result += rest[..<range.lowerBound]
            let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            guard !name.isEmpty, arguments.contains(String(name)) else { return nil }
            result += "'\(name)'"
            rest = rest[range.upperBound...].dropFirst(name.count)
        }
        return result + rest
    }

    /// Sentences end at `.`, `!` or `?` followed by a space (so `mon..fri` and `2.5` stay whole).
    static func sentences(_ text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        var previous: Character?
        for character in text {
            if character == " ", let end = previous, ".!?".contains(end) {
                sentences.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.trimmingWhitespace().isEmpty { sentences.append(current) }
        return sentences.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}
