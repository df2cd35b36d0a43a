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
    private let credentials: CredentialProvider
    private let store: SessionStore?
    private let logger: Logger
    /// The terms version, asked of the portal at most once per connection (so once per run).
    private let termsCache = Mutex<CurrentTerms?>(nil)
    /// Makes concurrent requests share one login.
    private let logins = LoginCoordinator()
    /// The jar as it is on disk, so that an unchanged session is not written again.
    private let savedJar: Mutex<CookieJar?>
    /// The session file as this connection last read or wrote it: a different stamp means
    /// another process saved a session since.
    private let diskStamp: Mutex<FileStamp?>
    private let startedEmpty: Bool
    /// Whether the session folder can be written, found out the first time it matters.
    private let storeWritable = Mutex<Bool?>(nil)
    /// The jar as it was when a login that then failed began: what is saved instead of the
    /// half-finished login's cookies. Nil once a login succeeds.
    private let jarBeforeFailedLogin = Mutex<CookieJar?>(nil)
    /// Whether a login finished on this connection: one that started empty (to check a
    /// password) saves nothing until then, so a wrong password never replaces a good session.
    private let loggedIn = Mutex(false)

    /// How this connection treats the terms of use (`TermsPolicy`).
    private let terms: TermsPolicy
    /// Set once the terms were found accepted (or accepted now) on this connection.
    private let termsCleared = Mutex(false)

    /// - Parameters:
    ///   - keepsSession: load the saved session and save it after each command (`settlingSession`);
    ///     false for a diagnosis or a public command, which leave the user's session alone.
    ///   - sessions: where sessions are kept; the user's state folder unless a test says otherwise.
    ///   - startEmpty: begin with no cookies even if a session is saved (to check a password by
    ///     really logging in); a successful login still saves its session.
    ///   - terms: the terms-of-use gate every data call passes first.
    public init(
        portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, keepsSession: Bool = true,
        sessions: SessionStore = SessionStore(), configuration: HTTPSession.Configuration = .init(), startEmpty: Bool = false,
        terms: TermsPolicy = TermsPolicy(), logger: Logger
    ) {
        let store = keepsSession ? sessions : nil
        self.portal = portal
        self.user = user
        self.credentials = credentials
        self.terms = terms
        self.store = store
        self.logger = logger
        self.diskStamp = Mutex(store?.stamp(portal: portal.id, user: user))
        self.startedEmpty = startEmpty
        let loaded = startEmpty ? nil : store?.load(portal: portal.id, user: user)
        let jar = loaded ?? CookieJar()
        self.savedJar = Mutex(loaded)
        var configuration = configuration
        if portal.idpURL != portal.baseURL { configuration.loginServiceURL = portal.idpURL }
        self.session = HTTPSession(jar: jar, configuration: configuration, logger: logger)
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
        if startedEmpty, !loggedIn.withLock({ $0 }) { return }
        guard let store = writableStore() else { return }
        let jar = jarBeforeFailedLogin.withLock { $0 } ?? session.cookieJar
        guard savedJar.withLock({ $0 != jar }) else { return }
        try store.save(jar, portal: portal.id, user: user)
        savedJar.withLock { $0 = jar }
        diskStamp.withLock { $0 = store.stamp(portal: portal.id, user: user) }
    }

    /// The session store, unless its folder cannot be written: then this run goes on without
    /// saving (said once, as a warning) rather than failing a command that needs no file.
    private func writableStore() -> SessionStore? {
        guard let store else { return nil }
        return storeWritable.withLock { writable in
            if let writable { return writable ? store : nil }
            let canWrite = store.isWritable(portal: portal.id, user: user)
            writable = canWrite
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
        let flow = LoginFlow(portal: portal, session: session, logger: logger, observer: observer)
        return try await keepingJarIfLoginFails { try await flow.logIn(credentials: try self.credentials()) }
    }

    /// Runs a login; if it fails, remembers the jar from before it, so that the cookies of a
    /// half-finished login (an IdP's form state, a consent page's) are never saved.
    private func keepingJarIfLoginFails(_ login: () async throws -> Page) async throws -> Page {
        let before = session.cookieJar
        do {
            let landing = try await login()
            jarBeforeFailedLogin.withLock { $0 = nil }
            loggedIn.withLock { $0 = true }
            return landing
        } catch {
            jarBeforeFailedLogin.withLock { if $0 == nil { $0 = before } }
            throw error
        }
    }

    /// Whether the saved session still opens the portal without a login. Sends one request.
    public func isSessionValid() async throws -> Bool {
        let page = try await session.get(try portal.url(for: portal.login.start))
        return try !LoginFlow(portal: portal, session: session, logger: logger).needsLogin(page)
    }

    /// A portal page through the session, once the terms of use are accepted (`TermsPolicy`),
    /// logging in first if the portal asks for it: `unitool page` and `session.fetch`.
    public func fetch(_ pathOrURL: String) async throws -> Page {
        try await ensureTermsAccepted()
        return try await loadPage(pathOrURL)
    }

    /// Passes when the current terms of use are accepted; otherwise asks the policy's `ask`
    /// (a person at a terminal), and refuses when there is none or the answer is no. Every data
    /// call (`run`, `perform`, `fetch`) passes here first, so no front end can skip it: unitool
    /// fails closed.
    public func ensureTermsAccepted() async throws {
        if termsCleared.withLock({ $0 }) { return }
        let status = try await termsStatus(terms.accepted)
        if let refusal = status.refusal, let current = status.current {
            guard let ask = terms.ask, try await ask(status, self) else {
                throw terms.refusalHint.map { UniToolError(refusal.kind, refusal.message, hint: $0) } ?? refusal
            }
            try terms.accepted.save(AcceptedTerms(portal: portal.id, version: current.version))
        }
        termsCleared.withLock { $0 = true }
    }

    /// A portal page through the session, logging in first if the portal asks for it; no terms
    /// check (the terms API and the terms page themselves come this way).
    ///
    /// Concurrent fetches that all meet the login share one: the first logs in, the others wait
    /// for it and then ask for their page again.
    func loadPage(_ pathOrURL: String) async throws -> Page {
        let url = try portal.url(for: pathOrURL)
        let loginsBefore = await logins.count
        var page = try await session.get(url)
        let flow = LoginFlow(portal: portal, session: session, logger: logger)
        if try flow.needsLogin(page) {
            let bounced = page
            let landing = try await logins.logIn(unlessDoneSince: loginsBefore) {
                self.logger.debug("the portal asks for a login at \(bounced.url.redactedForLog)")
                return try await self.logInOnce(from: bounced, asking: url, flow: flow)
            }
            // SAML's RelayState usually brings the browser back to the page it asked for.
            if let landing, landing.url.absoluteString == url.absoluteString {
                page = landing
            } else {
                page = try await session.get(url)
                if try flow.needsLogin(page) {
                    throw UniToolError(
                        .loginFailed, "the portal asked for a login again right after a successful one",
                        hint: "the portal may not accept unitool's cookies; run with --verbose to see every page")
                }
            }
        }
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

    /// Logs in, taking turns with other unitool processes of the same portal and user: the
    /// login lock is held until the new session is saved, so a process that had to wait finds
    /// that session and uses it instead of logging in again.
    private func logInOnce(from bounced: Page, asking url: URL, flow: LoginFlow) async throws -> Page {
        guard let store = writableStore() else {
            return try await keepingJarIfLoginFails { try await flow.continueLogin(from: bounced, credentials: try self.credentials()) }
        }
        let lock = try await AsyncFileLock.acquire(store.file(portal: portal.id, user: user).path + ".login.lock")
        var bounced = bounced
        // Another process may have saved a new session since this one loaded its own, whether
        // or not this one had to wait for the lock.
        // (Not when this connection was asked to start empty, to check a password for real.)
        let stamp = store.stamp(portal: portal.id, user: user)
        let sessionChanged = !startedEmpty && stamp != nil && stamp != diskStamp.withLock { $0 }
        if sessionChanged {
            logger.debug("another unitool process logged in meanwhile; using its session")
            let saved = store.load(portal: portal.id, user: user)
            session.adopt(saved)
            savedJar.withLock { $0 = saved }
            diskStamp.withLock { $0 = stamp }
        }
        if lock.waited || sessionChanged {
            let page = try await session.get(url)
            if try !flow.needsLogin(page) { return page }
            bounced = page
        }
        let landing = try await keepingJarIfLoginFails {
            try await flow.continueLogin(from: bounced, credentials: try self.credentials())
        }
        try saveSession()
        withExtendedLifetime(lock) {}
        return landing
    }

    /// Runs a data recipe: resolves its options, fetches its pages, extracts typed records and
    /// keeps those its filter options allow.
    ///
    /// An option resolved to several values (`--term all`) runs the recipe once per value, at the
    /// same time (within the session's per-host cap), and joins the records in the portal's order.
    public func run(
        _ recipe: DataRecipe, options given: [String: String], source sourceName: String? = nil,
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        guard let source = recipe.source(named: sourceName) else {
            throw UniToolError(
                .usage, "'\(sourceName ?? "")' is not a source of '\(recipe.command)'",
                hint: "use one of: \(recipe.sources.compactMap(\.name).joined(separator: ", "))")
        }
        try await ensureTermsAccepted()
        let (runs, filters) = try await resolveOptions(of: recipe, given: given)
        let extractor = RecordExtractor(recipe: recipe, source: source, today: today)
        let sets = try await withThrowingTaskGroup(of: (Int, [Record]).self) { group in
            for (index, values) in runs.enumerated() {
                group.addTask { (index, try await self.records(extractor, values: values)) }
            }
            var results = [[Record]](repeating: [], count: runs.count)
            for try await (index, records) in group { results[index] = records }
            return results
        }
        return RecordFilter.apply(filters, to: RecordSet(columns: recipe.columns, records: sets.flatMap { $0 }))
    }

    /// Every page of one run of a source: the first, then each `next` link up to `max_pages`.
    private func records(_ extractor: RecordExtractor, values: [String: String]) async throws -> [Record] {
        let source = extractor.source
        var url: URL? = try portal.url(for: try source.fetch.render(values, encode: Template.urlEncode))
        var records: [Record] = []
        var seen: Set<String> = []
        var pages = 0
        while let next = url, pages < source.maxPages, seen.insert(next.absoluteString).inserted {
            let page = try await loadPage(next.absoluteString)
            let document = try extractor.parse(
                page.body, url: page.url, charset: page.charset, charsetOverride: portal.charsetOverride(for: page.url))
            do {
                records += try extractor.extract(from: document).records
            } catch let error as UniToolError where error.kind == .layoutChanged {
                throw DriftReport.save(error, document: document, recipe: extractor.recipe, logger: logger)
            }
            pages += 1
            url = try extractor.nextPage(in: document)
        }
        if url != nil, pages >= source.maxPages {
            logger.warning(
                "\(extractor.recipe.command): stopped after \(source.maxPages) pages (max_pages in \(extractor.recipe.file)); there are more"
            )
        }
        return records
    }

    /// Applies defaults, checks allowed values and looks up symbolic values on the portal.
    /// Returns one set of values per run (several when a value resolves to a list) and the
    /// filters to apply to the records.
    func resolveOptions(of recipe: DataRecipe, given: [String: String]) async throws -> ([[String: String]], [RecordFilter]) {
        for name in given.keys where !recipe.options.contains(where: { $0.name == name }) {
            throw UniToolError(
                .usage, "'\(recipe.command)' has no option --\(name)",
                hint: "see 'unitool \(recipe.command) --help'")
        }
        var values: [String: String] = [:]
        var filters: [RecordFilter] = []
        for option in recipe.options {
            let value = given[option.name] ?? option.defaultValue
            if option.filter != nil {
                if let value { filters.append(try RecordFilter(option: option, value: value)) }
                continue
            }
            guard let value else {
                throw UniToolError(.usage, "'\(recipe.command)' needs --\(option.name)")
            }
            values[option.name] = value
        }
        var runs = [values]
        for option in recipe.options where option.filter == nil {
            let value = values[option.name]!
            if let resolution = option.resolve[value] {
                let page = try await loadPage(try resolution.fetch.render(values, encode: Template.urlEncode))
                let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
                let found: [String]
                switch try document.evaluate(resolution.xpath) {
                case .nodes(let nodes): found = nodes.map { $0.text.collapsingWhitespace() }.filter { !$0.isEmpty }
                case let other: found = [other.stringValue.collapsingWhitespace()].filter { !$0.isEmpty }
                }
                guard !found.isEmpty else {
                    let error = UniToolError(
                        .layoutChanged,
                        "recipe \(recipe.file): cannot find what '--\(option.name) \(value)' means: \"\(resolution.xpath)\" matched nothing on \(page.url.redactedForLog)",
                        hint: "the portal's page may have changed; give the value explicitly, or fix the recipe")
                    throw DriftReport.save(error, document: document, recipe: recipe, logger: logger)
                }
                let chosen = resolution.many ? found : [found[0]]
                logger.debug("--\(option.name) \(value) is \(chosen.joined(separator: ", "))")
                runs = runs.flatMap { run in chosen.map { run.merging([option.name: $0]) { $1 } } }
            } else if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
                throw UniToolError(
                    .usage, "'\(value)' is not a valid value for --\(option.name)",
                    hint: "use one of: \((option.allowedValues + option.resolve.keys.sorted()).joined(separator: ", "))")
            }
        }
        return (runs, filters)
    }

    /// Fills and submits an action's form, such as renewing a loan, and reads the result page.
    /// A refusal by the portal is an `actionRefused` error carrying the portal's own words.
    public func perform(_ action: ActionSpec, of recipe: DataRecipe, argument: String) async throws -> RecordSet {
        let values = [action.argument: argument]
        try await ensureTermsAccepted()
        let page = try await loadPage(try action.fetch.render(values, encode: Template.urlEncode))
        let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
        if let message = try refusal(action, in: document) {
            throw UniToolError(
                .actionRefused, "the portal refused to \(action.name) \(argument): \(message)",
                hint: "the portal's own rules decide this; see its page for details")
        }
        let formXPath = try Template(action.form).render(values, encode: Template.xpathLiteral)
        guard let formNode = try document.select(formXPath).first else {
            let error = UniToolError(
                .layoutChanged,
                "recipe \(recipe.file): action '\(action.name)': no form matching \"\(formXPath)\" on \(page.url.redactedForLog)",
                hint: "check the \(action.argument) (\(argument)); if it is right, the portal's page has changed")
            throw DriftReport.save(error, document: document, recipe: recipe, logger: logger)
        }
        let form = try HTMLForm(formNode, pageURL: page.url)
        let fill = try action.fill.map { (name: $0.name, value: try $0.value.render(values)) }
        let button = try action.submit.flatMap { try formNode.select($0).first }
        if action.submit != nil, button == nil {
            throw UniToolError(
                .layoutChanged, "recipe \(recipe.file): action '\(action.name)': no button matching \"\(action.submit!)\" in the form")
        }
        let submission = try form.submission(values: fill, clicking: button)
        guard submission.url.origin == portal.baseURL.origin else {
            throw UniToolError(
                .unsafeRequest, "refusing to submit '\(action.name)' to \(submission.url.origin), which is not the portal's",
                hint: "the form on \(page.url.redactedForLog) points elsewhere; check the recipe")
        }
        logger.debug("action '\(action.name)': \(submission)")
        let result = try await session.submit(submission)
        let resultDocument = try result.document(charsetOverride: portal.charsetOverride(for: result.url))
        if let message = try refusal(action, in: resultDocument) {
            throw UniToolError(
                .actionRefused, "the portal refused to \(action.name) \(argument): \(message)",
                hint: "the portal's own rules decide this; see its page for details")
        }
        guard try resultDocument.evaluate(action.successWhen).booleanValue else {
            let error = UniToolError(
                .layoutChanged,
                "recipe \(recipe.file): action '\(action.name)': the result page at \(result.url.redactedForLog) matches neither success_when nor refused_when, so unitool cannot tell whether it worked",
                hint: "look at the portal in a browser before trying again")
            throw DriftReport.save(error, document: resultDocument, recipe: recipe, logger: logger)
        }
        var fields: [(name: String, value: FieldValue)] = [(action.argument, .string(argument))]
        if !action.fields.isEmpty {
            let actionRecipe = DataRecipe(
                command: "\(recipe.command) \(action.name)", summary: action.summary, options: [],
                sources: [
                    .init(fetch: action.fetch, parser: .html, namespaces: [:], rows: "/*", next: nil, maxPages: 1, fields: action.fields)
                ],
                actions: [], file: recipe.file, portal: recipe.portal)
            let extracted = try RecordExtractor(recipe: actionRecipe).extract(from: resultDocument)
            fields += extracted.records.first?.fields.filter { $0.name != action.argument } ?? []
        }
        return RecordSet(columns: fields.map(\.name), records: [Record(fields: fields)])
    }

    /// The portal's reason for refusing an action, as the error quotes it: scrubbed of every
    /// secret the session knows and of SAML messages, since a portal's text may repeat them.
    private func refusal(_ action: ActionSpec, in document: Document) throws -> String? {
        try unscrubbedRefusal(action, in: document).map { session.scrubber.scrubMessage($0) }
    }

    private func unscrubbedRefusal(_ action: ActionSpec, in document: Document) throws -> String? {
        guard let refusedWhen = action.refusedWhen else { return nil }
        switch try document.evaluate(refusedWhen) {
        case .nodes(let nodes): return nodes.first.map { $0.text.collapsingWhitespace() }
        case .boolean(let flag): return flag ? "(no reason given)" : nil
        case let value:
            let text = value.stringValue.collapsingWhitespace()
            return text.isEmpty ? nil : text
        }
    }

    // MARK: Terms of use

    /// The terms of use in force now, or nil if the portal publishes no version. The version API
    /// is asked once per connection; it is never cached across runs, so a new version is seen
    /// on the very next command.
    ///
    /// The API is fetched like any page of the portal: where the portal protects it, the bounce
    /// to the login service is followed by a login under the same credential rules, and the API
    /// is asked again, once.
    ///
    /// An answer that is not a readable version is `termsUnavailable`; a network failure keeps its
    /// own kind. Either way unitool fails closed: a version it cannot read is one it cannot compare.
    public func currentTerms() async throws -> CurrentTerms? {
        guard let recipe = portal.terms else { return nil }
        if let cached = termsCache.withLock({ $0 }) { return cached }
        let url = try portal.url(for: recipe.versionAPI)
        let page: Page
        do {
            page = try await loadPage(url.absoluteString)
        } catch let error as UniToolError where [.portalUnreachable, .portalTimeout].contains(error.kind) {
            // A network failure keeps its own kind (exit 20 or 21), as it would for any page:
            // what the user must fix is the connection, not the terms.
            throw UniToolError(
                error.kind, "cannot check the terms of use of \(portal.name): \(error.message)",
                hint: "unitool does not act for you while it cannot tell whether the terms changed; \(error.hint ?? "try again later")")
        } catch let error as UniToolError where error.kind == .portalError {
            throw UniToolError(
                .termsUnavailable, "cannot check the terms of use of \(portal.name): \(error.message)",
                hint:
                    "the portal may be down or in maintenance; unitool does not act for you until it can read the terms version. Try again later"
            )
        }
        guard (200..<300).contains(page.status) else {
            throw UniToolError(
                .termsUnavailable,
                "cannot check the terms of use of \(portal.name): the terms-of-use API at \(page.url.redactedForLog) answered \(page.status)",
                hint: "the portal may be down or in maintenance; try again later")
        }
        let terms = try CurrentTerms.decode(page.body, from: page.url, recipe: recipe)
        logger.debug("the terms of use of \(portal.id) are at version \(terms.version)")
        termsCache.withLock { $0 = terms }
        return terms
    }

    /// Records that the user accepts the terms in force now. With `version`, only if that is
    /// still the current version, so that a script or front end cannot accept terms it never
    /// showed (`staleHint` gets the current version and says what to do instead). Returns the
    /// version accepted, or nil when the portal publishes no terms.
    public func acceptTerms(version: String?, store: AcceptedTermsStore, staleHint: (String) -> String) async throws -> String? {
        guard let current = try await currentTerms() else { return nil }
        if let version, !TermsVersion.same(version, current.version) {
            throw UniToolError(
                .termsVersionStale,
                "version \(version) is not the current version of the terms of use of \(portal.name) (current: \(current.version)); nothing was accepted",
                hint: staleHint(current.version))
        }
        try store.save(AcceptedTerms(portal: portal.id, version: current.version))
        return current.version
    }

    /// The address of one of the portal's own pages, for `unitool page` and `session.fetch`:
    /// they fetch through the user's session, so never from any other origin.
    public func ownPageURL(_ pathOrURL: String) throws -> URL {
        let url = try portal.url(for: pathOrURL)
        guard url.origin == portal.baseURL.origin else {
            throw UniToolError(
                .unsafeRequest, "only the portal's own pages can be fetched, and \(url.origin) is not \(portal.baseURL.origin)",
                hint: "give a path such as /grades, or a URL on the portal")
        }
        return url
    }

    /// The current terms set against what the user accepted.
    public func termsStatus(_ store: AcceptedTermsStore) async throws -> TermsStatus {
        let accepted = try store.load(portal: portal.id)
        return TermsStatus(
            portal: .init(id: portal.id, name: portal.name), current: try await currentTerms(), accepted: accepted)
    }

    /// The terms as text a person can read, and where they are published.
    public func termsText() async throws -> (text: String?, url: URL?) {
        guard let terms = try await currentTerms(), let recipe = portal.terms else { return (nil, nil) }
        if let text = terms.text { return (text, terms.url) }
        guard let url = terms.url else { return (nil, nil) }
        let page = try await loadPage(url.absoluteString)
        let expression = recipe.textXPath ?? "//body"
        guard let node = try page.document(charsetOverride: portal.charsetOverride(for: page.url)).select(expression).first else {
            throw UniToolError(
                .layoutChanged, "recipe \(portal.file): 'terms.text_xpath' \"\(expression)\" matched nothing on \(page.url.redactedForLog)",
                hint: "read the terms at \(url.absoluteString), and fix the recipe")
        }
        return (node.readableText, url)
    }
}

/// One login at a time per connection, shared by everyone who needs it.
actor LoginCoordinator {
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
