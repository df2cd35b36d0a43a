import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool search QUERY`: every record in the history and the portal's command and option names,
/// typo-tolerant, offline.
struct SearchCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: localized("Find a course, grade, loan or news item you have seen, and commands, even with typos."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Searches the latest answer of every command in the history (so run 'unitool courses' or 'unitool news'
                once first), and the portal's command and option names. No request is sent. Case, accents and full-width
                forms do not matter (kozepiskola finds Középiskola); a word may have a typo or two, more in longer words;
                Japanese text matches inside words. Every word must match; exact matches come first, then prefixes,
                then near misses.
                """), examples: "search"))
    @OptionGroup var globals: GlobalOptions
    @Argument(help: ArgumentHelp(localized("What to look for: one or more words."))) var query: [String]
    @Option(help: ArgumentHelp(localized("At most this many results."))) var limit = Search.defaultLimit

    func run(_ environment: CommandEnvironment) async throws {
        try InputBounds.count(limit, option: "--limit", in: InputBounds.searchResults)
        let portal = try environment.catalog.portal(try environment.portalID())
        let user = (try? environment.user(for: portal)) ?? ""
        let items = try Search.items(catalog: environment.catalog, portal: portal.id, user: user, history: environment.history())
        let hits = Search.search(query.joined(separator: " "), in: items, limit: limit)
        let format = globals.outputFormat
        if format == .table, hits.isEmpty {
            let words = TerminalText.escaped(query.joined(separator: " "))
            print(localized("(nothing matches '\(words)')"))
            return
        }
        let set = Search.recordSet(hits)
        let style = TableStyle.forStandardOutput()
        print(
            format == .table
                ? TableRenderer(
                    style: style,
                    display: [
                        "text": ColumnDisplay(priority: .high), "key": ColumnDisplay(priority: .low),
                        // What was found and how well, in the person's words; JSON and CSV keep the values.
                        "kind": .words(["record": localized("record"), "option": localized("option"), "command": localized("command")]),
                        "match": .words(["exact": localized("exact"), "prefix": localized("prefix"), "fuzzy": localized("fuzzy")]),
                    ]
                )
                .render(set) : format.render(set, style: style), terminator: "")
    }
}
