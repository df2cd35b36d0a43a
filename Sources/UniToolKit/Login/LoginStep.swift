import Foundation

/// One page of a login and what unitool did there, for `unitool doctor login`.
///
/// When a login breaks, the question is always "which page, and what did unitool make of it?".
/// A step answers it without a trace file: the page, the rule that matched, the form chosen,
/// which fields were filled from what, and where the submission led. It never holds a secret:
/// filled values are described by their source ("the password"), never shown.
public struct LoginStep: Sendable, Codable, Equatable {
    /// A form field the login set, and where its value came from.
    public struct FilledField: Sendable, Codable, Equatable {
        public var name: String
        /// "the user name", "the password (redacted)", "a one-time code (redacted)", or
        /// "a fixed value from the recipe (redacted)".
        public var source: String
    }

    public enum Action: String, Sendable, Codable {
        /// The matched rule's form was filled and submitted.
        case filledForm = "filled form"
        /// A form was submitted as it was, as a browser's script would (SAML POST binding).
        case autoSubmitted = "auto-submitted form"
        case followedRefresh = "followed meta refresh"
        /// A link the rule named was followed.
        case followedLink = "followed link"
        /// The portal's time-out page: its cookies were dropped and the login began again.
        case restarted = "restarted the login"
        case loggedIn = "logged in"
        case failed
    }

    /// The page's address with its query values hidden.
    public var url: String
    public var status: Int
    public var title: String?
    /// Each form on the page, as `form#id POST /action`.
    public var forms: [String]
    /// The name of the page rule that matched, or nil when none did.
    public var matchedRule: String?
    public var action: Action
    /// What was sent from this page: the form (`POST https://idp.example/login`), or the link
    /// followed or the fresh start (`GET https://portal.example/home`), addresses with query values hidden.
    public var submitted: String?
    /// Every field the request carries, in order: values from the page are kept as they were
    /// (and listed with their kind), fields unitool set are listed with their source.
    public var filled: [FilledField]
    /// Hidden and other page-supplied fields sent back unchanged.
    public var keptFromPage: [String]
    /// Where the submission (or refresh) ended up, after redirects.
    public var arrivedAt: String?
    /// How many redirects the submission followed.
    public var redirects: Int
    /// Why the login stopped here, when `action` is `.failed`.
    public var error: String?
}

/// Receives each login step as it completes.
public typealias LoginObserver = @Sendable (LoginStep) -> Void

extension LoginStep {
    /// Where a recipe template's value comes from, in words, without the value.
    static func describeSource(of template: Template) -> String {
        let variables = template.variables
        if variables.contains("password") { return localized("the password (redacted)") }
        if variables.contains("totp") { return localized("a one-time code (redacted)") }
        if variables == ["username"] && template.source.trimmingWhitespace() == "{{username}}" {
            return localized("the user name")
        }
        if variables.contains("username") { return localized("text with the user name") }
        return localized("a fixed value from the recipe")
    }

    /// Notes the request a form became: its target, and which fields came from the page.
    mutating func record(_ submission: FormSubmission, filled: [FilledField]) {
        submitted = "\(submission.method) \(submission.url.redactedForLog)"
        self.filled = filled
        let setNames = Set(filled.map(\.name))
        keptFromPage = submission.fields.map(\.name).filter { !setNames.contains($0) }
    }
}

extension PageRule.Action {
    var isAutoSubmit: Bool {
        if case .autoSubmit = self { return true }
        return false
    }
}
