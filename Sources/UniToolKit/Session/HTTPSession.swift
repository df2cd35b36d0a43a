import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
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
        public var userAgent = "unitool/\(UniToolVersion.current) (+command-line; like a browser)"
        public init() {}
    }

    private let client: HTTPClient
    private let configuration: Configuration
    private let logger: Logger
    /// async-http-client's own log lines are too detailed even for --verbose.
    private let clientLogger: Logger
    private let state: Mutex<State>

    private struct State {
        var jar: CookieJar
        var requestCount = 0
    }

    public init(jar: CookieJar = CookieJar(), configuration: Configuration = Configuration(), logger: Logger) {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: configuration.connectTimeout, read: configuration.requestTimeout))
        clientConfiguration.decompression = .enabled(limit: .ratio(50))
        // A refused connection should fail at once, not be retried until the connect timeout.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        self.configuration = configuration
        self.logger = logger
        var clientLogger = logger
        clientLogger.logLevel = .warning
        self.clientLogger = clientLogger
        self.state = Mutex(State(jar: jar))
    }

    /// Closes the connections. Call it once, when the session is no longer needed.
    public func shutdown() async {
        try? await client.shutdown()
    }

    /// The cookies now held, for saving the session.
    public var cookieJar: CookieJar { state.withLock { $0.jar } }

    /// How many HTTP requests the session has sent, redirects included.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    public func get(_ url: URL) async throws -> Page {
        try await send(method: "GET", url: url, body: nil)
    }

    public func submit(_ submission: FormSubmission) async throws -> Page {
        if submission.method == "GET" {
            return try await send(method: "GET", url: submission.requestURL, body: nil)
        }
        return try await send(method: "POST", url: submission.url, body: submission.encodedFields)
    }

    /// Sends a request and follows redirects as a browser does: 301, 302 and 303 turn a POST
    /// into a GET; 307 and 308 repeat it.
    private func send(method: String, url: URL, body: String?) async throws -> Page {
        var method = method
        var url = url
        var body = body
        var hops: [URL] = []
        while true {
            hops.append(url)
            guard hops.count <= configuration.maxRedirects + 1 else {
                throw UniToolError(
                    .portalError,
                    "the portal redirected more than \(configuration.maxRedirects) times, starting at \(hops[0].redactedForLog)",
                    hint: "this is a redirect loop on the portal's side; remove the saved session with 'unitool auth logout' and try again later")
            }
            let response = try await perform(method: method, url: url, body: body)
            if [301, 302, 303, 307, 308].contains(response.status),
                let location = response.headers.first(name: "location"),
                let next = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: url)?.absoluteURL
            {
                logger.debug("redirect \(response.status) -> \(next.redactedForLog)")
                if response.status <= 303 && method == "POST" || response.status == 303 {
                    method = "GET"
                    body = nil
                }
                url = next
                continue
            }
            if response.status >= 500 {
                throw UniToolError(
                    .portalError, "the portal answered \(response.status) for \(url.redactedForLog)",
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

    private func perform(method: String, url: URL, body: String?) async throws -> RawResponse {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8")
        let cookieHeader = state.withLock { state -> String? in
            state.requestCount += 1
            return state.jar.header(for: url)
        }
        if let cookieHeader { request.headers.add(name: "Cookie", value: cookieHeader) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        logger.debug("\(method) \(url.redactedForLog)")
        do {
            let response = try await client.execute(request, timeout: configuration.requestTimeout, logger: clientLogger)
            let setCookies = response.headers["set-cookie"]
            state.withLock { $0.jar.store(setCookieHeaders: setCookies, from: url) }
            let buffer: ByteBuffer
            do {
                buffer = try await response.body.collect(upTo: configuration.maxBodyBytes)
            } catch is NIOTooManyBytesError {
                throw UniToolError(
                    .portalError,
                    "the page at \(url.redactedForLog) is larger than \(configuration.maxBodyBytes / 1_048_576) MiB, unitool's limit",
                    hint: "a portal page is never this large; the portal is misbehaving")
            }
            logger.debug("\(response.status.code) \(url.redactedForLog) (\(buffer.readableBytes) bytes)")
            return RawResponse(
                status: Int(response.status.code), headers: response.headers, body: Array(buffer: buffer))
        } catch let error as UniToolError {
            throw error
        } catch {
            throw Self.classify(error, url: url)
        }
    }

    /// Turns a transport error into one that says what happened and what to do.
    static func classify(_ error: any Error, url: URL) -> UniToolError {
        let place = url.origin
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout, .readTimeout, .deadlineExceeded:
                return UniToolError(
                    .portalTimeout, "the portal at \(place) did not answer in time",
                    hint: "the portal may be overloaded or down; try again later")
            case .remoteConnectionClosed:
                return UniToolError(
                    .portalUnreachable, "the portal at \(place) closed the connection before answering",
                    hint: "the portal may be restarting; try again later")
            default:
                break
            }
        }
        let text = String(describing: error)
        if text.contains("Timeout") || text.contains("timeout") {
            return UniToolError(
                .portalTimeout, "the portal at \(place) did not answer in time",
                hint: "the portal may be overloaded or down; try again later")
        }
        if text.contains("IOError") || text.contains("CancelledError") || text.contains("BodyStreamError")
            || text.contains("uncleanShutdown") || text.contains("Reset")
        {
            return UniToolError(
                .portalUnreachable, "the connection to \(place) broke while reading \(url.redactedForLog)",
                hint: "check your network connection and try again")
        }
        return UniToolError(
            .portalUnreachable, "cannot reach the portal at \(place) (\(text))",
            hint: "check your network connection, or whether the portal is down")
    }
}
