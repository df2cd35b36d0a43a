import ArgumentParser
import Foundation
import UniToolKit

/// `unitool completions bash|zsh|fish`: scripts that ask unitool itself what to complete, so
/// that recipe commands, their options and values, and plugins complete as soon as they exist.
struct CompletionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions", abstract: "Print a shell completion script: bash, zsh or fish.",
        discussion: """
            The script asks 'unitool __complete' for candidates, so recipes and plugins you add later complete
            without regenerating it. Install it once:
              bash:  unitool completions bash > ~/.local/share/bash-completion/completions/unitool
              zsh:   unitool completions zsh > ~/.zfunc/_unitool   (with fpath+=~/.zfunc before compinit)
              fish:  unitool completions fish > ~/.config/fish/completions/unitool.fish
            Scripts/install.sh installs all three.
            """)
    @Argument(help: "bash, zsh or fish.") var shell: Shell

    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case bash, zsh, fish
    }

    func run() async throws {
        print(Self.script(for: shell), terminator: "")
    }

    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash:
            return """
                # bash completion for unitool
                _unitool() {
                    local IFS=$'\\n'
                    COMPREPLY=($(unitool __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
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
        let environment = try? CommandEnvironment(options: GlobalOptions.parse(GlobalOptions.arguments(in: words)))
        let catalog = environment?.catalog
        let portalID = try? environment?.portalID()

        // The value of an option given just before the cursor.
        if let previous = words.last, previous.hasPrefix("--") {
            switch previous {
            case "--portal": return filter(catalog.map { Array($0.portals.keys).sorted() } ?? [], current)
            case "--format": return filter(OutputFormat.allCases.map(\.rawValue), current)
            case "--recipes", "--trace": return []
            default: break
            }
        }
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
        let globalFlags = (GlobalOptions.valueOptions.union(GlobalOptions.flagOptions)).filter { $0.hasPrefix("--") }.sorted()
        guard let command else {
            if current.hasPrefix("-") { return filter(globalFlags + ["--help", "--version"], current) }
            var names = Array(Dispatcher.builtins.keys) + ["help"]
            names += recipes(catalog, portal: portalID).map(\.command)
            names += Plugins.all().map(\.name)
            return filter(Array(Set(names)).sorted(), current)
        }
        let rest = Array(words[(index + 1)...])
        if let builtin = Dispatcher.builtins[command] {
            let subcommands = builtin.configuration.subcommands.compactMap { $0.configuration.commandName ?? "\($0)".lowercased() }
            if current.hasPrefix("-") { return filter(globalFlags + ["--help"], current) }
            if rest.isEmpty { return filter(subcommands, current) }
            return []
        }
        guard let recipe = recipes(catalog, portal: portalID).first(where: { $0.command == command }) else { return [] }
        if let previous = rest.last, previous.hasPrefix("--") {
            let name = String(previous.dropFirst(2))
            if name == "source" { return filter(recipe.sources.compactMap(\.name), current) }
            if let option = recipe.options.first(where: { $0.name == name }) {
                var values = option.allowedValues + option.resolve.keys.sorted()
                if option.filter?.test == .weekday { values += ["today", "mon", "tue", "wed", "thu", "fri", "sat", "sun"] }
                if option.filter?.test == .since || option.filter?.test == .until { values += ["today", "7d", "30d"] }
                return filter(values, current)
            }
        }
        if current.hasPrefix("-") {
            var flags = recipe.options.map { "--\($0.name)" }
            if recipe.sources.count > 1 { flags.append("--source") }
            if recipe.totals != nil { flags.append("--summary") }
            return filter(flags + ["--fields", "--json", "--format", "--help"], current)
        }
        if rest.filter({ !$0.hasPrefix("-") }).isEmpty { return filter(recipe.actions.map(\.name), current) }
        return []
    }

    private func recipes(_ catalog: RecipeCatalog?, portal: String?) -> [DataRecipe] {
        guard let catalog else { return [] }
        if let portal { return Array((catalog.dataRecipes[portal] ?? [:]).values) }
        return catalog.dataRecipes.values.flatMap(\.values)
    }

    private func filter(_ candidates: [String], _ prefix: String) -> [String] {
        candidates.filter { $0.hasPrefix(prefix) }
    }
}
