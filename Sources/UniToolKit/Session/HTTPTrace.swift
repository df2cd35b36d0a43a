import Foundation
import NIOHTTP1
import Synchronization

/// Every request and response of a run, for `--trace FILE`, in the HAR 1.2 format so that
/// browsers' developer tools and HAR viewers open it.
///
/// A trace is made to be attached to a bug report, so no secret ever reaches the file: every
/// field of every entry (URL, query string, headers, `redirectURL`, the posted form, the body)
/// passes through a ``TraceScrubber``, which removes SAML messages, `RelayState`,
/// cookie values, `Authorization`, and every secret of the run, wherever and however it
/// reappears. Entries are scrubbed when the file is written, with every secret the run learned.
/// Bodies are left out unless asked for, and then scrubbed too.
///
/// The scrubber learns the run's secrets from ``register(secret:)`` (the login registers the
/// password and each one-time code before it sends them, the CLI the TOTP secret it reads), and
/// from the exchanges themselves: values sent in password fields, long cookie values.
public final class HTTPTrace: Sendable {
    public static let redacted = TraceScrubber.redacted
    /// Cookie values at least this long are treated as secrets wherever they reappear (a session
    /// id in a URL); shorter ones (`lang=en`) carry nothing worth hiding and would only blank text.
    static let minimumSecretCookieLength = 8
    /// SAML messages and `RelayState` values at least this long are also looked for elsewhere.
    static let minimumSecretProtocolValueLength = 16

    public let includeBodies: Bool
    private let state = Mutex<State>(State())

    private struct State {
        var exchanges: [Exchange] = []
        /// What must not be written: the secrets known so far in this run.
        var scrubber = TraceScrubber()
    }

    /// One exchange as it happened. Kept only in memory, and turned into a scrubbed HAR entry
    /// when the trace is written, with every secret the run learned by then: a cookie set at the
    /// end of a run is removed from the entries before it too.
    struct Exchange: Sendable {
        var started: Date
        var duration: TimeInterval
        var method: String
        var url: URL
        var requestHeaders: [(String, String)]
        var formFields: [(name: String, value: String)]?
        var secretFields: Set<String>
        var status: Int
        var responseHeaders: [(String, String)]
        /// Kept whether or not bodies are traced: a body that echoes a secret must not give the
        /// secret's length away through its size either.
        var responseBody: [UInt8]?
        var bodySize: Int
        /// Whether the body's text goes into the trace (`--trace-bodies`).
        var bodyTraced = false
    }

    public init(includeBodies: Bool = false) {
        self.includeBodies = includeBodies
    }

    /// Adds a value that must never appear in the trace: a password, a one-time code, a TOTP
    /// secret. Call it before the value is sent, so that the exchange that carries it, and any
    /// later one that echoes it, is scrubbed.
    public func register(secret: String) {
        state.withLock { $0.scrubber.register(secret) }
    }

    /// The secrets known so far, for scrubbing text outside the trace.
    public var scrubber: TraceScrubber { state.withLock { $0.scrubber } }

    /// Records one exchange. `formFields` is the decoded request body of a form post.
    func record(
        started: Date, duration: TimeInterval, method: String, url: URL, requestHeaders: [(String, String)],
        formFields: [(name: String, value: String)]?, secretFields: Set<String>, status: Int,
        responseHeaders: [(String, String)], responseBody: [UInt8]
    ) {
        state.withLock { state in
            state.scrubber.merge(
                Self.secretsLearned(
                    formFields: formFields ?? [], secretFields: secretFields, requestHeaders: requestHeaders,
                    responseHeaders: responseHeaders))
            state.exchanges.append(
                Exchange(
                    started: started, duration: duration, method: method, url: url, requestHeaders: requestHeaders,
                    formFields: formFields, secretFields: secretFields, status: status, responseHeaders: responseHeaders,
                    responseBody: responseBody, bodySize: responseBody.count, bodyTraced: includeBodies))
        }
    }

    /// The secrets an exchange reveals: values sent in password or code fields (of any length),
    /// long SAML and `RelayState` values, and long cookie values, sent or set.
    static func secretsLearned(
        formFields: [(name: String, value: String)], secretFields: Set<String>, requestHeaders: [(String, String)],
        responseHeaders: [(String, String)]
    ) -> TraceScrubber {
        var learned = TraceScrubber()
        let protocolNames = Set(TraceScrubber.protocolFieldNames.map { $0.lowercased() })
        for field in formFields {
            if secretFields.contains(field.name) || TraceScrubber.credentialFieldNames.contains(field.name) {
                learned.register(field.value)
            } else if protocolNames.contains(field.name.lowercased()), field.value.count >= minimumSecretProtocolValueLength {
                learned.register(field.value)
            }
        }
        var cookieValues: [Substring] = []
        for (name, value) in requestHeaders where name.lowercased() == "cookie" {
            cookieValues += value.split(separator: ";").compactMap { $0.split(separator: "=", maxSplits: 1).dropFirst().first }
        }
        for (name, value) in responseHeaders where name.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";", maxSplits: 1).first ?? ""
            if let cookieValue = pair.split(separator: "=", maxSplits: 1).dropFirst().first { cookieValues.append(cookieValue) }
        }
        for value in cookieValues {
            let trimmed = value.trimmingWhitespace().trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            if trimmed.count >= minimumSecretCookieLength { learned.register(trimmed) }
        }
        return learned
    }

    /// One HAR entry with every field scrubbed. Pure, so that tests can enumerate the fields.
    static func entry(_ exchange: Exchange, scrubber: TraceScrubber) -> Entry {
        let (method, url, secretFields, status) = (exchange.method, exchange.url, exchange.secretFields, exchange.status)
        let (requestHeaders, responseHeaders, bodySize) = (exchange.requestHeaders, exchange.responseHeaders, exchange.bodySize)
        let query = (URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []).map { item in
            Entry.NameValue(
                name: scrubber.isSecretValue(item.name) ? redacted : item.name,
                value: scrubber.scrubField(name: item.name, value: item.value ?? "", declared: secretFields))
        }
        var request = Entry.Request(
            method: method, url: scrubber.scrubURL(url.absoluteString, declared: secretFields),
            headers: requestHeaders.map { Entry.NameValue(name: $0.0, value: scrubber.scrubHeader(name: $0.0, value: $0.1)) },
            queryString: query)
        if let formFields = exchange.formFields {
            let params = formFields.map { field in
                Entry.NameValue(
                    name: scrubber.isSecretValue(field.name) ? redacted : field.name,
                    value: scrubber.scrubField(name: field.name, value: field.value, declared: secretFields))
            }
            let text = formText(params)
            request.postData = .init(mimeType: "application/x-www-form-urlencoded", params: params, text: text)
            // The size of what the trace shows, never of what was sent: that would be the
            // password's length plus a constant.
            request.bodySize = text.utf8.count
        }
        let contentType = responseHeaders.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
        var shownSize = bodySize
        var shownText: String?
        if let responseBody = exchange.responseBody {
            let original = String(decoding: responseBody, as: UTF8.self)
            let scrubbed = scrubber.scrubText(original)
            // A body that held a secret is sized as scrubbed, so its size tells nothing either.
            if scrubbed != original { shownSize = scrubbed.utf8.count }
            shownText = scrubbed
        }
        var content = Entry.Content(size: shownSize, mimeType: contentType)
        if exchange.bodyTraced { content.text = shownText }
        let location = responseHeaders.first { $0.0.lowercased() == "location" }?.1 ?? ""
        let response = Entry.Response(
            status: status, statusText: HTTPResponseStatus(statusCode: status).reasonPhrase,
            headers: responseHeaders.map { Entry.NameValue(name: $0.0, value: scrubber.scrubHeader(name: $0.0, value: $0.1)) },
            content: content, redirectURL: location.isEmpty ? "" : scrubber.scrubURL(location, declared: secretFields),
            bodySize: shownSize)
        let milliseconds = (exchange.duration * 1000).rounded()
        return Entry(
            startedDateTime: timestamp(exchange.started), time: milliseconds, request: request, response: response,
            timings: .init(send: 0, wait: milliseconds, receive: 0))
    }

    /// The posted form as `postData.text`: the already scrubbed fields form-encoded, the
    /// redaction mark left readable.
    static func formText(_ params: [Entry.NameValue]) -> String {
        let kept = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._".utf8))
        func encode(_ text: String) -> String {
            text == redacted ? text : TraceScrubber.percentEncoded(text, keeping: kept, spaceAsPlus: true, lowercaseHex: false)
        }
        return params.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }

    /// The HAR document.
    public func har() throws -> Data {
        let (exchanges, scrubber) = state.withLock { ($0.exchanges, $0.scrubber) }
        let entries = exchanges.map { Self.entry($0, scrubber: scrubber) }
        let document = Document(log: .init(creator: .init(name: "unitool", version: UniToolVersion.current), entries: entries))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// Writes the HAR file atomically, readable by the user only (it shows where they went).
    public func write(to url: URL) throws {
        try AtomicFile.write(try har(), to: url, mode: 0o600)
    }

    public var entryCount: Int { state.withLock { $0.exchanges.count } }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    // MARK: HAR 1.2

    struct Document: Encodable {
        var log: Log
    }

    struct Log: Encodable {
        var version = "1.2"
        var creator: Creator
        var entries: [Entry]
    }

    struct Creator: Encodable {
        var name: String
        var version: String
    }

    struct Entry: Encodable {
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache: [String: String] = [:]
        var timings: Timings

        struct NameValue: Encodable, Equatable {
            var name: String
            var value: String
        }

        struct Request: Encodable {
            var method: String
            var url: String
            var httpVersion = "HTTP/1.1"
            var headers: [NameValue]
            var queryString: [NameValue]
            var cookies: [NameValue] = []
            var headersSize = -1
            var bodySize = 0
            var postData: PostData?
        }

        struct PostData: Encodable {
            var mimeType: String
            var params: [NameValue]
            var text = ""
        }

        struct Response: Encodable {
            var status: Int
            var statusText: String
            var httpVersion = "HTTP/1.1"
            var headers: [NameValue]
            var cookies: [NameValue] = []
            var content: Content
            var redirectURL: String
            var headersSize = -1
            var bodySize: Int
        }

        struct Content: Encodable {
            var size: Int
            var mimeType: String
            var text: String?
        }

        struct Timings: Encodable {
            var send: Double
            var wait: Double
            var receive: Double
        }
    }
}
