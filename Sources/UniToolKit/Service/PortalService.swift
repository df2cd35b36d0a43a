import Foundation

/// What every front end asks of a portal, in one place: a checked `RecipeRequest` run live or
/// answered from the history and shaped, an action, a page. The CLI, JSON-RPC and MCP convert
/// their input to these calls and their output from these values; none of them keeps sessions,
/// reads the history for an offline answer or shapes records itself.
///
/// Each call that asks the portal saves the session as the portal left it afterwards
/// (`PortalConnection.settlingSession`), failed or not. An offline answer needs no connection:
/// it is made only when a call needs the portal.
public struct PortalService: Sendable {
    public let portal: PortalRecipe
    public let user: String
    public let history: HistoryStore?
    /// The connection to ask the portal through, made (or shared) when a call needs it.
    let connect: @Sendable () async throws -> PortalConnection

    public init(
        portal: PortalRecipe, user: String, history: HistoryStore?, connect: @escaping @Sendable () async throws -> PortalConnection
    ) {
        self.portal = portal
        self.user = user
        self.history = history
        self.connect = connect
    }

    /// A service over one connection that is already made.
    public init(connection: PortalConnection) {
        self.init(portal: connection.portal, user: connection.user, history: connection.history, connect: { connection })
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
    public func execute(_ request: RecipeRequest, of recipe: DataRecipe, offline: Bool = false) async throws -> RecipeOutcome {
        if offline {
            guard let history else {
                throw UniToolError(
                    .noOfflineAnswer, "no history is kept here, so there is no offline answer", hint: "run it without offline")
            }
            let answer = try history.offlineAnswer(
                recipe: recipe, portal: portal.id, user: recipe.historyUser(user), options: request.options, source: request.source)
            return RecipeOutcome(records: try request.shape.apply(to: answer.records, of: recipe), asOf: answer.ranAt)
        }
        let connection = try await connect()
        let records = try await connection.settlingSession {
            try await $0.run(recipe, options: request.options, source: request.source)
        }
        return RecipeOutcome(records: try request.shape.apply(to: records, of: recipe), asOf: nil)
    }

    /// An action of a recipe (`loans renew B-1`): the portal's own form, submitted once.
    public func perform(_ action: ActionSpec, of recipe: DataRecipe, argument: String) async throws -> RecordSet {
        let connection = try await connect()
        return try await connection.settlingSession { try await $0.perform(action, of: recipe, argument: argument) }
    }

    /// A page of the portal's own origins, through the session (the terms gate first).
    public func fetch(_ address: String) async throws -> Page {
        let connection = try await connect()
        // A foreign address is refused before anything is sent; fetch passes the terms gate.
        let url = try connection.ownPageURL(address)
        return try await connection.settlingSession { try await $0.fetch(url.absoluteString) }
    }

    /// Runs a recipe for the day's views (`today`, `calendar`), which shape their own answers.
    public func run(_ recipe: DataRecipe, options: [String: String]) async throws -> RecordSet {
        let connection = try await connect()
        return try await connection.settlingSession { try await $0.run(recipe, options: options) }
    }

    /// Work a command does on the connection itself, several steps long (a login checked, the
    /// terms read, a page explained), with the session settled once at its end.
    public func session<T>(_ body: (PortalConnection) async throws -> T) async throws -> T {
        try await connect().settlingSession(body)
    }
}
