import Foundation

/// Runs a recipe against the portal, for the day's views: a front end passes its connection's
/// `run`, or nothing when it answers offline.
public typealias LiveRecipeRun = @Sendable (DataRecipe, [String: String]) async throws -> RecordSet

/// The calendar export and `unitool today`, over every command of one portal and user: which
/// recipes to run, what comes from the history, and what the user last saw. The CLI and
/// JSON-RPC hold no policy of their own here; they open a connection when this says one is
/// needed, and print what it returns.
public struct DayService: Sendable {
    public let portal: PortalRecipe
    public let user: String
    /// The portal's data recipes.
    public let recipes: [DataRecipe]
    public let history: HistoryStore?
    /// What `today` takes as now: the wall clock, or `UNITOOL_NOW` in tests.
    public let now: Date
    /// An answer in the history younger than this serves `today` without a request.
    public var freshFor: TimeInterval = 10 * 60
    /// The user's zone, for which day "today" is.
    public var userZone: TimeZone = .current

    public init(portal: PortalRecipe, user: String, recipes: [DataRecipe], history: HistoryStore?, now: Date) {
        self.portal = portal
        self.user = user
        self.recipes = recipes
        self.history = history
        self.now = now
    }

    /// Records, when they were read, and whether from the history.
    public struct Answer: Sendable {
        public var records: RecordSet
        public var readAt: Date
        public var fromHistory: Bool
    }

    /// The zone the portal's times are in: its recipe's `timezone:`, else the user's.
    public var portalZone: TimeZone { portal.timeZone ?? userZone }
    public var today: CalendarDay { CalendarDay(now, in: userZone) }

    /// The last answer to a question in the history, if it is at most `maxAge` old.
    /// Whether the history has an answer to the question younger than `maxAge`: its time only,
    /// without reading its records back.
    func hasFresh(_ recipe: DataRecipe, options: [String: String], maxAge: TimeInterval) -> Bool {
        let question = HistoryStore.optionsKey(recipe.effectiveOptions(options), source: nil)
        guard let run = try? history?.latest(portal: portal.id, user: recipe.historyUser(user), recipe: recipe.command, options: question)
        else { return false }
        return Date().timeIntervalSince(run.ranAt) <= maxAge
    }

    func stored(_ recipe: DataRecipe, options: [String: String], maxAge: TimeInterval? = nil) -> Answer? {
        guard let history,
            let answer = try? history.offlineAnswer(
                recipe: recipe, portal: portal.id, user: recipe.historyUser(user), options: options, source: nil)
        else { return nil }
        if let maxAge, Date().timeIntervalSince(answer.ranAt) > maxAge { return nil }
        return Answer(records: answer.records, readAt: answer.ranAt, fromHistory: true)
    }

    func answer(_ recipe: DataRecipe, options: [String: String], live: LiveRecipeRun?) async throws -> Answer {
        guard let live else {
            guard let history else {
                throw UniToolError(
                    .stateCorrupt, localized("the history cannot be opened, so there is no offline answer"),
                    hint: localized("run with -v to see why"))
            }
            let stored = try history.offlineAnswer(
                recipe: recipe, portal: portal.id, user: recipe.historyUser(user), options: options, source: nil)
            return Answer(records: stored.records, readAt: stored.ranAt, fromHistory: true)
        }
        return Answer(records: try await live(recipe, options), readAt: Date(), fromHistory: false)
    }
}

// MARK: - Calendar

extension DayService {
    /// The commands whose recipes have a `calendar:` section, in the catalog's order.
    public var calendarRecipes: [DataRecipe] { recipes.filter { $0.calendar != nil } }

    /// The commands whose calendar is in the export only when asked (`when_asked: true`).
    public var askedCalendarCommands: [String] { calendarRecipes.filter { $0.calendar?.whenAsked == true }.map(\.command) }

    /// The names in `including` that are no command with a calendar.
    public func unknownIncludes(_ including: [String]) -> [String] {
        including.filter { name in !calendarRecipes.contains { $0.command == name } }
    }

    /// A recipe's records as events.
    public func events(of recipe: DataRecipe, from records: RecordSet) throws -> [CalendarEvent] {
        guard let spec = recipe.calendar else {
            let commands = calendarRecipes.map(\.command).joined(separator: ", ")
            throw UniToolError(
                .usage, localized("'\(recipe.command)' has no calendar"),
                hint: calendarRecipes.isEmpty
                    ? localized("no command of '\(portal.id)' has a calendar: section in its recipe")
                    : localized("these commands have one: \(commands); or run 'unitool calendar'"))
        }
        return try CalendarEventBuilder(recipe: recipe, spec: spec, portal: portal.id, user: recipe.historyUser(user)).events(from: records)
    }

    /// One calendar of every calendar-capable command, run at the same time; a command that
    /// fails fails the export, since a calendar silently missing its classes would be lost data.
    /// A command whose calendar is only included when asked (`when_asked: true`, the co-op's
    /// closed days) is in it when `including` names it.
    public func calendar(live: LiveRecipeRun?, including: [String] = []) async throws -> (
        text: String, events: [CalendarEvent], answers: [(String, Answer)]
    ) {
        let asked = askedCalendarCommands.joined(separator: ", ")
        if let name = unknownIncludes(including).first {
            throw UniToolError(
                .usage, localized("'\(name)' is not a command of '\(portal.id)' with a calendar"),
                hint: askedCalendarCommands.isEmpty
                    ? localized("every calendar of '\(portal.id)' is included already")
                    : localized("these are included when asked: \(asked)"))
        }
        let chosen = calendarRecipes.filter { $0.calendar?.whenAsked != true || including.contains($0.command) }
        guard !chosen.isEmpty else {
            guard let first = askedCalendarCommands.first else {
                throw UniToolError(
                    .usage, localized("no command of '\(portal.id)' has a calendar"),
                    hint: localized("a recipe declares one with a calendar: section; see docs/RECIPES.md"))
            }
            throw UniToolError(
                .usage, localized("no command of '\(portal.id)' has a calendar that is included unless asked"),
                hint: localized("name one: --include \(first) (these are included when asked: \(asked))"))
        }
        let answers = try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
            for (index, recipe) in chosen.enumerated() {
                group.addTask { (index, try await self.answer(recipe, options: [:], live: live)) }
            }
            var answers: [Int: Answer] = [:]
            for try await (index, answer) in group { answers[index] = answer }
            return answers.sorted { $0.key < $1.key }.map(\.value)
        }
        var events: [CalendarEvent] = []
        for (recipe, answer) in zip(chosen, answers) { events += try self.events(of: recipe, from: answer.records) }
        let text = ICalendarWriter(timeZone: portalZone, name: "\(portal.name) (unitool)").render(events)
        return (text, events, Array(zip(chosen.map(\.command), answers)))
    }

    /// One command's records as a calendar: `--format ics`.
    public func calendar(of recipe: DataRecipe, records: RecordSet) throws -> String {
        let events = try self.events(of: recipe, from: records)
        return ICalendarWriter(timeZone: portalZone, name: "\(portal.name): \(recipe.command) (unitool)").render(events)
    }
}
