/// What the service asks of whoever stands behind a front end while it works: a person at a
/// terminal, a JSON-RPC client, an MCP host. The service decides *when* to ask (a terms version
/// not yet accepted, a password nobody gave or stored, a one-time-code page, an action about to
/// change something); the front end
/// decides only *how* (a prompt, a notification, a refusal with its own hint). That is the whole
/// difference between the front ends, so each implements this once and passes it to
/// `PortalService`, in the manner of SwiftPM's delegates, instead of threading closures through.
///
/// Every requirement has a default that suits a caller with nobody to ask (a script, a cron job,
/// a test): progress unheard, terms refused, no password or code typed, actions allowed (the
/// request itself asked for the action).
public protocol Interaction: Sendable {
    /// What the service is doing right now, as a plain sentence without a final full stop
    /// ("signing in to Demo University: page 3 of the login").
    func progress(_ message: String)

    /// The current terms of use are not accepted (`status.refusal` says why): true to accept them
    /// now, which the service records; false refuses the call. `connection` can read the terms'
    /// text for a front end that shows it.
    func acceptTerms(_ status: TermsStatus, through connection: PortalConnection) async throws -> Bool

    /// The refusal's hint in this front end's own words (JSON-RPC names its methods); nil keeps
    /// the CLI's ("run 'unitool terms accept'").
    var termsRefusalHint: String? { get }

    /// Whether a person is there to type the password when none was given and none is stored.
    var canTypePassword: Bool { get }

    /// Asks for the password with `question`, for this login only; nil when none was typed.
    func typePassword(_ question: String) -> Secret?

    /// Whether a person is there to type a one-time code when no stored secret or command gives one.
    var canTypeOneTimeCode: Bool { get }

    /// Asks for a one-time code with `question`; nil or empty when none was typed.
    func typeOneTimeCode(_ question: String) -> String?

    /// A wait the person should hear about even without a status line ("waiting 12 s for the
    /// next one-time code").
    func explainWait(_ message: String)

    /// Something done on the person's behalf that they should know of after the command, not
    /// only while it runs ("accepted the release of your attributes for this login only").
    func tell(_ message: String)

    /// Whether to submit `action` now: it changes something on the portal (renews a loan). False
    /// sends nothing and fails the call with `declined`. An action that asks first
    /// (`action.asks`: `ask: true`, or a `preview:` of what it changes) comes here with the values
    /// it will send, unless the call said yes itself.
    func confirm(_ action: ActionSpec, argument: String, parameters: [String: String], on portal: PortalRecipe) async throws -> Bool
}

extension Interaction {
    public func progress(_ message: String) {}
    public func acceptTerms(_ status: TermsStatus, through connection: PortalConnection) async throws -> Bool { false }
    public var termsRefusalHint: String? { nil }
    public var canTypePassword: Bool { false }
    public func typePassword(_ question: String) -> Secret? { nil }
    public var canTypeOneTimeCode: Bool { false }
    public func typeOneTimeCode(_ question: String) -> String? { nil }
    public func explainWait(_ message: String) { progress(message) }
    public func tell(_ message: String) { progress(message) }
    /// Nobody to ask: an action the command that names it confirms goes ahead; one that asks
    /// first (`ask: true`) does not, unless the call said yes itself.
    public func confirm(_ action: ActionSpec, argument: String, parameters: [String: String], on portal: PortalRecipe) async throws
        -> Bool
    { !action.asks }
}

/// Nobody to ask: every default of `Interaction`. For scripts' own uses of the library, and for
/// work that must never stop to ask (the terms read by a public command).
public struct Unattended: Interaction {
    public init() {}
}

/// The interaction of the call in progress. A task-local rather than a property of the
/// connection, because the JSON-RPC server shares one connection between concurrent requests and
/// each request has its own client waiting; child tasks (the terms of a `--term all` run) inherit it.
enum CurrentInteraction {
    @TaskLocal static var value: any Interaction = Unattended()

    /// Runs `body` with `interaction` asked meanwhile. Kept in this module, not inlined into the
    /// front ends: `TaskLocal.withValue` specialized into another module crashed the release
    /// build (SIGSEGV in `swift_task_localValuePush`, Swift 6.3 on Linux).
    static func with<T>(_ interaction: any Interaction, _ body: () async throws -> T) async throws -> T {
        try await $value.withValue(interaction, operation: body)
    }

    /// Tells the current caller what the service does, if it listens.
    static func report(_ message: @autoclosure () -> String) {
        value.progress(message())
    }
}
