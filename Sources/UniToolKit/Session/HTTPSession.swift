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

    private let client: HTTPClient
    private let configuration: Configuration
    private let logger: Logger
    /// async-http-client's own log lines are too detailed even for --verbose.
    private let clientLogger: Logger
    private let state: Mutex<State>
    private let limiter: HostLimiter

    private struct State {
        var jar: CookieJar
        var requestCount = 0
        /// Every password, code and TOTP secret this session sent or was given.
        var knownSecrets = TraceScrubber()
    }

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
                    logger.debug("holding the redirect to \(next.url.redactedForLog): another request is signing in")
                    var held = Page(
                        url: url, status: response.status, contentType: response.headers.first(name: "content-type"),
                        body: response.body, hops: hops)
                    held.heldRedirect = next.url
                    return held
                }
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
                            "refusing to repeat a form that carries a password to \(next.url.origin) after a \(response.status) redirect from \(url.origin)",
                            hint: "the login service sent the password elsewhere; report this to the university")
                    }
                }
                request = next
                continue
            }
            if response.status >= 500 {
                let reason = HTTPResponseStatus(statusCode: response.status).reasonPhrase
                if let login = configuration.loginServiceURL, url.origin == login.origin,
                    url.path == login.path || url.path.hasPrefix(login.path.hasSuffix("/") ? login.path : login.path + "/")
                {
                    throw UniToolError(
                        .portalError,
                        "the university's login service answered \(response.status) (\(reason)) for \(url.redactedForLog); the portal itself may be up, but nobody can sign in now",
                        hint: "the login service is down or overloaded; try again later (a saved session keeps working while it lasts)")
                }
                throw UniToolError(
                    .portalError, "the portal answered \(response.status) (\(reason)) for \(url.redactedForLog)",
                    hint: "the portal has a problem of its own; try again later")
            }
            return Page(
                url: url, status: response.status, contentType: response.headers.first(name: "content-type"),
                body: response.body, hops: hops)
        }
    }

    private struct RawResponse {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    /// `perform`, tried again for a GET when the failure is likely to pass: a connection that
    /// broke, 429 (after its `Retry-After`), 502, 503 or 504. A POST is never repeated, as a
    /// browser never repeats one without asking.
    private func performWithRetries(
        method: String, url: URL, form: [(name: String, value: String)]?, json: String?, charset: String?, secretFields: Set<String>,
        browser: BrowserRequest
    ) async throws -> RawResponse {
        var attempt = 0
        while true {
            let canRetry = method == "GET" && attempt < configuration.retries
            var wait = configuration.retryDelay * (1 << attempt)
            do {
                await limiter.acquire(url.origin)
                let result = await Result {
                    try await perform(
                        method: method, url: url, form: form, json: json, charset: charset, secretFields: secretFields, browser: browser)
                }
                await limiter.release(url.origin)
                let response = try result.get()
                guard canRetry, [429, 502, 503, 504].contains(response.status) else { return response }
                if let retryAfter = response.headers.first(name: "retry-after").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                    guard .seconds(retryAfter) <= configuration.maxRetryAfter else { return response }
                    wait = .seconds(retryAfter)
                }
                logger.debug("\(response.status) from \(url.redactedForLog); trying again in \(wait)")
            } catch let transport as TransportError {
                // A request its caller cancelled ends there: it is no failure to try again.
                guard canRetry, transport.failure.isWorthRetry, !Task.isCancelled else { throw transport.error }
                logger.debug("\(transport.error.message); trying again in \(wait)")
            }
            try await Task.sleep(for: wait)
            attempt += 1
        }
    }

    private func perform(
        method: String, url: URL, form: [(name: String, value: String)]?, json: String?, charset: String?, secretFields: Set<String>,
        browser: BrowserRequest
    ) async throws -> RawResponse {
        let started = Date()
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        for header in browser.headers { request.headers.add(name: header.name, value: header.value) }
        // A recipe's own headers replace the browser's of the same name, on the portal's origins only.
        for header in configuration.recipeHeaders.headers(for: url, recipe: Self.commandHeaders, ownOrigins: configuration.ownOrigins) {
            request.headers.replaceOrAdd(name: header.name, value: header.value)
        }
        let cookieHeader = state.withLock { state -> String? in
            state.requestCount += 1
            return state.jar.header(for: url)
        }
        if let cookieHeader { request.headers.add(name: "Cookie", value: cookieHeader) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            var submission = FormSubmission(method: method, url: url, fields: form)
            submission.charset = charset
            request.body = .bytes(ByteBuffer(string: submission.encodedFields))
        } else if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        logger.debug("\(method) \(url.redactedForLog)")
        do {
            // The time limit covers the whole exchange, body included: async-http-client's own
            // deadline ends with the headers, and its read timeout restarts with every byte, so
            // a server that trickles one byte a second would otherwise never time out.
            let prepared = request
            let (response, buffer) = try await Self.withTimeLimit(configuration.requestTimeout, url: url) {
                let response = try await self.client.execute(
                    prepared, timeout: self.configuration.requestTimeout, logger: self.clientLogger)
                let setCookies = response.headers["set-cookie"]
                self.state.withLock { $0.jar.store(setCookieHeaders: setCookies, from: url) }
                do {
                    return (response, try await response.body.collect(upTo: self.configuration.maxBodyBytes))
                } catch is NIOTooManyBytesError {
                    throw UniToolError(
                        .portalError,
                        "the portal sent more than unitool accepts: the page at \(url.redactedForLog) is larger than \(self.configuration.maxBodyBytes / 1_048_576) MiB",
                        hint: "a portal page is never this large; the portal is misbehaving")
                }
            }
            logger.debug("\(response.status.code) \(url.redactedForLog) (\(buffer.readableBytes) bytes)")
            let raw = RawResponse(status: Int(response.status.code), headers: response.headers, body: Array(buffer: buffer))
            configuration.trace?.record(
                started: started, duration: Date().timeIntervalSince(started), method: method, url: url,
                requestHeaders: request.headers.map { ($0.name, $0.value) }, formFields: form, secretFields: secretFields,
                status: raw.status, responseHeaders: response.headers.map { ($0.name, $0.value) }, responseBody: raw.body)
            return raw
        } catch let error as UniToolError {
            throw error
        } catch {
            throw Self.classified(error, url: url)
        }
    }

    /// Runs `operation`, cancelling it when `limit` has passed: then the request fails with a
    /// timeout, whatever state it was in.
    static func withTimeLimit<T: Sendable>(
        _ limit: TimeAmount, url: URL, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, limit.nanoseconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw UniToolError(
                    .portalTimeout,
                    "the portal at \(url.origin) did not answer in time: \(String(format: "%g", Double(limit.nanoseconds) / 1e9)) seconds (--timeout) passed before all of \(url.redactedForLog) arrived",
                    hint: "the portal may be overloaded; try again later, or allow more time with --timeout SECONDS")
            }
            return value
        }
    }

    /// Turns a transport error into one that says what happened and what to do, decided by the
    /// error's type (`TransportFailure`); its text only appears where nothing better is known.
    static func classify(_ error: any Error, url: URL) -> UniToolError {
        classified(error, url: url).error
    }

    static func classified(_ error: any Error, url: URL) -> TransportError {
        let place = url.origin
        let failure = TransportFailure.of(error)
        let userError: UniToolError
        switch failure {
        case .tooMuch:
            userError = UniToolError(
                .portalError,
                "the portal sent more than unitool accepts for \(url.redactedForLog) (\(String(describing: error))): headers that are too large, too many cookies, or a body that unpacks to far more than it was",
                hint: "this is the portal's fault or an attack; if it persists, tell the portal's operators")
        case .timedOut:
            userError = UniToolError(
                .portalTimeout, "the portal at \(place) did not answer in time",
                hint: "the portal may be overloaded or down; try again later")
        case .closedEarly:
            userError = UniToolError(
                .portalUnreachable, "the portal at \(place) closed the connection before answering",
                hint: "the portal may be restarting; try again later")
        case .untrustedTLS:
            userError = UniToolError(
                .unsafeRequest,
                "the TLS certificate of \(place) is not trusted, so unitool did not talk to it (\(String(describing: error)))",
                hint: "someone may be intercepting the connection; for a test portal with a self-signed certificate only, use --insecure")
        case .cutShort:
            userError = UniToolError(
                .portalUnreachable,
                "the connection to \(place) broke in the middle of \(url.redactedForLog): the page arrived cut short",
                hint: "the portal or a proxy on the way closed the connection; try again later")
        case .broken:
            userError = UniToolError(
                .portalUnreachable, "the connection to \(place) broke while reading \(url.redactedForLog)",
                hint: "check your network connection and try again")
        case .refused:
            userError = UniToolError(
                .portalUnreachable, "cannot reach the portal at \(place): the connection was refused",
                hint: "the portal (or the demo, with UNITOOL_DEMO_URL) is not running there, or the address is wrong")
        case .unreachable:
            userError = UniToolError(
                .portalUnreachable, "cannot reach the portal at \(place) (\(String(describing: error)))",
                hint: "check your network connection, or whether the portal is down")
        }
        return TransportError(failure: failure, error: userError)
    }
}

/// At most `limit` requests in flight per origin; the rest wait their turn, first come first served.
actor HostLimiter {
    private let limit: Int
    private var active: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a free slot for `origin`. Every `acquire` must be followed by one `release`.
    func acquire(_ origin: String) async {
        if active[origin, default: 0] < limit {
            active[origin, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[origin, default: []].append($0) }
    }

    func release(_ origin: String) {
        if var queue = waiting[origin], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[origin] = queue
            next.resume()  // the slot passes straight to the next request
        } else {
            active[origin, default: 1] -= 1
        }
    }
}
