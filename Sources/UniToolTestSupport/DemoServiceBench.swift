import DemoUniversity
import Foundation
import Logging
import Synchronization
import UniToolKit

/// The service as every front end uses it, in process, against a running demo university: the
/// bundled recipes, and the user's files (sessions, accepted terms, history) in a `Sandbox` laid
/// out as unitool lays out its XDG folders, so a test can look at them as a user would. Drive it
/// with a `ScriptedInteraction` in place of the person at the terminal; the log is kept
/// (`LogCapture`) for tests that follow the login page by page.
///
/// For behaviour that does not depend on the process boundary; the binary is spawned only where
/// that boundary is the point (exit codes, stdout and stderr, a terminal, a second process).
public struct DemoServiceBench: Sendable {
    public let sandbox: Sandbox
    public let catalog: RecipeCatalog
    public let log = LogCapture()

    /// - Parameter acceptingTerms: the demo's terms accepted first, for tests about something else.
    public init(acceptingTerms: Bool = true, recipes: [URL] = []) throws {
        sandbox = try Sandbox()
        catalog = try RecipeCatalog(directories: [Fixtures.recipes] + recipes)
        if acceptingTerms { try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion) }
    }

    public var sessions: SessionStore { SessionStore(directory: sandbox.locations.sessions) }
    public var acceptedTerms: AcceptedTermsStore { AcceptedTermsStore(directory: sandbox.locations.acceptedTerms) }
    public var historyFile: URL { sandbox.locations.historyFile }
    /// Where the bench's connections keep drift reports: the sandbox's cache, never the user's.
    public var driftReports: URL { sandbox.locations.driftReports }

    public func recipe(_ command: String, portal: String = "demo") throws -> DataRecipe {
        try catalog.recipe(portal: portal, command: command)
    }

    /// A request for `command` checked as every front end checks one, with these options.
    public func request(_ command: String, _ options: [String: String] = [:], source: String? = nil, portal: String = "demo") throws
        -> RecipeRequest
    {
        try RecipeRequest(
            recipe: recipe(command, portal: portal), options: options.map { ($0.key, .string($0.value)) },
            shape: source.map { [("source", .string($0))] } ?? [], naming: .rpc)
    }

    /// Runs `command` of `portal` once through a service of its own (`withService(on:)`), as one
    /// front-end call does, and returns its records.
    public func run(
        _ command: String, _ options: [String: String] = [:], source: String? = nil, of portal: String = "demo", on demo: DemoUniversity,
        user: String = "alice", password: String? = nil, userValues: [String: String] = [:], interaction: any Interaction = Unattended()
    ) async throws -> RecordSet {
        let recipe = try recipe(command, portal: portal)
        let request = try request(command, options, source: source, portal: portal)
        return try await withService(on: demo, user: user, password: password, portal: portal, userValues: userValues) { service, _ in
            try await service.execute(request, of: recipe, interaction: interaction).records
        }
    }

    /// The user's account on the demo, with its session and one-time-code ledger in the sandbox.
    public func account(_ user: String, portal: String = "demo") throws -> Account {
        Account(portal: try catalog.portal(portal), user: user, sessions: sessions)
    }

    /// Runs `body` with a service for `user` on `demo` (and its one connection), closing the
    /// connection afterwards whatever happens. The password is `password`, or the demo user's
    /// own; one-time codes come from the account's sources, then the call's interaction.
    /// `configuration` is the HTTP settings the global options would give (`--timeout`,
    /// `--insecure`). A portal's services on origins of their own (an LMS on 127.0.0.2) move to
    /// the demo's service host of their address (`demo.serviceHosts`), as `UNITOOL_DEMO_SERVICES`
    /// moves them for the binary. `userValues` are the user's own values (`config set value.NAME`),
    /// for a recipe's `user_values`.
    public func withService<T: Sendable>(
        on demo: DemoUniversity, user: String = "alice", password: String? = nil, startEmpty: Bool = false,
        keepingHistory: Bool = false, portal: String = "demo", configuration: HTTPSession.Configuration = .init(),
        userValues: [String: String] = [:], _ body: (PortalService, PortalConnection) async throws -> T
    ) async throws -> T {
        let secret = Secret(password ?? Self.demoPassword(of: user))
        let values: UserValueProvider = { name, recipe in
            guard let value = userValues[name] else { return try PortalConnection.noUserValues(name, recipe) }
            return value
        }
        return try await serving(
            try catalog.portal(portal).relocated(to: demo.baseURL, hosts: demo.serviceHosts), user: user, password: { secret },
            startEmpty: startEmpty, keepingHistory: keepingHistory, configuration: configuration, userValues: values, body)
    }

    /// The same, with the portal at `baseURL` (an address where nothing listens, for a test of
    /// an unreachable portal).
    public func withService<T: Sendable>(
        at baseURL: URL, user: String = "alice", password: String? = nil, startEmpty: Bool = false,
        keepingHistory: Bool = false, portal: String = "demo", configuration: HTTPSession.Configuration = .init(),
        _ body: (PortalService, PortalConnection) async throws -> T
    ) async throws -> T {
        let secret = Secret(password ?? Self.demoPassword(of: user))
        return try await serving(
            try catalog.portal(portal).relocated(to: baseURL), user: user, password: { secret }, startEmpty: startEmpty,
            keepingHistory: keepingHistory, configuration: configuration, body)
    }

    /// A demo user's own password; empty for a user the demo does not have.
    static func demoPassword(of user: String) -> String { DemoData.users.first { $0.username == user }?.password ?? "" }

    /// The workspace the bench's connections are made from: the production composition root
    /// (`Workspace`) over the sandbox's folders, with the kept log, the history if asked for, and
    /// the test's user values and HTTP settings.
    public func workspace(
        keepingHistory: Bool = false, configuration: HTTPSession.Configuration = .init(),
        userValues: @escaping UserValueProvider = PortalConnection.noUserValues
    ) -> Workspace {
        Workspace(
            locations: sandbox.locations, http: configuration, history: keepingHistory ? .kept(retentionDays: 365) : .none,
            userValues: { _ in userValues }, logger: log.logger)
    }

    /// The one way the bench makes a connection: to `portal` as given, through `workspace(...)`,
    /// with one-time codes from the account's sources (then the call's interaction), and
    /// `password` read only when a login page asks for it. Closed afterwards whatever `body`
    /// does (`Workspace.withService(over:)`).
    func serving<T: Sendable>(
        _ portal: PortalRecipe, user: String, password: @escaping @Sendable () throws -> Secret, startEmpty: Bool = false,
        keepingHistory: Bool = false, configuration: HTTPSession.Configuration = .init(),
        userValues: @escaping UserValueProvider = PortalConnection.noUserValues, _ body: (PortalService, PortalConnection) async throws -> T
    ) async throws -> T {
        let workspace = workspace(keepingHistory: keepingHistory, configuration: configuration, userValues: userValues)
        let codes = workspace.account(portal, user: user).oneTimeCodes()
        let connection = workspace.connection(
            to: portal, as: user, credentials: { Credentials(username: user, passwordSource: password, oneTimeCode: codes) },
            use: startEmpty ? .fresh : .saved)
        return try await workspace.withService(over: connection) { service in try await body(service, connection) }
    }

    public func remove() { sandbox.remove() }

    /// `withService(on:)` with a password source of the test's own, read only when a login page
    /// asks for the password, as the keyring or a password command is: one that throws stands for
    /// a password command that fails, one that counts its calls tells whether a login needed it.
    public func withService<T: Sendable>(
        on demo: DemoUniversity, user: String = "alice", passwordSource: @escaping @Sendable () throws -> Secret,
        portal: String = "demo", configuration: HTTPSession.Configuration = .init(),
        _ body: (PortalService, PortalConnection) async throws -> T
    ) async throws -> T {
        try await serving(
            try catalog.portal(portal).relocated(to: demo.baseURL), user: user, password: passwordSource, configuration: configuration,
            body)
    }
}

/// A logger whose messages (debug and up) are kept, for tests that read what the service logged.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var messages: [String] { lines.withLock { $0 } }

    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(capture: self) }
        logger.logLevel = .debug
        return logger
    }

    /// The login pages the log shows the login acting on, in order ("user id", "saml post").
    public var loginPages: [String] {
        messages.compactMap { line in
            guard let start = line.range(of: "login page '"), let end = line[start.upperBound...].firstIndex(of: "'") else { return nil }
            return String(line[start.upperBound..<end])
        }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String,
            line: UInt
        ) {
            capture.lines.withLock { $0.append(message.description) }
        }
    }
}

// MARK: - The day's views

extension DemoServiceBench {
    /// The day's service (`today`, `calendar`) for `user` on the demo, as the front ends make it:
    /// the bundled recipes, `history`, the clock at `now` and the user's zone `zone`.
    public func day(
        history: HistoryStore?, user: String = "alice", now: Date, zone: TimeZone = TimeZone(identifier: "Europe/Budapest")!
    ) throws -> DayService {
        var day = DayService(
            portal: try catalog.portal("demo"), user: user, recipes: catalog.recipes(of: "demo"), history: history, now: now)
        day.userZone = zone
        return day
    }

    /// The live runs and terms check a front end gives the day's service: recipes run through a
    /// service over `connection` whose clock is `now`, asking `interaction`.
    public static func liveRuns(
        through connection: PortalConnection, now: Date, interaction: any Interaction = Unattended()
    ) -> (live: LiveRecipeRun, checkTerms: @Sendable () async throws -> Void) {
        let service = PortalService(connection: connection, clock: { now })
        return (
            { recipe, options in try await service.run(recipe, options: options, interaction: interaction) },
            { try await service.session(interaction: interaction) { try await $0.ensureTermsAccepted() } }
        )
    }
}

// MARK: - Example universities

extension DemoServiceBench {
    /// The example universities of Recipes/examples (`--recipes Recipes/examples`), over the bundled ones.
    public static var examples: URL { Fixtures.recipes.appendingPathComponent("examples") }
}

// MARK: - Packs, and portals of a test's own

extension DemoServiceBench {
    /// A bench whose catalog reads the recipe packs `packs` after the bundled recipes and
    /// `recipes`, as `--recipes` does, with `trust` the packs the user trusts.
    public init(acceptingTerms: Bool = true, recipes: [URL] = [], packs: [URL], trust: RecipeTrust = RecipeTrust()) throws {
        sandbox = try Sandbox()
        catalog = try RecipeCatalog(directories: [Fixtures.recipes] + recipes, packs: packs, trust: trust)
        if acceptingTerms { try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion) }
    }

    /// The trust `unitool recipes trust PACK` gives: every file of each pack that needs it, over
    /// the bundled recipes.
    public static func trusting(_ packs: [URL]) throws -> RecipeTrust {
        var trust = RecipeTrust()
        for pack in packs {
            for item in try RecipeCatalog.packItems(in: pack, over: [Fixtures.recipes]) {
                trust.trust(portal: item.portal, file: item.file, content: item.content)
            }
        }
        return trust
    }

    /// Runs `body` with a service for `user` on `portal` as given (already pointed where it is,
    /// not relocated), with `password` and the user's own values from `userValues`; the
    /// connection is closed afterwards whatever happens.
    public func withService<T: Sendable>(
        for portal: PortalRecipe, user: String = "alice", password: String = "",
        userValues: @escaping UserValueProvider = PortalConnection.noUserValues,
        _ body: (PortalService, PortalConnection) async throws -> T
    ) async throws -> T {
        let secret = Secret(password)
        return try await serving(portal, user: user, password: { secret }, userValues: userValues, body)
    }
}
