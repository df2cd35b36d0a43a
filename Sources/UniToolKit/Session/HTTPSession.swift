import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// A scripted browser: one cookie jar, redirects followed one hop at a time, forms submitted
/// the way a browser submits them.
///
/// async-http-client's own redirect handling is turned off so that every hop passes through
/// `send`, where cookies are stored and the trace is written.
public final class HTTPSession: Sendable {
    public struct Configuration: Sendable {
        public var connectTimeout: TimeAmount = .seconds(10)
        /// The longest a single request, body included, may take.
        public var requestTimeout: TimeAmount = .seconds(30)
        public var maxRedirects = 20
        /// A larger body is refused rather than read into memory.
        public var maxBodyBytes = 20 * 1024 * 1024
        public var userAgent = BrowserRequest.userAgent
        /// How often an idempotent GET is tried again after a broken connection, 429, 502, 503
        /// or 504, waiting `retryDelay`, then twice that, and so on (or what `Retry-After` asks,
        /// up to `maxRetryAfter`).
        public var retries = 2
        public var retryDelay: Duration = .milliseconds(250)
        public var maxRetryAfter: Duration = .seconds(10)
        /// The most requests in flight to one host at a time, as a polite browser keeps it.
        public var maxConcurrentPerHost = 4
        /// Where every exchange is recorded for `--trace`, if anywhere.
        public var trace: HTTPTrace?
        /// The university's login service (IdP), when it is apart from the portal: an error from
        /// it is reported as the login service's, since the portal itself may well be up.
        public var loginServiceURL: URL?
        /// Skip TLS certificate checks. Only `--insecure` sets it, and unitool warns when it does.
        public var skipTLSVerification = false
        /// `Accept-Language` of every request (`BrowserRequest.acceptLanguage`).
        public var acceptLanguage: String? = BrowserRequest.acceptLanguage(portal: nil, environment: ProcessInfo.processInfo.environment)
        /// The recipe's headers (`headers:`), and the portal's own origins, the only ones they go to.
        public var recipeHeaders = RecipeHeaders()
        public var ownOrigins: Set<String> = []
        public init() {}
    }

    let client: HTTPClient
    let configuration: Configuration
    let logger: Logger
    /// async-http-client's own log lines are too detailed even for --verbose.
    let clientLogger: Logger
    let state: Mutex<State>
    let limiter: HostLimiter

    struct State {
        var jar: CookieJar
        var requestCount = 0
        /// Every password, code and TOTP secret this session sent or was given.
        var knownSecrets = TraceScrubber()
    }

    /// For a command that makes a few requests and ends: one event-loop thread instead of one
    /// per core. Starting and stopping the others was a tenth of a warm command's CPU (issue 40).
    /// Only before the first request of the process; once, however often it is called.
    public static func useOneEventLoopThread() { _ = oneEventLoopThread }
    private static let oneEventLoopThread: Void = { NIOSingletons.groupLoopCountSuggestion = 1 }()

    public init(jar: CookieJar = CookieJar(), configuration: Configuration = Configuration(), logger: Logger) {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: configuration.connectTimeout, read: configuration.requestTimeout))
        clientConfiguration.decompression = .enabled(limit: .ratio(50))
        if configuration.skipTLSVerification {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            clientConfiguration.tlsConfiguration = tls
        }
        // A refused connection should fail at once, not be retried until the connect timeout.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        self.configuration = configuration
        self.logger = logger
        var clientLogger = logger
        clientLogger.logLevel = .warning
        self.clientLogger = clientLogger
        self.state = Mutex(State(jar: jar))
        self.limiter = HostLimiter(limit: configuration.maxConcurrentPerHost)
    }

    /// Closes the connections. Call it once, when the session is no longer needed.
    public func shutdown() async {
        try? await client.shutdown()
    }

    /// The cookies now held, for saving the session.
    public var cookieJar: CookieJar { state.withLock { $0.jar } }

    /// Takes on cookies another process saved (newer ones replace those of the same name,
    /// domain and path), as a second browser window sees the first one's login.
    public func adopt(_ jar: CookieJar) {
        state.withLock { state in
            for cookie in jar.cookies { state.jar.store(cookie) }
        }
    }

    /// Drops every cookie that would be sent to `url`: the portal's dead session, before a fresh
    /// login. Cookies of other sites (the IdP's) stay.
    ///
    /// `keepingThoseFor`: cookies that would also be sent there (the login service's, on a host
    /// it shares with the portal) stay.
    public func forgetCookies(for url: URL, keepingThoseFor kept: URL? = nil) {
        state.withLock { $0.jar.remove(cookiesFor: url, keepingThoseFor: kept) }
    }

    /// How many HTTP requests the session has sent, redirects included.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// Remembers a secret the session is about to send (a password, a one-time code) or that was
    /// read for it (a TOTP secret), so that neither the trace nor an error quoting the portal,
    /// which may echo it, ever shows it.
    public func registerSecret(_ secret: String) {
        state.withLock { $0.knownSecrets.register(secret) }
        configuration.trace?.register(secret: secret)
    }

    /// The secrets known so far, with the rules for SAML messages and cookies: portal text is
    /// scrubbed with it before an error quotes it.
    public var scrubber: TraceScrubber {
        var scrubber = state.withLock { $0.knownSecrets }
        if let trace = configuration.trace { scrubber.merge(trace.scrubber) }
        return scrubber
    }

    /// The running data recipe's `headers:`, for the requests it causes (set by `PortalConnection`
    /// around a recipe's work, and cleared around a login, whose pages are no recipe's).
    @TaskLocal public static var commandHeaders: [RecipeHeaders.Header] = []

    /// The running command's `--timeout`, shared by every request it causes, their retries and
    /// the login (set by the command line around one command; a long-lived server such as
    /// `unitool rpc` sets none, and each request keeps its own limit).
    @TaskLocal public static var commandDeadline: CommandDeadline?

    /// Asked before a redirect is followed: true stops there, and the answer is the redirect
    /// itself, marked `heldRedirect`. `PortalConnection` holds a second request's way to the login
    /// service while another request of the connection is already on it, so that one login serves
    /// both and the login service is asked once (`LoginCoordinator`).
    @TaskLocal public static var redirectGate: RedirectGate?

    /// The question `redirectGate` asks, in a value of its own: a bare optional async closure as
    /// a task-local value crashed the release build in `swift_task_localValuePush`.
    public struct RedirectGate: Sendable {
        public let holds: @Sendable (URL) async -> Bool
        public init(holds: @escaping @Sendable (URL) async -> Bool) { self.holds = holds }
    }

    /// Asks for a page as a browser navigates to it, or, `asFetch`, as a page's script asks a
    /// JSON API (`BrowserRequest`).
    public func get(_ url: URL, asFetch: Bool = false) async throws -> Page {
        try await send(method: "GET", url: url, form: nil, secretFields: [], kind: asFetch ? .fetch : .navigation)
    }

    /// POSTs a JSON body, as a page's script calls an AJAX endpoint (Moodle's `service.php`).
    ///
    /// `bodyMayGoTo`, when given, is asked before a 307 or 308 redirect repeats the body elsewhere.
    public func post(_ url: URL, json: String, bodyMayGoTo: (@Sendable (URL) throws -> Void)? = nil) async throws -> Page {
        try await send(method: "POST", url: url, form: nil, json: json, secretFields: [], bodyMayGoTo: bodyMayGoTo, kind: .fetch)
    }

    /// Sends a form. A 307 or 308 redirect repeats a POST with its body, so a form that carries
    /// a secret is only repeated where `secretsMayGoTo` allows (to the same origin without it),
    /// and any form only where `bodyMayGoTo` allows, when given (a recipe's values: the portal's
    /// own origins).
    public func submit(
        _ submission: FormSubmission, secretsMayGoTo: (@Sendable (URL) throws -> Void)? = nil,
        bodyMayGoTo: (@Sendable (URL) throws -> Void)? = nil
    ) async throws -> Page {
        for field in submission.fields where submission.secretFieldNames.contains(field.name) { registerSecret(field.value) }
        if submission.method == "GET" {
            return try await send(
                method: "GET", url: submission.requestURL, form: nil, secretFields: submission.secretFieldNames, kind: .navigation,
                referrer: submission.pageURL)
        }
        return try await send(
            method: "POST", url: submission.url, form: submission.fields, charset: submission.charset,
            secretFields: submission.secretFieldNames, secretsMayGoTo: secretsMayGoTo, bodyMayGoTo: bodyMayGoTo, kind: .formPost,
            referrer: submission.pageURL)
    }

    /// Sends a request and follows redirects as a browser does: 301, 302 and 303 turn a POST
    /// into a GET; 307 and 308 repeat it.
    private func send(
        method: String, url: URL, form: [(name: String, value: String)]?, json: String? = nil, charset: String? = nil,
        secretFields: Set<String>, secretsMayGoTo: (@Sendable (URL) throws -> Void)? = nil,
        bodyMayGoTo: (@Sendable (URL) throws -> Void)? = nil, kind: BrowserRequest.Kind, referrer: URL? = nil
    )
        async throws -> Page
    {
        let policy = RedirectPolicy(maxRedirects: configuration.maxRedirects)
        var request = RedirectPolicy.Request(method: method, url: url, hasBody: form != nil || json != nil)
        var form = form
        var json = json
        var hops: [URL] = []
        while true {
            let url = request.url
            hops.append(url)
            // Recipes, pages and redirects name addresses; none may reach a local file (file:),
            // run script (javascript:) or carry data of its own (data:), and a loop must end.
            if let refusal = policy.refusal(for: url, hops: hops) { throw refusal }
            // Every hop is asked as the first was; a form's POST that a redirect turned into a GET
            // is a navigation, and the page it came from stays the referrer, as in a browser.
            let hopKind: BrowserRequest.Kind = kind == .formPost && request.method == "GET" ? .navigation : kind
            let browser = BrowserRequest(
                kind: hopKind, method: request.method, url: url, referrer: referrer, acceptLanguage: configuration.acceptLanguage)
            let response = try await performWithRetries(
                method: request.method, url: url, form: form, json: json, charset: charset, secretFields: secretFields, browser: browser)
            if case .follow(let next, let keepsBody) = policy.decide(
                status: response.status, location: response.headers.first(name: "location"), after: request)
            {
                if let gate = Self.redirectGate, await gate.holds(next.url) {
                    // Held back for another request's login, the response leaves the jar as it
                    // was: its cookies (a login state of the portal's, such as Authlib's state in
                    // a session cookie) would replace the ones the login in flight depends on,
                    // and the login would come back to a state the portal no longer knows.
                    logger.debug("holding the redirect to \(next.url.redactedForLog): another request is signing in")
                    var held = Page(
                        url: url, status: response.status, contentType: response.headers.first(name: "content-type"),
                        body: response.body, hops: hops)
                    held.heldRedirect = next.url
                    return held
                }
                storeCookies(of: response, from: url)
                logger.debug("redirect \(response.status) -> \(next.url.redactedForLog)")
                if !keepsBody {
                    form = nil
                    json = nil
                }
                if form != nil || json != nil, let bodyMayGoTo { try bodyMayGoTo(next.url) }
                if let form, form.contains(where: { secretFields.contains($0.name) }) {
                    // The body, secret included, would go to the new address as it is.
                    if let secretsMayGoTo {
                        try secretsMayGoTo(next.url)
                    } else if next.url.origin != url.origin {
                        throw UniToolError(
                            .unsafeRequest,
                            localized(
                                "refusing to repeat a form that carries a password to \(next.url.origin) after a \(response.status) redirect from \(url.origin)"
                            ),
                            hint: localized("the login service sent the password elsewhere; report this to the university"))
                    }
                }
                request = next
                continue
            }
            storeCookies(of: response, from: url)
            if response.status >= 500 {
                let reason = HTTPResponseStatus(statusCode: response.status).reasonPhrase
                if let login = configuration.loginServiceURL, url.origin == login.origin,
                    url.path == login.path || url.path.hasPrefix(login.path.hasSuffix("/") ? login.path : login.path + "/")
                {
                    throw UniToolError(
                        .portalError,
                        localized(
                            "the university's login service answered \(response.status) (\(reason)) for \(url.redactedForLog); the portal itself may be up, but nobody can sign in now"
                        ),
                        hint: localized(
                            "the login service is down or overloaded; try again later (a saved session keeps working while it lasts)"))
                }
                throw UniToolError(
                    .portalError, localized("the portal answered \(response.status) (\(reason)) for \(url.redactedForLog)"),
                    hint: localized("the portal has a problem of its own; try again later"))
            }
            return Page(
                url: url, status: response.status, contentType: response.headers.first(name: "content-type"),
                body: response.body, hops: hops)
        }
    }
}
