import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool completions bash|zsh|fish`: scripts that ask unitool itself what to complete, so
/// that recipe commands, their options and values, and plugins complete as soon as they exist.
struct CompletionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions", abstract: localized("Print a shell completion script: bash, zsh or fish."),
        discussion: HelpExamples.discussion(
            localized(
                """
                The script asks 'unitool __complete' for candidates, so recipes and plugins you add later complete
                without regenerating it. Install it once:
                  bash:  unitool completions bash > ~/.local/share/bash-completion/completions/unitool
                  zsh:   unitool completions zsh > ~/.zfunc/_unitool   (with fpath+=~/.zfunc before compinit)
                  fish:  unitool completions fish > ~/.config/fish/completions/unitool.fish
                Scripts/install.sh installs all three.
                """), examples: "completions"))
    @Argument(help: ArgumentHelp(localized("bash, zsh or fish."))) var shell: Shell

    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish
    }

    func run() async throws {
        print(Self.script(for: shell), terminator: "")
    }

    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash:
            // One candidate per line, read by mapfile: never word-split and never globbed (a
            // portal's value `/*/*` once became every path two levels down). A candidate that the
            // shell would read otherwise (a space, a glob or quote character) goes onto the line
            // quoted with printf %q, so that the word the command receives is the value itself.
            return """
                # bash completion for unitool
                _unitool() {
                    local candidate quoted
                    local -a candidates=()
                    mapfile -t candidates < <(unitool __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
                    COMPREPLY=()
                    for candidate in "${candidates[@]}"; do
                        if [[ $candidate == *[^A-Za-z0-9_.,:=@%+/-]* ]]; then
                            printf -v quoted '%q' "$candidate"
                            COMPREPLY+=("$quoted")
                        else
                            COMPREPLY+=("$candidate")
                        fi
                    done
                }
                complete -o default -F _unitool unitool

                """
        case .zsh:
            return """
                #compdef unitool
                # zsh completion for unitool
                _unitool() {
                    local -a candidates
                    candidates=("${(@f)$(unitool __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
                    compadd -a candidates
                }
                if [ "$funcstack[1]" = "_unitool" ]; then _unitool "$@"; else compdef _unitool unitool; fi

                """
        case .fish:
            return """
                # fish completion for unitool
                complete -c unitool -f -a '(unitool __complete (commandline -opc)[2..-1] (commandline -ct))'

                """
        }
    }
}

/// `unitool __complete WORD...`: the candidates for the last word, one per line.
///
/// Everything comes from what unitool knows now: the portals and recipes installed, each
/// built-in subcommand's own options (read from its help, so that a subcommand is never offered
/// a flag it would reject), the settings, and the values the portal last offered for an option.
struct Completion {
    /// The words after `unitool` (global options before the command already taken out), the
    /// last one being the word under the cursor (possibly empty).
    let words: [String]
    let globals: [String]

    func run() async -> Int32 {
        for candidate in candidates() { print(candidate) }
        return 0
    }

    func candidates() -> [String] {
        var words = globals + self.words
        let current = words.popLast() ?? ""
        // An option waiting for its value (the cursor's word) is left out, or nothing would parse.
        var settled = words
        if let last = settled.last, GlobalOptions.valueOptions.contains(last) { settled.removeLast() }
        let environment = try? CommandEnvironment.open(GlobalOptions.read(GlobalOptions.arguments(in: settled)))
        let catalog = environment?.catalog
        let portalID = try? environment?.portalID()
        let portals = catalog.map { Array($0.portals.keys).sorted() } ?? []

        // Find the command: the first word that is not a global option or its value.
        var index = 0
        var command: String?
        while index < words.count {
            let word = words[index]
            if GlobalOptions.valueOptions.contains(word) {
                index += 2
                continue
            }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            command = word
            break
        }
        let recipe = command.flatMap { name in recipes(catalog, portal: portalID).first { $0.command == name } }
        // The value of an option given just before the cursor.
        if let previous = words.last, previous.hasPrefix("-") {
            switch previous {
            case "--portal": return filter(portals, current)
            case "--format": return filter(OutputFormat.allCases.map(\.rawValue), current)
            case "--fields": return Self.listItems(recipe?.columns ?? [], current, descending: false)
            case "--sort": return Self.listItems(recipe?.columns ?? [], current, descending: true)
            case "--recipes", "--trace", "--user", "--timeout", "--connect-timeout": return []
            default: break
            }
        }
        let globalFlags = (GlobalOptions.valueOptions.union(GlobalOptions.flagOptions)).filter { $0.hasPrefix("--") }.sorted()
        guard let command else {
            if current.hasPrefix("-") { return filter(globalFlags + ["--help", "--version"], current) }
            return filter(commandNames(catalog, portal: portalID), current)
        }
        let rest = Array(words[(index + 1)...])
        if command == "watch" {
            return watchCandidates(rest: rest, current: current, catalog: catalog, portal: portalID, globalFlags: globalFlags)
        }
        if command == "help" {
            return rest.isEmpty ? filter(commandNames(catalog, portal: portalID).filter { $0 != "help" }, current) : []
        }
        if let builtin = Dispatcher.builtins[command] {
            return builtinCandidates(builtin, path: [command], rest: rest, current: current, portals: portals)
        }
        guard let recipe else { return [] }
        if let previous = rest.last, previous.hasPrefix("--") {
            let name = String(previous.dropFirst(2))
            if name == "source" { return filter(recipe.sources.compactMap(\.name), current) }
            if let option = recipe.options.first(where: { $0.name == name }) {
                var values = option.allowedValues + option.resolve.keys.sorted()
                if let portalID {
                    values +=
                        OfferedValuesStore(directory: Locations.current.offeredValues).load(
                            portal: portalID, command: recipe.command, option: option.name) ?? []
                }
                if option.filter?.test == .weekday {
                    values += ["today", "tomorrow", "yesterday", "mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                }
                if option.filter?.test == .since || option.filter?.test == .until {
                    values += ["today", "yesterday", "tomorrow", "7d", "2w", "1m"]
                }
                return filter(values, current)
            }
        }
        // After an action's name, its named values (and --yes where it asks first).
        if let action = rest.first.flatMap({ name in recipe.actions.first { $0.name == name } }) {
            if current.hasPrefix("-") {
                let flags =
                    action.parameters.map { "--\($0.name)" } + (action.asks ? ["--yes"] : []) + (action.preview != nil ? ["--dry-run"] : [])
                return filter(flags + globalFlags + ["--help"], current)
            }
            return []
        }
        if current.hasPrefix("-") {
            var flags = recipe.options.map { "--\($0.name)" }
            if recipe.sources.count > 1 { flags.append("--source") }
            if recipe.totals != nil { flags.append("--summary") }
            return filter(flags + globalFlags + ["--help"], current)
        }
        if rest.filter({ !$0.hasPrefix("-") }).isEmpty { return filter(recipe.actions.map(\.name), current) }
        return []
    }

    /// `watch`: its subcommands and the recipe commands it can watch, then its own options (read
    /// from its help, as a built-in's are) beside the watched command's; `watch remove` takes a
    /// saved watch's name.
    private func watchCandidates(rest: [String], current: String, catalog: RecipeCatalog?, portal: String?, globalFlags: [String])
        -> [String]
    {
        let own = Self.options(inHelp: WatchCommandRunner.helpText(for: nil))
        let words = rest.enumerated().filter { position, word in
            !word.hasPrefix("-") && !(position > 0 && own.contains { $0.name == rest[position - 1] && $0.takesValue })
                && !(position > 0 && GlobalOptions.valueOptions.contains(rest[position - 1]))
        }.map(\.element)
        if let previous = rest.last, own.contains(where: { $0.name == previous && $0.takesValue }) {
            return previous == "--webhook-format" ? filter(WebhookChannel.Format.allCases.map(\.rawValue), current) : []
        }
        guard let first = words.first else {
            if current.hasPrefix("-") { return filter(own.map(\.name) + globalFlags, current) }
            let subcommands = WatchCommandRunner.Options.subcommands.sorted()
            return filter(subcommands + recipes(catalog, portal: portal).map(\.command).sorted(), current)
        }
        if WatchCommandRunner.Options.subcommands.contains(first) {
            let options = Self.options(inHelp: WatchCommandRunner.helpText(for: first)).map(\.name)
            if current.hasPrefix("-") { return filter(options + globalFlags, current) }
            guard first == "remove", words.count == 1 else { return [] }
            return filter(((try? WatchFile.load(from: Locations.current.watchFile))?.entries.map(\.name) ?? []).sorted(), current)
        }
        // The watched command's own options and values, then the watch's.
        let watched = Completion(words: [first] + rest.filter { $0 != first } + [current], globals: globals).candidates()
        return current.hasPrefix("-") ? Array(Set(watched + filter(own.map(\.name), current))).sorted() : watched
    }

    /// A built-in command's subcommands, options and arguments, following the subcommands
    /// already typed (`config set <TAB>`).
    private func builtinCandidates(
        _ builtin: any ParsableCommand.Type, path: [String], rest: [String], current: String, portals: [String]
    ) -> [String] {
        var type = builtin
        var path = path
        var positional: [String] = []
        var index = 0
        while index < rest.count {
            let word = rest[index]
            index += 1
            if let subcommand = Self.subcommands(of: type).first(where: { Self.name(of: $0) == word }), positional.isEmpty {
                type = subcommand
                path.append(word)
            } else if word.hasPrefix("-") {
                if Self.options(of: type).first(where: { $0.name == word })?.takesValue == true { index += 1 }
            } else {
                positional.append(word)
            }
        }
        if let previous = rest.last, let option = Self.options(of: type).first(where: { $0.name == previous }), option.takesValue {
            return []  // a number, a file, a version: nothing to offer
        }
        if current.hasPrefix("-") { return filter(Self.options(of: type).map(\.name), current) }
        let subcommands = Self.subcommands(of: type).map(Self.name(of:))
        if !subcommands.isEmpty, positional.isEmpty { return filter(subcommands, current) }
        switch (path.joined(separator: " "), positional.count) {
        case ("config get", 0), ("config set", 0), ("config unset", 0): return filter(UserConfig.keys, current)
        case ("config set", 1):
            switch positional[0] {
            case "portal": return filter(portals, current)
            case "format": return filter(OutputFormat.allCases.map(\.rawValue), current)
            default: return []
            }
        case ("completions", 0): return filter(CompletionsCommand.Shell.allCases.map(\.rawValue), current)
        default: return []
        }
    }

    /// An option of a built-in command, as its help lists it.
    struct HelpOption: Equatable {
        var name: String
        var takesValue: Bool
    }

    /// The long options (and `-h`-style short ones) that a command's help lists: exactly the ones
    /// it accepts, custom names included.
    static func options(of type: any ParsableCommand.Type) -> [HelpOption] {
        options(inHelp: type.helpMessage(columns: 10_000))
    }

    /// The options in a help text's OPTIONS section (`  -v, --verbose`, `  --port <port>`), as
    /// the man pages read them: each label's long names, and whether it takes a value.
    static func options(inHelp help: String) -> [HelpOption] {
        ManualPages.options(inHelp: help).flatMap { option in
            let tokens = option.label.split(separator: " ")
            let takesValue = tokens.contains { $0.hasPrefix("<") }
            return tokens.filter { $0.hasPrefix("--") }.map {
                HelpOption(name: String($0.hasSuffix(",") ? $0.dropLast() : $0), takesValue: takesValue)
            }
        }
    }

    static func subcommands(of type: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        type.configuration.subcommands
    }

    static func name(of type: any ParsableCommand.Type) -> String {
        type.configuration.commandName ?? "\(type)".lowercased()
    }

    private func commandNames(_ catalog: RecipeCatalog?, portal: String?) -> [String] {
        var names = Array(Dispatcher.reservedCommands)
        names += recipes(catalog, portal: portal).map(\.command)
        names += Plugins.all().map(\.name)
        return Array(Set(names)).sorted()
    }

    private func recipes(_ catalog: RecipeCatalog?, portal: String?) -> [DataRecipe] {
        guard let catalog else { return [] }
        if let portal { return Array((catalog.dataRecipes[portal] ?? [:]).values) }
        return catalog.dataRecipes.values.flatMap(\.values)
    }

    /// Comma-separated field names (`--fields course,gr<TAB>`): the word so far, then each field
    /// not yet in it; with `descending`, a field may start with `-` (`--sort -due`).
    static func listItems(_ fields: [String], _ current: String, descending: Bool) -> [String] {
        let done = current.split(separator: ",", omittingEmptySubsequences: false).dropLast().map(String.init)
        let prefix = done.isEmpty ? "" : done.joined(separator: ",") + ","
        let last = current.hasSuffix(",") ? "" : String(current.split(separator: ",", omittingEmptySubsequences: false).last ?? "")
        let used = Set(done.map { $0.hasPrefix("-") ? String($0.dropFirst()) : $0 })
        let sign = descending && last.hasPrefix("-") ? "-" : ""
        let stem = sign.isEmpty ? last : String(last.dropFirst())
        return fields.filter { !used.contains($0) && $0.hasPrefix(stem) }.map { prefix + sign + $0 }
    }

    private func filter(_ candidates: [String], _ prefix: String) -> [String] {
        candidates.filter { $0.hasPrefix(prefix) }
    }
}
