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

    public init(
        portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, store: SessionStore?,
        configuration: HTTPSession.Configuration = .init(), logger: Logger
    ) {
        self.portal = portal
        self.user = user
        self.credentials = credentials
        self.store = store
        self.logger = logger
        let jar = store?.load(portal: portal.id, user: user) ?? CookieJar()
        self.session = HTTPSession(jar: jar, configuration: configuration, logger: logger)
    }

    /// Saves the session for the next run and closes the connections.
    public func close() async {
        await session.shutdown()
    }

    /// Writes the cookie jar to the session store. Called after a successful command only, so a
    /// failed run never replaces a good saved session with a broken one.
    public func saveSession() throws {
        try store?.save(session.cookieJar, portal: portal.id, user: user)
    }

    /// Logs in from the start page, whatever the saved session says. The observer, if any, is
    /// told about each login page as the flow leaves it.
    public func logIn(observer: LoginObserver? = nil) async throws -> Page {
        let flow = LoginFlow(portal: portal, session: session, logger: logger, observer: observer)
        return try await flow.logIn(credentials: try credentials())
    }

    /// Whether the saved session still opens the portal without a login. Sends one request.
    public func isSessionValid() async throws -> Bool {
        let page = try await session.get(try portal.url(for: portal.login.start))
        return try !LoginFlow(portal: portal, session: session, logger: logger).needsLogin(page)
    }

    /// A portal page through the session, logging in first if the portal asks for it.
    public func fetch(_ pathOrURL: String) async throws -> Page {
        let url = try portal.url(for: pathOrURL)
        var page = try await session.get(url)
        let flow = LoginFlow(portal: portal, session: session, logger: logger)
        if try flow.needsLogin(page) {
            logger.debug("the portal asks for a login at \(page.url.redactedForLog)")
            page = try await flow.continueLogin(from: page, credentials: try credentials())
            // SAML's RelayState usually brings the browser back to the page it asked for.
            if page.url.absoluteString != url.absoluteString {
                page = try await session.get(url)
                if try flow.needsLogin(page) {
                    throw UniToolError(
                        .loginFailed, "the portal asked for a login again right after a successful one",
                        hint: "the portal may not accept unitool's cookies; run with --verbose to see every page")
                }
            }
        }
        guard (200..<300).contains(page.status) else {
            throw UniToolError(
                .portalError, "the portal answered \(page.status) for \(page.url.redactedForLog)",
                hint: page.status == 404 ? "the page may have moved; check 'fetch' in the recipe" : "try again later")
        }
        return page
    }

    /// Runs a data recipe: resolves its options, fetches its page, extracts its records.
    public func run(_ recipe: DataRecipe, options given: [String: String]) async throws -> RecordSet {
        let values = try await resolveOptions(of: recipe, given: given)
        let path = try recipe.fetch.render(values, encode: Template.urlEncode)
        let page = try await fetch(path)
        return try RecordExtractor(recipe: recipe).extract(from: try page.document())
    }

    /// Applies defaults, checks allowed values and looks up symbolic values on the portal.
    func resolveOptions(of recipe: DataRecipe, given: [String: String]) async throws -> [String: String] {
        for name in given.keys where !recipe.options.contains(where: { $0.name == name }) {
            throw UniToolError(
                .usage, "'\(recipe.command)' has no option --\(name)",
                hint: "see 'unitool \(recipe.command) --help'")
        }
        var values: [String: String] = [:]
        for option in recipe.options {
            guard let value = given[option.name] ?? option.defaultValue else {
                throw UniToolError(.usage, "'\(recipe.command)' needs --\(option.name)")
            }
            values[option.name] = value
        }
        for option in recipe.options {
            let value = values[option.name]!
            if let resolution = option.resolve[value] {
                let page = try await fetch(try resolution.fetch.render(values, encode: Template.urlEncode))
                let resolved = try page.document().evaluate(resolution.xpath).stringValue.collapsingWhitespace()
                guard !resolved.isEmpty else {
                    throw UniToolError(
                        .layoutChanged,
                        "recipe \(recipe.file): cannot find what '--\(option.name) \(value)' means: \"\(resolution.xpath)\" matched nothing on \(page.url.redactedForLog)",
                        hint: "the portal's page may have changed; give the value explicitly, or fix the recipe")
                }
                logger.debug("--\(option.name) \(value) is \(resolved)")
                values[option.name] = resolved
            } else if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
                throw UniToolError(
                    .usage, "'\(value)' is not a valid value for --\(option.name)",
                    hint: "use one of: \((option.allowedValues + option.resolve.keys.sorted()).joined(separator: ", "))")
            }
        }
        return values
    }

    // MARK: Terms of use

    /// The terms of use in force now, or nil if the portal publishes no version. The version API
    /// is asked once per connection; it is never cached across runs, so a new version is seen
    /// on the very next command.
    ///
    /// An answer that is not a readable version is `termsUnavailable`; a network failure keeps its
    /// own kind. Either way unitool fails closed: a version it cannot read is one it cannot compare.
    public func currentTerms() async throws -> CurrentTerms? {
        guard let recipe = portal.terms else { return nil }
        if let cached = termsCache.withLock({ $0 }) { return cached }
        let url = try portal.url(for: recipe.versionAPI)
        let page: Page
        do {
            page = try await session.get(url)
        } catch let error as UniToolError where [.portalUnreachable, .portalTimeout].contains(error.kind) {
            // A network failure keeps its own kind (exit 20 or 21), as it would for any page:
            // what the user must fix is the connection, not the terms.
            throw UniToolError(
                error.kind, "cannot check the terms of use of \(portal.name): \(error.message)",
                hint: "unitool does not act for you while it cannot tell whether the terms changed; \(error.hint ?? "try again later")")
        }
        catch let error as UniToolError where error.kind == .portalError {
            throw UniToolError(
                .termsUnavailable, "cannot check the terms of use of \(portal.name): \(error.message)",
                hint: "the portal may be down or in maintenance; unitool does not act for you until it can read the terms version. Try again later")
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
        let page = try await fetch(url.absoluteString)
        let expression = recipe.textXPath ?? "//body"
        guard let node = try page.document().select(expression).first else {
            throw UniToolError(
                .layoutChanged, "recipe \(portal.file): 'terms.text_xpath' \"\(expression)\" matched nothing on \(page.url.redactedForLog)",
                hint: "read the terms at \(url.absoluteString), and fix the recipe")
        }
        return (node.readableText, url)
    }
}
