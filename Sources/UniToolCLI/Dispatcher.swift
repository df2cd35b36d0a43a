import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// Finds the command in argv and hands it over, as git does: built-in commands go to
/// swift-argument-parser; any other name is a recipe's command.
struct Dispatcher {
    let arguments: [String]

    /// Commands that no recipe can shadow.
    static let builtins: [String: any AsyncParsableCommand.Type] = [
        "auth": AuthCommand.self,
        "recipes": RecipesCommand.self,
        "terms": TermsCommand.self,
        "demo": DemoCommand.self,
        "doctor": DoctorCommand.self,
        "page": PageCommand.self,
        "rpc": RPCCommand.self,
        "config": ConfigCommand.self,
        "plugins": PluginsCommand.self,
        "completions": CompletionsCommand.self,
        "history": HistoryCommand.self,
        "search": SearchCommand.self,
        "calendar": CalendarCommand.self,
        "today": TodayCommand.self,
        "pin": PinCommand.self,
        "mcp": MCPCommand.self,
    ]

    /// Every name a recipe or a plugin may not take (`CommandEnvironment.reservedCommands`,
    /// which the front ends share): the built-in commands, and those answered here.
    static var reservedCommands: Set<String> { CommandEnvironment.reservedCommands }
    /// Commands the dispatcher answers itself, outside swift-argument-parser: `watch` takes a
    /// recipe command's own options, which only exist at run time.
    static let dispatchedCommands: Set<String> = ["help", "version", "watch"]

    func run() async -> Int32 {
        if arguments == ["--experimental-dump-help"] {
            await RootCommand.main(arguments)
            return 0
        }
        let (globals, commandIndex) = splitGlobalOptions()
        guard let commandIndex else {
            if globals.contains("--version") {
                print(VersionReport.text(json: Self.wantsJSON(globals)), terminator: "")
                return 0
            }
            if let unknown = Self.unknownGlobalOption(in: globals) {
                return ErrorReporter.report(unknown, json: Self.wantsJSON(arguments))
            }
            // The overview is what was asked for: on stdout, so that `unitool | less` shows it.
            return await printOverview(globals: globals, toStandardError: false)
        }
        let name = arguments[commandIndex]
        // Before the command, only global options stand: `--portl demo grades` is a typo of
        // --portal, not the command 'demo' with an option of its own.
        if let unknown = Self.unknownGlobalOption(in: globals) {
            return ErrorReporter.report(unknown, json: Self.wantsJSON(arguments))
        }
        if name == "version" {
            print(VersionReport.text(json: Self.wantsJSON(arguments)), terminator: "")
            return 0
        }
        if name == "__man" {
            // Scripts/update-man.sh: the committed man pages under docs/man/.
            guard commandIndex + 1 < arguments.count else { return ManualPages.write(to: "docs/man") }
            return ManualPages.write(to: arguments[commandIndex + 1])
        }
        if name == "__complete" {
            return await Completion(words: Array(arguments[(commandIndex + 1)...]), globals: globals).run()
        }
        // Global options given before the command go after it, where every command (and every
        // subcommand, as in `unitool --portal demo terms accept`) parses them.
        var rest = Array(arguments[(commandIndex + 1)...])
        rest.insert(contentsOf: globals, at: rest.firstIndex(of: "--") ?? rest.endIndex)
        if name == "watch" {
            return await WatchCommandRunner(arguments: rest).run()
        }
        if name == "help" {
            guard let topic = rest.first(where: { !$0.hasPrefix("-") }) else {
                return await printOverview(globals: [], toStandardError: false)
            }
            if let text = HelpTopics.text(topic) {
                print(text, terminator: "")
                return 0
            }
            return await Dispatcher(arguments: [topic, "--help"] + rest.filter { $0 != topic }).run()
        }
        // --timeout bounds the whole command, every request and retry together; servers that
        // run until their input ends (rpc, mcp, demo serve) keep a limit per request instead.
        let deadline = Self.longRunning.contains(name) ? nil : Self.timeoutSeconds(in: rest).map { CommandDeadline(seconds: $0) }
        return await HTTPSession.$commandDeadline.withValue(deadline) {
            await runCommand(name, globals: globals, commandIndex: commandIndex, rest: rest)
        }
    }

    /// The commands that serve until stopped, to which a whole-command deadline means nothing.
    static let longRunning: Set<String> = ["rpc", "mcp", "demo"]
    /// The commands whose output is a protocol for programs (docs/LANGUAGES.md).
    static let servers: Set<String> = ["rpc", "mcp"]

    /// The seconds of `--timeout SECONDS` or `--timeout=SECONDS` before any `--`, if given and
    /// valid (the command's own parsing reports a bad value).
    static func timeoutSeconds(in arguments: [String]) -> Double? {
        let options = arguments.prefix { $0 != "--" }
        var value: String?
        for (index, argument) in options.enumerated() {
            if argument == "--timeout", index + 1 < options.count {
                value = options[options.startIndex + index + 1]
            } else if argument.hasPrefix("--timeout=") {
                value = String(argument.dropFirst("--timeout=".count))
            }
        }
        guard let seconds = value.flatMap(Double.init), GlobalOptions.problem(withSeconds: seconds) == nil else { return nil }
        return seconds
    }

    private func runCommand(_ name: String, globals: [String], commandIndex: Int, rest: [String]) async -> Int32 {
        if let builtin = Self.builtins[name] {
            return await runBuiltin(builtin, name: name, arguments: rest)
        }
        // A recipe's command comes before a plugin of the same name. The recipes are only read
        // here when such a plugin exists: a recipe command reads them once, in its runner.
        if let plugin = Plugins.find(name) {
            let hasRecipe =
                ((try? CommandEnvironment.open(GlobalOptions.read(globals.filter { $0 != "--help" && $0 != "-h" })))?
                    .catalog.dataRecipes.values.contains { $0[name] != nil }) ?? true
            if !hasRecipe {
                return await Plugins.run(plugin, arguments: Array(arguments[(commandIndex + 1)...]), globals: globals)
            }
        }
        // A recipe's command is one-shot: a few requests, then the process ends.
        HTTPSession.useOneEventLoopThread()
        return await RecipeCommandRunner(name: name, arguments: rest).run()
    }

    /// The long names of the global options, for "did you mean" and the checks above.
    static var globalOptionNames: [String] {
        GlobalOptions.valueOptions.union(GlobalOptions.flagOptions).union(["--help", "-h", "--version"]).sorted()
    }

    /// An option that is none of unitool's global ones, named with the one most likely meant.
    static func unknownGlobalOption(in globals: [String]) -> UniToolError? {
        let known = Set(globalOptionNames)
        guard let unknown = globals.first(where: { $0.hasPrefix("-") && !known.contains(String($0.split(separator: "=").first ?? "")) })
        else { return nil }
        let nearest = typoSuggestion(for: String(unknown.split(separator: "=").first ?? ""), among: globalOptionNames)
        return UniToolError(
            .usage, localized("unknown option '\(unknown)'"),
            hint: nearest.map { localized("did you mean '\($0)'? see 'unitool --help'") } ?? localized("see 'unitool --help'"))
    }

    /// Separates the global options before the command name from the command and its arguments.
    private func splitGlobalOptions() -> ([String], Int?) {
        let (globals, commandIndex) = GlobalOptions.scan(arguments) { argument, _ in argument.hasPrefix("-") ? .keep : .stop }
        return (globals, commandIndex)
    }

    /// Whether errors should be JSON: when the output format is JSON, whatever set it (a flag,
    /// `UNITOOL_FORMAT`, config.yaml).
    static func wantsJSON(_ arguments: [String]) -> Bool {
        if arguments.contains("--json") || arguments.contains("--format=json") { return true }
        if let index = arguments.firstIndex(of: "--format"), index + 1 < arguments.count { return arguments[index + 1] == "json" }
        if let format = ProcessInfo.processInfo.environment["UNITOOL_FORMAT"], !format.isEmpty { return format == "json" }
        return UserConfig.current["format"] == "json"
    }

    /// Runs a built-in command. Help asked for (`--help`, `-h`, `help auth`) goes to stdout with
    /// exit 0; a wrong argument is reported in unitool's one error style (or JSON), exit 64.
    private func runBuiltin(_ type: any AsyncParsableCommand.Type, name: String, arguments: [String]) async -> Int32 {
        let path = [name] + arguments.prefix { !$0.hasPrefix("-") }
        if let refusal = OptionScope.refusal(for: path, arguments: arguments) {
            return ErrorReporter.report(refusal, json: Self.wantsJSON(arguments))
        }
        do {
            // Parsed from the root, so that help and usage name the whole command: 'unitool auth login'.
            var command = try RootCommand.parseAsRoot([name] + arguments)
            // A server's answers are read by a program: English, whatever LANG says, unless a
            // JSON-RPC client declares its locale (RPCServer). Its help stays in the person's language.
            let translation = Self.servers.contains(name) ? Translation.english : Translation.current
            try await Translation.$override.withValue(translation) {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            }
            return 0
        } catch {
            if !(error is UniToolError), !(error is CommandExit), RootCommand.exitCode(for: error) == .success {
                // A request for help: swift-argument-parser's text for the (sub)command asked about.
                let help = HelpChrome.translated(OptionScope.help(RootCommand.fullMessage(for: error), for: path))
                if !help.isEmpty { print(help) }
                return 0
            }
            return CommandFailure.exitCode(
                for: error, command: path.joined(separator: " "), arguments: arguments, parserMessage: RootCommand.message(for:))
        }
    }

    /// `unitool` alone, or `unitool --help`: where you stand, every command there is (built-in,
    /// from recipes, from plugins) and what to do next.
    private func printOverview(globals: [String], toStandardError: Bool) async -> Int32 {
        var text = localized("unitool \(UniToolVersion.current): your university's portal, from the command line.") + "\n\n"
        text += localized("USAGE:") + " unitool [--portal <portal>] [--user <user>] <command> [<options>]\n"
        var next = localized("Try it with no account: unitool --portal demo terms accept, then unitool --portal demo grades")
        do {
            let options = try GlobalOptions.read(globals.filter { $0 != "--help" && $0 != "-h" })
            let environment = try CommandEnvironment.open(options, portalsOnly: true)
            let listings = try environment.commandListings()
            let portalID = (try? environment.portalID())
            if let portalID, let portal = try? environment.catalog.portal(portalID) {
                let user = try? environment.user(for: portal)
                let session = user.map { environment.workspace.account(portal, user: $0).hasSavedSession } ?? false
                let accepted = (try? environment.workspace.acceptedTerms.load(portal: portalID)) ?? nil
                // The portal's name and every summary below come from recipes, perhaps a pack's:
                // shown escaped, so that none of them can drive the terminal.
                let portalName = TerminalText.escaped(portal.name)
                let portalLine =
                    user.map { localized("PORTAL: \(portalName) (\(portalID)), user \(TerminalText.escaped($0))") }
                    ?? localized("PORTAL: \(portalName) (\(portalID)), no user set")
                text += "\n\(portalLine)\n"
                let sessionLine =
                    session
                    ? localized("session: saved (the next command needs no password if it is still valid)") : localized("session: none yet")
                text += "  \(sessionLine)\n"
                // The accepted version is what a portal once served: shown escaped, as everywhere.
                let termsLine =
                    accepted.map { localized("terms:   accepted version \(TerminalText.escaped($0.version))") }
                    ?? localized("terms:   not accepted yet")
                // Only a portal whose recipe publishes terms has any to accept.
                if portal.terms != nil { text += "  \(termsLine)\n" }
                if accepted == nil, portal.terms != nil {
                    next = localized("Next: read and accept the terms: unitool --portal \(portalID) terms show, then terms accept")
                } else if user == nil {
                    next = localized("Next: choose who you are: unitool config set user NAME, then unitool auth login")
                } else if !session && !portal.isDemo {
                    next = localized("Next: store your password once: unitool --portal \(portalID) auth login")
                } else {
                    // Only a command that runs as shown: one that needs no option the user must give.
                    let runnable = (listings[portalID] ?? []).filter(\.runsWithoutArguments).map(\.command)
                    let suggested = runnable.contains("grades") ? "grades" : runnable.first ?? "recipes list"
                    next = localized("Next: unitool --portal \(portalID) \(suggested)")
                }
            }
            if let portalID {
                let shortcuts = ShortcutsStore(file: Locations.current.shortcutsFile).load()
                if let pins = shortcuts.pinned[portalID], !pins.isEmpty {
                    text +=
                        "\n" + localized("PINNED (unitool pin):") + "\n" + pins.map { "  unitool \(TerminalText.escaped($0))\n" }.joined()
                }
                let recent = shortcuts.recentOnly(portal: portalID)
                if !recent.isEmpty {
                    text += "\n" + localized("RECENT:") + "\n" + recent.map { "  unitool \(TerminalText.escaped($0))\n" }.joined()
                }
            }
            let recipesHeading = portalID.map { localized("RECIPE COMMANDS (portal: \($0)):") } ?? localized("RECIPE COMMANDS:")
            text += "\n\(recipesHeading)\n"
            let portals = portalID.map { [$0] } ?? listings.keys.sorted()
            var seen = Set<String>()
            for portal in portals {
                for recipe in listings[portal] ?? []
                where seen.insert(recipe.command).inserted {
                    text +=
                        "  " + recipe.command.padding(toLength: 19, withPad: " ", startingAt: 0) + TerminalText.escaped(recipe.summary)
                        + "\n"
                    for action in recipe.actions {
                        text +=
                            "  "
                            + TerminalText.escaped("\(recipe.command) \(action.name)").padding(toLength: 19, withPad: " ", startingAt: 0)
                            + TerminalText.escaped(action.summary) + "\n"
                    }
                }
            }
        } catch {
            let reason = TerminalText.escaped("\(error)")
            text += "\n" + localized("(recipes could not be loaded: \(reason))") + "\n"
        }
        // Each command's line: its name, padded to a column, and what it does.
        let builtinCommands: [(name: String, summary: String)] = [
            ("today", localized("Your day: classes, exams, loans due, what is new since you last looked")),
            ("calendar", localized("Classes, exams and due dates as one calendar file: unitool calendar -o uni.ics")),
            ("auth", localized("Store, check or remove your password (keyring), TOTP secret and session")),
            ("watch", localized("Run a command again and again, and announce what changed: unitool watch grades")),
            ("history", localized("What changed in a command's answers, run by run: unitool history grades")),
            ("search", localized("Find what you have seen, typos and all: unitool search \"information theory\"")),
            ("pin", localized("Pin a command so that this overview lists it first: unitool pin grades")),
            ("terms", localized("Check, read and accept the portal's terms of use")),
            ("recipes", localized("List, check and test recipes (offline, against saved pages)")),
            ("page", localized("Print a portal page through your session, for writing recipes")),
            ("doctor", localized("Explain a failing login page by page: unitool doctor login")),
            ("rpc", localized("Serve JSON-RPC 2.0 on stdin/stdout for front ends (docs/RPC.md)")),
            ("mcp", localized("Serve the portal to an AI assistant (Model Context Protocol, docs/MCP.md)")),
            ("config", localized("Your defaults: portal, user, output format")),
            ("plugins", localized("List plugins (unitool-NAME executables)")),
            ("completions", localized("Shell completion for bash, zsh or fish")),
            ("demo", localized("Run the bundled demo university for recipe authors")),
            ("help", localized("Show help for a command: unitool help grades")),
        ]
        text += "\n" + localized("BUILT-IN COMMANDS:") + "\n"
        for command in builtinCommands {
            text += "  " + command.name.padding(toLength: 19, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        text += "\n" + localized("HELP TOPICS (unitool help TOPIC):") + "\n"
        for topic in HelpTopics.summaries {
            text += "  " + topic.name.padding(toLength: 19, withPad: " ", startingAt: 0) + topic.summary + "\n"
        }
        let plugins = Plugins.all()
        text += "\n" + localized("PLUGINS:") + "\n"
        if plugins.isEmpty {
            let directory = Plugins.directory.path
            text += "  " + localized("(none; an executable named unitool-NAME on PATH or in \(directory) becomes 'unitool NAME')") + "\n"
        } else {
            for plugin in plugins {
                text +=
                    "  " + TerminalText.escaped(plugin.name).padding(toLength: 19, withPad: " ", startingAt: 0)
                    + TerminalText.escaped(plugin.path) + "\n"
            }
        }
        // Each option's label, padded to a column, what it does and, below it, its default.
        let globalOptions: [(label: String, help: String, defaults: String?)] = [
            ("--portal <portal>", localized("The portal (a folder of recipes)."), GlobalOptions.Defaults.portal),
            ("--user <user>", localized("Who to log in as."), GlobalOptions.Defaults.user),
            ("--password-stdin", localized("Read the password from standard input"), nil),
            ("--format <format>", localized("table, json, jsonl or csv (--json for short)"), nil),
            ("--fields <a,b,c>", localized("Only these fields, in this order"), nil),
            ("--recipes <dir>", localized("Another recipe directory"), nil),
            ("-v, --verbose", localized("Log requests and login steps to stderr"), nil),
            ("-q, --quiet", localized("No status line while a command works, no notes about the output"), nil),
            ("--offline", localized("Answer from the history of earlier runs, without asking the portal"), nil),
            ("--sort <a,-b>", localized("Sort by these fields; -field for descending"), nil),
            ("--trace <file>", localized("Write the run's requests to a HAR file, secrets redacted"), nil),
            (
                "--timeout <s>", localized("Give up when the command has run this long, all requests together."),
                GlobalOptions.Defaults.timeout
            ),
            ("--insecure", localized("Do not check TLS certificates (test portals only; warns every run)"), nil),
            ("--version", localized("Print the version"), nil),
        ]
        text += "\n" + localized("GLOBAL OPTIONS:") + "\n"
        for option in globalOptions {
            text += "  " + option.label.padding(toLength: 20, withPad: " ", startingAt: 0) + option.help + "\n"
            if let defaults = option.defaults { text += String(repeating: " ", count: 22) + defaults + "\n" }
        }
        text += "\n\(next)\n"
        if toStandardError {
            FileHandle.standardError.write(Data(text.utf8))
            return UniToolError.Kind.usage.exitCode
        }
        print(text, terminator: "")
        return 0
    }
}

/// `unitool version` and `unitool --version`: one line per component, or a JSON object.
enum VersionReport {
    static func text(json: Bool) -> String {
        let components = UniToolVersion.components
        if json {
            return "{" + components.map { "\(JSONString.quoted($0.name)): \(JSONString.quoted($0.version))" }.joined(separator: ", ")
                + "}\n"
        }
        return "unitool \(UniToolVersion.current)\n"
            + components.dropFirst().map { "\($0.name) \($0.version)" }.joined(separator: "\n") + "\n"
    }
}
