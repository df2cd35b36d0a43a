import Foundation

/// Ways the demo university can be told to misbehave, or to log in the way another university
/// does, so that tests meet real failures and real login pages over real HTTP. Parsed from a
/// comma-separated list, as in `UNITOOL_DEMO_FAULTS=layout-changed,login=discovery`.
public struct DemoFaults: Sendable, Equatable {
    /// Data pages change their markup so that the bundled recipes no longer match.
    public var layoutChanged = false
    /// Data pages answer 500.
    public var serverError = false
    /// The status `server-error` answers with: 500, or 502 with `server-error=502`, as a proxy
    /// does when the application behind it is gone.
    public var serverErrorStatus = 500
    /// Data pages accept the request and never answer, as a portal stuck on a dead backend.
    public var hang = false
    /// Data pages send their headers at once, then one byte of body every 2 seconds, so that
    /// no read ever times out while the page never arrives.
    public var trickle = false
    /// Data pages answer 431 (request header fields too large), as a portal does once the
    /// cookies it set add up to more than its front end accepts.
    public var requestTooLarge = false
    /// Data pages redirect to a page on another origin (`localhost` for `127.0.0.1`), which is
    /// neither the portal nor its login service.
    public var foreignRedirect = false
    /// Data pages send the headers and half the body, then the connection is closed (chunked).
    public var resetMidBody = false
    /// Data pages announce their full `Content-Length`, send half of it and close.
    public var truncatedBody = false
    /// Data pages carry bytes that are not UTF-8 in a page that says it is UTF-8.
    public var invalidUTF8 = false
    /// The first data page asked for with a saved session answers 200 with a "your session has
    /// timed out" page that deletes the session cookie; that cookie gets the same page ever after.
    public var sessionTimeout = false
    /// Data pages are sent in Windows-31J (NEC special characters such as Ⅰ and ① included),
    /// labelled `Shift_JIS` only in the HTTP header, as Japanese campus servers send them.
    public var legacyCharset = false
    /// Data pages are this many bytes (`huge-page` is 50 MB), padded with an HTML comment.
    public var hugePageBytes: Int?
    /// Data pages redirect to themselves.
    public var redirectLoop = false
    /// After this many data pages, the SP drops every session it has issued, as an SP does when
    /// its session store restarts in the middle of someone's run.
    public var expireAfterDataPages: Int?
    /// The IdP answers 503 to everything while the portal itself is up.
    public var idpDown = false
    /// The IdP answers the password POST with a 307 to a look-alike origin, which would make a
    /// careless client repeat the password there.
    public var passwordRedirect = false
    /// The password page's sign-in button carries a `formaction` aimed at a look-alike origin.
    public var formactionLookalike = false
    /// Feeds and the SAML POST page carry external entities, an external DTD and nested entity
    /// definitions: `hostile-xml=xxe` uses the external ones, `hostile-xml=laughs` expands
    /// "billion laughs" in the RSS feed.
    public var hostileXML: HostileXML?

    public enum HostileXML: String, Sendable, CaseIterable {
        case xxe, laughs
        /// One 20 KB entity referenced 10,000 times: linear to parse, 200 MB to read as text.
        case quadratic

        /// Where a page uses the entities that `DemoRoutes.hostileDoctype` declares.
        var entityReference: String {
            switch self {
            case .xxe: return "&xxe;&remote;"
            case .laughs: return "&lol9;"
            case .quadratic: return String(repeating: "&big;", count: 10_000)
            }
        }
    }
    /// The IdP repeats what it was sent, as careless portals do: a wrong password appears in the
    /// error message, and the right one in a hidden field of the SAML POST form, whose
    /// `SAMLResponse` is an unquoted attribute and whose `RelayState` is a `<textarea>`. A trace
    /// or an error message must show none of it.
    public var echoSecrets = false
    /// Every response is delayed by this many milliseconds.
    public var latencyMilliseconds = 0
    /// Saved SP sessions are rejected, as after a server-side expiry.
    public var expireSessions = false
    /// The first request to each data page answers this status (503, or 429 with `Retry-After: 1`),
    /// as a portal does under load; the next one succeeds.
    public var busyOnce: Int?
    /// The SP rejects every session, even one it has just made: a login that never sticks.
    public var rejectSessions = false
    /// The password page carries `<base href>` pointing at a look-alike origin
    /// (`localhost` instead of `127.0.0.1`), so its form would post the password there.
    public var lookalikeIdP = false
    /// The term selector offers this many terms in all (older ones made up), for benchmarks of
    /// `grades --term all`. Zero keeps the demo's own three.
    public var termCount = 0
    /// The TOTP period the IdP checks codes with (`totp-period=N`), so that tests of "never the
    /// same code twice" need not wait 30 s for each new code.
    public var totpPeriod = 30
    /// The login's page types beyond the plain two-step one.
    public var loginVariants: Set<LoginVariant> = []

    /// Login pages that real IdPs put in the way, each switched on by `login=<name>`.
    public enum LoginVariant: String, Sendable, CaseIterable {
        /// The SP asks "where are you from?" with a select of institutions before the SAML request.
        case discovery
        /// The IdP's local-storage probe: a form of `shib_idp_ls_*` fields, submitted by script or by
        /// the `<noscript>` button.
        case localStorage = "local-storage"
        /// One form with user ID and password, instead of a page for each.
        case combinedLogin = "combined-login"
        /// The SP sends the browser to the IdP with `<meta http-equiv="refresh">` instead of a 302.
        case metaRefresh = "meta-refresh"
        /// The IdP's sign-in page got a new design that no recipe knows yet: other ids, other field
        /// names. A client must say which page it does not recognise, not "wrong password".
        case redesigned
        /// The IdP shows its own error page instead of the sign-in form, as during maintenance.
        case errorPage = "error-page"
        /// The IdP remembers who signed in (a cookie of its own): a new AuthnRequest from a
        /// browser with a live IdP session is answered with the SAML POST at once, no password
        /// asked, as Shibboleth and Keycloak do.
        case idpSession = "idp-session"
        /// The portal's pages show a signed-out landing page with a "Log in" link instead of
        /// sending the browser to the login service (an OPAC, an SP's signed-out home).
        case loginLink = "login-link"
        /// After the login, a survey reminder that is skipped by its "後で回答する" link.
        case reminderLink = "reminder-link"
        /// After the login, "please confirm your contact e-mail", answered "remind me later".
        case reminderForm = "reminder-form"
        /// The first page asked for with a saved session is the portal's own "your session has
        /// timed out" page (200, cookie deleted), marked so that a recipe rule can know it.
        case timeoutPage = "timeout-page"
        /// The IdP's first user ID form of the run answers "page has expired" with a restart link,
        /// as Keycloak does when its login page sat too long.
        case pageExpired = "page-expired"
        /// The SP sends the AuthnRequest by the HTTP-POST binding: an auto-submitting form.
        case postBinding = "post-binding"
        /// The SP rebuilds the address it returns to after the login, as servlet containers and
        /// SP modules do: the same page and values, every reserved character of the query
        /// percent-encoded (`term=2026%2Dfall`).
        case rebuiltTarget = "rebuilt-target"
        /// The IdP's pages with the structure of the Shibboleth IdP v5's own views (no form ids,
        /// errors in `.form-error`, the local-storage page first, one sign-in form, the TOTP
        /// plugin's `tokencode`): what `Recipes/platforms/shibboleth-idp.yaml` is written for.
        case shibbolethV5 = "shibboleth-v5"
        /// The IdP's pages with the structure of Keycloak's own login theme (`kc-form-login`,
        /// `credentialId`, `kc-otp-login-form`, errors in `#input-error`), as a SAML client of
        /// Keycloak sees them: what `Recipes/platforms/keycloak.yaml` is written for.
        case keycloak
        /// Apereo CAS instead of SAML: the portal sends the browser to `/cas/login?service=…`,
        /// CAS's own pages (`fm1`, `execution`, `_eventId=submit`, `#loginErrorsPanel`, the
        /// Google Authenticator `token` page) sign in, and a service ticket comes back to the
        /// portal, which validates it; CAS's cookie (TGC) signs the next service on at once.
        case cas
        /// A sign-in page whose form a script builds from a configuration blob and which posts a
        /// value computed in the page, as Microsoft Entra ID's does: only a browser signs in.
        case scriptBuilt = "script-built"
    }

    /// The terms of use start at this version instead of ``DemoUniversity/initialTermsVersion``.
    public var termsVersion: String?
    /// The terms version API misbehaves in this way.
    public var termsAPI: TermsAPIFault?

    /// Every way the terms version API can go wrong that a client must survive.
    public enum TermsAPIFault: String, Sendable, CaseIterable {
        /// 500 with an HTML error page.
        case error
        /// 200 with HTML instead of JSON, as behind a captive portal or a maintenance page.
        case notJSON = "not-json"
        /// JSON without the version field.
        case noVersion = "no-version"
        /// The version as a number instead of a string.
        case numberVersion = "number-version"
        /// The API is behind the login, as the portal's own pages are: without a session it
        /// sends the browser to the IdP.
        case protected
        /// JSON with a trailing comma, as real terms APIs serve it.
        case trailingComma = "trailing-comma"
    }

    public init() {}

    public static let environmentVariable = "UNITOOL_DEMO_FAULTS"
    public static let known =
        [
            "layout-changed", "server-error", "server-error=502", "hang", "trickle", "request-too-large", "foreign-redirect", "reset",
            "truncated", "invalid-utf8", "legacy-charset", "session-timeout", "huge-page", "huge-page=MB",
            "redirect-loop", "expire-after=N", "idp-down", "password-redirect", "formaction-lookalike", "latency=MS", "expire-sessions",
            "reject-sessions", "lookalike-idp", "echo-secrets", "busy=503|429", "terms-version=V", "terms=N", "totp-period=S",
        ]
        + HostileXML.allCases.map { "hostile-xml=\($0.rawValue)" } + TermsAPIFault.allCases.map { "terms-api=\($0.rawValue)" }
        + LoginVariant.allCases.map { "login=\($0.rawValue)" }

    public init(parsing text: String) throws {
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if item == "layout-changed" {
                layoutChanged = true
            } else if item == "server-error" {
                serverError = true
            } else if item.hasPrefix("server-error="), let status = Int(item.dropFirst("server-error=".count)), (500...599).contains(status)
            {
                serverError = true
                serverErrorStatus = status
            } else if item == "hang" {
                hang = true
            } else if item == "trickle" {
                trickle = true
            } else if item == "request-too-large" {
                requestTooLarge = true
            } else if item == "foreign-redirect" {
                foreignRedirect = true
            } else if item == "reset" {
                resetMidBody = true
            } else if item == "truncated" {
                truncatedBody = true
            } else if item == "invalid-utf8" {
                invalidUTF8 = true
            } else if item == "legacy-charset" {
                legacyCharset = true
            } else if item == "session-timeout" {
                sessionTimeout = true
            } else if item == "huge-page" {
                hugePageBytes = 50_000_000
            } else if item.hasPrefix("huge-page="), let megabytes = Int(item.dropFirst("huge-page=".count)), (1...1000).contains(megabytes)
            {
                hugePageBytes = megabytes * 1_000_000
            } else if item == "redirect-loop" {
                redirectLoop = true
            } else if item.hasPrefix("expire-after="), let count = Int(item.dropFirst("expire-after=".count)), count >= 1 {
                expireAfterDataPages = count
            } else if item == "idp-down" {
                idpDown = true
            } else if item == "password-redirect" {
                passwordRedirect = true
            } else if item == "formaction-lookalike" {
                formactionLookalike = true
            } else if item.hasPrefix("hostile-xml="), let kind = HostileXML(rawValue: String(item.dropFirst("hostile-xml=".count))) {
                hostileXML = kind
            } else if item == "expire-sessions" {
                expireSessions = true
            } else if item.hasPrefix("busy="), let status = Int(item.dropFirst("busy=".count)), [429, 502, 503, 504].contains(status) {
                busyOnce = status
            } else if item.hasPrefix("totp-period="), let period = Int(item.dropFirst("totp-period=".count)), (1...300).contains(period) {
                totpPeriod = period
            } else if item.hasPrefix("terms="), let count = Int(item.dropFirst("terms=".count)), (1...100).contains(count) {
                termCount = count
            } else if item == "reject-sessions" {
                rejectSessions = true
            } else if item == "lookalike-idp" {
                lookalikeIdP = true
            } else if item == "echo-secrets" {
                echoSecrets = true
            } else if item.hasPrefix("login="), let variant = LoginVariant(rawValue: String(item.dropFirst("login=".count))) {
                loginVariants.insert(variant)
            } else if item.hasPrefix("terms-version="), item.count > "terms-version=".count {
                termsVersion = String(item.dropFirst("terms-version=".count))
            } else if item.hasPrefix("terms-api="), let fault = TermsAPIFault(rawValue: String(item.dropFirst("terms-api=".count))) {
                termsAPI = fault
            } else if item.hasPrefix("latency="), let value = Int(item.dropFirst("latency=".count)), value >= 0 {
                latencyMilliseconds = value
            } else {
                throw DemoError.unknownFault(item)
            }
        }
    }
}

public enum DemoError: Error, CustomStringConvertible {
    case unknownFault(String)
    case couldNotStart(String)

    public var description: String {
        switch self {
        case .unknownFault(let name):
            return "unknown demo fault '\(name)'; known: \(DemoFaults.known.joined(separator: ", "))"
        case .couldNotStart(let reason):
            return "the demo university could not start: \(reason)"
        }
    }
}
