import Foundation

/// What every front end asks of a portal, in one place: a checked `RecipeRequest` run live or
/// answered from the history and shaped, an action, a page. The CLI, JSON-RPC and MCP convert
/// their input to these calls and their output from these values; none of them keeps sessions,
/// reads the history for an offline answer or shapes records itself.
///
/// Each call takes the `Interaction` of the front end that makes it: whatever the service must
/// ask on the way (terms, a one-time code, a confirmation) or report (progress) goes there, and
/// nowhere else. Each call that asks the portal saves the session as the portal left it
/// afterwards (`PortalConnection.settlingSession`), failed or not. An offline answer needs no
/// connection: it is made only when a call needs the portal.
public struct PortalService: Sendable {
    public let portal: PortalRecipe
    public let user: String
    public let history: HistoryStore?
    /// The connection to ask the portal through, made (or shared) when a call needs it.
    let connect: @Sendable () async throws -> PortalConnection
    /// What "now" is for every front end: the time, or `UNITOOL_NOW` (`FixedClock`). A recipe's
    /// `today` filters and relative dates are read against it.
    let clock: @Sendable () throws -> Date

    public init(
        portal: PortalRecipe, user: String, history: HistoryStore?, clock: @escaping @Sendable () throws -> Date = { try FixedClock.now() },
        connect: @escaping @Sendable () async throws -> PortalConnection
    ) {
        self.portal = portal
        self.user = user
        self.history = history
        self.clock = clock
        self.connect = connect
    }

    /// A service over one connection that is already made.
    public init(connection: PortalConnection, clock: @escaping @Sendable () throws -> Date = { try FixedClock.now() }) {
        self.init(portal: connection.portal, user: connection.user, history: connection.history, clock: clock, connect: { connection })
    }

    /// A recipe's answer, and where it came from.
    public struct RecipeOutcome: Sendable {
        public var records: RecordSet
        /// When the answer was recorded, for an answer from the history; nil for a live one.
        public var asOf: Date?
    }

    /// Runs a checked request: on the portal (the terms gate first, the answer recorded in the
    /// history), or with `offline` from the last answer the history has to the same question.
    /// The records come back shaped as the request asks (summary, fields, sort).
    public func execute(
        _ request: RecipeRequest, of recipe: DataRecipe, offline: Bool = false, interaction: any Interaction
    ) async throws -> RecipeOutcome {
        if offline {
            guard let history else {
                throw UniToolError(
                    .noOfflineAnswer, localized("no history is kept here, so there is no offline answer"),
                    hint: localized("run it without offline"))
            }
            let answer = try history.offlineAnswer(
                recipe: recipe, portal: portal.id, user: recipe.historyUser(user), options: request.options,
                source: request.historySource)
            return RecipeOutcome(records: try request.shape.apply(to: answer.records, of: recipe), asOf: answer.ranAt)
        }
        let today = RecordExtractor.localToday(try clock())
        let records: RecordSet
        do {
            records = try await session(interaction: interaction) { connection in
                try await RunHistory.run(recipe, request, on: connection, history: history, today: today)
            }
        } catch let error as UniToolError {
            // A value the portal does not offer is the caller's argument, named in its words:
            // JSON-RPC and MCP report it as an invalid argument, never as a command-line flag.
            guard let refused = error.refusedOption, request.naming != .commandLine else { throw error }
            let (message, hint) = refused.words(naming: "'\(request.naming.option(refused.option))'")
            throw ArgumentProblem(path: request.naming.option(refused.option), message: message, hint: hint)
        }
        return RecipeOutcome(records: try request.shape.apply(to: records, of: recipe), asOf: nil)
    }

    /// An action of a recipe (`loans renew B-1`): the portal's own form, submitted once, if the
    /// interaction confirms it. A declined action sends nothing, not even the login.
    ///
    /// An action that asks first (`ask: true`, a purchase request) is put to the interaction
    /// with its values unless the call itself says yes (`confirmed`: the command line's `--yes`,
    /// MCP's and JSON-RPC's `confirm: true`). The request was checked when it was made
    /// (`ActionRequest`). `listed`: the `preview` the person said yes to; a list changed since
    /// sends nothing.
    public func perform(
        _ request: ActionRequest, of recipe: DataRecipe, confirmed: Bool = false, listed: RecordSet? = nil,
        interaction: any Interaction
    ) async throws -> RecordSet {
        let (action, argument, parameters) = (request.action, request.argument, request.parameters)
        if !(action.asks && confirmed) {
            guard try await interaction.confirm(action, argument: argument, parameters: parameters, on: portal) else {
                let call = argument.isEmpty ? "\(recipe.command) \(action.name)" : "\(recipe.command) \(action.name) \(argument)"
                throw UniToolError(
                    .declined,
                    localized("'\(call)' was not confirmed; nothing was sent"),
                    hint: action.asks
                        ? localized("answer yes when asked at a terminal, or confirm it in the call (--yes on the command line)")
                        : localized("run it again and confirm it"))
            }
        }
        let today = RecordExtractor.localToday(try clock())
        return try await session(interaction: interaction) {
            try await $0.perform(action, of: recipe, argument: argument, parameters: parameters, listed: listed, today: today)
        }
    }

    /// As `perform(_:of:…)`, for a call in the command line's words: a mistake in its values is
    /// a usage error (exit 64) naming the option.
    public func perform(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:], confirmed: Bool = false,
        listed: RecordSet? = nil, interaction: any Interaction
    ) async throws -> RecordSet {
        try await perform(
            Self.commandLineRequest(action, of: recipe, argument: argument, parameters: parameters), of: recipe, confirmed: confirmed,
            listed: listed, interaction: interaction)
    }

    /// The command line's action call as an `ActionRequest`; its mistakes are usage errors.
    static func commandLineRequest(_ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String])
        throws -> ActionRequest
    {
        do {
            return try ActionRequest(
                recipe: recipe, action: action.name, argument: argument.isEmpty ? nil : .string(argument),
                parameters: parameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }, naming: .commandLine)
        } catch {
            throw UniToolError(
                .usage, error.message,
                hint: localized("give every required value; 'unitool \(recipe.command) \(action.name) --help' lists them"))
        }
    }

    /// What an action with a `preview:` would change, sent nowhere (`--dry-run`, and the list a
    /// person sees before saying yes).
    public func preview(_ request: ActionRequest, of recipe: DataRecipe, interaction: any Interaction) async throws -> RecordSet {
        let today = RecordExtractor.localToday(try clock())
        return try await session(interaction: interaction) {
            try await $0.preview(request.action, of: recipe, argument: request.argument, parameters: request.parameters, today: today)
        }
    }

    /// As `preview(_:of:…)`, for a call in the command line's words.
    public func preview(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:], interaction: any Interaction
    ) async throws -> RecordSet {
        try await preview(
            Self.commandLineRequest(action, of: recipe, argument: argument, parameters: parameters), of: recipe,
            interaction: interaction)
    }

    /// A page of the portal, and the charset its recipe says to read it in (`charset:`), if any.
    public struct FetchedPage: Sendable {
        public var page: Page
        public var charsetOverride: String?

        /// The body as text, decoded as a browser would with the recipe's charset.
        public var text: String { page.decodedText(charsetOverride: charsetOverride) }
    }

    /// A page of the portal's own origins, through the session (the terms gate first).
    public func fetch(_ address: String, interaction: any Interaction) async throws -> FetchedPage {
        try await session(interaction: interaction) { connection in
            // A foreign address is refused before anything is sent; fetch passes the terms gate.
            let url = try connection.ownPageURL(address)
            let page = try await connection.fetch(url.absoluteString)
            return FetchedPage(page: page, charsetOverride: connection.portal.charsetOverride(for: page.url))
        }
    }

    /// Runs a recipe for the day's views (`today`, `calendar`), which shape their own answers.
    public func run(_ recipe: DataRecipe, options: [String: String], interaction: any Interaction) async throws -> RecordSet {
        let today = RecordExtractor.localToday(try clock())
        let request = try RecipeRequest.commandLine(recipe, options: options)
        return try await session(interaction: interaction) { connection in
            try await RunHistory.run(recipe, request, on: connection, history: history, today: today)
        }
    }

    /// Work a command does on the connection itself, several steps long (a login checked, the
    /// terms read, a page explained), with `interaction` asked throughout and the session settled
    /// once at its end.
    public func session<T>(interaction: any Interaction, _ body: (PortalConnection) async throws -> T) async throws -> T {
        let connection = try await connect()
        return try await CurrentInteraction.with(interaction) { try await connection.settlingSession(body) }
    }
}
