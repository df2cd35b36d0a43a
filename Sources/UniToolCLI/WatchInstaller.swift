import Foundation
import UniToolHost
import UniToolKit

/// `unitool watch install` and `unitool watch status`: running the watches of watches.yaml
/// unattended, with a systemd user timer (or the crontab line it prints), and seeing how they do.
enum WatchInstaller {
    /// How often the timer runs `watch --all`; each watch still runs only when its own interval is up.
    static let period = "5min"

    /// Where `watch install` writes its units by default.
    static var defaultDirectory: URL { Locations.current.config.deletingLastPathComponent().appendingPathComponent("systemd/user") }

    /// The service unit where `watch install` puts it by default: whether the timer is likely there.
    static var installedService: URL { defaultDirectory.appendingPathComponent("unitool-watch.service") }

    static let installHelp = localized(
        """
        OVERVIEW: Run the saved watches unattended: a systemd user timer (or a crontab line).

        Writes unitool-watch.service and unitool-watch.timer, which run 'unitool watch --all' every \(period);
        each saved watch then runs when its own interval is up. With no watch saved there is nothing to run,
        so install refuses (exit 52, nothing_to_watch): save one first with 'unitool watch <command> --save'.
        Prints the equivalent crontab line, for a machine without systemd.

        USAGE: unitool watch install [--directory <dir>] [--print]

        OPTIONS:
          --directory <dir>       Write the units here (default: $XDG_CONFIG_HOME/systemd/user).
          --print                 Print the units on stdout instead of writing them (and say if no watch is saved).
          -h, --help              Show help information.

        Examples:
          unitool watch grades --term current --notify --save
          unitool watch install
          systemctl --user daemon-reload && systemctl --user enable --now unitool-watch.timer

        """)

    static let listHelp = localized(
        """
        OVERVIEW: List the saved watches of watches.yaml: name, command, options, interval and channels.

        USAGE: unitool watch list [--json | --format <format>]

        'unitool watch status' shows each one's last and next run. Add one with
        'unitool watch <command> [<options>] --save', remove one with 'unitool watch remove <name>'.

        OPTIONS:
          -h, --help              Show help information.

        Examples:
          unitool watch list
          unitool watch list --json

        """)

    static let removeHelp = localized(
        """
        OVERVIEW: Remove a saved watch from watches.yaml; the file's other watches and comments stay.

        USAGE: unitool watch remove <name>

        The name is the one 'unitool watch list' shows (by default, the command's). Removing the last
        watch removes the file; the installed timer then has nothing to run until one is saved again.

        OPTIONS:
          -h, --help              Show help information.

        Examples:
          unitool watch remove loans

        """)

    /// The words of a watch subcommand that are its own: the global options left out, each with its value.
    static func ownArguments(_ arguments: [String]) -> [String] {
        var own: [String] = []
        _ = GlobalOptions.scan(arguments) { argument, _ in
            if !GlobalOptions.flagOptions.contains(argument) { own.append(argument) }
            return .skip
        }
        return own
    }

    /// Writes watches.yaml atomically (to the file a symbolic link points at, so that a link into
    /// a dotfiles folder stays a link).
    static func write(_ text: String, to file: URL) throws {
        try AtomicFile.write(Data(text.utf8), to: file.resolvingSymlinksInPath(), mode: 0o600)
    }

    /// `watch list`: the saved watches, as watches.yaml has them.
    static func list(arguments: [String]) throws -> Int32 {
        if let extra = ownArguments(arguments).first {
            let word = TerminalText.escaped(extra)
            throw WatchCommandRunner.Options.usage(localized("'watch list' takes no '\(word)'"))
        }
        let options = try GlobalOptions.read(GlobalOptions.arguments(in: arguments))
        guard FileManager.default.fileExists(atPath: Locations.current.watchFile.path) else {
            if options.outputFormat == .json { print("[]") }
            let text = localized("no watch is saved yet; save one with: unitool watch grades --term current --save")
            FileHandle.standardError.write(Data((text + "\n").utf8))
            return 0
        }
        let records = try WatchFile.load(from: Locations.current.watchFile).entries.map { entry in
            var channels: [String] = []
            if entry.notify { channels.append("notify") }
            if entry.exec != nil { channels.append("exec") }
            if entry.webhookCommand != nil { channels.append("webhook_command") }
            let options = entry.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return Record(fields: [
                ("watch", .string(entry.name)), ("command", .string(entry.command)),
                ("portal", entry.portal.map(FieldValue.string) ?? .null), ("options", .string(options)),
                ("every", .string(WatchFileEdit.interval(entry.every))), ("due_within", entry.dueWithin.map(FieldValue.string) ?? .null),
                ("channels", .string(channels.joined(separator: ", "))),
            ])
        }
        let set = RecordSet(columns: ["watch", "command", "portal", "options", "every", "due_within", "channels"], records: records)
        print(options.outputFormat.render(set, style: options.outputFormat == .table ? .forStandardOutput() : .plain), terminator: "")
        return 0
    }

    /// `watch remove NAME`: that watch out of watches.yaml; the last one takes the file with it.
    static func remove(arguments: [String]) throws -> Int32 {
        let own = ownArguments(arguments)
        guard own.count == 1, let name = own.first, !name.hasPrefix("-") else {
            throw WatchCommandRunner.Options.usage(
                localized("'watch remove' takes the name of one saved watch ('unitool watch list' shows them)"))
        }
        let file = Locations.current.watchFile
        guard let data = try PrivateFile.read(file, allowSymlink: true) else { throw WatchFile.nothingSaved(file) }
        if let text = try WatchFileEdit.removing(name, from: String(decoding: data, as: UTF8.self), file: file.path) {
            try write(text, to: file)
            FileHandle.standardError.write(Data((localized("removed the watch '\(name)' from \(file.path)") + "\n").utf8))
        } else {
            try FileManager.default.removeItem(at: file)
            let text = localized(
                "removed the watch '\(name)', the last one, and with it \(file.path); an installed timer now has nothing to run")
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
        return 0
    }

    static func install(arguments: [String]) throws -> Int32 {
        var directory = defaultDirectory
        var printOnly = false
        // The global options (put after the command by the dispatcher) change nothing here: the
        // units run 'watch --all', whose watches name their portals themselves. The one walker of
        // global options leaves out each with its value; what is left is install's own.
        let own = ownArguments(arguments)
        var index = 0
        while index < own.count {
            switch own[index] {
            case "--directory":
                guard index + 1 < own.count else { throw WatchCommandRunner.Options.usage(localized("--directory needs a folder")) }
                directory = URL(fileURLWithPath: own[index + 1])
                index += 1
            case "--print": printOnly = true
            default:
                let word = own[index]
                throw WatchCommandRunner.Options.usage(localized("'watch install' takes --directory DIR or --print, not '\(word)'"))
            }
            index += 1
        }
        // Units that run 'watch --all' with no watch saved would fail every 5 minutes: refuse,
        // or, printing, say so. A file that does not read is its own error, here as at each run.
        let saved = FileManager.default.fileExists(atPath: Locations.current.watchFile.path)
        if saved { _ = try WatchFile.load(from: Locations.current.watchFile) }
        if !saved, !printOnly { throw WatchFile.nothingSaved(Locations.current.watchFile) }
        let binary = executablePath()
        guard let program = SchedulerQuoting.systemdExecutable(binary) else {
            let path = TerminalText.escaped(binary)
            throw UniToolError(
                .usage,
                localized("systemd does not run a program whose path holds a quote, a backslash or a control character: \(path)"),
                hint: localized("install unitool in a folder whose path has none (Scripts/install.sh puts it in ~/.local/bin)"))
        }
        let units = [("unitool-watch.service", service(program: program)), ("unitool-watch.timer", timer())]
        if printOnly {
            for (name, text) in units { print("# \(name)\n\(text)") }
            if !saved {
                let text = localized(
                    "no watch is saved yet, so these units would have nothing to run (exit 52); first: unitool watch grades --term current --save"
                )
                FileHandle.standardError.write(Data((text + "\n").utf8))
            }
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in units { try AtomicFile.write(Data(text.utf8), to: directory.appendingPathComponent(name), mode: 0o644) }
            let text = localized(
                """
                wrote unitool-watch.service and unitool-watch.timer in \(directory.path)
                start them with: systemctl --user daemon-reload && systemctl --user enable --now unitool-watch.timer
                """)
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
        let crontab = "  */5 * * * * \(SchedulerQuoting.crontabWord(binary)) watch --all >>\"$HOME/.local/state/unitool/watch.log\" 2>&1"
        let cron = [
            localized("or, without systemd, this crontab line (crontab -e) does the same:"), crontab,
            localized("with no desktop keyring there, give the password with UNITOOL_PASSWORD_COMMAND (docs/WATCH.md)"),
        ]
        FileHandle.standardError.write(Data((cron.joined(separator: "\n") + "\n").utf8))
        return 0
    }

    /// The service unit, given the program as `ExecStart=` spells it
    /// (`SchedulerQuoting.systemdExecutable`: a folder with a space or a `%` in its name would
    /// otherwise split the path or be expanded).
    static func service(program: String) -> String {
        """
        [Unit]
        Description=unitool: run the watches in watches.yaml that are due

        [Service]
        Type=oneshot
        ExecStart=\(program) watch --all
        # A watch announces through its channels; its JSON Lines go to the journal.
        StandardOutput=journal

        """
    }

    static func timer() -> String {
        """
        [Unit]
        Description=unitool: run the watches every \(period)

        [Timer]
        OnBootSec=2min
        OnUnitActiveSec=\(period)
        RandomizedDelaySec=30s

        [Install]
        WantedBy=timers.target

        """
    }

    /// `1h`, `6h`, `1d`, `90m`: an interval as watches.yaml writes it.
    static func shown(_ interval: Duration) -> String { WatchFileEdit.interval(interval) }

    /// The running binary, as an absolute path, for ExecStart.
    static func executablePath() -> String {
        RecipeCatalog.runningExecutable
    }

    /// Each watch: its command, interval, last run, next run, and whether it is failing.
    static func status(globals: [String]) throws -> Int32 {
        let options = try GlobalOptions.read(GlobalOptions.arguments(in: globals))
        // No watches yet is an answer, not an error: say how to add one.
        if !FileManager.default.fileExists(atPath: Locations.current.watchFile.path) {
            if options.outputFormat == .json { print("[]") }
            let text = localized(
                """
                no watches yet in \(Locations.current.watchFile.path): save one with 'unitool watch grades --term current --save',
                then 'unitool watch install'
                or watch one command now: unitool watch grades --every 1h
                """)
            FileHandle.standardError.write(Data((text + "\n").utf8))
            return 0
        }
        let environment = try CommandEnvironment.open(options)
        let file = try WatchFile.load(from: Locations.current.watchFile)
        let history = environment.history()
        var records: [Record] = []
        for entry in file.entries {
            let (lastRun, failing) = entry.state(in: environment, history: history)
            let next = lastRun.map { $0.addingTimeInterval(Double(entry.every.components.seconds)) }
            records.append(
                Record(fields: [
                    ("watch", .string(entry.name)), ("command", .string(entry.command)),
                    ("every", .string(Self.shown(entry.every))),
                    ("last_run", lastRun.map { .string(HistoryStore.timestamp($0)) } ?? .null),
                    ("next_run", next.map { .string(HistoryStore.timestamp($0)) } ?? .string("now")),
                    ("failing", failing.map(FieldValue.string) ?? .null),
                ]))
        }
        let set = RecordSet(columns: ["watch", "command", "every", "last_run", "next_run", "failing"], records: records)
        print(options.outputFormat.render(set, style: options.outputFormat == .table ? .forStandardOutput() : .plain), terminator: "")
        return 0
    }
}

extension WatchFile.Entry {
    /// This watch's last run and the failure it remembers, from the history: what `watch --all`
    /// decides by and `watch status` shows. Nothing when the portal, recipe or history is missing
    /// (the run then says why).
    func state(in environment: CommandEnvironment, history: HistoryStore?) -> (lastRun: Date?, failing: String?) {
        guard let history, let portalID = portal ?? (try? environment.portalID()),
            let recipe = try? environment.catalog.recipe(portal: portalID, command: command),
            let portal = try? environment.catalog.portal(portalID)
        else { return (nil, nil) }
        let user = recipe.login ? ((try? environment.user(for: portal)) ?? "") : ""
        let spec = WatchSpec(recipe: recipe, options: options, source: source)
        let lastRun = try? history.latest(portal: portalID, user: user, recipe: command, options: spec.question)?.ranAt
        return (lastRun, try? history.memory(ofWatch: spec.memoryKey(portal: portalID, user: user)).failing)
    }
}
