import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool pin grades --term current`: a favourite that the overview lists first.
struct PinCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin", abstract: localized("Pin a command you run often, so that 'unitool' lists it first."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Pins are kept per portal, in the order you pin them, beside the last five commands you ran, which
                'unitool' lists too. A recipe command is checked before it is pinned, options and all, so a typo is
                found now rather than when you copy it. With no command, lists the pins.
                """), examples: "pin"))
    @OptionGroup var globals: GlobalOptions
    @Flag(help: ArgumentHelp(localized("Unpin the command instead."))) var remove = false
    @Argument(
        parsing: .allUnrecognized, help: ArgumentHelp(localized("The command and its options, as you would type them after 'unitool'.")))
    var words: [String] = []

    /// Built-in commands worth a pin: those that read, with options of their own.
    static let pinnableBuiltins: Set<String> = ["today", "calendar", "search", "history"]

    func run(_ environment: CommandEnvironment) async throws {
        let portal = try environment.catalog.portal(try environment.portalID())
        let store = ShortcutsStore(file: Locations.current.shortcutsFile)
        guard let command = words.first else {
            if remove {
                throw UniToolError(
                    .usage, localized("--remove needs the command to unpin"), hint: "unitool pin --remove grades --term current")
            }
            let pins = store.load().pinned[portal.id] ?? []
            if globals.outputFormat == .json {
                print("[" + pins.map { JSONString.quoted("unitool " + $0) }.joined(separator: ", ") + "]")
            } else if pins.isEmpty {
                print(localized("(nothing pinned for \(portal.id); pin a command with: unitool pin grades --term current)"))
            } else {
                for pin in pins { print("unitool \(TerminalText.escaped(pin))") }
            }
            return
        }
        if let recipe = environment.catalog.dataRecipes[portal.id]?[command] {
            var names = recipe.options.map { "--\($0.name)" }
            if recipe.sources.count > 1 { names.append("--source") }
            if recipe.totals != nil { names.append("--summary") }
            for word in words.dropFirst() where word.hasPrefix("--") {
                let flag = String(word.split(separator: "=", maxSplits: 1).first ?? "")
                guard names.contains(flag) else {
                    throw UniToolError(
                        .usage, localized("'\(flag)' is not an option of '\(command)'"),
                        hint: typoSuggestion(for: flag, among: names).map {
                            localized("did you mean '\($0)'? see 'unitool \(command) --help'")
                        }
                            ?? localized("see 'unitool \(command) --help'")
                    )
                }
            }
            let invocation = try RecipeInvocation(parsing: Array(words.dropFirst()), recipe: recipe)
            if let action = invocation.action {
                throw UniToolError(
                    .usage, localized("'\(command) \(action.name)' changes something on the portal, so it is not pinned"),
                    hint: localized("pin commands that read, such as 'unitool pin \(command)'"))
            }
            if let unknown = invocation.rest.first {
                throw UniToolError(
                    .usage, localized("'\(unknown)' is not an option of '\(command)'"), hint: localized("see 'unitool \(command) --help'"))
            }
        } else if !Self.pinnableBuiltins.contains(command) {
            let known = (environment.catalog.dataRecipes[portal.id] ?? [:]).keys.sorted() + Self.pinnableBuiltins.sorted()
            let pinnable = known.joined(separator: ", ")
            throw UniToolError(
                .usage, localized("'\(command)' is not a command of '\(portal.id)' that can be pinned"),
                hint: typoSuggestion(for: command, among: known).map { localized("these can: \(pinnable); did you mean '\($0)'?") }
                    ?? localized("these can: \(pinnable)"))
        }
        let line = Shortcuts.line(words)
        var changed = false
        try store.update { shortcuts in
            changed = remove ? shortcuts.unpin(line, portal: portal.id) : shortcuts.pin(line, portal: portal.id)
        }
        let shown = "unitool \(TerminalText.escaped(line))"
        if remove {
            guard changed else {
                throw UniToolError(.usage, localized("'\(shown)' is not pinned"), hint: localized("'unitool pin' lists the pins"))
            }
            Progress.note(localized("unpinned: \(shown)"), quiet: globals.quiet)
        } else {
            Progress.note(
                changed ? localized("pinned: \(shown); 'unitool' lists it first") : localized("already pinned: \(shown)"),
                quiet: globals.quiet)
        }
    }
}

extension CommandEnvironment {
    /// Remembers a command that ran, for the overview's recent list. Losing it loses nothing the
    /// user asked for, so a failure is only logged.
    func rememberRun(_ words: [String], portal: String) {
        do {
            try ShortcutsStore(file: Locations.current.shortcutsFile).update { $0.ran(Shortcuts.line(words), portal: portal) }
        } catch {
            logger.debug("the recent commands were not saved: \(error)")
        }
    }
}

extension RecipeInvocation {
    /// The command as the user would type it again: its options in the recipe's order.
    func words(for recipe: DataRecipe) -> [String] {
        var words = [recipe.command]
        for option in recipe.options {
            if let value = values[option.name] { words += ["--\(option.name)", value] }
        }
        if let source { words += ["--source", source] }
        if summary { words.append("--summary") }
        return words
    }
}
