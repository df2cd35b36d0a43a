/// Decides, page by page, what the login does next. It knows nothing of HTTP or HTML: the
/// flow tells it which rule a page matched and where the page is, and it answers with an action.
/// That keeps every decision testable without a network.
public struct LoginStateMachine: Sendable {
    /// What the flow knows about the page it just reached.
    public struct Observation: Sendable {
        /// The index of the first page rule whose `when` matched, if any.
        public var matchedRule: Int?
        /// True when the page is on the portal (the service provider) rather than the IdP.
        public var isOnPortal: Bool
        /// True when the recipe's `done_when` test passes (or when there is none).
        public var doneConditionHolds: Bool
        /// URL, title and forms, for the error message of an unrecognised page.
        public var summary: String
        /// True when the page sends the browser on with `<meta http-equiv="refresh">`.
        public var refreshes: Bool
        /// When `done_when` fails: which of its tests, in words (`url "^/campus/$" does not match "/campus"`).
        public var doneFailure: String?
        /// True when the answer is one for a script, not a page: 401 or 403, or a JSON body.
        /// A login service answers so a request it does not take for a browser's page load
        /// (LemonLDAP::NG, for an `Accept` that names JSON): the request's shape is at fault,
        /// not the recipe's rules.
        public var isScriptAnswer: Bool
        /// True when a login met while fetching an address has brought the browser back to that
        /// address (same origin and path): the portal is answering what was asked, whatever
        /// `done_when` (written for the start page) says of it.
        public var isRequestedPage: Bool
        /// True when the page has no form in its HTML but runs scripts: a login page whose form
        /// the browser builds (Microsoft Entra ID from its `$Config`, Okta's widget, a WebAuthn
        /// prompt), which no form replay can complete.
        public var isScriptBuilt: Bool

        public init(
            matchedRule: Int?, isOnPortal: Bool, doneConditionHolds: Bool, summary: String, refreshes: Bool = false,
            doneFailure: String? = nil, isScriptAnswer: Bool = false, isScriptBuilt: Bool = false, isRequestedPage: Bool = false
        ) {
            self.isRequestedPage = isRequestedPage
            self.isScriptBuilt = isScriptBuilt
            self.matchedRule = matchedRule
            self.isOnPortal = isOnPortal
            self.doneConditionHolds = doneConditionHolds
            self.summary = summary
            self.refreshes = refreshes
            self.doneFailure = doneFailure
            self.isScriptAnswer = isScriptAnswer
        }
    }

    public enum Decision: Sendable {
        /// Act on the page as the rule says.
        case act(PageRule)
        /// Follow the page's meta refresh, as a browser would.
        case followRefresh
        /// The session is logged in; this page is the portal.
        case loggedIn
        case failed(UniToolError)
    }

    private let rules: [PageRule]
    private let maxSteps: Int
    private let portal: String
    private(set) var steps = 0
    private var lastFilledRule: Int?
    /// The page whose link a `follow` rule last followed (its summary), for saying where it led.
    private var lastFollowed: String?
    /// Set once the IdP's answer (a SAML response) went to the portal: from then on only rules
    /// marked `after_login` may act, and any other login page means the portal asked again.
    private(set) var deliveredToPortal = false
    private var restarts = 0

    /// The flow tells the machine that the page it just submitted carried the IdP's answer.
    public mutating func noteDelivered() { deliveredToPortal = true }

    public init(recipe: LoginRecipe, portal: String) {
        self.rules = recipe.pages
        self.maxSteps = recipe.maxSteps
        self.portal = portal
    }

    public mutating func decide(_ page: Observation) -> Decision {
        steps += 1
        guard steps <= maxSteps else {
            return .failed(
                UniToolError(
                    .loginFailed, localized("the login did not finish within \(maxSteps) pages; the last was \(page.summary)"),
                    hint: localized("the portal's login may have changed; run with --verbose to see every page")))
        }
        guard let index = page.matchedRule else {
            lastFilledRule = nil
            if page.isOnPortal && (page.doneConditionHolds || (page.isRequestedPage && !page.refreshes)) { return .loggedIn }
            if page.refreshes { return .followRefresh }
            if page.isOnPortal, let doneFailure = page.doneFailure {
                return .failed(
                    UniToolError(
                        .layoutChanged,
                        localized(
                            "the login reached a page of the portal that fails login.done_when of portal '\(portal)' (\(doneFailure)): \(page.summary)"
                        ),
                        hint: localized(
                            "if this page means you are logged in, correct done_when in the portal recipe; otherwise add a page rule for it"
                        )
                    ))
            }
            if page.isScriptAnswer {
                return .failed(
                    UniToolError(
                        .loginFailed,
                        localized(
                            "the login service answered \(page.summary) where a login page was expected: an answer for a script, not a page"
                        ),
                        hint: localized(
                            "some login services answer so when a request does not look like a browser's page load: the request's shape is at fault, not the page rules. Run with --trace FILE to see its headers; a header the service wants goes in 'headers:' of the portal recipe"
                        )
                    ))
            }
            if page.isScriptBuilt, !page.isOnPortal {
                return .failed(
                    UniToolError(
                        .loginFailed,
                        localized(
                            "the login reached a page with no form in its HTML, only scripts: a sign-in page whose form a script builds (which unitool cannot fill in), or a page no rule knows: \(page.summary)"
                        ),
                        hint: localized(
                            "if it is a sign-in page, this login needs a browser: sign in with 'unitool --portal \(portal) auth login --browser' (and if every login of this portal is so, add 'browser: true' to its login in the portal recipe); otherwise add a page rule for it"
                        )
                    ))
            }
            let tried = (rules.map(\.name) + [localized("meta refresh (built in)")]).joined(separator: ", ")
            return .failed(
                UniToolError(
                    .layoutChanged,
                    localized(
                        "the login reached a page that matches none of the page rules of portal '\(portal)': \(page.summary); rules tried: \(tried)"
                    ),
                    hint: localized("the portal's login pages may have changed; adjust login.pages in the portal recipe")))
        }
        let rule = rules[index]
        if case .fail(let reason, _) = rule.action { return .failed(Self.error(for: reason, rule: rule)) }
        // After the SAML response went to the portal, only a page after the login may be
        // handled; another login page means the portal did not keep the session, and logging
        // in again would only loop.
        if deliveredToPortal, !rule.afterLogin {
            return .failed(
                UniToolError(
                    .loginFailed,
                    localized(
                        "the portal asked for a login again right after a successful one (the '\(rule.name)' page, at \(page.summary))"),
                    hint: localized(
                        "if this page comes after every login (a reminder, a notice), mark its rule 'after_login: true'; otherwise the portal may not accept unitool's cookies (run with --verbose)"
                    )
                ))
        }
        switch rule.action {
        case .fail:
            preconditionFailure("handled above")
        case .restart:
            restarts += 1
            guard restarts <= 1 else {
                return .failed(
                    UniToolError(
                        .loginFailed, localized("the portal showed its '\(rule.name)' page again after a fresh login: \(page.summary)"),
                        hint: localized("the portal may be refusing new sessions; try again later, or in a browser")))
            }
            lastFilledRule = nil
            return .act(rule)
        case .follow:
            // The same link page again right after following it would loop.
            if lastFilledRule == index {
                // Back on the very page, or on another one (on another host, say) that the same
                // rule matches too: each said as it is, with where the link went.
                guard let followed = lastFollowed, followed != page.summary else {
                    return .failed(
                        UniToolError(
                            .loginFailed, localized("following the '\(rule.name)' link led back to the same page: \(page.summary)"),
                            hint: localized("the link may need a browser's script; adjust 'follow' in the portal recipe")))
                }
                return .failed(
                    UniToolError(
                        .loginFailed,
                        localized(
                            "following the '\(rule.name)' link on \(followed) led to \(page.summary), which the '\(rule.name)' rule matches as well"
                        ),
                        hint: localized("make the rule's 'when' match only the page with the link, or check where the link points")))
            }
            lastFilledRule = index
            lastFollowed = page.summary
            return .act(rule)
        case .fill:
            // The same form again right after submitting it means the portal did not accept
            // what was sent, and no rule explains why.
            if lastFilledRule == index {
                return .failed(
                    UniToolError(
                        .loginFailed,
                        localized("the portal showed the '\(rule.name)' page again after unitool submitted it: \(page.summary)"),
                        hint: localized(
                            "the credentials may be wrong in a way the recipe does not recognise; try logging in with a browser")))
            }
            lastFilledRule = index
            return .act(rule)
        case .autoSubmit:
            lastFilledRule = nil
            return .act(rule)
        }
    }

    static func error(for reason: PageRule.FailureReason, rule: PageRule, portalMessage: String? = nil)
        -> UniToolError
    {
        let says = portalMessage.map { message in localized(" (the portal says: \"\(message)\")") } ?? ""
        switch reason {
        case .wrongCredentials:
            return UniToolError(
                .wrongCredentials, localized("wrong user name or password\(says)"),
                hint: localized("check the user name, then give the password again with --password-stdin or 'unitool auth login'"))
        case .mfaRequired:
            return UniToolError(
                .mfaRequired, localized("the portal asks for a one-time code\(says)"),
                hint: localized(
                    "a code from an authenticator app: store its secret with 'unitool auth totp set'; a security key, a push or anything else only a browser can answer: sign in with 'unitool auth login --browser'"
                )
            )
        case .consentRequired:
            return UniToolError(
                .consentRequired, localized("consent required\(says)"),
                hint: localized("open the portal once in a browser and accept the attribute release"))
        case .wrongCode:
            return UniToolError(
                .wrongCode, localized("the portal rejected the one-time code\(says)"),
                hint: localized(
                    "unitool never sends the same code twice, so a refused code from a stored TOTP secret means the secret or this computer's clock is wrong: store it again with 'unitool auth totp set', and check the clock (timedatectl)"
                )
            )
        case .accountLocked:
            return UniToolError(
                .accountLocked, localized("the account is locked\(says)"), hint: localized("contact your university's IT help desk"))
        case .error:
            return UniToolError(
                .loginFailed, localized("the login failed on the '\(rule.name)' page\(says)"),
                hint: localized("try again later, or log in with a browser to see what the portal wants"))
        }
    }
}
