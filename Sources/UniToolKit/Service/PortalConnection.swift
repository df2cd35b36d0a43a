import Foundation
import LibXML
import Logging
import Synchronization

/// Supplies credentials only when a login is really needed, so a saved session never
/// touches the keyring or asks for a password.
public typealias CredentialProvider = @Sendable () throws -> Credentials

/// One logged-in (or about to be) connection to a portal: the service API that the CLI and the
/// JSON-RPC server both stand on. "Get me this page as this user" and "run this recipe" are
/// its whole surface; the login happens underneath when the portal asks for it.
public final class PortalConnection: Sendable {
    public let portal: PortalRecipe
    public let user: String
    public let session: HTTPSession
    let credentials: CredentialProvider
    let store: SessionStore?
    let logger: Logger
    /// Makes concurrent requests share one login.
    let logins = LoginCoordinator()
    /// The session and terms as this command found them (`ConnectionState`), under one lock.
    let state: Mutex<ConnectionState>

    /// How this connection treats the terms of use (`TermsPolicy`).
    let terms: TermsPolicy
    /// The values the portal last offered for each option, for completion and offline checks.
    let offeredValues: OfferedValuesStore
    /// The workspace's history, for the steps after a run (`RunHistory` in `PortalService` and
    /// `Watcher`); the connection itself never writes it. Nil keeps none.
    public let history: HistoryStore?
    /// Where the terms version is read instead, for a public command (no user, no cookies): a
    /// connection with the user's saved session, since many portals put the terms API behind the
    /// login. It never logs in.
    let termsThrough: PortalConnection?
    /// A value the user keeps in their own settings, by name, for a recipe's `user_values`.
    let userValues: UserValueProvider
    /// Where a page that no longer matches its recipe is kept (`DriftReport`).
    let driftReports: URL

    /// Made by `Workspace.connection(to:as:credentials:use:termsThrough:)`, the one factory of
    /// every front end and test: the stores, the history, the user's values, the HTTP settings
    /// and the logger are the workspace's.
    ///
    /// - Parameters:
    ///   - use: whether the saved session is loaded and saved (`SessionUse`).
    ///   - termsThrough: for a public command, a connection with the user's saved session to
    ///     read the terms version through.
    init(
        portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, use: SessionUse, in workspace: Workspace,
        termsThrough: PortalConnection?
    ) {
        self.driftReports = workspace.driftReports
        self.termsThrough = termsThrough
        self.userValues = workspace.userValues(portal.id)
        self.history = workspace.history
        self.offeredValues = workspace.offeredValues
        let store = use == .untouched ? nil : workspace.sessions
        let startEmpty = use == .fresh
        self.portal = portal
        self.user = user
        self.credentials = credentials
        self.terms = TermsPolicy(accepted: workspace.acceptedTerms)
        self.store = store
        self.logger = workspace.logger
        let loaded = startEmpty ? nil : store?.load(portal: portal.id, user: user)
        let jar = loaded ?? CookieJar()
        self.state = Mutex(
            ConnectionState(startedEmpty: startEmpty, savedJar: loaded, diskStamp: store?.stamp(portal: portal.id, user: user)))
        var configuration = workspace.http
        if portal.idpURL != portal.baseURL { configuration.loginServiceURL = portal.idpURL }
        if let language = portal.language {
            configuration.acceptLanguage = BrowserRequest.acceptLanguage(portal: language, environment: [:])
        }
        configuration.recipeHeaders = portal.requestHeaders
        configuration.ownOrigins = portal.ownOrigins
        self.session = HTTPSession(jar: jar, configuration: configuration, logger: workspace.logger)
    }

    /// Where no settings are at hand: every user value is missing, and the error says how to give it.
    public static let noUserValues: UserValueProvider = { name, recipe in
        throw UserValues.missing(name, recipe: recipe)
    }

    /// Credentials for a connection that must not log in (a public command, an anonymous terms
    /// check): the login, if the portal asks for one, fails with this reason.
    public static func noLogin(because reason: String) -> CredentialProvider {
        {
            throw UniToolError(
                .loginFailed, localized("\(reason), but the portal asked for a login"),
                hint: localized(
                    "the portal no longer publishes this without a login; remove 'login: false' from the recipe, and give --user"))
        }
    }

    /// Closes the HTTP connections. It saves nothing: each command saved the session as the
    /// portal left it (`settlingSession`).
    public func close() async {
        await termsThrough?.close()
        await session.shutdown()
    }

    /// The saved session of this connection and the logins that renew it (`PortalSession`).
    var savedSession: PortalSession { PortalSession(connection: self) }

    /// Runs one command, then saves the session as the portal left it (`PortalSession.settling`).
    public func settlingSession<T>(_ body: (PortalConnection) async throws -> T) async throws -> T {
        try await savedSession.settling { try await body(self) }
    }

    /// Writes the cookie jar to the session store, as the portal left it (`PortalSession.save`).
    public func saveSession() throws { try savedSession.save() }

    /// Logs in from the start page, whatever the saved session says (`PortalSession.logIn`).
    public func logIn(observer: LoginObserver? = nil) async throws -> Page { try await savedSession.logIn(observer: observer) }

    /// Proves the password by a login that must ask for it (`PortalSession.provePassword`).
    public func provePassword() async throws { try await savedSession.provePassword() }

    /// Takes the session of a login done in a browser (`auth login --browser`): its cookies for
    /// the portal's own origins. One request checks that they open the portal without a login;
    /// then they are saved as this user's session, as any login's are. Cookies that do not sign
    /// in are never saved.
    public func adoptBrowserSession(_ cookies: [Cookie]) async throws {
        let before = session.cookieJar
        session.adopt(CookieJar(cookies: cookies.filter { cookie in portal.ownOrigins.contains { Self.origin($0, holds: cookie) } }))
        guard try await isSessionValid() else {
            session.adopt(before)
            throw UniToolError(
                .loginFailed, localized("the browser's session does not open \(portal.id): its start page still asks for a login"),
                hint: localized(
                    "run 'unitool --portal \(portal.id) auth login --browser' again, and press Enter only once the portal's own page shows you are signed in"
                )
            )
        }
        // A login, as far as the session is concerned: a connection that started empty saves it.
        state.withLock { $0.loginSucceeded() }
        try savedSession.save()
    }

    /// Whether the browser would send `cookie` to `origin` (its host, or a parent domain of it):
    /// the jar's own rule, whatever the cookie's path.
    static func origin(_ origin: String, holds cookie: Cookie) -> Bool {
        guard let host = URL(string: origin)?.host?.lowercased() else { return false }
        return cookie.isSent(toHost: host)
    }

    /// The login flow of this connection, its progress told to the caller's `Interaction`.
    func loginFlow(observer: LoginObserver? = nil) -> LoginFlow {
        LoginFlow(
            portal: portal, session: session, logger: logger, observer: observer, progress: { CurrentInteraction.report($0) },
            tell: { CurrentInteraction.value.tell($0) })
    }

    /// Whether the saved session still opens the portal without a login. Sends one request.
    public func isSessionValid() async throws -> Bool {
        let flow = loginFlow()
        let page = try await session.get(try flow.startAddress())
        return try !flow.needsLogin(page)
    }

    /// A portal page through the session, once the terms of use are accepted (`TermsPolicy`),
    /// logging in first if the portal asks for it: `unitool page` and `session.fetch`.
    public func fetch(_ pathOrURL: String) async throws -> Page {
        try await ensureTermsAccepted()
        return try await loadPage(pathOrURL, as: .page)
    }

    /// The terms gate of this connection (`TermsGate`).
    var termsGate: TermsGate { TermsGate(connection: self) }

    /// Passes when the current terms are accepted, else asks the call's `Interaction`
    /// (`TermsGate.ensureAccepted`).
    public func ensureTermsAccepted() async throws { try await termsGate.ensureAccepted() }

    /// A portal page through the session, logging in first if the portal asks for it; no terms
    /// check (the terms API and the terms page themselves come this way).
    ///
    /// Concurrent fetches that all meet the login share one: the first logs in, the others wait
    /// for it and then ask for their page again.
    ///
    /// `kind` says what asked for the page, and `recipe` which file: the address must be one of
    /// the portal's own (`OriginPolicy`), checked before anything is sent.
    ///
    /// `asFetch` asks as a page's script asks a JSON API, not as a browser loads a page
    /// (`BrowserRequest`): the terms version, a `parse: json` source.
    func loadPage(_ pathOrURL: String, as kind: OriginPolicy.RequestKind, recipe: String? = nil, asFetch: Bool = false) async throws -> Page
    {
        let url = try portal.url(for: pathOrURL)
        return try await loadPage(url, isPost: false, as: kind, recipe: recipe) { try await self.session.get(url, asFetch: asFetch) }
    }

    /// `loadPage` for any request, the login met underneath (`PageLoader.load`).
    func loadPage(
        _ url: URL, isPost: Bool, as kind: OriginPolicy.RequestKind, recipe: String? = nil, send: @Sendable () async throws -> Page
    ) async throws -> Page {
        try await PageLoader(connection: self).load(url, isPost: isPost, as: kind, recipe: recipe, send: send)
    }

    /// The policy every request a recipe causes passes before it is sent.
    var originPolicy: OriginPolicy { OriginPolicy(portal: portal) }

}

/// A part of a connection (`PageLoader`, `PortalSession`, `TermsGate`, `RecipeRunner`,
/// `ActionRunner`): a view over the one `PortalConnection`, which holds all the state; the part
/// reads the connection's portal, session and logger through here.
protocol ConnectionPart: Sendable {
    var connection: PortalConnection { get }
}

extension ConnectionPart {
    var portal: PortalRecipe { connection.portal }
    var session: HTTPSession { connection.session }
    var logger: Logger { connection.logger }
}
