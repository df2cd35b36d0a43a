import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// The man pages: one per built-in command and subcommand (`unitool.1`, `unitool-auth-login.1`),
/// written from the same help that `--help` prints, so that they cannot say something else.
///
/// They are committed under `docs/man/`, so that `man ./docs/man/unitool.1` works on a fresh
/// clone, and a test regenerates them and compares: run `Scripts/update-man.sh` after changing a
/// command's help. Only the bundled recipes appear in them, never the reader's own.
enum ManualPages {
    /// File name and roff text of every page.
    static func all() -> [(name: String, text: String)] {
        var pages: [(String, String)] = []
        func visit(_ type: any ParsableCommand.Type, path: [String]) {
            pages.append((path.joined(separator: "-") + ".1", page(for: type, path: path)))
            for subcommand in type.configuration.subcommands {
                visit(subcommand, path: path + [Completion.name(of: subcommand)])
            }
        }
        visit(RootCommand.self, path: ["unitool"])
        // watch is the dispatcher's, not swift-argument-parser's: its page is read from its help.
        pages.append(("unitool-watch.1", page(name: "unitool-watch", help: WatchCommandRunner.help)))
        return pages.sorted { $0.0 < $1.0 }
    }

    /// `unitool __man DIR`: writes every page into DIR.
    static func write(to directory: String) -> Int32 {
        do {
            let folder = URL(fileURLWithPath: directory)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, text) in all() {
                try AtomicFile.write(Data(text.utf8), to: folder.appendingPathComponent(name), mode: 0o644)
            }
            return 0
        } catch {
            return ErrorReporter.report(
                UniToolError(
                    .usage, localized("cannot write the man pages to \(directory): \(error)"),
                    hint: localized("give a folder you can write")),
                json: false)
        }
    }

    static func page(for type: any ParsableCommand.Type, path: [String]) -> String {
        let configuration = type.configuration
        let help = HelpChrome.translated(
            type == RootCommand.self
                ? RootCommand.helpMessage(columns: 10_000)
                : OptionScope.help(RootCommand.helpMessage(for: type, columns: 10_000), for: Array(path.dropFirst())))
        var roff = header(name: path.joined(separator: "-"), abstract: configuration.abstract)
        if type == RootCommand.self {
            roff += section(localized("SYNOPSIS")) + ".B unitool [\\-\\-portal <portal>] [\\-\\-user <user>] <command> [<options>]\n"
        } else if let usage = help.split(separator: "\n").first(where: HelpChrome.isUsage) {
            roff += section(localized("SYNOPSIS")) + ".B \(escape(HelpChrome.usage(usage)))\n"
        }
        if !configuration.discussion.isEmpty {
            roff += section(localized("DESCRIPTION")) + paragraphs(configuration.discussion)
        }
        // The root's page lists the global options too: every command takes them.
        var options: [(label: String, help: String)] = []
        // The root's global options and its own help both list -h, --help: once is enough.
        for option in (type == RootCommand.self ? Self.options(inHelp: GlobalOptions.helpMessage(columns: 10_000)) : [])
            + Self.options(inHelp: help) where !options.contains(where: { $0.label == option.label })
        {
            options.append(option)
        }
        roff += optionsSection(options)
        let subcommands = configuration.subcommands
        if !subcommands.isEmpty {
            roff += section(localized("COMMANDS"))
            for subcommand in subcommands {
                let name = Completion.name(of: subcommand)
                roff += ".TP\n.B \(escape(name))\n\(escape(subcommand.configuration.abstract))\n"
                let reference = "\\fB\(escape((path + [name]).joined(separator: "-")))\\fR(1)"
                roff += localized("See \(reference).") + "\n"
            }
            if type == RootCommand.self {
                roff += ".TP\n.B watch\n" + escape(localized("Run a command again and again, and announce what changed.")) + "\n"
                let reference = "\\fBunitool\\-watch\\fR(1)"
                roff += localized("See \(reference).") + "\n"
            }
        }
        if type == RootCommand.self {
            roff += HelpTopics.manualSections
        }
        if path.count > 1 {
            roff += section(localized("SEE ALSO")) + "\\fB\(escape(path.dropLast().joined(separator: "-")))\\fR(1)\n"
        }
        return roff
    }

    /// A page's title line and NAME section.
    static func header(name: String, abstract: String) -> String {
        let title = localized("unitool manual")
        // A translated page is set ragged right: Japanese has no spaces for groff to stretch, and
        // a justified line of it shows gaps mid-sentence.
        let adjust = Translation.current.isTranslated ? ".ad l\n" : ""
        return ".TH \(name.uppercased()) 1 \"\" \"unitool \(UniToolVersion.current)\" \"\(title)\"\n" + adjust
            + section(localized("NAME")) + "\(escape(name)) \\- \(escape(abstract))\n"
    }

    /// A section heading (`.SH NAME`), in the reader's language.
    static func section(_ heading: String) -> String {
        ".SH \(escape(heading))\n"
    }

    /// The OPTIONS section, one tagged paragraph an option; nothing without options.
    static func optionsSection(_ options: [(label: String, help: String)]) -> String {
        guard !options.isEmpty else { return "" }
        return section(localized("OPTIONS")) + options.map { ".TP\n.B \(escape($0.label))\n\(escape($0.help))\n" }.joined()
    }

    /// A page from help text written by hand (`watch`): its first line is the summary, the
    /// USAGE lines the synopsis, the text before them the description, then its options and
    /// examples.
    static func page(name: String, help: String) -> String {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let summary = lines.first { !$0.trimmingWhitespace().isEmpty } ?? ""
        let abstract = summary.replacingOccurrences(of: "OVERVIEW: ", with: "").replacingOccurrences(
            of: localized("OVERVIEW:") + " ", with: ""
        ).trimmingCharacters(in: CharacterSet(charactersIn: " ."))
        var roff = header(name: name, abstract: abstract)
        let usageStart = lines.firstIndex(where: HelpChrome.isUsage) ?? lines.endIndex
        let optionsStart = lines.firstIndex(where: HelpChrome.isOptionsHeading) ?? lines.endIndex
        let usage = lines[usageStart..<optionsStart].map { HelpChrome.usage($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
        roff += section(localized("SYNOPSIS")) + usage.map { ".B \(escape($0))\n" }.joined(separator: ".br\n")
        let description = lines[(lines.firstIndex(of: summary) ?? 0) + 1..<usageStart].joined(separator: "\n")
        roff += section(localized("DESCRIPTION")) + paragraphs(description.trimmingCharacters(in: .newlines))
        roff += optionsSection(Self.options(inHelp: help))
        // After the options: a closing note, then "Examples:" with one command a line.
        let after = lines[optionsStart...].drop { HelpChrome.isOptionsHeading($0) || $0.hasPrefix("  ") }
        if let examples = after.firstIndex(where: { $0.hasPrefix("Examples:") || $0.hasPrefix(localized("Examples:")) }) {
            let note = after[after.startIndex..<examples].joined(separator: "\n").trimmingWhitespaceAndNewlines()
            if !note.isEmpty { roff += ".PP\n\(escape(note))\n" }
            roff +=
                section(localized("EXAMPLES"))
                + paragraphs(after[(examples + 1)...].joined(separator: "\n").trimmingCharacters(in: .newlines))
        }
        roff += section(localized("SEE ALSO")) + "\\fBunitool\\fR(1)\n"
        return roff
    }

    /// An option of the help text: its label (`-v, --verbose`, `--port <port>`) and its help,
    /// read from an OPTIONS section printed without a width limit.
    static func options(inHelp help: String) -> [(label: String, help: String)] {
        var options: [(label: String, help: String)] = []
        var inOptions = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") {
                inOptions = HelpChrome.isOptionsHeading(line)
                continue
            }
            guard inOptions else { continue }
            let text = line.drop { $0 == " " }
            let indent = line.count - text.count
            if indent == 2, text.first == "-" {
                // The label ends where two spaces begin the help; a long label has its help below.
                if let gap = text.range(of: "  ") {
                    options.append((String(text[..<gap.lowerBound]), text[gap.upperBound...].trimmingWhitespace()))
                } else {
                    options.append((String(text), ""))
                }
            } else if indent > 2, !options.isEmpty {
                options[options.count - 1].help += (options[options.count - 1].help.isEmpty ? "" : " ") + text
            }
        }
        return options
    }

    /// Help text as roff: lines joined into paragraphs (the source wraps them by hand), and lines
    /// indented by two spaces (examples) kept as they are.
    static func paragraphs(_ text: String) -> String {
        var roff = ""
        var paragraph: [String] = []
        var example = false
        func flush() {
            if !paragraph.isEmpty { roff += escape(paragraph.joined(separator: " ")) + "\n" }
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  ") {
                if !example {
                    flush()
                    roff += ".PP\n.nf\n.RS 4\n"
                    example = true
                }
                roff += escape(String(line.dropFirst(2))) + "\n"
                continue
            }
            if example {
                roff += ".RE\n.fi\n"
                example = false
            }
            if line.trimmingWhitespace().isEmpty {
                flush()
                roff += ".PP\n"
            } else {
                if paragraph.isEmpty, !roff.hasSuffix(".PP\n") { roff += ".PP\n" }
                paragraph.append(line.trimmingWhitespace())
            }
        }
        flush()
        if example { roff += ".RE\n.fi\n" }
        return roff
    }

    /// Text made safe for roff: a backslash is `\e`, a hyphen `\-` (so that options copy and
    /// search as typed), and a line cannot begin with a control character (`.` or `'`).
    static func escape(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        result = result.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
        return result
    }
}
