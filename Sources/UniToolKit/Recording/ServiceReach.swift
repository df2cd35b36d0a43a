import Foundation

/// Which other origins of a recording are services of the portal: those the person reached by
/// their own navigation from the portal (a link followed, an address opened from its page, a
/// script of its page calling out), and why each other origin is not.
///
/// A service becomes a `services:` entry with commands that run in the portal's session, so a
/// recording must never make one of a site the portal merely passed through: a third-party
/// survey that a portal page posted a form to, a page reached from such a site, or a page the
/// recording holds no way of telling where it came from. An origin is accepted when a GET page
/// load (at the start of its redirect chain) or a script call to it came from the portal's origin
/// or from an origin already accepted, as its `Referer` (or Chromium's `_initiator`) says. Pure:
/// the recording in, the decisions out; it never adds a credential origin.
public struct ServiceReach: Sendable {
    public struct Decision: Sendable, Equatable {
        public var origin: String
        /// Why, in words for the report.
        public var reason: String
    }

    /// The origins accepted as services, in the order they were reached.
    public private(set) var accepted: [Decision] = []
    /// The other origins, each with why it is not a service.
    public private(set) var refused: [Decision] = []

    /// - Parameters:
    ///   - from: the index in `archive.exchanges` where the logged-in portal begins.
    ///   - portal: the portal's origin; `loginOrigins`: the identity provider's, never a service.
    public init(archive: HTTPArchive, from start: Int, portal: String, loginOrigins: Set<String>) {
        let exchanges = archive.exchanges
        guard start < exchanges.count else { return }
        var acceptedOrigins: Set<String> = [portal]
        for index in start..<exchanges.count {
            let exchange = exchanges[index]
            let origin = exchange.url.origin
            guard exchange.isPageLoad || exchange.isScriptCall, !acceptedOrigins.contains(origin), !loginOrigins.contains(origin)
            else { continue }
            let chain = Self.redirectChain(endingAt: index, in: exchanges)
            let first = exchanges[chain.first ?? index]
            let reason: String
            if let posted = chain.map({ exchanges[$0] }).first(where: { $0.method != "GET" }) {
                let source = Self.referrer(of: posted)?.origin ?? localized("an unknown page")
                reason = localized("reached by a form (\(posted.method)) posted from \(source), not by a link of the portal")
            } else if let from = Self.referrer(of: first) {
                guard acceptedOrigins.contains(from.origin) else {
                    reason = localized("reached from \(from.origin), a site that is not the portal's")
                    record(refusal: Decision(origin: origin, reason: reason))
                    continue
                }
                acceptedOrigins.insert(origin)
                refused.removeAll { $0.origin == origin }
                let page = from.origin + (from.path.isEmpty ? "/" : from.path)
                let how: String
                switch (exchange.isScriptCall && !exchange.isPageLoad, from.origin == portal) {
                case (true, true): how = localized("called by a script of the portal's page \(page)")
                case (true, false): how = localized("called by a script of the service's page \(page)")
                case (false, true): how = localized("opened from the portal's page \(page)")
                case (false, false): how = localized("opened from the service's page \(page)")
                }
                accepted.append(Decision(origin: origin, reason: how))
                continue
            } else {
                reason = localized("the recording does not say which page it was reached from (no Referer)")
            }
            record(refusal: Decision(origin: origin, reason: reason))
        }
    }

    private mutating func record(refusal: Decision) {
        if !refused.contains(where: { $0.origin == refusal.origin }) { refused.append(refusal) }
    }

    /// The exchanges of the redirect chain that ends at `index`, first hop first.
    static func redirectChain(endingAt index: Int, in exchanges: [HTTPArchive.Exchange]) -> [Int] {
        var chain = [index]
        var current = index
        while let previous = exchanges[..<current].lastIndex(where: {
            (300..<400).contains($0.status) && $0.redirect?.absoluteString == exchanges[current].url.absoluteString
        }), !chain.contains(previous) {
            chain.insert(previous, at: 0)
            current = previous
        }
        return chain
    }

    /// The page a request came from: its `Referer`, else Chromium's `_initiator`.
    static func referrer(of exchange: HTTPArchive.Exchange) -> URL? {
        if let referer = exchange.header("Referer", in: exchange.requestHeaders), let url = URL(string: referer), url.host != nil {
            return url
        }
        return exchange.initiator
    }
}
