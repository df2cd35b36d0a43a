import Foundation

/// A browser's recording of what it did (HAR 1.1 and 1.2, as Chromium's and Firefox's DevTools
/// and Playwright write it), reduced to what a recipe can be made from: each exchange's request,
/// status, redirect, form fields and body, in the order the browser made them.
///
/// The producers differ in ways that matter here (see docs/SUPPORTING.md, "Record your login"):
/// - `postData` holds `params` only for urlencoded forms (Chromium, and Playwright only when the
///   Content-Type is exactly `application/x-www-form-urlencoded`), `params: []` beside the `text`
///   (Firefox), or only the text: the fields are read from `text` when `params` is empty.
/// - `redirectURL` is the `Location` header as sent (Chromium, Firefox: often relative) or
///   absolute (Playwright): it is resolved against the request's address.
/// - A body is `text`, or base64 with `encoding: "base64"`; it is missing (`size: -1`, no
///   `text`) when the browser had already left the page, as it does after an auto-posting form.
/// - The private `_resourceType` (Chromium, Playwright) says whether a request loaded a page;
///   Firefox has none, so a page load is told by what it asked for and got (`isPageLoad`).
/// - Chromium's default "Export HAR (sanitized)" leaves out cookies and `Authorization`; nothing
///   here needs them.
public struct HTTPArchive: Sendable {
    /// One request and its response.
    public struct Exchange: Sendable {
        public var method: String
        public var url: URL
        public var status: Int
        /// Where a 3xx sent the browser, resolved against `url`.
        public var redirect: URL?
        public var requestHeaders: [(name: String, value: String)]
        public var responseHeaders: [(name: String, value: String)]
        /// Cookie values of the request and the response, for the secrets to keep out of files.
        public var cookieValues: [String]
        /// The posted fields of a form (urlencoded, in order), or nil for a request without a form.
        public var formFields: [(name: String, value: String)]?
        /// A posted body that is not a form (JSON, XML), as text.
        public var postText: String?
        /// The response's media type as recorded (`text/html; charset=utf-8`).
        public var mimeType: String?
        /// The response body, or nil when the recording does not hold it.
        public var body: [UInt8]?
        /// Chromium's and Playwright's `_resourceType` (document, xhr, fetch, stylesheet, …).
        public var resourceType: String?
        /// The page that caused the request, as Chromium's `_initiator` says (its `url`, or the
        /// first frame of the script's stack), when the recording has one.
        public var initiator: URL? = nil

        /// Whether the browser loaded a page with this request (a navigation), rather than a
        /// part of one (a stylesheet, an image) or a script's call (XHR, fetch).
        public var isPageLoad: Bool {
            if let resourceType { return resourceType == "document" }
            // Firefox: no resource type. A page load asks for HTML (Sec-Fetch-Dest when sent),
            // posts a form, or is a redirect hop of one.
            if let destination = header("Sec-Fetch-Dest", in: requestHeaders) { return destination == "document" }
            if formFields != nil { return true }
            if (300..<400).contains(status) { return true }
            let accept = header("Accept", in: requestHeaders) ?? ""
            return accept.hasPrefix("text/html") && (mimeType ?? "").contains("html")
        }

        /// Whether a script on the page asked for this (XHR or fetch).
        public var isScriptCall: Bool {
            if let resourceType { return resourceType == "xhr" || resourceType == "fetch" }
            if let destination = header("Sec-Fetch-Dest", in: requestHeaders) { return destination == "empty" }
            return header("X-Requested-With", in: requestHeaders) != nil
        }

        public var isHTML: Bool { (mimeType ?? "").lowercased().contains("html") }
        public var isJSON: Bool { (mimeType ?? "").lowercased().contains("json") }

        /// The response's Content-Type header, else the recorded media type.
        public var contentType: String? { header("Content-Type", in: responseHeaders) ?? mimeType }

        /// The value of a form field, or of a query parameter when the request posted no form.
        public func value(of name: String) -> String? {
            if let field = formFields?.first(where: { $0.name == name }) { return field.value }
            return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
        }

        func header(_ name: String, in headers: [(name: String, value: String)]) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Who wrote the recording (`WebInspector`, `Firefox`, `Playwright`), as it says.
    public var creator: String
    public var exchanges: [Exchange]
    /// The entries left out because they were not `http` or `https` (an extension's
    /// `chrome-extension://` page, a `file://` or `data:` address), by scheme, for the report.
    public var skippedSchemes: [String] = []

    /// The most a recording may be: a login and a few pages are a few megabytes, a DevTools
    /// session left running for a day is not a recording of a login.
    public static let maximumSize = 256 << 20

    /// Reads a recording from a file, refusing one too large before reading a byte of it.
    public init(file path: String) throws {
        let name = TerminalText.escaped(path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, attributes[.type] as? FileAttributeType != .typeDirectory else {
            throw UniToolError(
                .usage, localized("cannot read the recording \(name)"), hint: localized("give the path of the .har file the browser saved"))
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        if size > Self.maximumSize { throw Self.tooLarge(size, name: name) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UniToolError(
                .usage, localized("cannot read the recording \(name)"), hint: localized("give the path of the .har file the browser saved"))
        }
        try self.init(data: data, name: name)
    }

    private static func tooLarge(_ size: Int, name: String) -> UniToolError {
        let megabytes = size >> 20
        let most = Self.maximumSize >> 20
        return UniToolError(
            .usage, localized("\(name) is \(megabytes) MB, more than a recording of a login holds (at most \(most) MB)"),
            hint: localized("record only the login and the pages you want: clear the Network tab (🚫) before you start"))
    }

    /// Reads a recording. `name` is how errors name it (the file's path).
    public init(data: Data, name: String) throws {
        guard data.count <= Self.maximumSize else { throw Self.tooLarge(data.count, name: name) }
        let file: HARFile
        do {
            file = try JSONDecoder().decode(HARFile.self, from: data)
        } catch let error as DecodingError {
            let problem = Self.describe(error)
            throw UniToolError(
                .usage, localized("\(name) is not a HAR recording: \(problem)"),
                hint: localized(
                    "save it from the browser's DevTools: Network tab, then 'Save all as HAR' (Chromium) or 'Save All As HAR' (Firefox)"))
        }
        if let version = file.log.version, !["1.1", "1.2"].contains(version) {
            let shown = TerminalText.escaped(version)
            throw UniToolError(
                .usage, localized("\(name) is HAR version \(shown); unitool reads versions 1.1 and 1.2"),
                hint: localized("save the recording again from Chromium or Firefox"))
        }
        creator = file.log.creator?.name ?? "unknown"
        // Only what a portal serves: the browser's own pages and local files are no part of it,
        // and a service or a command made of one would be refused by lint.
        var skipped: [String] = []
        exchanges = file.log.entries.compactMap { entry in
            let scheme = URL(string: entry.request.url)?.scheme?.lowercased() ?? localized("an unreadable address")
            guard scheme == "http" || scheme == "https" else {
                skipped.append(scheme)
                return nil
            }
            return Self.exchange(entry)
        }
        skippedSchemes = skipped
    }

    /// The recordings of several files, one after the other (a login, then another visit).
    public init(_ archives: [HTTPArchive]) {
        creator = archives.map(\.creator).joined(separator: ", ")
        exchanges = archives.flatMap(\.exchanges)
        skippedSchemes = archives.flatMap(\.skippedSchemes)
    }

    private static func exchange(_ entry: HAREntry) -> Exchange? {
        guard let url = URL(string: entry.request.url), url.host != nil else { return nil }
        let request = entry.request
        let response = entry.response
        let pairs = { (list: [HARPair]?) in (list ?? []).map { (name: $0.name, value: $0.value ?? "") } }
        var formFields: [(name: String, value: String)]?
        var postText: String?
        if let post = request.postData {
            let mime = (post.mimeType ?? "").lowercased()
            let params = (post.params ?? []).filter { $0.fileName == nil }.map { (name: $0.name, value: $0.value ?? "") }
            if !params.isEmpty {
                // Chromium, Firefox and Playwright give the fields decoded: taken as they are (a
                // password may hold "%41" or "+").
                formFields = params
            } else if mime.hasPrefix("application/x-www-form-urlencoded") {
                formFields = formDecoded(post.text ?? "")
            } else if mime.isEmpty, let text = post.text, looksFormEncoded(text) {
                formFields = formDecoded(text)
            } else {
                postText = post.text
            }
        }
        var body: [UInt8]?
        // No text, or an empty one (Firefox's "size": 0 with a comment), is no body kept.
        if let text = response.content?.text, !text.isEmpty {
            if response.content?.encoding == "base64" {
                body = Data(base64Encoded: text, options: .ignoreUnknownCharacters).map(Array.init)
            } else {
                body = Array(text.utf8)
            }
        }
        let redirect = response.redirectURL.flatMap { $0.isEmpty ? nil : URL(string: $0, relativeTo: url)?.absoluteURL }
        let cookies = (request.cookies ?? []) + (response.cookies ?? [])
        return Exchange(
            method: request.method.uppercased(), url: url, status: response.status, redirect: redirect,
            requestHeaders: pairs(request.headers), responseHeaders: pairs(response.headers),
            cookieValues: cookies.compactMap(\.value).filter { !$0.isEmpty }, formFields: formFields, postText: postText,
            mimeType: response.content?.mimeType, body: body, resourceType: entry.resourceType,
            initiator: (entry.initiator?.url ?? entry.initiator?.stack?.callFrames?.first?.url).flatMap { URL(string: $0) }.flatMap {
                $0.host == nil ? nil : $0
            })
    }

    /// `a=1&b=%20x+y` as fields, decoded as a browser encoded them.
    static func formDecoded(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            return (name: decode(parts[0]), value: parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private static func looksFormEncoded(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("{") && !text.hasPrefix("<") && text.contains("=")
            && !text.contains(where: { $0 == " " || $0 == "\n" })
    }

    private static func describe(_ error: DecodingError) -> String {
        /// Where in the file, as `log.entries[3].request`; nil at the top.
        func path(_ context: DecodingError.Context) -> String? {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? nil : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return localized("it is not JSON") }
            if let place = path(context) { return localized("a value is malformed at \(place)") }
            return localized("a value is malformed")
        case .keyNotFound(let key, let context):
            let name = key.stringValue
            if let place = path(context) { return localized("'\(name)' is missing at \(place)") }
            return localized("'\(name)' is missing")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            if let place = path(context) { return localized("a value has the wrong type at \(place)") }
            return localized("a value has the wrong type")
        @unknown default: return localized("it cannot be read")
        }
    }
}

// The HAR 1.2 format (http://www.softwareishard.com/blog/har-12-spec/), only the keys read here.
// Every key a producer may leave out is optional; unknown keys (the `_` ones) are ignored.
private struct HARFile: Decodable {
    var log: HARLog
}

private struct HARLog: Decodable {
    var version: String?
    var creator: HARCreator?
    var entries: [HAREntry]
}

private struct HARCreator: Decodable {
    var name: String?
}

private struct HAREntry: Decodable {
    var request: HARRequest
    var response: HARResponse
    var resourceType: String?
    var initiator: HARInitiator?

    enum CodingKeys: String, CodingKey {
        case request, response
        case resourceType = "_resourceType"
        case initiator = "_initiator"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        request = try container.decode(HARRequest.self, forKey: .request)
        response = try container.decode(HARResponse.self, forKey: .response)
        resourceType = try container.decodeIfPresent(String.self, forKey: .resourceType)
        // A private key of Chromium's, in whatever shape a version writes it: read when it can be.
        initiator = try? container.decodeIfPresent(HARInitiator.self, forKey: .initiator)
    }
}

/// Chromium's `_initiator`: `{"type": "parser", "url": …}` or a script's stack.
private struct HARInitiator: Decodable {
    struct Stack: Decodable {
        struct Frame: Decodable { var url: String? }
        var callFrames: [Frame]?
    }
    var url: String?
    var stack: Stack?
}

private struct HARRequest: Decodable {
    var method: String
    var url: String
    var headers: [HARPair]?
    var cookies: [HARPair]?
    var postData: HARPostData?
}

private struct HARPair: Decodable {
    var name: String
    var value: String?
}

private struct HARPostData: Decodable {
    var mimeType: String?
    var text: String?
    var params: [HARParam]?
}

private struct HARParam: Decodable {
    var name: String
    var value: String?
    var fileName: String?
}

private struct HARResponse: Decodable {
    var status: Int
    var headers: [HARPair]?
    var cookies: [HARPair]?
    var content: HARContent?
    var redirectURL: String?
}

private struct HARContent: Decodable {
    var size: Int?
    var mimeType: String?
    var text: String?
    var encoding: String?
}
