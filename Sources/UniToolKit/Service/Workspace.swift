import Foundation
import Logging
import Synchronization

/// How a connection treats the user's saved session.
public enum SessionUse: Sendable, Equatable {
    /// Loads the saved session and saves it after each command: every ordinary command.
    case saved
    /// Starts with no cookies, to prove a password by really logging in (`auth login`); a login
    /// that succeeds is saved.
    case fresh
    /// Neither loads nor saves it: a diagnosis or a public command leaves the session as it was.
    case untouched
}

/// Finds where a portal really is before a connection is made to it: the demo's recipe moved
/// to a demo university started for the run (stopped by `stop`), or to one already running.
/// A real portal is where its recipe says. The host supplies it, since only the host may
/// start a demo; tests point it at their own.
public typealias PortalLocator = @Sendable (PortalRecipe) async throws -> (portal: PortalRecipe, stop: (@Sendable () async -> Void)?)

/// The composition root of a process, in the manner of SwiftPM's `Workspace`: made once by a
/// front end's host (the command line, the JSON-RPC and MCP server) or by a test, it holds what
/// every portal connection shares, the places on disk and the stores in them, the HTTP settings,
/// the history, the user's values, the clock and the logger, and it is the one factory of
/// connections and services. A test makes one with `Locations.sandbox(root)` and so runs the
/// production wiring without touching the user's folders.
///
/// The policies that do not depend on the front end are decided here, once: where the portal
/// is (`locate`), how a public command (`login: false`) connects, and through which session its
/// terms are read.
public final class Workspace: Sendable {
    public let locations: Locations
    /// The HTTP settings of every connection (`--timeout`, `--insecure`, `--trace`).
    public let http: HTTPSession.Configuration
    public let logger: Logger
    /// What "now" is for every service (`FixedClock`).
    public let clock: @Sendable () throws -> Date
    /// The user's own values (`config set value.NAME`) of a portal, for a recipe's `user_values`.
    let userValues: @Sendable (_ portal: String) -> UserValueProvider
    let locator: PortalLocator
    private let historyChoice: HistoryChoice
    private let openedHistory = Mutex<HistoryStore??>(nil)

    /// Whether runs are recorded (`history`, `watch`, `--offline`).
    public enum HistoryChoice: Sendable {
        /// None is kept.
        case none
        /// Kept in `locations.historyFile`, runs older than this many days dropped.
        case kept(retentionDays: Int)
    }

    public init(
        locations: Locations, http: HTTPSession.Configuration = .init(), history: HistoryChoice = .none,
        userValues: @escaping @Sendable (_ portal: String) -> UserValueProvider = { _ in PortalConnection.noUserValues },
        clock: @escaping @Sendable () throws -> Date = { try FixedClock.now() },
        locate: @escaping PortalLocator = { ($0, nil) }, logger: Logger
    ) {
        self.locations = locations
        self.http = http
        self.historyChoice = history
        self.userValues = userValues
        self.clock = clock
        self.locator = locate
        self.logger = logger
    }

    /// Saved sessions, one per portal and user.
    public var sessions: SessionStore { SessionStore(directory: locations.sessions) }
    /// The versions of the terms of use the user accepted.
    public var acceptedTerms: AcceptedTermsStore { AcceptedTermsStore(directory: locations.acceptedTerms) }
    /// The values portals last offered for an option.
    public var offeredValues: OfferedValuesStore { OfferedValuesStore(directory: locations.offeredValues) }
    /// Where a page that no longer matches its recipe is kept (`DriftReport`).
    public var driftReports: URL { locations.driftReports }

    /// The history of recipe runs, opened the first time it is asked for and then shared. When
    /// it cannot be opened (a read-only home), commands still work and the log says once why
    /// nothing is recorded.
    public var history: HistoryStore? {
        guard case .kept(let days) = historyChoice else { return nil }
        return openedHistory.withLock { opened in
            if let opened { return opened }
            let store: HistoryStore?
            do {
                store = try HistoryStore(file: locations.historyFile, retentionDays: days)
            } catch {
                logger.warning("\(HistoryStore.unavailableWarning(error))")
                store = nil
            }
            opened = .some(store)
            return store
        }
    }

    /// The user's account on `portal`, with its session in this workspace's store.
    public func account(_ portal: PortalRecipe, user: String) -> Account {
        Account(portal: portal, user: user, sessions: sessions)
    }

    /// Where `portal` really is (`PortalLocator`).
    public func locate(_ portal: PortalRecipe) async throws -> (portal: PortalRecipe, stop: (@Sendable () async -> Void)?) {
        try await locator(portal)
    }

    /// A connection to `portal`, already located, as `user`: the one way every front end and
    /// every test makes one. It is closed by whoever made it (`withService` does).
    public func connection(
        to portal: PortalRecipe, as user: String, credentials: @escaping CredentialProvider, use: SessionUse = .saved,
        termsThrough: PortalConnection? = nil
    ) -> PortalConnection {
        PortalConnection(portal: portal, user: user, credentials: credentials, use: use, in: self, termsThrough: termsThrough)
    }

    /// What a public command (`login: false`) connects with: no user, no saved session, and a
    /// login, should the portal ask for one, refused with `reason`. Its terms version, which many
    /// portals keep behind the login, is read through the saved session of `namedUser` if there
    /// is one (a connection that never logs in).
    public func publicConnection(to portal: PortalRecipe, namedUser: String?, reason: String) -> PortalConnection {
        var termsReader: PortalConnection?
        if portal.terms != nil, let named = namedUser, sessions.stamp(portal: portal.id, user: named) != nil {
            termsReader = connection(
                to: portal, as: named,
                credentials: {
                    throw UniToolError(
                        .credentialsMissing,
                        localized(
                            "cannot check the terms of use of \(portal.name): its terms-of-use version is behind the login, and the saved session of \(named) it was asked through has ended"
                        ),
                        hint: localized(
                            "log in again with 'unitool auth login --portal \(portal.id)'; public commands then read the terms through that session"
                        )
                    )
                })
        }
        return connection(
            to: portal, as: "", credentials: PortalConnection.noLogin(because: reason), use: .untouched, termsThrough: termsReader)
    }

    /// Who a connection for `recipe` is: for a public command (`login: false`) nobody, whoever
    /// the user is; for any other, `user` with `credentials`.
    public func connection(
        for recipe: DataRecipe, on portal: PortalRecipe, as user: String, credentials: @escaping CredentialProvider
    ) -> PortalConnection {
        guard recipe.login else {
            return publicConnection(
                to: portal, namedUser: user.isEmpty ? nil : user,
                reason: localized("'\(recipe.command)' is a public command (login: false in \(recipe.file))"))
        }
        return connection(to: portal, as: user, credentials: credentials)
    }

    /// Runs `body` with a service over `connection`, and closes the connection afterwards,
    /// whatever `body` does (async-http-client traps on a client never shut down).
    public func withService<T: Sendable>(
        over connection: PortalConnection, _ body: (PortalService) async throws -> T
    ) async throws -> T {
        let result = await Result { try await body(PortalService(connection: connection, clock: clock)) }
        await connection.close()
        return try result.get()
    }
}
