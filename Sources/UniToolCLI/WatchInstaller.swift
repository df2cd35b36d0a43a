import Foundation
import UniToolHost
import UniToolKit

/// `unitool watch install` and `unitool watch status`: running the watches of watches.yaml
/// unattended, with a systemd user timer (or the crontab line it prints), and seeing how they do.
enum WatchInstaller {
    /// How often the timer runs `watch --all`; each watch still runs only when its own interval is up.
    static let period = "5min"

    static func install(arguments: [String]) throws -> Int32 {
        var directory = XDGDirectories.config.deletingLastPathComponent().appendingPathComponent("systemd/user")
        var printOnly = false
        // The global options (put after the command by the dispatcher) change nothing here: the
        // units run 'watch --all', whose watches name their portals themselves. The one walker of
        // global options leaves out each with its value; what is left is install's own.
        var own: [String] = []
        _ = GlobalOptions.scan(arguments) { argument, _ in
            if !GlobalOptions.flagOptions.contains(argument) { own.append(argument) }
            return .skip
        }
        var index = 0
        while index < own.count {
            switch own[index] {
            case "--directory":
                guard index + 1 < own.count else { throw WatchCommandRunner.Options.usage("--directory needs a folder") }
                directory = URL(fileURLWithPath: own[index + 1])
                index += 1
            case "--print": printOnly = true
            default: throw WatchCommandRunner.Options.usage("'watch install' takes --directory DIR or --print, not '\(own[index])'")
            }
            index += 1
        }
        let binary = executablePath()
        guard let program = SchedulerQuoting.systemdExecutable(binary) else {
            throw UniToolError(
                .usage,
                "systemd does not run a program whose path holds a quote, a backslash or a control character: \(TerminalText.escaped(binary))",
                hint: "install unitool in a folder whose path has none (Scripts/install.sh puts it in ~/.local/bin)")
        }
        let units = [("unitool-watch.service", service(program: program)), ("unitool-watch.timer", timer())]
        if printOnly {
            for (name, text) in units { print("# \(name)\n\(text)") }
        } else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, text) in units { try AtomicFile.write(Data(text.utf8), to: directory.appendingPathComponent(name), mode: 0o644) }
            FileHandle.standardError.write(
                Data(
                    """
                    wrote unitool-watch.service and unitool-watch.timer in \(directory.path)
                    start them with: systemctl --user daemon-reload && systemctl --user enable --now unitool-watch.timer

                    """.utf8))
        }
        FileHandle.standardError.write(
            Data(
                """
                or, without systemd, this crontab line (crontab -e) does the same:
                  */5 * * * * \(SchedulerQuoting.crontabWord(binary)) watch --all >>"$HOME/.local/state/unitool/watch.log" 2>&1
                with no desktop keyring there, give the password with UNITOOL_PASSWORD_COMMAND (docs/WATCH.md)

                """.utf8))
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
    static func shown(_ interval: Duration) -> String {
        let seconds = interval.components.seconds
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        return "\(seconds / 60)m"
    }

    /// The running binary, as an absolute path, for ExecStart.
    static func executablePath() -> String {
        RecipeCatalog.runningExecutable
    }

    /// Each watch: its command, interval, last run, next run, and whether it is failing.
    static func status(globals: [String]) throws -> Int32 {
        let options = try GlobalOptions.parse(GlobalOptions.arguments(in: globals))
        // No watches yet is an answer, not an error: say how to add one.
        if !FileManager.default.fileExists(atPath: WatchFile.file.path) {
            if options.outputFormat == .json { print("[]") }
            FileHandle.standardError.write(
                Data(
                    """
                    no watches yet: add them to \(WatchFile.file.path) (docs/WATCH.md), then 'unitool watch install'
                    or watch one command now: unitool watch grades --every 1h

                    """.utf8))
            return 0
        }
        let environment = try CommandEnvironment(options: options)
        let file = try WatchFile.load()
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
