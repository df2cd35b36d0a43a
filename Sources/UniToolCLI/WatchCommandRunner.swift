import Foundation
import UniToolHost
import UniToolKit

/// `unitool watch grades --term current [--every 1h | --once]`: runs a recipe command again and
/// again and announces what changed, as JSON Lines on stdout and through `--exec`, `--webhook`
/// and `--notify`. The decisions are the service's (`Watcher`, `WatchDecision`); this is the loop
/// and the delivery.
struct WatchCommandRunner {
    let arguments: [String]

    /// The watch's own options, taken out of argv before the recipe's and the global ones.
    struct Options {
        var every: Duration?
        var exec: [String] = []
        var webhooks: [URL] = []
        var webhookCommands: [String] = []
        var webhookFormat = WebhookChannel.Format.json
        var test = false
        var all = false
        var subcommand: String?
        var notify = false
        var announceExisting = false
        var dueWithin: Int?
        var dueField: String?
        /// `--due-within` as given, for `--save` to write.
        var dueText: String?
        var save = false
        var name: String?
        var now = false
        var wantsHelp = false
        var command: String?
        var rest: [String] = []

        init(parsing arguments: [String]) throws {
            var index = 0
            func value(_ name: String) throws -> String {
                guard index + 1 < arguments.count else { throw Self.usage(localized("\(name) needs a value")) }
                index += 1
                return arguments[index]
            }
            var once = false
            while index < arguments.count {
                defer { index += 1 }
                let argument = arguments[index]
                switch argument {
                case "--help", "-h": wantsHelp = true
                case "--once": once = true
                case "--every": every = try Self.interval(try value("--every"))
                case "--exec": exec.append(try value("--exec"))
                case "--webhook":
                    let text = try value("--webhook")
                    guard let url = URL(string: text) else { throw Self.usage(localized("'\(text)' is not a web address")) }
                    webhooks.append(url)
                case "--notify": notify = true
                case "--webhook-command": webhookCommands.append(try value("--webhook-command"))
                case "--all": all = true
                case "--now": now = true
                case "--save": save = true
                case "--name":
                    let text = try value("--name")
                    guard WatchFileEdit.isValidName(text) else {
                        let given = TerminalText.escaped(text)
                        throw Self.usage(localized("a watch's --name is letters, digits, '-' and '_' (up to 64), not '\(given)'"))
                    }
                    name = text
                case "--test": test = true
                case "--webhook-format":
                    let text = try value("--webhook-format")
                    guard let format = WebhookChannel.Format(rawValue: text) else {
                        let formats = WebhookChannel.Format.allCases.map(\.rawValue).joined(separator: ", ")
                        throw Self.usage(localized("'\(text)' is not a webhook format (formats: \(formats))"))
                    }
                    webhookFormat = format
                case "--announce-existing": announceExisting = true
                case "--due-within":
                    // `3d`, or `3d:due` to name the date field.
                    let text = try value("--due-within")
                    let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                    guard let days = parts.first.flatMap({ $0.hasSuffix("d") ? Int($0.dropLast()) : Int($0) }), days >= 0 else {
                        throw Self.usage(localized("--due-within takes a number of days, such as 3d (or 3d:due to name the date field)"))
                    }
                    dueWithin = days
                    dueText = text
                    dueField = parts.count == 2 ? parts[1] : nil
                default:
                    if command == nil, subcommand == nil, Self.subcommands.contains(argument),
                        !Self.followsValueOption(arguments, index)
                    {
                        subcommand = argument
                    } else if command == nil, subcommand == nil, !all, !argument.hasPrefix("-"), !Self.followsValueOption(arguments, index)
                    {
                        command = argument
                    } else {
                        rest.append(argument)
                    }
                }
            }
            if once, every != nil { throw Self.usage(localized("--once and --every cannot both be given")) }
            if now, !all {
                throw Self.usage(localized("--now goes with --all: 'unitool watch --all --now' runs every saved watch at once"))
            }
            if save, all || subcommand != nil {
                throw Self.usage(localized("--save saves one command's watch: unitool watch grades --term current --save"))
            }
            if name != nil, !save { throw Self.usage(localized("--name names the watch --save saves")) }
        }

        /// The words after `watch` that are its own commands, not a recipe's.
        static let subcommands: Set<String> = ["install", "status", "list", "remove"]

        /// Whether the word at `index` is the value of a global option before it (`--portal demo`).
        static func followsValueOption(_ arguments: [String], _ index: Int) -> Bool {
            index > 0 && GlobalOptions.valueOptions.contains(arguments[index - 1])
        }

        /// `30s`, `15m`, `1h`, `1d`: at least a minute apart, so that no portal is hammered, and at
        /// most 366 days, so that the pause between runs fits the clock.
        static func interval(_ text: String) throws -> Duration {
            let given = TerminalText.escaped(text)
            guard let seconds = InputBounds.seconds(text) else {
                throw usage(localized("'\(given)' is not an interval; use 15m, 1h or 1d (from \(WatchFile.allowedRange))"))
            }
            guard seconds >= WatchFile.minimumSeconds else {
                throw usage(
                    localized("--every must be from \(WatchFile.allowedRange): a portal is not to be asked more often than once a minute"))
            }
            guard seconds <= WatchFile.maximumSeconds else {
                throw usage(localized("--every must be from \(WatchFile.allowedRange); '\(given)' is longer than a year"))
            }
            return .seconds(seconds)
        }

        static func usage(_ message: String) -> UniToolError {
            UniToolError(.usage, message, hint: localized("see 'unitool watch --help'"))
        }
    }

    static let help = localized(
        """
        OVERVIEW: Run a command again and again, and announce what changed.

        The first run sets the baseline: it announces no change (unless --announce-existing), only what
        --due-within finds due. Each later run is compared with the answer before it, by the recipe's key
        fields and by content: a grade that comes in is one 'changed' event with the old and the new value.
        A failure (a login that no longer works, a page whose layout changed) is announced once when it
        starts, and once when it recovers. Every answer goes into the history (unitool history), so an
        interrupted watch picks up where it left off.

        Events are JSON Lines on stdout, one per line (the schema is in docs/WATCH.md), and go to every
        channel given. An event a channel did not take is kept and given to it again on the next runs
        (up to 10); with --once, the exit code is then the channel's (25 for --exec and --notify).

        USAGE: unitool watch <command> [<command's options>] [--once | --every <interval>] [<channels>]
               unitool watch <command> [<command's options>] [--every <interval>] [<channels>] --save [--name <name>]
               unitool watch --all [--now] | list | remove <name> | status | install

        OPTIONS:
          --once                  Run once and exit (the default): for cron and systemd timers.
          --every <interval>      Run every 15m, 1h or 1d (from 1m to 366d), with some jitter, until interrupted.
          --exec <command>        Run this shell command for each event, with the event as JSON on stdin
                                  and UNITOOL_EVENT, UNITOOL_EVENT_SUMMARY and UNITOOL_EVENT_KEY set.
          --webhook <url>         POST each event as JSON to this address. Redirects are not followed, and
                                  each delivery must end within --timeout seconds (default 15).
          --webhook-command <c>   POST to the address this command prints (pass, secret-tool): no token on argv.
          --webhook-format <f>    json (the event, the default), ntfy, discord, slack or telegram.
          --notify                Show each event as a desktop notification (freedesktop, over D-Bus).
          --test                  Send a test event to every channel, without asking the portal.
          --save                  Save this watch in watches.yaml (with --every, default 1h) instead of running it;
                                  'unitool watch install' then runs it unattended. --webhook is not saved (its
                                  address often holds a token): use --webhook-command.
          --name <name>           The saved watch's name (default: the command's); saving a name again replaces it.
          --all                   Run each watch of watches.yaml whose interval is up (docs/WATCH.md).
          --now                   With --all: run every saved watch at once, whether due or not.
          --announce-existing     Announce the records found on the first run, too.
          --due-within <days>     Announce a record once when its date field is this close: 3d, or 3d:due.
          -h, --help              Show help information.
        The global options (--portal, --user, --password-stdin, -v, ...) apply as for any command.

        Examples:
          unitool watch grades --term current --once --notify
          unitool watch loans --due-within 3d --every 6h --exec 'notify-send "$UNITOOL_EVENT_SUMMARY"'
          unitool watch news --webhook https://ntfy.sh/my-topic --every 1h
          unitool watch grades --term current --notify --save && unitool watch install

        Saved watches: 'unitool watch list', 'unitool watch remove <name>', 'unitool watch --all --now';
        'unitool watch install --help' for running them unattended.

        """)

    func run() async -> Int32 {
        do {
            let watch = try Options(parsing: arguments)
            if watch.wantsHelp {
                print(Self.helpText(for: watch.subcommand), terminator: "")
                return 0
            }
            switch watch.subcommand {
            case "install": return try WatchInstaller.install(arguments: watch.rest)
            case "status": return try WatchInstaller.status(globals: watch.rest)
            case "list": return try WatchInstaller.list(arguments: watch.rest)
            case "remove": return try WatchInstaller.remove(arguments: watch.rest)
            default: break
            }
            if watch.all { return await runAll(watch) }
            guard let command = watch.command else {
                throw Options.usage(localized("watch needs a command, such as 'unitool watch grades'"))
            }
            let globalsOnly = try GlobalOptions.read(GlobalOptions.arguments(in: watch.rest))
            let environment = try CommandEnvironment.open(globalsOnly)
            let portal = try environment.catalog.portal(try environment.portalID())
            let recipe = try environment.catalog.recipe(portal: portal.id, command: command)
            let invocation = try RecipeInvocation(parsing: watch.rest, recipe: recipe)
            if let action = invocation.action {
                throw Options.usage(localized("'\(command) \(action.name)' acts on the portal; a watch only reads"))
            }
            let options = try GlobalOptions.read(invocation.rest)
            var due: WatchDecision.DueRule?
            // --due-within, else the recipe's own reminder (`watch: { due: due, within: 3d }`).
            if let days = watch.dueWithin ?? recipe.watch?.within {
                // A date or a date and time: a deadline at 23:59 is due that day.
                let dateFields = recipe.primary.fields.filter { $0.type == .date || $0.type == .datetime }.map(\.name)
                // The recipe's own due date (`watch: { due: … }`) before its first date field.
                guard let field = watch.dueField ?? recipe.watch?.due ?? dateFields.first, dateFields.contains(field) else {
                    let fields = dateFields.joined(separator: ", ")
                    switch (watch.dueWithin == nil, dateFields.isEmpty) {
                    case (true, true):
                        throw Options.usage(localized("the recipe's watch: within: needs a date field of '\(command)', which has none"))
                    case (true, false):
                        throw Options.usage(
                            localized("the recipe's watch: within: needs a date field of '\(command)' (its date fields: \(fields))"))
                    case (false, true):
                        throw Options.usage(localized("--due-within needs a date field of '\(command)', which has none"))
                    case (false, false):
                        throw Options.usage(localized("--due-within needs a date field of '\(command)' (its date fields: \(fields))"))
                    }
                }
                due = WatchDecision.DueRule(field: field, days: days, fields: recipe.primary.fields)
            }
            let spec = WatchSpec(
                recipe: recipe, options: invocation.values, source: invocation.source, announceExisting: watch.announceExisting, due: due)
            if watch.save {
                return try Self.save(watch, command: command, invocation: invocation, portal: globalsOnly.portal)
            }
            var channels: [any WatchChannel] = watch.exec.map { ExecChannel(command: $0) }
            // --timeout bounds a webhook's whole delivery too, as it bounds each request to the portal.
            let deadline = globalsOnly.timeout.map { Duration.milliseconds(Int64($0 * 1000)) } ?? WebhookChannel.defaultDeadline
            channels += try watch.webhooks.map { try WebhookChannel(url: $0, format: watch.webhookFormat, deadline: deadline) }
            let user = spec.recipe.login ? ((try? environment.user(for: portal)) ?? "") : ""
            channels += watch.webhookCommands.map { command in
                CommandWebhookChannel(command: command, format: watch.webhookFormat, deadline: deadline) {
                    try PasswordCommand.run(
                        command, portal: portal.id, user: user, variable: "--webhook-command", what: localized("a web address"),
                        failureKind: .usage, timeout: .seconds(30)
                    ).reveal()
                }
            }
            if watch.notify { channels.append(DesktopNotificationChannel()) }
            if watch.test { return await Self.test(channels, spec: spec, portal: portal, user: user) }
            return try await loop(spec, every: watch.every, channels: channels, options: options, environment: environment, portal: portal)
        } catch {
            return CommandFailure.exitCode(for: error, command: "watch", arguments: arguments)
        }
    }

    /// `watch --all`: each watch of watches.yaml whose interval is up, once, in order. The exit
    /// code is the first failure's, after every watch has had its turn.
    private func runAll(_ watch: Options) async -> Int32 {
        do {
            let file = try WatchFile.load(from: Locations.current.watchFile)
            let globals = try GlobalOptions.read(GlobalOptions.arguments(in: watch.rest))
            let environment = try CommandEnvironment.open(globals)
            let history = environment.history()
            var status: Int32 = 0
            var ran = 0
            var next: (name: String, at: Date)?
            for entry in file.entries {
                let arguments = Self.arguments(for: entry) + watch.rest
                let lastRun = entry.state(in: environment, history: history).lastRun
                guard watch.now || WatchFile.isDue(lastRun: lastRun, every: entry.every) else {
                    if let lastRun {
                        let at = lastRun.addingTimeInterval(Double(entry.every.components.seconds) * 0.9)
                        if next.map({ at < $0.at }) ?? true { next = (entry.name, at) }
                    }
                    continue
                }
                ran += 1
                let code = await WatchCommandRunner(arguments: arguments).run()
                if status == 0 { status = code }
            }
            if ran == 0 {
                // One line, so that a timer's journal shows the run was not lost; not an error.
                let line =
                    next.map { next in
                        let wait = Self.shownWait(next.at.timeIntervalSinceNow)
                        return localized("no watch is due (next: '\(next.name)' in \(wait)); 'unitool watch --all --now' runs them all now")
                    } ?? localized("no watch is due; 'unitool watch --all --now' runs them all now")
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
            return status
        } catch {
            return CommandFailure.exitCode(for: error, command: "watch --all", arguments: arguments)
        }
    }

    /// The help of `watch`, or of one of its subcommands.
    static func helpText(for subcommand: String?) -> String {
        switch subcommand {
        case "install": return WatchInstaller.installHelp
        case "list": return WatchInstaller.listHelp
        case "remove": return WatchInstaller.removeHelp
        default: return help
        }
    }

    /// A wait for people: `1h 5m`, `12m`, `under a minute`.
    static func shownWait(_ seconds: TimeInterval) -> String {
        let minutes = Int((max(seconds, 0) / 60).rounded(.up))
        guard minutes > 1 else { return localized("under a minute") }
        if minutes < 60 { return "\(minutes)m" }
        let hours = minutes / 60
        if hours < 48 { return minutes % 60 == 0 ? "\(hours)h" : "\(hours)h \(minutes % 60)m" }
        return "\(hours / 24)d"
    }

    /// `--save`: the watch as given, into watches.yaml (atomically; the file's other watches and
    /// comments stay), instead of running it.
    static func save(_ watch: Options, command: String, invocation: RecipeInvocation, portal: String?) throws -> Int32 {
        if !watch.webhooks.isEmpty {
            throw UniToolError(
                .usage, localized("--webhook is not saved: its address often holds a token, and watches.yaml is a plain file"),
                hint: localized("give the address from a command instead: --webhook-command 'pass show ntfy/unitool-url'"))
        }
        if watch.test { throw Options.usage(localized("--test sends a test event now; it is not saved")) }
        if watch.exec.count > 1 || watch.webhookCommands.count > 1 {
            throw Options.usage(localized("a saved watch takes one --exec and one --webhook-command"))
        }
        var entry = WatchFile.Entry(
            name: watch.name ?? command, portal: portal, command: command, options: invocation.values, source: invocation.source,
            every: watch.every ?? .seconds(3600), exec: watch.exec.first, webhookCommand: watch.webhookCommands.first,
            notify: watch.notify, dueWithin: watch.dueText, announceExisting: watch.announceExisting)
        entry.webhookFormat = watch.webhookFormat
        guard WatchFileEdit.isValidName(entry.name) else {
            let name = TerminalText.escaped(entry.name)
            throw Options.usage(localized("'\(name)' is no name for a watch; give one with --name"))
        }
        let file = Locations.current.watchFile
        let text = try PrivateFile.read(file, allowSymlink: true).map { String(decoding: $0, as: UTF8.self) }
        let saved = try WatchFileEdit.saving(entry, in: text, file: file.path)
        try WatchInstaller.write(saved.text, to: file)
        let started = FileManager.default.fileExists(atPath: WatchInstaller.installedService.path)
        let interval = WatchFileEdit.interval(entry.every)
        let done =
            saved.replaced
            ? localized("replaced the watch '\(entry.name)' (every \(interval)) in \(file.path)")
            : localized("saved the watch '\(entry.name)' (every \(interval)) in \(file.path)")
        let next =
            started
            ? localized("the installed timer runs it; see them all with: unitool watch list")
            : localized("run it unattended with: unitool watch install; see them all with: unitool watch list")
        FileHandle.standardError.write(Data((done + "\n" + next + "\n").utf8))
        return 0
    }

    /// `--test`: a test event to every channel, without asking the portal; each channel's result
    /// on stderr, and a failure's exit code if one failed. The event names the user the watch
    /// would sign in as (`"user": null` for a public command), as its real events do, so that a
    /// receiver that routes by user can be tried with it.
    static func test(_ channels: [any WatchChannel], spec: WatchSpec, portal: PortalRecipe, user: String) async -> Int32 {
        let event = WatchEvent(
            kind: .test, portal: portal.id, user: user, command: spec.recipe.command, options: spec.question, time: Date())
        guard StandardOutput.write(event.json + "\n") else { return 0 }
        if channels.isEmpty {
            Progress.explainWait(localized("no channel is given (--exec, --webhook, --notify); the event above went to stdout only"))
        }
        var status: Int32 = 0
        for channel in channels {
            do {
                try await channel.deliver(event)
                Progress.explainWait(localized("\(channel.name): delivered"))
            } catch {
                let failure = (error as? UniToolError) ?? UniToolError(.internal, "\(error)")
                // One line: a message may quote the service, and nothing from it reaches the terminal raw.
                Progress.explainWait(TerminalText.escaped(localized("\(channel.name) did not take the test event: \(failure.message)")))
                Self.sayHint(failure)
                if status == 0 { status = failure.kind.exitCode }
            }
        }
        return status
    }

    /// The command line of one watch of watches.yaml.
    static func arguments(for entry: WatchFile.Entry) -> [String] {
        var arguments = [entry.command, "--once"]
        if let portal = entry.portal { arguments += ["--portal", portal] }
        for (name, value) in entry.options.sorted(by: { $0.key < $1.key }) { arguments += ["--\(name)", value] }
        if let source = entry.source { arguments += ["--source", source] }
        if let exec = entry.exec { arguments += ["--exec", exec] }
        if let command = entry.webhookCommand { arguments += ["--webhook-command", command] }
        if entry.webhookFormat != .json { arguments += ["--webhook-format", entry.webhookFormat.rawValue] }
        if entry.notify { arguments.append("--notify") }
        if let due = entry.dueWithin { arguments += ["--due-within", due] }
        if entry.announceExisting { arguments.append("--announce-existing") }
        return arguments
    }

    /// Runs the watch once, or every interval until interrupted, on one connection: it keeps the
    /// session in memory between runs (and saves it after each), so a long-running watch neither
    /// logs in again nor makes a new HTTP client each time.
    private func loop(
        _ spec: WatchSpec, every: Duration?, channels: [any WatchChannel], options: GlobalOptions, environment: CommandEnvironment,
        portal: PortalRecipe
    ) async throws -> Int32 {
        let json = Dispatcher.wantsJSON(arguments)
        return try await environment.withPortal(portal, running: spec.recipe) { connection in
            var failures = 0
            let delivery = WatchDelivery(channels: channels)
            while true {
                // Watcher.run settles the session itself, after the recipe's run.
                // Dates in the summaries as in the person's tables: LC_ALL, LC_TIME, LANG.
                // --timeout bounds each run's requests together, as it bounds a command's.
                let deadline = options.timeout.map { CommandDeadline(seconds: $0) }
                let outcome = try await HTTPSession.$commandDeadline.withValue(deadline) {
                    try await Watcher.run(spec, on: connection, locale: DisplayLocale.current.locale)
                }
                // The status line belongs to the run, not to the wait that follows it.
                StatusLine.shared.end()
                for event in outcome.events {
                    // A reader that went away (`| head`) ends the watch, quietly.
                    guard StandardOutput.write(event.json + "\n") else { return 0 }
                }
                let report = try await Self.deliver(outcome.events, with: delivery, spec: spec, connection: connection)
                if !json {
                    Progress.say(
                        TerminalText.escaped(WatchDelivery.summary(command: spec.recipe.command, events: outcome.events, report: report)))
                }
                if let failure = outcome.failure, outcome.events.contains(where: { $0.kind == .failing || $0.kind == .loginNeeded }) {
                    // Said on stderr once, with the event; later runs that still fail stay quiet.
                    _ = ErrorReporter.report(failure, json: json)
                }
                guard let every else {
                    // One run: a failure is the exit code, whether or not it was announced now;
                    // then a channel's (the event is kept for the next run all the same).
                    return outcome.failure?.kind.exitCode ?? report.failures.first?.error.kind.exitCode ?? 0
                }
                failures = outcome.failure == nil ? 0 : failures + 1
                try await Task.sleep(for: Self.pause(every: every, failures: failures))
            }
        }
    }

    /// Sends a run's events, and those kept from earlier runs, to the channels; keeps what
    /// failed for the next run and says on stderr what failed and what was given up.
    static func deliver(_ events: [WatchEvent], with delivery: WatchDelivery, spec: WatchSpec, connection: PortalConnection)
        async throws -> WatchDelivery.Report
    {
        guard !delivery.channels.isEmpty else { return WatchDelivery.Report() }
        let report = try await delivery.deliver(
            events, watch: spec.memoryKey(portal: connection.portal.id, user: connection.user), history: connection.history)
        for failure in report.failures {
            let kind = failure.event.kind.rawValue
            let message = failure.error.message
            let (attempts, most) = (failure.attempts, WatchDelivery.maximumAttempts)
            let line =
                attempts > 1
                ? localized("\(failure.channel) did not take the '\(kind)' event (try \(attempts) of \(most)): \(message)")
                : localized("\(failure.channel) did not take the '\(kind)' event: \(message)")
            // One line: a message may quote the service, and nothing from it reaches the terminal raw.
            Progress.explainWait(TerminalText.escaped(line))
        }
        // What to do about it, once per channel (a missing notification daemon fails every event).
        var hinted: Set<String> = []
        for failure in report.failures where hinted.insert(failure.channel).inserted { sayHint(failure.error) }
        for given in report.givenUp {
            let kind = given.event.kind.rawValue
            Progress.explainWait(
                TerminalText.escaped(localized("gave up on the '\(kind)' event after \(given.attempts) runs: \(given.event.summary)"))
                    + "; " + localized("it is in 'unitool history \(spec.recipe.command)'"))
        }
        return report
    }

    /// A channel failure's hint, under its line, as an error's hint is shown: what to do (start
    /// a notification daemon, check the webhook's address).
    static func sayHint(_ error: UniToolError) {
        guard let hint = error.hint else { return }
        StatusLine.shared.printAbove("  " + localized("hint:") + " " + TerminalText.escaped(hint))
    }

    /// The time to the next run: the interval with up to a tenth of jitter, so that many watches
    /// do not ask at the same second; after failures, longer (doubling, at most 8 times the
    /// interval), so that a broken portal is not hammered.
    static func pause(every: Duration, failures: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let backoff = Double(1 << min(failures, 3))
        let seconds = Double(every.components.seconds) * backoff * (1 + 0.1 * random)
        return .milliseconds(Int64(seconds * 1000))
    }
}
