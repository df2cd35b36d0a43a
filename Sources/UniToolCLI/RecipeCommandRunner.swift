import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// Runs a recipe's command: `unitool grades --term current`.
///
/// The options come from the recipe, so they are parsed here rather than by a static
/// swift-argument-parser type; the global options are still parsed by `GlobalOptions`.
struct RecipeCommandRunner {
    let name: String
    let arguments: [String]

    func run() async -> Int32 {
        do {
            // The recipe decides which options exist, so the portal must be known first.
            let globalArguments = GlobalOptions.arguments(in: RecipeInvocation.removingCalendarFormat(arguments))
            let globalsOnly = try GlobalOptions.read(globalArguments)
            // Only the recipes that may define this command are read; the others only when an
            // answer needs them all (an unknown command's neighbours, which commands have a calendar).
            let environment = try CommandEnvironment.open(globalsOnly, command: name)
            let portalID = try environment.portalID()
            func everyRecipe() throws -> RecipeCatalog { try CommandEnvironment.catalog(options: globalsOnly) }
            let recipe: DataRecipe
            do {
                recipe = try environment.catalog.recipe(portal: portalID, command: name)
            } catch let error as UniToolError where error.kind == .recipeNotFound {
                let known = (try? everyRecipe().dataRecipes[portalID]?.keys.sorted()) ?? []
                let builtIn = Set(Dispatcher.builtins.keys).union(Dispatcher.dispatchedCommands).sorted()
                let meant = typoSuggestion(for: name, among: known + builtIn)
                // Both lists, each named for what it is: a typo of 'watch' is not one of the portal's.
                let didYouMean = meant.map { localized("did you mean '\($0)'?") + " " } ?? ""
                let builtInList = builtIn.joined(separator: ", ")
                let knownList = known.joined(separator: ", ")
                let lists =
                    known.isEmpty
                    ? localized("built-in commands: \(builtInList); 'unitool --help' says what each does")
                    : localized(
                        "built-in commands: \(builtInList); '\(portalID)''s commands: \(knownList); 'unitool --help' says what each does")
                throw UniToolError(
                    .usage, localized("unknown command '\(name)': neither built in nor one of portal '\(portalID)''s"),
                    hint: didYouMean + lists)
            }
            let invocation = try RecipeInvocation(parsing: arguments, recipe: recipe)
            if invocation.wantsHelp {
                print(RecipeHelp.text(for: recipe, action: invocation.action), terminator: "")
                return 0
            }
            if invocation.calendar, recipe.calendar == nil {
                let capable = (try everyRecipe().dataRecipes[portalID] ?? [:]).values.filter { $0.calendar != nil }.map(\.command).sorted()
                let capableList = capable.joined(separator: ", ")
                throw UniToolError(
                    .usage, localized("'\(name)' has no calendar, so it cannot be written as ics"),
                    hint: capable.isEmpty
                        ? localized("no command of '\(portalID)' has a calendar: section in its recipe")
                        : localized("these commands have one: \(capableList); 'unitool calendar' writes them all"))
            }
            // The same arguments parse to the same options: parsed once (swift-argument-parser's
            // parse was a tenth of a warm command's CPU).
            let options = invocation.rest == globalArguments ? globalsOnly : try GlobalOptions.read(invocation.rest)
            return try await execute(recipe, invocation: invocation, options: options, environment: environment)
        } catch {
            return CommandFailure.exitCode(for: error, command: name, arguments: arguments)
        }
    }

    private func execute(
        _ recipe: DataRecipe, invocation: RecipeInvocation, options: GlobalOptions, environment: CommandEnvironment
    ) async throws -> Int32 {
        let portal = try environment.catalog.portal(try environment.portalID())
        // The request, checked by the one check every front end runs; a calendar is every
        // record, whatever --fields or --sort say.
        let request = try invocation.request(
            for: recipe, fields: invocation.calendar ? nil : options.fields, sort: invocation.calendar ? nil : options.sort)
        if options.offline {
            if let action = invocation.action {
                throw UniToolError(
                    .usage, localized("'\(recipe.command) \(action.name)' acts on the portal, so it cannot run --offline"),
                    hint: localized("run it without --offline when the portal is reachable"))
            }
            // The last answer to the same question, from the history: no connection, no password.
            let user = recipe.login ? try environment.user(for: portal) : ""
            let service = PortalService(portal: portal, user: user, history: environment.history()) {
                throw UniToolError(.internal, localized("an offline answer asked for the portal"))
            }
            let outcome = try await service.execute(request, of: recipe, offline: true, interaction: environment.interaction)
            environment.rememberRun(invocation.words(for: recipe), portal: portal.id)
            if let asOf = outcome.asOf {
                let age = HistoryStore.age(of: asOf)
                let timestamp = HistoryStore.timestamp(asOf)
                Progress.note(localized("offline: '\(recipe.command)' as of \(age) (\(timestamp)), from the history"), quiet: options.quiet)
            }
            return try write(outcome.records, of: recipe, invocation: invocation, options: options, portal: portal, user: user)
        }
        // A public command (login: false) needs no user and never logs in (`withService(running:)`).
        let user = recipe.login ? try environment.user(for: portal) : ""
        // The address of a demo this command started for itself: it stops with the command.
        var transientDemo: String?
        let records = try await environment.withService(portal, running: recipe) { service -> RecordSet? in
            if service.portal.isTransientDemo { transientDemo = service.portal.baseURL.origin }
            // Both pass the terms gate first, and name a mistyped option value.
            let records: RecordSet
            if let action = invocation.action, action.preview != nil, invocation.dryRun || !invocation.confirmed {
                // What it will change, listed on stdout in the chosen format before anything is
                // sent; the question and why nothing was sent go to stderr.
                let preview = try await service.preview(
                    action, of: recipe, argument: invocation.actionArgument ?? "", parameters: invocation.actionParameters,
                    interaction: environment.interaction)
                _ = try write(
                    preview, of: recipe.withoutDefaultSort, invocation: invocation, options: options, portal: portal,
                    user: user)
                let words = "\(recipe.command) \(action.name)"
                let rows = Self.count(preview.records.count)
                if invocation.dryRun {
                    Progress.note(localized("'\(words)' --dry-run: \(rows) listed; nothing was sent"), quiet: options.quiet)
                    return nil
                }
                if preview.records.isEmpty {
                    Progress.note(localized("'\(words)': nothing it would change; nothing was sent"), quiet: options.quiet)
                    return nil
                }
                let personPresent = isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1
                let summary = TerminalText.escaped(action.summary)
                guard personPresent,
                    let answer = TerminalPrompt.ask(localized("\(summary): send for the \(rows) above? [y/N]") + " "),
                    ["y", "yes"].contains(answer.lowercased())
                else {
                    throw UniToolError(
                        .declined,
                        localized("'\(words)' was not confirmed; nothing was sent (the \(rows) it would change are listed above)"),
                        hint: personPresent
                            ? localized("answer yes to send it")
                            : localized("run it again with --yes to send it, or --dry-run to only list"))
                }
                Progress.say(TerminalText.escaped(action.summary) + "…")
                return try RecordShape(
                    summary: false, sort: options.sort.map(SortKey.parse), fields: options.fields.map(RecipeInvocation.fieldList)
                ).apply(
                    to: try await service.perform(
                        action, of: recipe, argument: invocation.actionArgument ?? "", parameters: invocation.actionParameters,
                        confirmed: true, listed: preview, interaction: environment.interaction),
                    of: recipe.withoutDefaultSort)
            }
            if let action = invocation.action {
                Progress.say(
                    TerminalText.escaped("\(action.summary)\(invocation.actionArgument.map { ": \($0)" } ?? "")") + "…")
                // An action's answer is shaped by --fields and --sort alone, in the page's order.
                records = try RecordShape(
                    summary: false, sort: options.sort.map(SortKey.parse), fields: options.fields.map(RecipeInvocation.fieldList)
                ).apply(
                    to: try await service.perform(
                        action, of: recipe, argument: invocation.actionArgument ?? "", parameters: invocation.actionParameters,
                        confirmed: invocation.confirmed, interaction: environment.interaction),
                    of: recipe.withoutDefaultSort)
            } else {
                records = try await service.execute(request, of: recipe, interaction: environment.interaction).records
            }
            return records
        }
        // A dry run or an empty preview wrote its list already and sent nothing.
        guard let records else { return 0 }
        if invocation.action == nil { environment.rememberRun(invocation.words(for: recipe), portal: portal.id) }
        let status = try write(records, of: recipe, invocation: invocation, options: options, portal: portal, user: user)
        if let transientDemo, Self.hasLink(records, on: transientDemo) {
            Progress.note(
                localized(
                    "the demo's links above stopped working with this command; 'unitool demo serve' in another terminal keeps a demo running, and commands then print links that last"
                ),
                quiet: options.quiet)
        }
        return status
    }

    /// Whether a record holds an address on `origin`, at the top or in a nested list.
    static func hasLink(_ records: RecordSet, on origin: String) -> Bool {
        func holds(_ value: FieldValue) -> Bool {
            switch value {
            case .url(let address): return address.hasPrefix(origin + "/") || address == origin
            case .list(let nested): return nested.contains { $0.fields.contains { holds($0.value) } }
            default: return false
            }
        }
        return records.records.contains { $0.fields.contains { holds($0.value) } }
    }

    /// "1 row", "3 rows": how many a preview lists.
    static func count(_ rows: Int) -> String { localized("\(rows) row", plural: "\(rows) rows", count: rows) }

    /// Prints the records, shaped already: a table fitted to the terminal, or JSON, CSV, ics.
    private func write(
        _ records: RecordSet, of recipe: DataRecipe, invocation: RecipeInvocation, options: GlobalOptions, portal: PortalRecipe,
        user: String
    ) throws -> Int32 {
        if invocation.calendar, invocation.action == nil {
            let day = DayService(portal: portal, user: user, recipes: [recipe], history: nil, now: Date())
            StandardOutput.write(try day.calendar(of: recipe, records: records))
            return 0
        }
        let format = options.outputFormat
        // The style knows whether stdout is a terminal: CSV for one is written escaped.
        var style = TableStyle.forStandardOutput()
        guard format == .table else {
            StandardOutput.write(format.render(records, style: style))
            return 0
        }
        // One zone rule: a portal's times in the portal's zone, as 'today' shows them, said once
        // when it is not the user's.
        style.timeZone = portal.timeZone
        if let zone = portal.timeZone, zone.secondsFromGMT() != TimeZone.current.secondsFromGMT(),
            records.records.contains(where: { $0.fields.contains { if case .datetime = $0.value { true } else { false } } })
        {
            Progress.note(
                localized("times are in \(zone.identifier), the portal's time zone (yours is \(TimeZone.current.identifier))"),
                quiet: options.quiet)
        }
        var shown = records
        if options.fields == nil, !invocation.summary, recipe.tableColumns.count < recipe.columns.count {
            shown = try records.selecting(recipe.tableColumns)
        }
        let table = TableRenderer(style: style, display: recipe.columnDisplay).layout(shown)
        StandardOutput.write(table.text)
        if !table.droppedColumns.isEmpty, let width = style.maxWidth {
            let dropped = table.droppedColumns.count
            let names = table.droppedColumns.joined(separator: ", ")
            Progress.note(
                localized(
                    "\(dropped) column left out to fit \(width) columns: \(names); choose with --fields, or widen the terminal",
                    plural: "\(dropped) columns left out to fit \(width) columns: \(names); choose with --fields, or widen the terminal",
                    count: dropped), quiet: options.quiet)
        }
        return 0
    }
}

/// A recipe command's own arguments, taken out of argv: its options, `--source`, `--summary`,
/// or an action with its argument (`loans renew B-1234`). What is left is the global options.
struct RecipeInvocation {
    /// `--fields a, b,c` as names.
    static func fieldList(_ text: String) -> [String] { text.split(separator: ",").map { $0.trimmingWhitespace() } }

    /// The command's request as parsed (checked once, by the one check every front end runs:
    /// `RecipeRequest`), with the global options' --fields and --sort checked against its answer.
    func request(for recipe: DataRecipe, fields: String?, sort: String?) throws -> RecipeRequest {
        do {
            let parsed = try checked ?? RecipeRequest(recipe: recipe, options: [], naming: .commandLine)
            return try parsed.shaped(
                fields: fields.map(Self.fieldList), sort: sort.map(SortKey.parse), of: recipe, naming: .commandLine)
        } catch let problem as ArgumentProblem {
            throw UniToolError(.usage, problem.message, hint: localized("see 'unitool \(recipe.command) --help'"))
        }
    }

    /// The request the command's own options make, checked as they were parsed; nil for help
    /// and for an action, which takes none.
    var checked: RecipeRequest?

    var values: [String: String] = [:]
    var source: String?
    var summary = false
    var action: ActionSpec?
    var actionArgument: String?
    /// An action's named values (`--title`, `--isbn`).
    var actionParameters: [String: String] = [:]
    /// `--yes`: an action that asks first (`ask: true`) is confirmed on the command line.
    var confirmed = false
    /// `--dry-run`: an action with a preview lists what it would change and sends nothing.
    var dryRun = false
    var wantsHelp = false
    /// `--format ics`: the records as calendar events, from the recipe's `calendar:` section.
    var calendar = false
    var rest: [String] = []

    /// The arguments without `--format ics`, which only a recipe command with a calendar takes.
    static func removingCalendarFormat(_ arguments: [String]) -> [String] {
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            if arguments[index].lowercased() == "--format=ics" {
                index += 1
            } else if arguments[index] == "--format", index + 1 < arguments.count, arguments[index + 1].lowercased() == "ics" {
                index += 2
            } else {
                kept.append(arguments[index])
                index += 1
            }
        }
        return kept
    }

    init(parsing arguments: [String], recipe: DataRecipe) throws {
        var names = Set(recipe.options.map(\.name))
        if recipe.sources.count > 1 { names.insert("source") }
        var index = 0
        func usage(_ message: String) -> UniToolError {
            let actionWord = action.map { "\($0.name) " } ?? ""
            return UniToolError(.usage, message, hint: localized("see 'unitool \(recipe.command) \(actionWord)--help'"))
        }
        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            if argument.hasPrefix("-") && !argument.hasPrefix("--") {
                rest.append(argument)  // short flags such as -v belong to the global options
                continue
            }
            guard argument.hasPrefix("--") else {
                if action == nil, actionArgument == nil, values.isEmpty,
                    let found = recipe.actions.first(where: { $0.name == argument })
                {
                    action = found
                } else if let action, action.takesArgument, actionArgument == nil {
                    actionArgument = argument
                } else if action == nil, let positional = recipe.options.first(where: \.positional), values[positional.name] == nil {
                    values[positional.name] = argument
                } else if let action, !action.takesArgument {
                    throw usage(localized("'\(recipe.command) \(action.name)' takes no argument, and '\(argument)' was given"))
                } else if action == nil, !recipe.actions.isEmpty {
                    let actions = recipe.actions.map(\.name).joined(separator: ", ")
                    throw usage(localized("'\(argument)' is not an action of '\(recipe.command)' (actions: \(actions))"))
                } else {
                    throw usage(localized("unexpected argument '\(argument)'"))
                }
                continue
            }
            let body = argument.dropFirst(2)
            let parts = body.split(separator: "=", maxSplits: 1).map(String.init)
            if argument.lowercased() == "--format=ics"
                || (argument == "--format" && index + 1 < arguments.count && arguments[index + 1].lowercased() == "ics")
            {
                calendar = true
                if parts.count == 1 { index += 1 }
            } else if parts.first == "summary", recipe.totals != nil {
                summary = true
            } else if parts.first == "yes", action?.asks == true {
                guard parts.count == 1 else { throw usage(localized("--yes takes no value: it says yes")) }
                confirmed = true
            } else if parts.first == "dry-run", action?.preview != nil {
                guard parts.count == 1 else { throw usage(localized("--dry-run takes no value")) }
                dryRun = true
            } else if let action, let name = parts.first, action.parameters.contains(where: { $0.name == name }) {
                if parts.count == 2 {
                    actionParameters[name] = parts[1]
                } else {
                    guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
                        throw usage(localized("--\(name) needs a value"))
                    }
                    actionParameters[name] = arguments[index + 1]
                    index += 1
                }
            } else if let name = parts.first, names.contains(name) {
                let value: String
                if parts.count == 2 {
                    value = parts[1]
                } else {
                    guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
                        throw usage(localized("--\(name) needs a value"))
                    }
                    value = arguments[index + 1]
                    index += 1
                }
                if values[name] != nil || (name == "source" && source != nil) {
                    throw usage(localized("--\(name) is given twice"))
                }
                if name == "source" {
                    guard recipe.source(named: value) != nil else {
                        let sources = recipe.sources.compactMap(\.name).joined(separator: ", ")
                        throw usage(localized("'\(value)' is not a source of '\(recipe.command)' (sources: \(sources))"))
                    }
                    source = value
                } else {
                    values[name] = value
                }
            } else {
                let flagName = "--" + (parts.first ?? "")
                // Neither the recipe's nor a global option: a typo, named with what was meant
                // among both (`--trem` is --term), before its value is taken for an argument.
                guard Dispatcher.globalOptionNames.contains(flagName) else {
                    var known = names.sorted().map { "--" + $0 }
                    if recipe.totals != nil { known.append("--summary") }
                    known +=
                        (action?.parameters ?? []).map { "--" + $0.name } + (action?.asks == true ? ["--yes"] : [])
                        + (action?.preview != nil ? ["--dry-run"] : [])
                    let nearest = typoSuggestion(for: flagName, among: known + Dispatcher.globalOptionNames)
                    let actionWord = action.map { "\($0.name) " } ?? ""
                    throw UniToolError(
                        .usage, localized("unknown option '\(flagName)' for '\(recipe.command)'"),
                        hint: (nearest.map { localized("did you mean '\($0)'?") + " " } ?? "")
                            + localized("see 'unitool \(recipe.command) \(actionWord)--help'"))
                }
                rest.append(argument)
                if GlobalOptions.valueOptions.contains(flagName), parts.count == 1, index + 1 < arguments.count {
                    rest.append(arguments[index + 1])
                    index += 1
                }
            }
        }
        if let action, action.takesArgument, actionArgument == nil, !wantsHelp {
            let (command, name, argument) = (recipe.command, action.name, action.argument)
            throw usage(localized("'\(command) \(name)' needs the \(argument): unitool \(command) \(name) <\(argument)>"))
        }
        if action != nil, !values.isEmpty || source != nil || summary {
            throw usage(localized("the options of '\(recipe.command)' do not apply to '\(recipe.command) \(action!.name)'"))
        }
        if let action, !wantsHelp {
            let missing = action.missingParameters(actionParameters).map { "--\($0)" }
            if !missing.isEmpty {
                let needed = missing.joined(separator: " and ")
                throw usage(localized("'\(recipe.command) \(action.name)' needs \(needed)"))
            }
        }
        // The one check of a request every front end runs (RecipeRequest): each option one the
        // recipe has, a value from its list, a filter's value readable, the required ones given;
        // named now, before any request.
        if !wantsHelp, action == nil {
            var shape: [(String, ArgumentValue)] = []
            if let source { shape.append(("source", .string(source))) }
            if summary { shape.append(("summary", .bool(true))) }
            do {
                checked = try RecipeRequest(
                    recipe: recipe, options: values.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }, shape: shape,
                    naming: .commandLine)
            } catch {
                throw usage(error.message)
            }
        }
    }
}

/// The `--help` of a recipe command, written from the recipe.
///
/// A recipe may come from any pack (`--recipes DIR`), so every piece of its text (summary,
/// description, option help, values, names, its file's path) is shown escaped
/// (``TerminalText``): a pack must not be able to drive the terminal of whoever reads its help.
enum RecipeHelp {
    /// One line of the recipe's text, as a terminal may show it.
    static func shown(_ text: String) -> String { TerminalText.escaped(text) }

    static func text(for recipe: DataRecipe, action: ActionSpec? = nil) -> String {
        if let action { return actionText(for: recipe, action: action) }
        var text = localized("OVERVIEW:") + " \(shown(recipe.summary))\n\n"
        if let discussion = recipe.discussion {
            text += TerminalText.escaped(discussion.trimmingWhitespaceAndNewlines(), keepingLineBreaks: true) + "\n\n"
        }
        var usage = recipe.options.map {
            $0.positional ? "[<\(shown($0.name))>]" : "[--\(shown($0.name)) <\(shown($0.name))>]"
        }
        if recipe.sources.count > 1 { usage.append("[--source <source>]") }
        if recipe.totals != nil { usage.append("[--summary]") }
        text +=
            localized("USAGE:") + " "
            + (["unitool [--portal \(recipe.portal)] \(recipe.command)"] + usage + ["[--format <format>]"]).joined(separator: " ") + "\n"
        for action in recipe.actions {
            text +=
                "       unitool [--portal \(recipe.portal)] \(recipe.command) \(shown(action.name))\(action.takesArgument ? " <\(shown(action.argument))>" : "")\n"
        }
        text += "\n" + localized("OPTIONS:") + "\n"
        for option in recipe.options {
            var help = option.help ?? ""
            let choices = option.allowedValues + option.resolve.keys.sorted()
            if !option.allowedValues.isEmpty {
                let values = choices.joined(separator: ", ")
                help += " " + localized("(values: \(values))")
            }
            if let defaultValue = option.defaultValue { help += " " + localized("(default: \(defaultValue))") }
            if let source = option.source { help += " " + localized("(reads the \(source) source)") }
            if option.positional { help += " " + localized("(may be given without --\(option.name))") }
            text += line("--\(shown(option.name)) <\(shown(option.name))>", shown(help))
        }
        if recipe.sources.count > 1 {
            let names = recipe.sources.compactMap(\.name)
            let list = names.joined(separator: ", ")
            text += line("--source <source>", shown(localized("Where to read from: \(list) (default: \(names[0]))")))
        }
        if let totals = recipe.totals {
            let fields = totals.fields.map(\.name).joined(separator: ", ")
            let groups = totals.groupBy.joined(separator: ", ")
            let help =
                totals.groupBy.isEmpty
                ? localized("Print totals instead of the records: \(fields)")
                : localized("Print totals per \(groups) instead of the records: \(fields)")
            text += line("--summary", shown(help))
        }
        text += line(
            "--format <format>",
            recipe.calendar == nil
                ? localized("table, json, jsonl or csv (default: table)")
                : localized("table, json, jsonl or csv, or ics (a calendar file) (default: table)"))
        text += line("--json", localized("Shorthand for --format json"))
        text += line("--fields <a,b,c>", localized("Only these fields, in this order"))
        let sortDefault = shown(recipe.sort.map { ($0.descending ? "-" : "") + $0.field }.joined(separator: ","))
        text += line(
            "--sort <a,-b>",
            recipe.sort.isEmpty
                ? localized("Sort by these fields (-field: descending)")
                : localized("Sort by these fields (-field: descending); default: \(sortDefault)"))
        text += "  " + localized("--portal, --user, --password-stdin, --recipes, --verbose: see 'unitool --help'") + "\n"
        if !recipe.actions.isEmpty {
            text += "\n" + localized("ACTIONS:") + "\n"
            for action in recipe.actions {
                text += line(shown("\(action.name)\(action.takesArgument ? " <\(action.argument)>" : "")"), shown(action.summary))
            }
        }
        text += "\n" + localized("OUTPUT FIELDS:") + " \(shown(recipe.columns.joined(separator: ", ")))\n"
        text += localized("RECIPE:") + " \(shown(recipe.file))\n"
        return text
    }

    /// One option of a help text: the flag, then its help from the 27th column (on a line of its
    /// own when the flag is longer).
    static func line(_ flag: String, _ help: String) -> String {
        let padded = "  \(flag)"
        return
            (padded.count < 26
            ? padded.padding(toLength: 26, withPad: " ", startingAt: 0) : padded + "\n" + String(repeating: " ", count: 26)) + help
            + "\n"
    }

    static func actionText(for recipe: DataRecipe, action: ActionSpec) -> String {
        let parameters = action.parameters.map { $0.required ? "--\(shown($0.name)) <\($0.name)>" : "[--\(shown($0.name)) <\($0.name)>]" }
        var parameterLines = action.parameters.map { parameter in
            line("--\(shown(parameter.name))", shown((parameter.help ?? "") + (parameter.required ? " " + localized("(required)") : "")))
        }.joined()
        if action.asks { parameterLines += line("--yes", localized("Send without asking (for scripts)")) }
        if action.preview != nil { parameterLines += line("--dry-run", localized("List what it would change; send nothing")) }
        var asks = ""
        if action.preview != nil {
            let text = localized(
                """
                Before anything is sent, unitool lists what it will change and asks; without a terminal it
                lists it and sends only with --yes (exit code 26 otherwise).
                """)
            asks = "\n" + text + "\n"
        } else if action.ask {
            let text = localized(
                """
                Before anything is sent, unitool shows what it will submit and asks; without a terminal it
                sends only with --yes (exit code 26 otherwise).
                """)
            asks = "\n" + text + "\n"
        }
        let overview = localized("OVERVIEW:")
        let usage = localized("USAGE:")
        let submits = localized(
            """
            Submits the portal's form, as you would in a browser, and reports the result. If the portal
            refuses (for example, no renewals left), unitool says why and exits with code 24.
            """)
        let options = parameterLines.isEmpty ? "" : "\n" + localized("OPTIONS:") + "\n" + parameterLines
        let outputFields = localized("OUTPUT FIELDS:")
        let nothing = action.nothingWhen == nil ? "" : "; " + localized("or result and message when there is nothing to do")
        let recipeLabel = localized("RECIPE:")
        return """
            \(overview) \(shown(action.summary))

            \(usage) unitool [--portal \(recipe.portal)] \(recipe.command) \(shown(action.name))\(action.takesArgument ? " <\(shown(action.argument))>" : "")\(parameters.isEmpty ? "" : " " + parameters.joined(separator: " "))\(action.asks ? " [--yes]" : "")\(action.preview != nil ? " [--dry-run]" : "") [--format <format>]

            \(submits)
            \(asks)\(options)

            \(outputFields) \(shown(((action.takesArgument ? [action.argument] : []) + action.fields.map(\.name).filter { $0 != action.argument }).joined(separator: ", ")))\(nothing)
            \(recipeLabel) \(shown(recipe.file))

            """
    }
}

extension GlobalOptions {
    /// swift-argument-parser's message for a parse error, without its usage block.
    static func message(for error: any Error) -> String {
        let full = fullMessage(for: error)
        return full.split(separator: "\n").first.map { String($0).replacingOccurrences(of: "Error: ", with: "") } ?? full
    }
}
