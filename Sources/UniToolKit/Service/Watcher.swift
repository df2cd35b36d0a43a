import Foundation

/// What to watch: a recipe command with its options, and what counts as news.
public struct WatchSpec: Sendable {
    public var recipe: DataRecipe
    public var options: [String: String]
    public var source: String?
    public var announceExisting: Bool
    public var due: WatchDecision.DueRule?

    public init(
        recipe: DataRecipe, options: [String: String], source: String? = nil, announceExisting: Bool = false,
        due: WatchDecision.DueRule? = nil
    ) {
        self.recipe = recipe
        self.options = options
        self.source = source
        self.announceExisting = announceExisting
        self.due = due
    }

    /// The question this watch asks, as the history keys it.
    public var question: String { HistoryStore.optionsKey(recipe.effectiveOptions(options), source: source) }

    /// Where the history keeps what this watch remembers, for this portal and user.
    public func memoryKey(portal: String, user: String) -> String { "\(portal)|\(user)|\(recipe.command)|\(question)" }
}

/// Runs a watch once: the recipe through the connection (which records the answer in the
/// history), then `WatchDecision` against the answer before it. The CLI's `watch` loops over it.
public enum Watcher {
    /// One run: what it announces, and its error if it failed (announced or not).
    public struct Outcome: Sendable {
        public var events: [WatchEvent]
        public var failure: UniToolError?
    }

    /// - Parameter locale: the locale the events' summaries write dates in.
    public static func run(
        _ spec: WatchSpec, on connection: PortalConnection, today: String = RecordExtractor.localToday(),
        locale: Locale = WatchSummary.englishLocale
    ) async throws -> Outcome {
        guard let history = connection.history else {
            throw UniToolError(
                .stateCorrupt, localized("a watch needs the history, and it cannot be opened"), hint: localized("run with -v to see why"))
        }
        let portal = connection.portal.id
        let command = spec.recipe.command
        let watch = spec.memoryKey(portal: portal, user: connection.user)
        // One run per portal and user at a time, across processes: a timer's run and a hand-started
        // one take turns instead of logging in twice and announcing the same change twice.
        let lockPath = history.file.deletingLastPathComponent()
            .appendingPathComponent("watch-\(PrivateFile.safeName(portal))-\(PrivateFile.safeName(connection.user)).lock").path
        let lock: AsyncFileLock
        do {
            lock = try await AsyncFileLock.acquire(lockPath, timeout: .seconds(600))
        } catch let error as UniToolError where error.kind == .stateCorrupt && isLockTimeout(error) {
            throw UniToolError(
                .stateCorrupt, localized("another watch of \(portal) as \(connection.user) has been running for more than 10 minutes"),
                hint: localized("see what it waits for (a password or one-time code?), stop it, then run this watch again"))
        }
        defer { withExtendedLifetime(lock) {} }
        let fields = spec.recipe.source(named: spec.source)?.fields ?? spec.recipe.primary.fields
        let previous = try history.latest(portal: portal, user: connection.user, recipe: command, options: spec.question).map {
            try HistoryCodec.records($0.recordsJSON, columns: $0.columns, fields: fields)
        }
        let outcome: Result<RecordSet, UniToolError>
        do {
            let request = try RecipeRequest.commandLine(spec.recipe, options: spec.options, source: spec.source)
            outcome = .success(
                try await connection.settlingSession { try await RunHistory.run(spec.recipe, request, on: $0, history: history) })
        } catch let error as UniToolError {
            outcome = .failure(error)
        }
        let template = WatchEvent(
            kind: .added, portal: portal, user: connection.user, command: command, options: spec.question, time: Date())
        let decision = WatchDecision(
            previous: previous, outcome: outcome, memory: try history.memory(ofWatch: watch), keys: spec.recipe.keyFields,
            comparisons: spec.recipe.comparisons, announceExisting: spec.announceExisting, due: spec.due, today: today, template: template,
            summary: {
                var summary = WatchSummary(recipe: spec.recipe, fields: fields, dueField: spec.due?.field, today: today, locale: locale)
                summary.timeZone = connection.portal.timeZone ?? .current
                return summary
            }())
        try history.save(memory: decision.memory, ofWatch: watch)
        if case .failure(let error) = outcome { return Outcome(events: decision.events, failure: error) }
        return Outcome(events: decision.events, failure: nil)
    }

    /// Whether taking a lock failed by its time-out (`AsyncFileLock.acquire`): told by its message,
    /// or, where that is in another language, by its hint.
    static func isLockTimeout(_ error: UniToolError) -> Bool {
        error.message.hasPrefix("another unitool") || error.hint == localized("finish or stop the other unitool, then try again")
    }
}
