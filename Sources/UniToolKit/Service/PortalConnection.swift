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
    private let logins = LoginCoordinator()
    /// The session and terms as this command found them (`ConnectionState`), under one lock.
    let state: Mutex<ConnectionState>

    /// How this connection treats the terms of use (`TermsPolicy`).
    let terms: TermsPolicy
    /// The values the portal last offered for each option, for completion and offline checks.
    let offeredValues: OfferedValuesStore
    /// Where successful runs are recorded, for `history`, `watch` and `--offline`; nil keeps none.
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
                .loginFailed, "\(reason), but the portal asked for a login",
                hint: "the portal no longer publishes this without a login; remove 'login: false' from the recipe, and give --user")
        }
    }

    /// Closes the HTTP connections. It saves nothing: each command saved the session as the
    /// portal left it (`settlingSession`).
    public func close() async {
        await termsThrough?.close()
        await session.shutdown()
    }

    /// Runs one command (a CLI command, a JSON-RPC call) and then saves the session as the portal
    /// left it, whether the command succeeded or not: a cookie the portal deleted on its
    /// time-out page must not be sent again by the next run. Only a login that failed half-way
    /// is not kept (the jar from before it is saved instead).
    ///
    /// After a success a failure to save is the command's error; after a failure the command's
    /// own error is what the user needs, and the save problem is only logged.
    public func settlingSession<T>(_ body: (PortalConnection) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            do {
                try saveSession()
            } catch let saveError {
                logger.warning("the session could not be saved after the failed command: \(saveError)")
            }
            throw error
        }
        try saveSession()
        return result
    }

    /// Writes the cookie jar to the session store, as the portal left it; after a failed login,
    /// the jar from before that login.
    ///
    /// A jar that has not changed since it was loaded or last saved is not written again: the
    /// write is atomic, locked and fsynced, and the benchmarks showed it dominating a warm
    /// `recipes.run` over JSON-RPC.
    public func saveSession() throws {
        let current = session.cookieJar
        guard let jar = state.withLock({ $0.jarToSave(current: current) }), let store = writableStore() else { return }
        try store.save(jar, portal: portal.id, user: user)
        let stamp = store.stamp(portal: portal.id, user: user)
        state.withLock { $0.onDisk(jar, stamp: stamp) }
    }

    /// The session store, unless its folder cannot be written: then this run goes on without
    /// saving (said once, as a warning) rather than failing a command that needs no file.
    private func writableStore() -> SessionStore? {
        guard let store else { return nil }
        return state.withLock { state in
            if let writable = state.storeWritable { return writable ? store : nil }
            let canWrite = store.isWritable(portal: portal.id, user: user)
            state.storeWritable = canWrite
            if !canWrite {
                logger.warning(
                    "cannot write to \(store.directory.path): this run works without saving its session, so the next one logs in again. Make the folder writable (or set XDG_STATE_HOME) to keep sessions"
                )
            }
            return canWrite ? store : nil
        }
    }

    /// Logs in from the start page, whatever the saved session says. The observer, if any, is
    /// told about each login page as the flow leaves it.
    public func logIn(observer: LoginObserver? = nil) async throws -> Page {
        let flow = loginFlow(observer: observer)
        return try await keepingJarIfLoginFails { try await flow.logIn(credentials: try self.credentials()) }
    }

    /// Proves the password: a login from the start page that must have asked for it. `auth login`
    /// and `auth.login` both call it on a connection that started empty, so neither a saved session
    /// nor a live IdP session can let a wrong password pass unchecked. A login that never asked
    /// is `loginFailed`, and the caller stores nothing.
    public func provePassword() async throws {
        let asked = Mutex(false)
        let provide = credentials
        let flow = loginFlow()
        _ = try await keepingJarIfLoginFails {
            var tracked = try provide()
            let source = tracked.password
            tracked.password = {
                asked.withLock { $0 = true }
                return try source()
            }
            return try await flow.logIn(credentials: tracked)
        }
        guard asked.withLock({ $0 }) else {
            throw UniToolError(
                .loginFailed, "the portal let \(user) in without asking for a password, so unitool could not check it; nothing was stored",
                hint: "the login service may remember this machine; sign out of it in a browser, then log in again")
        }
    }

    /// Runs a login; if it fails, remembers the jar from before it, so that the cookies of a
    /// half-finished login (an IdP's form state, a consent page's) are never saved.
    private func keepingJarIfLoginFails(_ login: () async throws -> Page) async throws -> Page {
        let before = session.cookieJar
        do {
            let landing = try await login()
            state.withLock { $0.loginSucceeded() }
            return landing
        } catch {
            state.withLock { $0.loginFailed(jarBefore: before) }
            throw error
        }
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

    /// Passes when the current terms of use are accepted; otherwise asks the call's `Interaction`
    /// (a person at a terminal may accept), and refuses when the answer is no. Every data
    /// call passes here inside the service, so no front end can skip it: `perform` and `fetch`
    /// before they send anything, `run` while its pages are fetched (`whileCheckingTerms`). unitool
    /// fails closed.
    public func ensureTermsAccepted() async throws {
        if state.withLock({ $0.termsCleared }) { return }
        let status = try await termsStatus(terms.accepted)
        if let refusal = status.refusal, let current = status.current {
            let interaction = CurrentInteraction.value
            guard try await interaction.acceptTerms(status, through: self) else {
                throw interaction.termsRefusalHint.map { UniToolError(refusal.kind, refusal.message, hint: $0) } ?? refusal
            }
            try terms.accepted.save(AcceptedTerms(portal: portal.id, version: current.version))
        }
        state.withLock { $0.termsCleared = true }
    }

    /// Runs `fetch` while the terms of use are checked, instead of after: a warm run then costs
    /// one round trip, not two. What `fetch` read is handed back only once the terms are found
    /// accepted; a refusal, or a check that cannot be made, throws it away unseen, and that
    /// error is the run's. `fetch` may read pages with the session it has, but a login it meets
    /// waits for the verdict (`loadPage`), so no password is sent, and no prompt shown, for a
    /// portal whose terms the user has not accepted. Actions, which change something, check first.
    ///
    /// Only once the user has accepted some version of this portal's terms: on the very first
    /// run nothing is fetched until they are accepted. And only with a session that may still
    /// be valid (the jar holds cookies for the portal): a cold one meets the login on both
    /// requests, so the terms check logs in first and the fetch follows on its session, instead
    /// of a second request to the portal that can only wait for that login.
    func whileCheckingTerms<T: Sendable>(_ fetch: @escaping @Sendable () async throws -> T) async throws -> T {
        if state.withLock({ $0.termsCleared }) { return try await fetch() }
        guard (try? terms.accepted.load(portal: portal.id)) != nil, hasPortalCookies else {
            try await ensureTermsAccepted()
            return try await fetch()
        }
        let verdict = TermsVerdict()
        // Both are children of this call: cancelling it cancels them, and it returns only once
        // both have ended. The page asked for meanwhile is let arrive and then dropped on a
        // refusal, not cancelled: a request cut off mid-way leaves a broken connection behind
        // (and once crashed the demo as it stopped). It ends soon either way: a login it meets
        // waits for the verdict and then fails at once.
        let (checked, fetched) = await withTaskGroup(of: (Result<Void, any Error>?, Result<T, any Error>?).self) { group in
            group.addTask {
                let checked = await Result { try await self.ensureTermsAccepted() }
                verdict.settle(checked)
                return (checked, nil)
            }
            group.addTask { (nil, await Result { try await Self.$termsVerdict.withValue(verdict) { try await fetch() } }) }
            var checked: Result<Void, any Error> = .failure(CancellationError())
            var fetched: Result<T, any Error> = .failure(CancellationError())
            for await ended in group {
                if let result = ended.0 { checked = result }
                if let result = ended.1 { fetched = result }
            }
            return (checked, fetched)
        }
        try checked.get()
        return try fetched.get()
    }

    /// Whether the jar holds a cookie for the portal's base address or a service's: a session
    /// that may still be valid. None means the next page meets the login.
    var hasPortalCookies: Bool {
        let jar = session.cookieJar
        return ([portal.baseURL] + portal.services.values).contains { jar.header(for: $0) != nil }
    }

    /// The terms check that a run started beside its fetch (`whileCheckingTerms`): a login
    /// waits for it.
    @TaskLocal static var termsVerdict: TermsVerdict?

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

    /// Whether a redirect leads to the login service: the IdP's origin, an origin a password may
    /// go to, or the login service's path under the portal's own origin.
    nonisolated func leadsToLogin(_ url: URL, flow: LoginFlow) -> Bool {
        if portal.isOwn(url) { return flow.isLoginService(url) }
        return url.origin == portal.idpURL.origin || portal.credentialOrigins.contains(url.origin)
    }

    /// The policy every request a recipe causes passes before it is sent.
    var originPolicy: OriginPolicy { OriginPolicy(portal: portal) }

    /// `loadPage` for any request: `send` is asked again after a login the portal asked for.
    /// A POST that meets the login is sent again once, after it, as a person would resend the
    /// form after signing in; it was never received by the portal the first time.
    func loadPage(
        _ url: URL, isPost: Bool, as kind: OriginPolicy.RequestKind, recipe: String? = nil, send: @Sendable () async throws -> Page
    ) async throws -> Page {
        if let refusal = originPolicy.refusal(kind, to: url, recipe: recipe) { throw refusal }
        var seen = await logins.count
        let flow = loginFlow()
        // The first request of the connection on its way to the login service claims the login;
        // another one stops at its redirect there and waits for that login: then it asks again,
        // or, if no login came of it, goes on where its redirect led. The login service is asked
        // once, as a browser's one tab would. A page fetched while the terms are checked always
        // stops there until the check is done, and never claims: its login waits for the terms
        // check, which may itself be signing in.
        let claim = LoginCoordinator.Claim()
        let logins = self.logins
        let gate = { @Sendable (mayClaim: Bool) in
            HTTPSession.RedirectGate { next in
                guard self.leadsToLogin(next, flow: flow) else { return false }
                return await logins.holds(next, for: claim, mayClaim: mayClaim)
            }
        }
        var page: Page
        do {
            page = try await HTTPSession.$redirectGate.withValue(gate(Self.termsVerdict == nil)) { try await send() }
        } catch {
            await logins.release(claim)
            throw error
        }
        // Each service of a university signs on by itself, through the IdP's session once there
        // is one: a bounce after another service's login is this service's own sign-on, with no
        // password. A round may only wait for another service's login, so two rounds per
        // service; a bounce after that is a login that did not take.
        var rounds = 2 * (portal.services.count + 1)
        // The claim is given back on every way out, and before this returns: another request
        // waiting for it must not wait on a task left behind.
        let settled = await Result { () async throws -> Page in
            while try page.heldRedirect != nil || (!Self.isBareError(page, own: portal.isOwn(page.url)) && flow.needsLogin(page)) {
                guard rounds > 0 else {
                    throw UniToolError(
                        .loginFailed, "the portal asked for a login again right after a successful one",
                        hint: "the portal may not accept unitool's cookies; run with --verbose to see every page")
                }
                rounds -= 1
                if page.heldRedirect != nil {
                    if let verdict = Self.termsVerdict { try await verdict.value() }
                    await logins.waitForClaim(other: claim)
                    seen = await logins.count
                    // The page itself again, as a browser tab is reloaded once another has signed in.
                    // Never on to where the held redirect pointed: its cookies were left out of the
                    // jar (`HTTPSession.redirectGate`), and the address carries a login state (OIDC's
                    // `state`, a SAML request's ID) that only they tied to this session, while the
                    // other request's login, whether the login flow ran or the login service's
                    // session answered by redirects alone, has given the session its own. Either the
                    // session now serves the page, or the page's own fresh redirect leads to the
                    // login service, which this request may now claim: the terms are checked.
                    // A POST whose first answer led elsewhere before the login (a 303 to a page that
                    // then sent the browser to the login service) was received: the page it led to
                    // is asked for, not the POST sent again.
                    if isPost, page.hops.count > 1 {
                        let reached = page.url
                        page = try await HTTPSession.$redirectGate.withValue(gate(true)) { try await session.get(reached) }
                    } else {
                        page = try await HTTPSession.$redirectGate.withValue(gate(true)) { try await send() }
                    }
                    continue
                }
                // Fetched while the terms are being checked: log in only once they are accepted.
                if let verdict = Self.termsVerdict { try await verdict.value() }
                let bounced = page
                let landing = try await logins.logIn(unlessDoneSince: seen) {
                    self.logger.debug("the portal asks for a login at \(bounced.url.redactedForLog)")
                    // The login's pages are no command's: they carry none of its headers, and hold
                    // none of its redirects.
                    return try await HTTPSession.$commandHeaders.withValue([]) {
                        try await HTTPSession.$redirectGate.withValue(nil) {
                            // A POST's address is no page to come back to (a GET of it may not exist): log
                            // in from the start page instead, then send the POST again.
                            if isPost { return try await self.logIn() }
                            return try await self.logInOnce(from: bounced, asking: url, flow: flow)
                        }
                    }
                }
                await logins.release(claim)
                seen = await logins.count
                // SAML's RelayState usually brings the browser back to the page it asked for (for a
                // GET; a POST's body is not part of that address, so it is sent again).
                if let landing, !isPost, LoginFlow.isSameRequest(landing.url, url) {
                    page = landing
                } else {
                    page = try await send()
                }
            }
            return page
        }
        await logins.release(claim)
        page = try settled.get()
        guard (200..<300).contains(page.status) else {
            if page.status == 431 {
                throw UniToolError(
                    .portalError,
                    "the portal sent more than unitool accepts back: it refused the request for \(page.url.redactedForLog) as too large (431), because of the cookies it set earlier",
                    hint:
                        "end the saved session with 'unitool auth logout --portal \(portal.id)' (add --keep-password to keep the password), then run the command again"
                )
            }
            throw UniToolError(
                .portalError, "the portal answered \(page.status) for \(page.url.redactedForLog)",
                hint: page.status == 404 ? "the page may have moved; check 'fetch' in the recipe" : "try again later")
        }
        return page
    }

    /// "Not found" (404, 410) with no body from the portal's own origin: no login page, since
    /// there is nothing on it to sign in with, and no page to parse. Its status is the answer
    /// ("the portal answered 404"), never a layout change because an empty body does not parse
    /// as HTML. Pure.
    static func isBareError(_ page: Page, own: Bool) -> Bool {
        own && (page.status == 404 || page.status == 410)
            && page.body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// Logs in, taking turns with other unitool processes of the same portal and user: the
    /// login lock is held until the new session is saved, so a process that had to wait finds
    /// that session and uses it instead of logging in again.
    private func logInOnce(from bounced: Page, asking url: URL, flow: LoginFlow) async throws -> Page {
        guard let store = writableStore() else {
            return try await keepingJarIfLoginFails {
                try await flow.continueLogin(from: bounced, credentials: try self.credentials(), returningTo: url)
            }
        }
        let lock = try await AsyncFileLock.acquire(store.file(portal: portal.id, user: user).path + ".login.lock") { [portal] in
            CurrentInteraction.report("waiting for another unitool to finish signing in to \(portal.name)")
        }
        var bounced = bounced
        // Another process may have saved a new session since this one loaded its own, whether
        // or not this one had to wait for the lock.
        // (Not when this connection was asked to start empty, to check a password for real.)
        let stamp = store.stamp(portal: portal.id, user: user)
        let sessionChanged = state.withLock { $0.isNewer(stamp) }
        if sessionChanged {
            logger.debug("another unitool process logged in meanwhile; using its session")
            let saved = store.load(portal: portal.id, user: user)
            session.adopt(saved)
            state.withLock { $0.onDisk(saved, stamp: stamp) }
        }
        if lock.waited || sessionChanged {
            let page = try await session.get(url)
            if try !flow.needsLogin(page) { return page }
            bounced = page
        }
        let landing = try await keepingJarIfLoginFails {
            try await flow.continueLogin(from: bounced, credentials: try self.credentials(), returningTo: url)
        }
        try saveSession()
        withExtendedLifetime(lock) {}
        return landing
    }
}

/// One login at a time per connection, shared by everyone who needs it.
actor LoginCoordinator {
    /// One request's standing on the way to the login service (`holds`).
    final class Claim: Sendable {}

    /// The request on its way to the login service, if one is; others stop at their redirect.
    private var claimant: ObjectIdentifier?
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Whether the request of `claim` must stop at its redirect to the login service (`next`):
    /// yes while another request holds the claim, and always for one that may not claim (a page
    /// fetched beside the terms check); no for the claimant itself, and no for the first to
    /// come, which takes the claim.
    func holds(_ next: URL, for claim: Claim, mayClaim: Bool) -> Bool {
        let id = ObjectIdentifier(claim)
        if let claimant { return claimant != id }
        guard mayClaim else { return true }
        claimant = id
        return false
    }

    /// Gives up `claim`, if it is the claim: once its login is done, or its request ended
    /// without one. The requests that waited ask again.
    func release(_ claim: Claim) {
        guard claimant == ObjectIdentifier(claim) else { return }
        claimant = nil
        let resumed = waiting
        waiting = []
        for continuation in resumed { continuation.resume() }
    }

    /// Waits until no other request holds the claim.
    /// How many requests wait for a claimant now (for tests that release only once one waits).
    var waitingCount: Int { waiting.count }

    func waitForClaim(other claim: Claim) async {
        guard let claimant, claimant != ObjectIdentifier(claim) else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// How many logins have finished; a caller that saw an older count knows its bounce may be
    /// answered already.
    private(set) var count = 0
    private var inFlight: Task<Page, any Error>?

    /// Runs `login` unless one finished since the caller's `seen` count, or joins the one in
    /// flight. Returns the page the login landed on to the caller that ran it, nil to the others.
    func logIn(unlessDoneSince seen: Int, _ login: @escaping @Sendable () async throws -> Page) async throws -> Page? {
        if count > seen { return nil }
        if let inFlight {
            _ = try await inFlight.value
            return nil
        }
        // Unstructured by necessity: every request that meets the login while it runs awaits
        // this one login, and the actor must not be held while it runs.
        let task = Task { try await login() }
        inFlight = task
        do {
            let page = try await task.value
            count += 1
            inFlight = nil
            return page
        } catch {
            inFlight = nil
            throw error
        }
    }
}

/// The outcome of a terms check that a run started beside its fetch (`whileCheckingTerms`),
/// settled once; a login the fetch meets waits for it (`value()`).
final class TermsVerdict: Sendable {
    private enum State {
        case pending([CheckedContinuation<Void, any Error>])
        case settled(Result<Void, any Error>)
    }
    private let state = Mutex(State.pending([]))

    /// Settles the verdict, and wakes everyone who waits for it. Only the first call counts.
    func settle(_ result: Result<Void, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .pending(let waiting) = state else { return [] }
            state = .settled(result)
            return waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }

    /// Returns once the terms are found accepted; throws the check's error otherwise.
    func value() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLock { state -> Result<Void, any Error>? in
                switch state {
                case .settled(let result): return result
                case .pending(let waiting):
                    state = .pending(waiting + [continuation])
                    return nil
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
