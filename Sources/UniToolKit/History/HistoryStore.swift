import Foundation
import GRDB
import MessageDigest

/// The local history: every successful recipe run, with its records, in an SQLite database at
/// `$XDG_DATA_HOME/unitool/history.sqlite` (mode 0600, in a 0700 folder, WAL).
///
/// It is what lets unitool say what is new (`unitool history`, `unitool watch`) and answer with
/// the portal out of reach (`--offline`). A run whose records are the same as an earlier one's
/// stores only a row pointing at that snapshot, so that hourly runs of an unchanged page cost a
/// few dozen bytes each.
public final class HistoryStore: Sendable {
    public let file: URL
    private let database: DatabasePool
    /// Runs older than this many days are forgotten (`history_days` in config.yaml).
    public let retentionDays: Int

    /// One run as stored: when, with which options, and its records as JSON.
    public struct Run: Sendable, Equatable {
        public var ranAt: Date
        public var options: String
        public var columns: [String]
        public var recordsJSON: String
    }

    public init(file: URL, retentionDays: Int = 365) throws {
        self.file = file
        self.retentionDays = retentionDays
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            if !FileManager.default.fileExists(atPath: file.path) {
                // Made private before SQLite writes a byte; the -wal and -shm files follow its mode.
                _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            // One left open (an older unitool, a copy, a umask) is closed again, with a note.
            try Self.makePrivate(file)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            // With the write-ahead log, NORMAL syncs at checkpoints instead of at every commit: a
            // crash can lose the last runs, never corrupt the file, and a run does not wait on the disk.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            database = try DatabasePool(path: file.path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch let error as UniToolError {
            throw error
        } catch {
            throw UniToolError(
                .stateCorrupt, localized("cannot open the history at \(file.path): \(error)"),
                hint: localized("move the file away to start a new history; nothing else depends on it"))
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: runs and snapshots") { db in
            try db.create(table: "snapshot") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("digest", .text).notNull().unique()
                table.column("columns", .text).notNull()
                table.column("records", .text).notNull()
            }
            try db.create(table: "run") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("portal", .text).notNull()
                table.column("user", .text).notNull()
                table.column("recipe", .text).notNull()
                table.column("options", .text).notNull()
                table.column("ranAt", .double).notNull()
                table.column("snapshotId", .integer).notNull().references("snapshot", onDelete: .restrict)
            }
            try db.create(index: "run_lookup", on: "run", columns: ["portal", "user", "recipe", "options", "ranAt"])
        }
        migrator.registerMigration("v2: watch memory") { db in
            try db.create(table: "watchMemory") { table in
                table.primaryKey("watch", .text)
                table.column("memory", .text).notNull()
            }
        }
        migrator.registerMigration("v3: last looks") { db in
            try db.create(table: "lastLook") { table in
                table.column("portal", .text).notNull()
                table.column("user", .text).notNull()
                table.column("part", .text).notNull()
                table.column("lookedAt", .double).notNull()
                table.primaryKey(["portal", "user", "part"])
            }
        }
        migrator.registerMigration("v4: pending deliveries") { db in
            try db.create(table: "pendingDelivery") { table in
                table.primaryKey("watch", .text)
                table.column("deliveries", .text).notNull()
            }
        }
        return migrator
    }

    /// The options of a run as one canonical text (`source=rss&term=current`), so that the same
    /// question asked twice finds the same answers.
    public static func optionsKey(_ options: [String: String], source: String?) -> String {
        var all = options
        if let source { all["source"] = source }
        return all.keys.sorted().map { "\($0)=\(all[$0]!)" }.joined(separator: "&")
    }

    /// Records a successful run.
    public func record(
        portal: String, user: String, recipe: String, options: String, records: RecordSet, at date: Date = Date()
    ) throws {
        let json = HistoryCodec.encode(records)
        let digest = Self.digest(Self.columnsText(records.columns) + "\n" + json)
        try write { db in
            // Cached statements: a JSON-RPC backend or a watch records a run many times a second,
            // and preparing the same SQL for each was a fifth of a recipes.run (issue 40).
            try db.cachedStatement(
                sql: "INSERT INTO snapshot (digest, columns, records) VALUES (?, ?, ?) ON CONFLICT(digest) DO NOTHING"
            ).execute(arguments: [digest, Self.columnsText(records.columns), json])
            // The snapshot row was inserted just above, or was there already.
            let snapshot = try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT id FROM snapshot WHERE digest = ?"), arguments: [digest])!
            try db.cachedStatement(
                sql: "INSERT INTO run (portal, user, recipe, options, ranAt, snapshotId) VALUES (?, ?, ?, ?, ?, ?)"
            ).execute(arguments: [portal, user, recipe, options, date.timeIntervalSince1970, snapshot])
            // Every hundredth run forgets what is older than the retention: cheap, and often enough.
            if db.lastInsertedRowID % 100 == 0 {
                _ = try Self.prune(db, before: date.addingTimeInterval(-Double(retentionDays) * 86_400))
            }
        }
    }

    /// The latest run of this question, if there was one.
    public func latest(portal: String, user: String, recipe: String, options: String) throws -> Run? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: """
                    \(Self.runSelection)
                    WHERE portal = ? AND user = ? AND recipe = ? AND options = ? ORDER BY ranAt DESC, run.id DESC LIMIT 1
                    """, arguments: [portal, user, recipe, options]
            ).map(Self.run)
        }
    }

    /// Every run of a recipe since a date, oldest first, whatever its options.
    public func runs(portal: String, user: String, recipe: String, since: Date) throws -> [Run] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    \(Self.runSelection)
                    WHERE portal = ? AND user = ? AND recipe = ? AND ranAt >= ? ORDER BY ranAt, run.id
                    """, arguments: [portal, user, recipe, since.timeIntervalSince1970]
            ).map(Self.run)
        }
    }

    /// The last run before `date`, for comparing the first run in a window with what came before.
    public func run(before date: Date, portal: String, user: String, recipe: String, options: String) throws -> Run? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: """
                    \(Self.runSelection)
                    WHERE portal = ? AND user = ? AND recipe = ? AND options = ? AND ranAt < ? ORDER BY ranAt DESC, run.id DESC LIMIT 1
                    """, arguments: [portal, user, recipe, options, date.timeIntervalSince1970]
            ).map(Self.run)
        }
    }

    /// Forgets runs older than `date`, and the snapshots no run uses any more. Returns how many
    /// runs went.
    @discardableResult
    public func prune(before date: Date) throws -> Int {
        try write { db in try Self.prune(db, before: date) }
    }

    private static func prune(_ db: Database, before date: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM run WHERE ranAt < ?", arguments: [date.timeIntervalSince1970])
        let removed = db.changesCount
        try db.execute(sql: "DELETE FROM snapshot WHERE id NOT IN (SELECT DISTINCT snapshotId FROM run)")
        return removed
    }

    /// How many runs and distinct snapshots are stored.
    public func counts() throws -> (runs: Int, snapshots: Int) {
        try read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM run") ?? 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM snapshot") ?? 0)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try database.read(body) } catch { throw Self.failure(error, file) }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try database.write(body) } catch { throw Self.failure(error, file) }
    }

    private static func failure(_ error: any Error, _ file: URL) -> UniToolError {
        UniToolError(
            .stateCorrupt, localized("the history at \(file.path) cannot be used: \(error)"),
            hint: localized("move the file away to start a new history; nothing else depends on it"))
    }

    private static func run(_ row: Row) -> Run {
        let columnsText: String = row[2]
        return Run(
            ranAt: Date(timeIntervalSince1970: row[0]), options: row[1],
            columns: columnsText.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init), recordsJSON: row[3])
    }

    /// The columns `run(_:)` reads, with the snapshot each run points at.
    private static let runSelection =
        "SELECT run.ranAt, run.options, snapshot.columns, snapshot.records FROM run JOIN snapshot ON snapshot.id = run.snapshotId"

    /// Column names joined by the unit separator, which no field name contains.
    private static func columnsText(_ columns: [String]) -> String { columns.joined(separator: "\u{1F}") }

    /// The warning when the history cannot be opened (a symbolic link in its place, say), on
    /// one line: a log line shows a line break escaped, so the error's own two-line form once
    /// printed a literal `\n  hint:`. The hint follows after a semicolon. Pure.
    public static func unavailableWarning(_ error: any Error) -> String {
        guard let error = error as? UniToolError else { return localized("the history is not available: \(error)") }
        let message = error.message
        return error.hint.map { hint in localized("the history is not available: \(message); \(hint)") }
            ?? localized("the history is not available: \(message)")
    }

    /// The history holds what the portal showed the user (grades, loans, messages): the folder
    /// is the user's alone (0700) and so are the database and its -wal and -shm files (0600).
    /// Looser modes are fixed with a warning, as `PrivateFile` does for the session and settings;
    /// a file or folder of another user, or a file that is a symbolic link, is refused.
    static func makePrivate(_ file: URL) throws {
        let exposure = localized("It holds the answers unitool read from your portal.")
        try makePrivate(file.deletingLastPathComponent().path, mode: 0o700, directory: true, exposure: exposure)
        for path in [file.path, file.path + "-wal", file.path + "-shm"] {
            try makePrivate(path, mode: 0o600, directory: false, exposure: exposure)
        }
    }

    private static func makePrivate(_ path: String, mode: mode_t, directory: Bool, exposure: String) throws {
        // O_NONBLOCK: a FIFO planted at the path must not hang the open. A folder may be a link
        // (a home kept elsewhere); a file may not.
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (directory ? O_DIRECTORY : O_NOFOLLOW)
        let descriptor = open(path, flags)
        let openError = errno
        guard descriptor >= 0 else {
            if openError == ENOENT { return }
            if openError == ELOOP {
                throw UniToolError(
                    .stateCorrupt, localized("\(path) is a symbolic link; unitool keeps its history as a plain file"),
                    hint: localized("remove the link; unitool starts a new history"))
            }
            let reason = String(cString: strerror(openError))
            throw UniToolError(.stateCorrupt, localized("cannot open \(path): \(reason)"), hint: localized("check its permissions"))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == (directory ? S_IFDIR : S_IFREG) else {
            throw UniToolError(
                .stateCorrupt, directory ? localized("\(path) is not a folder") : localized("\(path) is not a regular file"),
                hint: localized("move it away; unitool starts a new history"))
        }
        guard info.st_uid == geteuid() else {
            throw UniToolError(
                .stateCorrupt, localized("\(path) belongs to another user (uid \(info.st_uid)); unitool will not keep its history there"),
                hint: localized("move it away, or check who else writes to your unitool folders"))
        }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 != 0 else { return }
        let was = String(permissions, radix: 8)
        guard fchmod(descriptor, mode) == 0 else {
            let wanted = String(mode, radix: 8)
            throw UniToolError(
                .stateCorrupt, localized("\(path) is open to others (mode \(was)) and cannot be fixed"),
                hint: localized("run 'chmod \(wanted) \(path)'"))
        }
        let now = String(format: "%04o", mode)
        PrivateFile.warn(
            directory
                ? localized("\(path) was open to others (mode \(was)); it is now \(now). \(exposure)")
                : localized("\(path) was readable by others (mode \(was)); it is now \(now). \(exposure)"))
    }

    /// The snapshot's content address.
    static func digest(_ text: String) -> String {
        MessageDigest.sha256(text.utf8).lowercaseHex
    }
}

extension HistoryStore {
    /// The last answer to a question, for `--offline`: its records, typed as the recipe says,
    /// and when they were read.
    public func offlineAnswer(
        recipe: DataRecipe, portal: String, user: String, options given: [String: String], source: String?
    ) throws -> (records: RecordSet, ranAt: Date) {
        let effective = recipe.effectiveOptions(given)
        let question = Self.optionsKey(effective, source: source)
        let fields = recipe.source(named: source)?.fields ?? recipe.primary.fields
        guard let run = try latest(portal: portal, user: user, recipe: recipe.command, options: question) else {
            if let wider = try widerAnswer(recipe: recipe, portal: portal, user: user, options: effective, source: source, fields: fields) {
                return wider
            }
            let command = recipe.command
            throw UniToolError(
                .noOfflineAnswer,
                question.isEmpty
                    ? localized("there is no earlier answer to '\(command)' for \(user) on '\(portal)' in the history")
                    : localized("there is no earlier answer to '\(command)' with \(question) for \(user) on '\(portal)' in the history"),
                hint: localized("run it once with the portal reachable; the history keeps every successful run"))
        }
        return (try HistoryCodec.records(run.recordsJSON, columns: run.columns, fields: fields), run.ranAt)
    }

    /// The answer to one value from the last run over every value: `--term 2025-fall` from the
    /// `--term all` answer, when the option's word for "every value" (a `resolve` with
    /// `many: true`) was asked with the same other options, and the records name their value in
    /// a field of the option's name. Nil when no such run holds a record for the value: an
    /// empty slice of a wider answer cannot tell "nothing then" from "not read".
    func widerAnswer(
        recipe: DataRecipe, portal: String, user: String, options: [String: String], source: String?, fields: [FieldSpec]
    ) throws -> (records: RecordSet, ranAt: Date)? {
        for option in recipe.options {
            guard let asked = options[option.name], option.resolve[asked] == nil, recipe.columns.contains(option.name),
                let every = option.resolve.keys.sorted().first(where: { option.resolve[$0]?.many == true })
            else { continue }
            var wider = options
            wider[option.name] = every
            let key = Self.optionsKey(wider, source: source)
            guard let run = try latest(portal: portal, user: user, recipe: recipe.command, options: key) else { continue }
            let all = try HistoryCodec.records(run.recordsJSON, columns: run.columns, fields: fields)
            let kept = all.records.filter { $0[option.name]?.text == asked }
            if !kept.isEmpty { return (RecordSet(columns: all.columns, records: kept), run.ranAt) }
        }
        return nil
    }

    /// "3 minutes ago", "2 hours ago", "5 days ago": how old an answer is, for people.
    public static func age(of date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return localized("less than a minute ago")
        case ..<3600:
            let minutes = seconds / 60
            return localized("\(minutes) minute ago", plural: "\(minutes) minutes ago", count: minutes)
        case ..<86_400:
            let hours = seconds / 3600
            return localized("\(hours) hour ago", plural: "\(hours) hours ago", count: hours)
        default:
            let days = seconds / 86_400
            return localized("\(days) day ago", plural: "\(days) days ago", count: days)
        }
    }

    /// A moment as ISO 8601 with the local offset (`2026-11-25T06:42:47+01:00`): history rows and
    /// watch events.
    public static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = .current
        return formatter.string(from: date)
    }

    /// A moment as ISO 8601 in the local time zone, to the minute.
    public static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

extension HistoryStore {
    /// The latest run of every recipe and options of a portal, for these users.
    public func latestAnswers(portal: String, users: [String]) throws -> [(recipe: String, run: Run)] {
        try read { db in
            let placeholders = users.map { _ in "?" }.joined(separator: ", ")
            var arguments: [any DatabaseValueConvertible] = [portal]
            arguments += users
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT run.ranAt, run.options, snapshot.columns, snapshot.records, run.recipe
                    FROM run JOIN snapshot ON snapshot.id = run.snapshotId
                    WHERE run.id IN (SELECT MAX(id) FROM run WHERE portal = ? AND user IN (\(placeholders)) GROUP BY user, recipe, options)
                    ORDER BY run.recipe, run.options
                    """, arguments: StatementArguments(arguments))
            return rows.map { (recipe: $0[4], run: Self.run($0)) }
        }
    }
}

extension HistoryStore {
    /// The newest run time of each command kept for a portal and these users, and where the
    /// history ends (its highest run id), read together: what a long-running front end compares
    /// to notice new answers (`unitool mcp`'s resource notifications).
    public struct NewestRuns: Sendable, Equatable {
        public var ranAt: [String: Date]
        public var lastRunID: Int64

        public init(ranAt: [String: Date], lastRunID: Int64) {
            self.ranAt = ranAt
            self.lastRunID = lastRunID
        }
    }

    /// The newest run of each command, from the whole history, or with `after` (a `lastRunID`
    /// read before) from the runs kept since then alone: a look that costs the new runs, not
    /// the history's length, since a tool call that follows thousands of others must not read
    /// them all again. Nil when the history was cut back below `after` (runs forgotten): the
    /// caller looks at the whole history again.
    public func newestRuns(portal: String, users: [String], after: Int64? = nil) throws -> NewestRuns? {
        try read { db in
            let lastRunID = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM run") ?? 0
            if let after, lastRunID < after { return nil }
            let placeholders = users.map { _ in "?" }.joined(separator: ", ")
            var arguments: [any DatabaseValueConvertible] = []
            // NOT INDEXED: the new runs are read by their ids (the rowid), never through the
            // lookup index, which would walk every run of the portal.
            var sql = "SELECT recipe, MAX(ranAt) FROM run"
            if let after {
                sql += " NOT INDEXED WHERE id > ? AND"
                arguments.append(after)
            } else {
                sql += " WHERE"
            }
            sql += " portal = ? AND user IN (\(placeholders)) GROUP BY recipe"
            arguments.append(portal)
            arguments += users
            var ranAt: [String: Date] = [:]
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
                ranAt[row[0]] = Date(timeIntervalSince1970: row[1])
            }
            return NewestRuns(ranAt: ranAt, lastRunID: lastRunID)
        }
    }
}

extension HistoryStore {
    /// When this user last saw a part of `unitool today` ("news since you last looked").
    public func lastLook(portal: String, user: String, part: String) throws -> Date? {
        try read { db in
            try Double.fetchOne(
                db, sql: "SELECT lookedAt FROM lastLook WHERE portal = ? AND user = ? AND part = ?", arguments: [portal, user, part])
        }.map(Date.init(timeIntervalSince1970:))
    }

    public func saveLook(portal: String, user: String, part: String, at date: Date = Date()) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO lastLook (portal, user, part, lookedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(portal, user, part) DO UPDATE SET lookedAt = excluded.lookedAt
                    """, arguments: [portal, user, part, date.timeIntervalSince1970])
        }
    }
}
