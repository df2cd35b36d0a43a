import Foundation

/// Request headers a recipe adds (`headers:`): the portal recipe's go with every request to the
/// portal's own origins, a service's with every request to that service's origin, and a data
/// recipe's with that recipe's own requests. A pure decision, kept apart from the session that
/// sends (`RecipeHeadersTests`).
///
/// Some portals want a header no browser default carries (an API that answers only with
/// `X-Requested-With`, an `Accept` of its own). A recipe may say so, but never for a header that
/// decides whose session or which site a request is (`Cookie`, `Host`) or how it is framed, and
/// never to an origin the portal does not own: a recipe's headers may carry a token.
public struct RecipeHeaders: Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Headers for every request to an origin, by origin (`https://lms.example.edu`).
    public var byOrigin: [String: [Header]] = [:]

    public init(byOrigin: [String: [Header]] = [:]) {
        self.byOrigin = byOrigin
    }

    /// The headers a request to `url` gets: the origin's, then the data recipe's own
    /// (`recipe`), a later one replacing an earlier one of the same name. `ownOrigins` are the
    /// portal's; any other origin gets none, whoever asked.
    public func headers(for url: URL, recipe: [Header], ownOrigins: Set<String>) -> [Header] {
        guard ownOrigins.contains(url.origin) else { return [] }
        return Self.merging(byOrigin[url.origin] ?? [], recipe)
    }

    /// `base`, then `over`, each header replacing an earlier one of the same name (in any case).
    public static func merging(_ base: [Header], _ over: [Header]) -> [Header] {
        var merged: [Header] = []
        for header in base + over {
            merged.removeAll { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }
            merged.append(header)
        }
        return merged
    }

    /// Headers no recipe may set: who the request is for and whose session it carries (the
    /// session's cookies, the URL's host), how the message is framed (the HTTP client's), and
    /// what belongs to a proxy.
    static let refusedNames: Set<String> = [
        "cookie", "cookie2", "host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te",
        "trailer", "expect", "proxy-authorization", "proxy-connection",
    ]

    /// Why a recipe may not send this header, or nil when it may.
    public static func problem(name: String, value: String) -> String? {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && token.contains($0) }) else {
            return localized("'\(name)' is not a header name: use letters, digits and - only")
        }
        if refusedNames.contains(name.lowercased()) {
            return name.lowercased().hasPrefix("cookie")
                ? localized("a recipe cannot set Cookie: the session sends the portal's own cookies")
                : localized("a recipe cannot set \(name): unitool's HTTP client sets it from the request itself")
        }
        if value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return localized("the value of \(name) holds a line break or a control character")
        }
        return nil
    }
}
