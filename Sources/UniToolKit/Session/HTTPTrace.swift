import Foundation
import NIOHTTP1
import Synchronization

/// Every request and response of a run, for `--trace FILE`, in the HAR 1.2 format so that
/// browsers' developer tools and HAR viewers open it.
///
/// A trace is made to be attached to a bug report, so it is redacted as it is recorded, never
/// afterwards: passwords, one-time codes, `SAMLResponse`, cookie values and `Authorization`
/// headers never enter it. Bodies are left out unless asked for, and then scrubbed too.
public final class HTTPTrace: Sendable {
    public static let redacted = "<redacted>"
    /// Form fields whose values are always secret, whatever the recipe says.
    static let secretFieldNames: Set<String> = ["SAMLResponse", "SAMLRequest", "j_password", "password", "passwd", "pwd", "j_tokenNumber", "otp", "totp"]

    public let includeBodies: Bool
    private let state = Mutex<State>(State())

    private struct State {
        var entries: [Entry] = []
        /// Values sent in secret fields during this run, scrubbed from any body that echoes them.
        var secretValues: Set<String> = []
    }

    public init(includeBodies: Bool = false) {
        self.includeBodies = includeBodies
    }

    /// Whether a form field's value must never be written.
    static func isSecret(field name: String, declared: Set<String>) -> Bool {
        declared.contains(name) || secretFieldNames.contains(name) || name.lowercased().contains("pass")
    }

    /// Records one exchange. `formFields` is the decoded request body of a form post.
    func record(
        started: Date, duration: TimeInterval, method: String, url: URL, requestHeaders: [(String, String)],
        formFields: [(name: String, value: String)]?, secretFields: Set<String>, status: Int,
        responseHeaders: [(String, String)], responseBody: [UInt8]
    ) {
        let secrets = (formFields ?? []).filter { Self.isSecret(field: $0.name, declared: secretFields) }.map(\.value)
        let query = (URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []).map { item in
            Entry.NameValue(
                name: item.name,
                value: Self.isSecret(field: item.name, declared: secretFields) ? Self.redacted : item.value ?? "")
        }
        state.withLock { state in
            state.secretValues.formUnion(secrets.filter { $0.count >= 4 })
            var request = Entry.Request(
                method: method, url: Self.redact(url: url, secretFields: secretFields),
                headers: requestHeaders.map { Self.redact(header: $0) }, queryString: query)
            if let formFields {
                let params = formFields.map { field in
                    Entry.NameValue(
                        name: field.name,
                        value: Self.isSecret(field: field.name, declared: secretFields) ? Self.redacted : field.value)
                }
                request.postData = .init(mimeType: "application/x-www-form-urlencoded", params: params)
                request.bodySize = formFields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 }
            }
            let contentType = responseHeaders.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
            var content = Entry.Content(size: responseBody.count, mimeType: contentType)
            if includeBodies {
                content.text = Self.scrub(String(decoding: responseBody, as: UTF8.self), secrets: state.secretValues)
            }
            let location = responseHeaders.first { $0.0.lowercased() == "location" }?.1 ?? ""
            let response = Entry.Response(
                status: status, statusText: HTTPResponseStatus(statusCode: status).reasonPhrase,
                headers: responseHeaders.map { Self.redact(header: $0) }, content: content, redirectURL: location,
                bodySize: responseBody.count)
            let milliseconds = (duration * 1000).rounded()
            state.entries.append(
                Entry(
                    startedDateTime: Self.timestamp(started), time: milliseconds, request: request, response: response,
                    timings: .init(send: 0, wait: milliseconds, receive: 0)))
        }
    }

    /// The HAR document.
    public func har() throws -> Data {
        let entries = state.withLock { $0.entries }
        let document = Document(log: .init(creator: .init(name: "unitool", version: UniToolVersion.current), entries: entries))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }

    /// Writes the HAR file atomically, readable by the user only (it shows where they went).
    public func write(to url: URL) throws {
        try AtomicFile.write(try har(), to: url, mode: 0o600)
    }

    public var entryCount: Int { state.withLock { $0.entries.count } }

    // MARK: Redaction

    static func redact(header: (String, String)) -> Entry.NameValue {
        let (name, value) = header
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            return .init(name: name, value: redacted)
        case "cookie":
            let pairs = value.split(separator: ";").map { pair -> String in
                let name = pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                return "\(name)=\(redacted)"
            }
            return .init(name: name, value: pairs.joined(separator: "; "))
        case "set-cookie":
            var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            if let first = parts.first {
                let cookieName = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                parts[0] = "\(cookieName)=\(redacted)"
            }
            return .init(name: name, value: parts.joined(separator: ";"))
        default:
            return .init(name: name, value: value)
        }
    }

    /// The URL with the values of secret query parameters replaced.
    static func redact(url: URL, secretFields: Set<String>) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), let items = components.queryItems,
            items.contains(where: { isSecret(field: $0.name, declared: secretFields) })
        else { return url.absoluteString }
        components.queryItems = items.map { item in
            isSecret(field: item.name, declared: secretFields) ? URLQueryItem(name: item.name, value: redacted) : item
        }
        return components.url?.absoluteString ?? url.absoluteString
    }

    /// A body with SAML messages and every secret sent in this run removed.
    static func scrub(_ text: String, secrets: Set<String>) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            result = result.replacingOccurrences(of: secret, with: redacted)
        }
        // <input ... name="SAMLResponse" value="..."> in either attribute order.
        let patterns = [
            #"(name\s*=\s*["']SAML(?:Response|Request)["'][^>]*?value\s*=\s*["'])[^"']*"#,
            #"(value\s*=\s*["'])[^"']*(["'][^>]*?name\s*=\s*["']SAML(?:Response|Request)["'])"#,
        ]
        for pattern in patterns {
            guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
            let range = NSRange(result.startIndex..., in: result)
            let template = pattern.hasPrefix("(name") ? "$1\(redacted)" : "$1\(redacted)$2"
            result = regex.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }

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
