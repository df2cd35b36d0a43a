import Foundation
import LibXML
import Synchronization
import WebEncoding

/// A response as the session saw it after following redirects.
public struct Page: Sendable {
    /// Where the page finally came from, after every redirect.
    public var url: URL
    public var status: Int
    public var contentType: String?
    public var body: [UInt8] {
        didSet { parsed = ParsedBody() }
    }
    /// Every address visited to reach this page, the first request included.
    public var hops: [URL]
    /// Set when the session stopped at a redirect instead of following it (`HTTPSession.redirectGate`):
    /// where it led. The page is then that redirect's answer.
    public var heldRedirect: URL? = nil
    /// The body as `document` parsed it, shared by the copies of the page: the login check
    /// parses every page a command fetches, and the extraction then reads the same tree instead
    /// of parsing the bytes a second time (issue 40: the page was parsed twice per request).
    private var parsed = ParsedBody()

    /// A parsed body and the charset override it was parsed with. A class, so that the copies
    /// of a page share one parse; libxml2's tree is read one caller at a time (`Document`).
    final class ParsedBody: Sendable {
        let document = Mutex<(override: String?, document: Document)?>(nil)
    }

    public init(url: URL, status: Int, contentType: String?, body: [UInt8], hops: [URL]) {
        self.url = url
        self.status = status
        self.contentType = contentType
        self.body = body
        self.hops = hops
    }

    /// The charset the server declared in `Content-Type`, if any.
    public var charset: String? { Self.charset(ofContentType: contentType) }

    /// The `charset` parameter of a `Content-Type` value, unquoted.
    public static func charset(ofContentType contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            }
        }
        return nil
    }

    /// Parses the body as HTML with libxml2, decoded as a browser decodes it (see `Document`).
    ///
    /// - Parameter charsetOverride: the recipe's `charset:` for this page, which beats the
    ///   server's label (not a byte order mark).
    /// Parsed once per page and override; a later call gets the same tree.
    public func document(charsetOverride: String? = nil) throws -> Document {
        if let cached = parsed.document.withLock({ $0 }), cached.override == charsetOverride { return cached.document }
        do {
            let document = try Document(html: body, url: url.absoluteString, encoding: charset, charsetOverride: charsetOverride)
            parsed.document.withLock { $0 = (charsetOverride, document) }
            return document
        } catch {
            throw UniToolError(
                .layoutChanged, localized("the page at \(url.redactedForLog) could not be parsed as HTML: \(error)"))
        }
    }

    /// The body as text, for JSON APIs.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as text, decoded as a browser would decode it (byte order mark, the recipe's
    /// `charset:`, the HTTP header, the page's `<meta>` or XML declaration, UTF-8), without
    /// parsing it: for handing a page on as it is, in a front end's own encoding.
    public func decodedText(charsetOverride: String? = nil) -> String {
        let markup: EncodingSniffer.Markup = contentType?.lowercased().contains("xml") == true ? .xml : .html
        let decoded = EncodingSniffer(markup: markup, headerLabel: charset, overrideLabel: charsetOverride).decode(body).decoded
        return String(decoding: decoded.utf8, as: UTF8.self)
    }
}

extension URL {
    /// The URL with query values hidden, for logs and messages: a GET form could carry a
    /// secret in its query, and SAML parameters are long and useless to a reader.
    public var redactedForLog: String {
        guard let components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return "<url>" }
        var text = origin + (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
        if let items = components.queryItems, !items.isEmpty {
            text += "?" + items.map { "\($0.name)=…" }.joined(separator: "&")
        }
        return text
    }
}
