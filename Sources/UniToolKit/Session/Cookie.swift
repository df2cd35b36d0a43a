import Foundation
import PublicSuffix

/// One cookie as RFC 6265 stores it.
public struct Cookie: Codable, Sendable, Equatable {
    public var name: String
    public var value: String
    /// Lowercased, without a leading dot.
    public var domain: String
    /// True when the server sent no `Domain`: the cookie goes back to that exact host only.
    public var hostOnly: Bool
    public var path: String
    /// Nil for a session cookie, which a browser forgets when it closes. unitool keeps session
    /// cookies in its saved session, since one unitool "browser session" spans several runs.
    public var expires: Date?
    public var secure: Bool
    public var httpOnly: Bool
    public var created: Date

    public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    public init(
        name: String, value: String, domain: String, hostOnly: Bool, path: String, expires: Date?, secure: Bool, httpOnly: Bool,
        created: Date
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.created = created
    }

    /// Parses a `Set-Cookie` header received from `url` (RFC 6265 section 5.2 and 5.3).
    /// Returns nil for a header a browser would ignore.
    ///
    /// - Parameter isPublicSuffix: the Public Suffix List's verdict on a domain; libpsl's list
    ///   unless a test gives its own.
    public static func parse(
        setCookie header: String, from url: URL, now: Date = Date(),
        isPublicSuffix: (String) -> Bool = PublicSuffixList.isPublicSuffix
    ) -> Cookie? {
        guard let host = url.host?.lowercased() else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingWhitespace()
        let value = pair[pair.index(after: equals)...].trimmingWhitespace()
        guard !name.isEmpty else { return nil }
        // RFC 6265bis, section 5.6, step 5: a name and value longer than 4096 octets together
        // are ignored entirely, as browsers do; a portal cannot grow the saved session that way.
        guard name.utf8.count + value.utf8.count <= CookieLimits.maxNameAndValueBytes else { return nil }

        var cookie = Cookie(
            name: name, value: value, domain: host, hostOnly: true, path: defaultPath(of: url),
            expires: nil, secure: false, httpOnly: false, created: now)
        var maxAgeSeen = false
        for attribute in parts {
            // Found by fuzzing: "a=b;" has an empty attribute, which split into no pieces at all.
            let pieces = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingWhitespace() }
            guard let first = pieces.first, !first.isEmpty else { continue }
            let key = first.lowercased()
            let argument = pieces.count > 1 ? pieces[1] : ""
            switch key {
            case "expires":
                if !maxAgeSeen, let date = parseHTTPDate(argument) { cookie.expires = min(date, now.addingTimeInterval(maxLifetime)) }
            case "max-age":
                guard let seconds = Int(argument) else { continue }
                maxAgeSeen = true
                // Capped as RFC 6265bis asks. Found by fuzzing: Max-Age=8198552929648689676 made a
                // date past the year 9999, which the saved session could not read back, so every
                // run logged in again.
                cookie.expires = seconds <= 0 ? Date.distantPast : now.addingTimeInterval(min(TimeInterval(seconds), maxLifetime))
            case "domain":
                var domain = argument.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                // A server may only set cookies for itself or a parent domain, never for an IP
                // address other than its own.
                guard domainMatches(host: host, domain: domain) else { return nil }
                // Nor for a public suffix (`edu`, `ac.jp`): every university under it would get
                // the cookie. Only a host that is itself a suffix may name it, and then the cookie
                // stays with that host (RFC 6265, section 5.3, step 5).
                if isPublicSuffix(domain) {
                    guard domain == host else { return nil }
                    continue
                }
                if domain != host || !isIPAddress(host) {
                    cookie.domain = domain
                    cookie.hostOnly = domain == host && isIPAddress(host)
                }
            case "path":
                cookie.path = argument.hasPrefix("/") ? argument : defaultPath(of: url)
            case "secure":
                cookie.secure = true
            case "httponly":
                cookie.httpOnly = true
            default:
                continue
            }
        }
        if cookie.secure && url.scheme?.lowercased() != "https" { return nil }
        return cookie
    }

    /// The longest a cookie may live: 400 days (RFC 6265bis, section 5.5).
    static let maxLifetime: TimeInterval = 400 * 24 * 60 * 60

    /// RFC 6265 5.1.4: the directory of the request path.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// Whether the cookie goes to `host` (lowercased) by its domain: that host alone for a
    /// host-only cookie, else the domain and the names under it (RFC 6265 5.4, step 1).
    func isSent(toHost host: String) -> Bool {
        hostOnly ? host == domain : Cookie.domainMatches(host: host, domain: domain)
    }

    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return !isIPAddress(host) && host.hasSuffix("." + domain)
    }

    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").allSatisfy { UInt8($0) != nil } && host.split(separator: ".").count == 4
    }

    private static let dateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE, dd-MMM-yyyy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy", "EEE, dd MMM yyyy HH:mm:ss",
    ]

    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in dateFormats {
            formatter.dateFormat = format
            if let date = formatter.safeDate(from: text) { return date }
        }
        return nil
    }
}

/// A browser's cookie store, as a value: the session engine keeps it behind a lock.
public struct CookieJar: Codable, Sendable, Equatable {
    public private(set) var cookies: [Cookie] = []

    public init(cookies: [Cookie] = []) { self.cookies = cookies }

    /// Stores every `Set-Cookie` of a response. A cookie with the same name, domain and path
    /// replaces the old one; an expired one deletes it.
    public mutating func store(setCookieHeaders: [String], from url: URL, now: Date = Date()) {
        for header in setCookieHeaders {
            guard let cookie = Cookie.parse(setCookie: header, from: url, now: now) else { continue }
            store(cookie, now: now)
        }
    }

    /// Stores one cookie, within the browser's limits (`CookieLimits`): one whose name and value
    /// are too long is ignored, and a domain past its cookie cap loses its expired cookies, then
    /// its oldest ones, so that a portal cannot grow the saved session without bound.
    public mutating func store(_ cookie: Cookie, now: Date = Date()) {
        var cookie = cookie
        guard cookie.name.utf8.count + cookie.value.utf8.count <= CookieLimits.maxNameAndValueBytes else { return }
        if let index = cookies.firstIndex(where: {
            $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
        }) {
            cookie.created = cookies[index].created
            cookies.remove(at: index)
        }
        guard !cookie.isExpired(at: now) else { return }
        cookies.append(cookie)
        let sameDomain = cookies.indices.filter { cookies[$0].domain == cookie.domain }
        if sameDomain.count > CookieLimits.maxCookiesPerDomain {
            let evicted = CookieLimits.evictions(
                among: sameDomain.map { (created: cookies[$0].created, expired: cookies[$0].isExpired(at: now)) })
            let doomed = Set(evicted.map { sameDomain[$0] })
            cookies = cookies.indices.filter { !doomed.contains($0) }.map { cookies[$0] }
        }
    }

    /// The cookies a browser would send to `url`: longer paths first, then older first.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        guard let host = url.host?.lowercased() else { return [] }
        let path = url.path.isEmpty ? "/" : url.path
        let secureChannel = url.scheme?.lowercased() == "https"
        return cookies.filter { cookie in
            !cookie.isExpired(at: now)
                && cookie.isSent(toHost: host)
                && Cookie.pathMatches(requestPath: path, cookiePath: cookie.path)
                && (!cookie.secure || secureChannel)
        }.sorted { ($0.path.count, $1.created) > ($1.path.count, $0.created) }
    }

    /// The value of the `Cookie` request header, or nil when no cookie applies.
    public func header(for url: URL, now: Date = Date()) -> String? {
        let applicable = cookies(for: url, now: now)
        guard !applicable.isEmpty else { return nil }
        return applicable.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Removes the cookies a browser would send to `url`'s host, whatever their path, except
    /// those it would also send to `kept` (by its host and path): the login service's session,
    /// where it shares a host with the portal under a path of its own (`Path=/idp`).
    public mutating func remove(cookiesFor url: URL, keepingThoseFor kept: URL? = nil) {
        guard let host = url.host?.lowercased() else { return }
        let keptHost = kept?.host?.lowercased()
        let keptPath = kept.map { $0.path.isEmpty ? "/" : $0.path }
        cookies.removeAll { cookie in
            let sentToURL = cookie.isSent(toHost: host)
            guard sentToURL else { return false }
            guard let keptHost, let keptPath else { return true }
            let sentToKept =
                cookie.isSent(toHost: keptHost)
                && Cookie.pathMatches(requestPath: keptPath, cookiePath: cookie.path)
            // A cookie for the whole host ("/") is the portal's as much as the service's: it goes.
            return !sentToKept || cookie.path == "/"
        }
    }

    public mutating func removeExpired(now: Date = Date()) {
        cookies.removeAll { $0.isExpired(at: now) }
    }
}

/// How many cookies a domain may keep and how long one may be: the limits RFC 6265 (section
/// 6.1: at least 50 per domain, 4096 bytes each) asks a browser to support, which are also the
/// most a portal can rely on. Without them a portal (or a page that sets a cookie per row) could
/// make the saved session grow without bound: 450 cookies made a 213 KB session file, sent with
/// every request.
public enum CookieLimits {
    /// Per cookie domain (the host of a host-only cookie, or its `Domain`).
    public static let maxCookiesPerDomain = 50
    /// The name and the value together, in UTF-8 bytes (RFC 6265bis, section 5.6).
    public static let maxNameAndValueBytes = 4096

    /// Which of a domain's cookies to evict so that `maxCookiesPerDomain` remain, as indices into
    /// `cookies` (in their stored order): the expired ones first, then the oldest by creation
    /// (RFC 6265, section 5.3, step 12), the earlier stored first among equals. Pure, for tests.
    public static func evictions(among cookies: [(created: Date, expired: Bool)], keeping limit: Int = maxCookiesPerDomain) -> [Int] {
        let excess = cookies.count - limit
        guard excess > 0 else { return [] }
        let order = cookies.indices.sorted { left, right in
            let a = cookies[left]
            let b = cookies[right]
            if a.expired != b.expired { return a.expired }
            if a.created != b.created { return a.created < b.created }
            return left < right
        }
        return Array(order.prefix(excess)).sorted()
    }
}
