import Foundation

/// `watches.yaml` in the config folder: several watches, run by `unitool watch --all` (which a
/// systemd timer or cron runs every few minutes; each watch runs when its interval is up).
///
///     watches:
///       grades:
///         command: grades
///         options: { term: current }
///         every: 1h
///         notify: true
///         exec: notify-send "$UNITOOL_EVENT_SUMMARY"
///       loans:
///         command: loans
///         every: 6h
///         due_within: 3d
///         webhook_command: pass show ntfy/unitool-url
///
/// A webhook's address often carries a token, so the file never holds one: `webhook_command`
/// names a command that prints it (`pass`, `secret-tool lookup ...`), run when an event is sent.
public struct WatchFile: Sendable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var portal: String?
        public var command: String
        public var options: [String: String]
        public var source: String?
        public var every: Duration
        public var exec: String?
        public var webhookCommand: String?
        public var webhookFormat: WebhookChannel.Format = .json
        public var notify: Bool
        public var dueWithin: String?
        public var announceExisting: Bool

        public init(
            name: String, portal: String?, command: String, options: [String: String], source: String?, every: Duration, exec: String?,
            webhookCommand: String?, notify: Bool, dueWithin: String?, announceExisting: Bool
        ) {
            self.name = name
            self.portal = portal
            self.command = command
            self.options = options
            self.source = source
            self.every = every
            self.exec = exec
            self.webhookCommand = webhookCommand
            self.notify = notify
            self.dueWithin = dueWithin
            self.announceExisting = announceExisting
        }
    }

    public var entries: [Entry]

    public static func load(from file: URL) throws -> WatchFile {
        guard let data = try PrivateFile.read(file, allowSymlink: true) else { throw nothingSaved(file) }
        return try parse(String(decoding: data, as: UTF8.self), file: file.path)
    }

    /// There is no watches.yaml: nothing for `watch --all` or the units of `watch install` to run.
    public static func nothingSaved(_ file: URL) -> UniToolError {
        UniToolError(
            .nothingToWatch, localized("no watch is saved: there is no \(file.path)"),
            hint: localized("save one first: unitool watch grades --term current --save (then 'unitool watch list')"))
    }

    /// The watches of a watches.yaml's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws -> WatchFile {
        let reader = try RecipeReader(file: file, text: text)
        let top = try reader.top
        try top.allowOnly(["watches"])
        guard let watches = try top.mappingReader("watches"), !watches.keys.isEmpty else {
            throw top.error("watches", localized("missing: the file needs at least one watch"))
        }
        var entries: [Entry] = []
        for name in watches.keys {
            let entry = try watches.entry(name)
            try entry.allowOnly(
                [
                    "portal", "command", "options", "source", "every", "exec", "webhook_command", "webhook_format", "notify", "due_within",
                    "announce_existing",
                ])
            let everyText = try entry.string("every") ?? "1h"
            guard let every = WatchFile.interval(everyText) else {
                throw entry.error("every", localized("'\(everyText)' is not an interval from \(WatchFile.allowedRange); use 15m, 1h or 1d"))
            }
            var parsed =
                Entry(
                    name: name, portal: try entry.string("portal"), command: try entry.requiredString("command"),
                    options: Dictionary(try entry.stringMap("options") ?? [], uniquingKeysWith: { $1 }), source: try entry.string("source"),
                    every: every, exec: try entry.string("exec"), webhookCommand: try entry.string("webhook_command"),
                    notify: try entry.bool("notify") ?? false, dueWithin: try entry.string("due_within"),
                    announceExisting: try entry.bool("announce_existing") ?? false)
            parsed.webhookFormat = try entry.choice("webhook_format", of: WebhookChannel.Format.self) ?? .json
            entries.append(parsed)
        }
        return WatchFile(entries: entries)
    }

    /// `30m`, `1h`, `1d`: at least a minute, at most 366 days.
    public static func interval(_ text: String) -> Duration? {
        guard let seconds = InputBounds.seconds(text), (minimumSeconds...maximumSeconds).contains(seconds) else { return nil }
        return .seconds(seconds)
    }

    /// The shortest interval a watch takes: a portal is not to be asked more often.
    public static let minimumSeconds: Int64 = 60

    /// The longest interval a watch takes: a year (a leap one). A longer one is a mistake, and
    /// `106751991167d` once overflowed the pause between runs and crashed the watch.
    public static let maximumSeconds: Int64 = 366 * 86_400

    /// The allowed intervals, for messages.
    public static var allowedRange: String { localized("1m to 366d") }

    /// Whether a watch that last ran at `lastRun` is due at `now`: its interval is up, less a
    /// tenth, so that a timer that fires a little early does not skip a whole interval.
    public static func isDue(lastRun: Date?, every: Duration, now: Date = Date()) -> Bool {
        guard let lastRun else { return true }
        return now.timeIntervalSince(lastRun) >= Double(every.components.seconds) * 0.9
    }
}

/// The binary's path as the line of a scheduler that runs `watch --all` must spell it: a path
/// may hold spaces, quotes or `%`, each of which means something there.
public enum SchedulerQuoting {
    /// The program of a systemd unit's `ExecStart=`, per systemd.syntax(7) and systemd.service(5):
    /// in double quotes unless it holds only plain characters (a space would split it), with `%`
    /// doubled (a specifier otherwise: `%h` is the home folder). A `$` stays as it is: systemd
    /// expands variables in the arguments, not in the program's path. Nil for a path systemd
    /// refuses to run whatever the quoting ("Executable name contains special characters"): one
    /// with a quote, a backslash or a control character.
    public static func systemdExecutable(_ path: String) -> String? {
        guard !path.isEmpty, !path.unicodeScalars.contains(where: { "\"'\\".unicodeScalars.contains($0) || TerminalText.isControl($0) })
        else { return nil }
        let spelled = path.replacingOccurrences(of: "%", with: "%%")
        return path.unicodeScalars.allSatisfy(isPlain) ? spelled : "\"" + spelled + "\""
    }

    /// A word of a crontab line's command: single-quoted for the shell (`'` as `'\''`), and `%`
    /// as `\%`, since cron turns a bare `%` into a line break.
    public static func crontabWord(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "%", with: "\\%") + "'"
    }

    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "/._-+,:@=".unicodeScalars.contains(scalar)
    }
}
