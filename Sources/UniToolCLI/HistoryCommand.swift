import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool history grades --since 30d`: what changed in a recipe's answers, run by run.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Show what changed in a command's answers, run by run, from the local history.",
        discussion: HelpExamples.discussion(
            """
            Every successful run of a recipe command (from the command line, JSON-RPC or a watch) is kept in
            $XDG_DATA_HOME/unitool/history.sqlite. Records are followed from run to run by the recipe's key
            fields (key: true), and compared by their whole content: a changed grade is one 'changed' row per
            field, with the old and the new value.
            """, examples: "history"))
    @OptionGroup var globals: GlobalOptions
    @Argument(help: "A recipe command, such as grades or loans.") var command: String
    @Option(help: ArgumentHelp("Only runs since then: 30d, 12h, today or 2026-11-01.", valueName: "when")) var since = "30d"

    func run() async throws {
        let environment = try CommandEnvironment(options: globals)
        let portal = try environment.catalog.portal(try environment.portalID())
        let recipe = try environment.catalog.recipe(portal: portal.id, command: command)
        guard let history = environment.history() else {
            throw UniToolError(.stateCorrupt, "the history cannot be opened", hint: "run with -v to see why")
        }
        let user = recipe.login ? try environment.user(for: portal) : ""
        let changes = try HistoryReport.changes(
            in: history, recipe: recipe, portal: portal.id, user: user, since: try HistoryReport.start(of: since))
        let format = globals.outputFormat
        if format == .table, changes.records.isEmpty {
            print("(no changes since \(TerminalText.escaped(since)))")
            return
        }
        print(format.render(changes, style: .forStandardOutput()), terminator: "")
    }
}
