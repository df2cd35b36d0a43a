import Foundation
import PublicSuffix

/// The headers a current browser sends with a request, decided by what the request is: a pure
/// decision with unit tests per kind (`BrowserRequestTests`), kept apart from the session that
/// sends.
///
/// Identity providers answer browsers and scripts at the same address and tell them apart by the
/// request's shape. LemonLDAP::NG treats any `Accept` that names `application/json` or
/// `text/json` as an AJAX call (`Lemonldap::NG::Common::PSGI::Request::wantJSON`, 2.x) and answers
/// `401 {"result":0,"error":"9"}` instead of its login page; no browser names JSON in the
/// `Accept` of a page load. So a page is asked for as a browser navigates to it, a form as a
/// browser posts it, and a JSON API as a page's `fetch()` asks it.
public struct BrowserRequest: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A page the browser goes to: an address, a link, a redirect.
        case navigation
        /// A form submitted from a page: a navigation that carries `Origin`.
        case formPost
        /// A page's script asking an API with `fetch()` (a terms version, an AJAX call).
        case fetch
    }

    public var kind: Kind
    public var method: String
    public var url: URL
    /// The page the request comes from, if any: a form's page.
    public var referrer: URL?

    /// The `Accept-Language` value (`acceptLanguage(portal:environment:)`), if any.
    public var acceptLanguage: String?

    public init(kind: Kind, method: String, url: URL, referrer: URL? = nil, acceptLanguage: String? = nil) {
        self.kind = kind
        self.method = method
        self.url = url
        self.referrer = referrer
        self.acceptLanguage = acceptLanguage
    }

    /// What a browser set to the portal's language asks for (`language: de-DE` →
    /// `de-DE,de;q=0.9,en;q=0.8`), else one set to the user's locale (`LC_ALL`, `LC_MESSAGES`,
    /// `LANG`: `ja_JP.UTF-8` → `ja-JP,ja;q=0.9,en;q=0.8`); English last, as browsers add it.
    /// The C and POSIX locales are a browser's default, American English.
    public static func acceptLanguage(portal language: String?, environment: [String: String]) -> String {
        var tag = language
        if tag == nil {
            let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
            let name = String(locale.split(separator: ".").first ?? "").split(separator: "@").first.map(String.init) ?? ""
            let candidate = name.replacingOccurrences(of: "_", with: "-")
            tag = PortalLanguage.isTag(candidate) ? candidate : nil
        }
        guard let tag else { return "en-US,en;q=0.9" }
        let primary = PortalLanguage.primary(tag)
        var values = [tag]
        if primary != tag.lowercased() { values.append("\(primary);q=0.9") }
        if primary != "en" { values.append("en;q=0.8") }
        return values.joined(separator: ",")
    }

    /// What Firefox and Chromium send with a page load.
    public static let navigationAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    /// Browser-shaped, so that user-agent sniffers serve the normal page, and naming unitool and
    /// its version, so that a portal's logs say honestly who came.
    public static let userAgent =
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) unitool/\(UniToolVersion.current) (command-line client)"

    /// The headers, in the order a browser sends them. Cookies, the body's type and the
    /// `User-Agent` are the session's.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        switch kind {
        case .navigation, .formPost:
            headers.append(("Accept", Self.navigationAccept))
            headers.append(("Upgrade-Insecure-Requests", "1"))
        case .fetch:
            headers.append(("Accept", "*/*"))
        }
        if let acceptLanguage { headers.append(("Accept-Language", acceptLanguage)) }
        // A form post always says where it comes from; a fetch does unless it is a same-origin GET.
        if let referrer, kind == .formPost || (kind == .fetch && (method != "GET" || referrer.origin != url.origin)) {
            headers.append(("Origin", referrer.origin))
        }
        if let referer = refererValue { headers.append(("Referer", referer)) }
        headers.append(("Sec-Fetch-Dest", kind == .fetch ? "empty" : "document"))
        headers.append(("Sec-Fetch-Mode", kind == .fetch ? "cors" : "navigate"))
        headers.append(("Sec-Fetch-Site", fetchSite))
        if kind != .fetch { headers.append(("Sec-Fetch-User", "?1")) }
        return headers
    }

    /// `Referer` under the default referrer policy, `strict-origin-when-cross-origin`: the whole
    /// address (without its fragment) to the same origin, the origin alone elsewhere, and nothing
    /// from https to http.
    var refererValue: String? {
        guard let referrer, var components = URLComponents(url: referrer, resolvingAgainstBaseURL: false) else { return nil }
        if referrer.scheme?.lowercased() == "https", url.scheme?.lowercased() != "https" { return nil }
        guard referrer.origin == url.origin else { return referrer.origin + "/" }
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url?.absoluteString
    }

    /// `Sec-Fetch-Site`: `none` for an address typed in, else how the page and the request are related.
    var fetchSite: String {
        guard let referrer else { return "none" }
        if referrer.origin == url.origin { return "same-origin" }
        let sameScheme = referrer.scheme?.lowercased() == url.scheme?.lowercased()
        return sameScheme && Self.site(referrer.host) == Self.site(url.host) ? "same-site" : "cross-site"
    }

    /// A host's site: its registrable domain (`uni.example.edu` → `example.edu`; `www.u-tokyo.ac.jp`
    /// → `u-tokyo.ac.jp`), by the Public Suffix List; an address or a single label is its own.
    static func site(_ host: String?) -> String {
        let host = (host ?? "").lowercased()
        if Cookie.isIPAddress(host) || !host.contains(".") { return host }
        let labels = host.split(separator: ".")
        for count in stride(from: labels.count - 1, through: 1, by: -1) {
            let suffix = labels.suffix(count).joined(separator: ".")
            if PublicSuffixList.isPublicSuffix(suffix) { return labels.suffix(count + 1).joined(separator: ".") }
        }
        return labels.suffix(2).joined(separator: ".")
    }
}
