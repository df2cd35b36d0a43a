import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

// One exchange with the portal: the request as a browser makes it (headers, cookies, body),
// the whole response within the time limit, the trace written.
extension HTTPSession {
    /// A response as it came. Its cookies are not in the jar yet: `send` stores them once it
    /// knows the response is kept (`storeCookies(of:from:)`), not held back for another
    /// request's login.
    struct RawResponse {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    /// Stores the response's `Set-Cookie` headers in the jar, as a browser does for every
    /// response it acts on.
    func storeCookies(of response: RawResponse, from url: URL) {
        let setCookies = response.headers["set-cookie"]
        guard !setCookies.isEmpty else { return }
        state.withLock { $0.jar.store(setCookieHeaders: setCookies, from: url) }
    }

    func perform(
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
        // Scrubbed of the session's secrets too: an address may carry a token in its path.
        logger.debug("\(method) \(self.scrubber.scrubText(url.redactedForLog))")
        // The request's own limit, or what is left of the command's `--timeout` if less.
        let deadline = Self.commandDeadline
        let own = configuration.requestTimeout.duration
        let (limit, byDeadline) = deadline?.requestLimit(own, now: .now) ?? (own, false)
        do {
            // The time limit covers the whole exchange, body included: async-http-client's own
            // deadline ends with the headers, and its read timeout restarts with every byte, so
            // a server that trickles one byte a second would otherwise never time out.
            let prepared = request
            if byDeadline, limit <= .zero, let deadline { throw deadline.expired(at: url) }
            let (response, buffer) = try await Self.withTimeLimit(limit.timeAmount, url: url, deadline: byDeadline ? deadline : nil) {
                let response = try await self.client.execute(prepared, timeout: limit.timeAmount, logger: self.clientLogger)
                do {
                    return (response, try await response.body.collect(upTo: self.configuration.maxBodyBytes))
                } catch is NIOTooManyBytesError {
                    throw UniToolError(
                        .portalError,
                        localized(
                            "the portal sent more than unitool accepts: the page at \(url.redactedForLog) is larger than \(self.configuration.maxBodyBytes / 1_048_576) MiB"
                        ),
                        hint: localized("a portal page is never this large; the portal is misbehaving"))
                }
            }
            logger.debug("\(response.status.code) \(self.scrubber.scrubText(url.redactedForLog)) (\(buffer.readableBytes) bytes)")
            let raw = RawResponse(status: Int(response.status.code), headers: response.headers, body: Array(buffer: buffer))
            configuration.trace?.record(
                started: started, duration: Date().timeIntervalSince(started), method: method, url: url,
                requestHeaders: request.headers.map { ($0.name, $0.value) }, formFields: form, secretFields: secretFields,
                status: raw.status, responseHeaders: response.headers.map { ($0.name, $0.value) }, responseBody: raw.body)
            return raw
        } catch let error as UniToolError {
            throw error
        } catch {
            let transport = Self.classified(error, url: url)
            // async-http-client's own deadline, set to the same limit, may fire first.
            if byDeadline, case .timedOut = transport.failure, let deadline { throw deadline.expired(at: url) }
            throw transport
        }
    }

    /// Runs `operation`, cancelling it when `limit` has passed: then the request fails with a
    /// timeout, whatever state it was in; when the command's `deadline` set the limit, the error
    /// says that the command's time ran out.
    static func withTimeLimit<T: Sendable>(
        _ limit: TimeAmount, url: URL, deadline: CommandDeadline? = nil, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, limit.nanoseconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                if let deadline { throw deadline.expired(at: url) }
                let seconds = String(format: "%g", Double(limit.nanoseconds) / 1e9)
                throw UniToolError(
                    .portalTimeout,
                    localized(
                        "the portal at \(url.origin) did not answer in time: \(seconds) seconds (--timeout) passed before all of \(url.redactedForLog) arrived"
                    ),
                    hint: localized("the portal may be overloaded; try again later, or allow more time with --timeout SECONDS"))
            }
            return value
        }
    }

}
