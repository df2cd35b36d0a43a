import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool history grades --since 30d`: what changed in a recipe's answers, run by run.
struct HistoryCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: localized("Show what changed in a command's answers, run by run, from the local history."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Every successful run of a recipe command (from the command line, JSON-RPC or a watch) is kept in
                $XDG_DATA_HOME/unitool/history.sqlite. Records are followed from run to run by the recipe's key
                fields (key: true), and compared by their whole content: a changed grade is one 'changed' row per
                field, with the old and the new value.
                """), examples: "history"))
    @OptionGroup var globals: GlobalOptions
    @Argument(help: ArgumentHelp(localized("A recipe command, such as grades or loans. Without it, the commands the history has.")))
    var command: String?
    @Option(help: ArgumentHelp(localized("Only runs since then: 30d, 12h, today or 2026-11-01."), valueName: "when"))
    var since = HistoryReport.defaultSince

    func run(_ environment: CommandEnvironment) async throws {
        let portal = try environment.catalog.portal(try environment.portalID())
        guard let history = environment.history() else {
            throw UniToolError(.stateCorrupt, localized("the history cannot be opened"), hint: localized("run with -v to see why"))
        }
        guard let command else {
            try listCommands(in: history, portal: portal, environment: environment)
            return
        }
        let recipe = try environment.catalog.recipe(portal: portal.id, command: command)
        let user = recipe.login ? try environment.user(for: portal) : ""
        let changes = try HistoryReport.changes(
            in: history, recipe: recipe, portal: portal.id, user: user, since: try HistoryReport.start(of: since))
        let format = globals.outputFormat
        if format == .table, changes.records.isEmpty {
            print(localized("(no changes since \(TerminalText.escaped(since)))"))
            return
        }
        print(format.render(changes, style: .forStandardOutput()), terminator: "")
    }

    /// `unitool history` alone: the commands whose answers the history keeps for this portal,
    /// each with its last run, so that the user sees what to ask for.
    private func listCommands(in history: HistoryStore, portal: PortalRecipe, environment: CommandEnvironment) throws {
        let user = (try? environment.user(for: portal)) ?? ""
        var last: [String: Date] = [:]
        for answer in try history.latestAnswers(portal: portal.id, users: Array(Set([user, ""]))) {
            last[answer.recipe] = max(last[answer.recipe] ?? .distantPast, answer.run.ranAt)
        }
        let records = last.sorted { $0.key < $1.key }.map { name, ranAt in
            Record(fields: [("command", .string(name)), ("last_run", .string(HistoryStore.timestamp(ranAt)))])
        }
        if globals.outputFormat == .table, records.isEmpty {
            print(localized("(no history yet for \(TerminalText.escaped(portal.name)): every successful run of a command is kept)"))
            return
        }
        let set = RecordSet(columns: ["command", "last_run"], records: records)
        print(globals.outputFormat.render(set, style: .forStandardOutput()), terminator: "")
        if globals.outputFormat == .table {
            // The field's plain text: a FieldValue interpolated whole reads `string("attendance")`.
            let example = records.first?["command"]?.text ?? "grades"
            FileHandle.standardError.write(Data((localized("see what changed in one: unitool history \(example)") + "\n").utf8))
        }
    }
}
