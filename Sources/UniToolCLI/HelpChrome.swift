import Foundation
import UniToolKit

/// swift-argument-parser's own words in a built-in command's help (`USAGE:`, `OPTIONS:`,
/// "Show help information.", "(default: …)"), put into the person's language.
///
/// The library writes them in English and offers no hook, so the finished text is read line by
/// line and only these fixed words are replaced; the command's own texts are already localized
/// where they are declared. The man pages read the same translated help, by the same markers.
enum HelpChrome {
    static var usagePrefix: String { localized("USAGE:") + " " }
    static var optionsHeading: String { localized("OPTIONS:") }

    /// True for the line that starts the usage, in English or in the person's language.
    static func isUsage(_ line: some StringProtocol) -> Bool { line.hasPrefix("USAGE: ") || line.hasPrefix(usagePrefix) }

    /// The usage line without its heading.
    static func usage(_ line: some StringProtocol) -> String {
        let text = String(line)
        if text.hasPrefix(usagePrefix) { return String(text.dropFirst(usagePrefix.count)) }
        return text.hasPrefix("USAGE: ") ? String(text.dropFirst("USAGE: ".count)) : text
    }

    /// True for the heading of the options, in English or in the person's language.
    static func isOptionsHeading(_ line: some StringProtocol) -> Bool { line.hasPrefix("OPTIONS:") || line.hasPrefix(optionsHeading) }

    static func translated(_ text: String) -> String {
        guard Translation.current.isTranslated else { return text }
        // An enumerable option's values, which swift-argument-parser may wrap over two lines.
        var help = replacing(#"\(values:(\s+)([^;()]*?); default:(\s+)([^()]*)\)"#, in: text) { groups in
            // The space after a colon may be a line break: one space in the translation.
            localized("(values: \(groups[2]); default: \(groups[4]))")
        }
        help = replacing(#"\(values:(\s+)([^;()]*)\)"#, in: help) { groups in localized("(values: \(groups[2]))") }
        // The subcommand run when none is named.
        help = replacing(#"(?m)^(  \S+) \(default\)"#, in: help) { groups in groups[1] + " " + localized("(default)") }
        let headings = [
            "OPTIONS:": localized("OPTIONS:"), "ARGUMENTS:": localized("ARGUMENTS:"), "SUBCOMMANDS:": localized("SUBCOMMANDS:"),
        ]
        var lines: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            var line = line
            if let heading = headings[line] {
                line = heading
            } else if line.hasPrefix("OVERVIEW: ") {
                line = localized("OVERVIEW:") + " " + line.dropFirst("OVERVIEW: ".count)
            } else if line.hasPrefix("USAGE: ") {
                line = usagePrefix + line.dropFirst("USAGE: ".count)
            } else if let range = line.range(of: #"See '([^']+)' for detailed help\."#, options: .regularExpression) {
                let command = line[range].dropFirst("See '".count).prefix { $0 != "'" }
                line.replaceSubrange(range, with: localized("See '\(command)' for detailed help."))
            }
            for (english, translated) in [
                ("Show help information.", localized("Show help information.")), ("Show the version.", localized("Show the version.")),
            ] where line.hasSuffix(english) {
                line = line.dropLast(english.count) + translated
            }
            var result = ""
            var rest = Substring(line)
            while let range = rest.range(of: #"\(default: [^()]*\)"#, options: .regularExpression) {
                result += rest[..<range.lowerBound]
                let value = String(rest[range].dropFirst("(default: ".count).dropLast())
                result += localized("(default: \(value))")
                rest = rest[range.upperBound...]
            }
            line = result + rest
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `text` with every match of `pattern` replaced by `transform` of its groups (0 is the whole).
    private static func replacing(_ pattern: String, in text: String, _ transform: ([String]) -> String) -> String {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return text }
        let source = text as NSString
        var result = ""
        var last = 0
        for match in expression.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            result += source.substring(with: NSRange(location: last, length: match.range.location - last))
            let groups = (0..<match.numberOfRanges).map { index -> String in
                let range = match.range(at: index)
                return range.location == NSNotFound ? "" : source.substring(with: range)
            }
            result += transform(groups)
            last = match.range.location + match.range.length
        }
        return result + source.substring(from: last)
    }
}
