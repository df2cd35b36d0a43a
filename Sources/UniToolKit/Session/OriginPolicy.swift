import Foundation

/// Where a request may go, decided before it is sent: a pure decision with unit tests per kind
/// of request (`OriginPolicyTests`), kept apart from the connection that sends.
///
/// A recipe names addresses (`fetch:`, `read:`, `next:`, an option's `resolve:`, an action's
/// page) and fills them with values read from the portal. Checked only on the answer, such an
/// address had already carried those values, and the session's cookies for its domain, to
/// wherever it pointed: a recipe pack's `grades` sent every grade and the learning platform's
/// session key to a host of its choosing. So every request a recipe causes goes only to the
/// portal's own origins: its base URL and the services its definition declares. Login pages,
/// which the portal and its login service lead through, are the login flow's: a form there may
/// carry a password only to an origin in `credentials_may_go_to`, and only over HTTPS unless
/// the host is this machine.
///
/// A redirect the portal answers is the portal's choice and is followed as a browser would,
/// with that site's cookies only; a body a recipe filled in is repeated by a 307 or 308 only to
/// the portal's own origins (`HTTPSession.submit(_:bodyMayGoTo:)`).
public struct OriginPolicy: Sendable, Equatable {
    /// What caused a request: the message names it, and the tests cover each.
    public enum RequestKind: String, Sendable, CaseIterable {
        /// A source's `fetch:` address (its first page), GET or POST.
        case fetch
        /// A `read:` value's page.
        case read
        /// A page an option's `resolve:` entry reads.
        case resolve
        /// A `next:` link: the following page of a paginated answer.
        case next
        /// An action's page, or the form it submits.
        case action
        /// The terms-of-use API, or the page its answer names for the text.
        case terms
        /// `unitool page` and `session.fetch`: a page the user names.
        case page

        /// Where in a recipe the address came from, for the message.
        var origin: String {
            switch self {
            case .fetch: return localized("the recipe's 'fetch'")
            case .read: return localized("a 'read' of the recipe")
            case .resolve: return localized("an option's 'resolve' entry")
            case .next: return localized("the recipe's 'next' link")
            case .action: return localized("the action's page or form")
            case .terms: return localized("the terms of use")
            case .page: return localized("the page asked for")
            }
        }
    }

    /// The portal's own origins (`scheme://host:port`): its base URL and its services'.
    public var ownOrigins: Set<String>
    /// Where a password or one-time code may be posted (`credentials_may_go_to`).
    public var credentialOrigins: Set<String>
    /// Where an address a login rule builds may lead, besides the page the rule acts on: the
    /// portal's own origins, its login service's (`idp_url`) and `credentials_may_go_to`.
    public var loginOrigins: Set<String>
    /// The portal's id and the file that defines it, for messages.
    public var portal: String
    public var definition: String

    public init(
        ownOrigins: Set<String>, credentialOrigins: Set<String>, loginOrigins: Set<String> = [], portal: String, definition: String
    ) {
        self.ownOrigins = ownOrigins
        self.credentialOrigins = credentialOrigins
        self.loginOrigins = ownOrigins.union(credentialOrigins).union(loginOrigins)
        self.portal = portal
        self.definition = definition
    }

    public init(portal: PortalRecipe) {
        self.init(
            ownOrigins: portal.ownOrigins, credentialOrigins: Set(portal.credentialOrigins), loginOrigins: [portal.idpURL.origin],
            portal: portal.id, definition: portal.file)
    }

    /// Why a login rule may not send the browser to `url`; nil when it may.
    ///
    /// A rule's `follow:` may build any address from the page (`concat('https://elsewhere/?who=',
    /// //span[@id='user'])`), and a rule chooses the form and the button whose action is sent.
    /// Checked only by the state machine, such an address carried the user's name, her grades or
    /// an unused SAML assertion to wherever a recipe pack pointed it. So an address a rule
    /// produces goes only to the portal's own origins, its login service, `credentials_may_go_to`,
    /// or the origin of the page the rule acts on (a discovery service's form posting to itself).
    /// A redirect the server answers is the server's choice and is followed as a browser would.
    public func loginRefusal(to url: URL, from page: URL, rule: String) -> UniToolError? {
        let scheme = url.scheme?.lowercased()
        let isWeb = scheme == "http" || scheme == "https"
        if isWeb, loginOrigins.contains(url.origin) || url.origin == page.origin { return nil }
        let allowed = loginOrigins.union([page.origin]).sorted().joined(separator: ", ")
        let target = isWeb ? url.origin : "'\(url.redactedForLog)'"
        return UniToolError(
            .unsafeRequest,
            localized(
                "refusing to follow login rule '\(rule)' to \(target): a login rule may lead only to portal '\(portal)''s own origins, its login service or the page's own origin (\(allowed)), so nothing was sent there"
            ),
            hint: localized(
                "if the university's login really passes through that address, declare it in \(definition) (idp_url, services: or credentials_may_go_to); otherwise the recipe is not to be trusted"
            )
        )
    }

    /// Why a request of `kind` to `url` may not be sent; nil when it may. `recipe` is the file
    /// that asked for it, if a recipe did.
    public func refusal(_ kind: RequestKind, to url: URL, recipe: String? = nil) -> UniToolError? {
        if ownOrigins.contains(url.origin) { return nil }
        let own = ownOrigins.sorted().joined(separator: ", ")
        let asker = recipe.map { "\($0): " } ?? ""
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            // A local file (file:), script (javascript:) or inline data (data:) is no portal's.
            return UniToolError(
                .unsafeRequest,
                localized(
                    "\(asker)refusing to fetch '\(url.redactedForLog)' (\(kind.origin)): unitool fetches only http and https addresses on the portal (\(own))"
                ),
                hint: localized("check 'fetch' and 'next' in the recipe"))
        }
        return UniToolError(
            .unsafeRequest,
            localized(
                "\(asker)refusing to send a request to \(url.origin) (\(kind.origin)): it is not one of portal '\(portal)''s own origins (\(own)), so nothing was sent there"
            ),
            hint: kind == .page
                ? localized("give a path such as /grades, or a URL on the portal")
                : localized(
                    "a recipe reaches only its portal's base_url and the services declared in \(definition); if the university really serves this page there, declare it under services:"
                )
        )
    }

    /// Why a password or one-time code may not be posted to `url`: an origin outside
    /// `credentials_may_go_to`, or plain HTTP to anything but this machine.
    public func credentialRefusal(to url: URL) -> UniToolError? {
        let origin = url.origin
        guard credentialOrigins.contains(origin) else {
            let allowed = credentialOrigins.sorted().joined(separator: ", ")
            return UniToolError(
                .unsafeRequest,
                localized("refusing to send the password to \(origin): the portal recipe allows only \(allowed)"),
                hint: localized("if the university really moved its login there, add it to credentials_may_go_to"))
        }
        guard url.scheme?.lowercased() == "https" || Self.isLoopback(host: url.host ?? "") else {
            return UniToolError(
                .unsafeRequest, localized("refusing to send the password to \(origin) without HTTPS"),
                hint: localized("a real portal must use https; check base_url and idp_url in the portal recipe"))
        }
        return nil
    }

    /// Whether `host` is this machine by address: `localhost`, `::1` or an IPv4 address in
    /// 127.0.0.0/8. A name that merely starts with "127." (`127.evil.example`) is not.
    public static func isLoopback(host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        return host.hasPrefix("127.") && Cookie.isIPAddress(host)
    }
}
