import Foundation
import WebEncoding

/// How to reach one university's portal and log in to it: `Recipes/<portal>/portal.yaml`.
public struct PortalRecipe: Sendable {
    public var id: String
    public var name: String
    /// The service provider: where the data pages live.
    public var baseURL: URL
    /// The demo university this command started for itself, which stops when the command ends:
    /// its addresses are dead once printed, so they are not shown as links to open later.
    /// False for a real portal, a `unitool demo serve` found, and `UNITOOL_DEMO_URL`.
    public var isTransientDemo = false
    /// The identity provider; the same as `baseURL` when the portal logs users in itself.
    public var idpURL: URL
    /// True for the bundled demo university, whose address is only known once it is running.
    public var isDemo: Bool
    /// Where a password may be posted: `portal`, `idp` or an absolute URL. A login page that
    /// tries to send it anywhere else is refused, whatever the recipe's XPath matched.
    public var credentialTargets: [String]
    public var login: LoginRecipe
    public var terms: TermsRecipe?
    /// The encoding label for the portal's own pages, whatever the server says (`charset:`),
    /// for a portal that labels its pages wrongly. A byte order mark still wins.
    public var charset: String? = nil
    /// The zone the portal's dates and times are local to (`timezone: Europe/Budapest`): what a
    /// calendar export names. Nil: the user's own zone.
    public var timeZone: TimeZone? = nil
    /// The language the portal's pages are in (`language: hu`): what `Accept-Language` asks
    /// for, and whose words for yes and no a `type: bool` field reads (`PortalLanguage`).
    public var language: String? = nil
    /// Request headers for every request to the portal's own origins (`headers:`).
    public var headers: [RecipeHeaders.Header] = []
    /// Request headers for a service's origin, by service (`services: { lms: { headers: … } } `).
    public var serviceHeaders: [String: [RecipeHeaders.Header]] = [:]
    /// What `unitool today` shows, in order: a `today:` list of commands, options and titles.
    public var today: [TodayItem] = []
    /// Further services of the same university behind the same login (`services:`), by name:
    /// a learning platform, a library. A data recipe names its own (`service: lms`); they share
    /// one cookie jar per user, so one sign-on at the IdP serves them all.
    public var services: [String: URL] = [:]
    /// The login platform the recipe builds on (`login: { use: shibboleth-idp }`), if any.
    public var platform: RecipeComposer.Composition? = nil
    /// The file the recipe was read from, for messages.
    public var file: String
    /// The origins a password may go to, as the recipe declares them (before the demo is moved
    /// to its real port). A password in the keyring is bound to these: it is released only to a
    /// definition of the portal that sends it nowhere else.
    public var declaredCredentialOrigins: [String] = []
    /// The file of the definition this one replaced (a recipe pack the user trusted), if any.
    public var replacedDefinition: String? = nil
    /// Where the replaced definition could send a password: a password from outside the keyring
    /// (UNITOOL_PASSWORD_COMMAND) is given only to a replacement that sends it nowhere else.
    public var replacedCredentialOrigins: [String]? = nil
    /// The recipe pack (`--recipes DIR`) that defines this portal, when the user has not
    /// trusted it (`unitool recipes trust DIR`): no password or code command is run for it.
    public var untrustedPack: String? = nil

    /// Points the recipe at another address, as the demo does once it knows its port. A
    /// service on another host goes to the address `hosts` gives that host (the demo's other
    /// loopback addresses), keeping its path.
    public func relocated(to base: URL, hosts: [String: URL] = [:]) -> PortalRecipe {
        var copy = self
        let idpPath = idpURL.path == baseURL.path ? "" : idpURL.path
        copy.baseURL = base
        copy.idpURL = idpPath.isEmpty ? base : base.appendingPathComponent(String(idpPath.dropFirst()))
        for (name, url) in services {
            let moved = url.host.flatMap { hosts[$0] } ?? (url.host == baseURL.host ? base : nil)
            guard let moved, var components = URLComponents(url: moved, resolvingAgainstBaseURL: false) else { continue }
            // URL.path drops a trailing slash, which relative paths of the service depend on.
            components.percentEncodedPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            copy.services[name] = components.url ?? url
        }
        return copy
    }

    /// The origins of the portal and of its services: its own pages, which it may be asked for,
    /// and where a login ends.
    public var ownOrigins: Set<String> { Set([baseURL.origin] + services.values.map(\.origin)) }

    /// The recipe's headers by origin: the portal's for each of its origins, a service's added
    /// for its own (`RecipeHeaders`).
    public var requestHeaders: RecipeHeaders {
        var byOrigin: [String: [RecipeHeaders.Header]] = [:]
        for origin in ownOrigins where !headers.isEmpty { byOrigin[origin] = headers }
        for (name, url) in services.sorted(by: { $0.key < $1.key }) {
            guard let own = serviceHeaders[name], !own.isEmpty else { continue }
            byOrigin[url.origin] = RecipeHeaders.merging(byOrigin[url.origin] ?? [], own)
        }
        return RecipeHeaders(byOrigin: byOrigin)
    }

    /// Whether `url` is one of the portal's own pages (its base or one of its services').
    public func isOwn(_ url: URL) -> Bool { ownOrigins.contains(url.origin) }

    /// The base that a service's paths are relative to: the service's, or the portal's.
    public func base(ofService service: String?) -> URL { service.flatMap { services[$0] } ?? baseURL }

    /// The recipe's `charset:` for a page at `url`: only the portal's own pages, never the IdP's
    /// or anyone else's, which label their pages themselves.
    public func charsetOverride(for url: URL) -> String? {
        isOwn(url) ? charset : nil
    }

    /// The origins (`scheme://host:port`) a password may be posted to.
    public var credentialOrigins: [String] { credentialTargets.map(origin(named:)) }

    /// What a person is asked when a password is typed for `user`. A portal that a recipe pack
    /// the person has not trusted defines may call itself anything ("University of Example
    /// single sign-on"), so the prompt says whose definition it is and where the password
    /// will be posted: the person can tell a look-alike before typing.
    public func passwordPrompt(user: String) -> String {
        guard let pack = untrustedPack else { return localized("Password for \(user) on \(name): ") }
        let origins = Array(Set(credentialOrigins)).sorted().joined(separator: ", ")
        return localized(
            "Password for \(user) on '\(name)', a portal defined by a recipe pack you have not trusted (\(pack)); it will be posted to \(origins): "
        )
    }

    func origin(named name: String) -> String {
        switch name {
        case "portal": return baseURL.origin
        case "idp": return idpURL.origin
        default: return URL(string: name)?.origin ?? name
        }
    }
}

/// The login state machine's instructions: an ordered list of page rules.
public struct LoginRecipe: Sendable {
    /// Where a fresh login begins, relative to the portal's base URL.
    public var start: String
    /// Tested in order on every page reached; the first whose `when` matches decides what to do.
    /// In `PageRule.triedOrder`: no rule that sends a secret comes before one that does not.
    public var pages: [PageRule]
    /// When a page matches no rule, it counts as logged in only if it is on the portal and this
    /// test (if any) passes. Anything else is an unrecognised page.
    public var doneWhen: DoneCondition
    /// How many pages a login may take before unitool gives up.
    public var maxSteps: Int
    /// The login works only in a browser (`browser: true`): Microsoft Entra ID, Okta, Duo's
    /// push, a security key. unitool never tries a form login here: `auth login --browser` hands
    /// it the browser's session, and a data command whose session ended says to run it again.
    public var browserOnly: Bool = false
}

public struct DoneCondition: Sendable {
    /// A regular expression over the path and query of the page.
    public var urlPattern: String?
    /// An XPath that must match on the page.
    public var xpath: String?
}

/// One class of login page and what to do on it.
public struct PageRule: Sendable {
    public enum Action: Sendable {
        /// Fill in named fields and submit the form, optionally by clicking a given button.
        case fill(values: [(name: String, value: Template)], submit: String?)
        /// A form the browser would submit by itself (SAML POST binding, local-storage pages).
        case autoSubmit
        /// A page that means the login cannot succeed.
        case fail(reason: FailureReason, messageXPath: String?)
        /// Follow a link: the element the XPath selects (its `href`, or the address in a
        /// button's `onclick`), or the address the XPath yields. A signed-out landing page's
        /// "Log in", an OPAC's link to CAS, Keycloak's "restart login", a "remind me later".
        case follow(xpath: String)
        /// The portal's own "your session has timed out" page: forget the cookies of the origin
        /// that timed out, but not the login service's (its session signs the user in again
        /// with no password), and start one fresh login from `login.start`. `all` (`restart:
        /// all`) forgets the login service's too.
        case restart(all: Bool)
    }

    public enum FailureReason: String, Sendable, CaseIterable {
        case wrongCredentials = "wrong_credentials"
        case mfaRequired = "mfa_required"
        case consentRequired = "consent_required"
        case accountLocked = "account_locked"
        /// The portal rejected the one-time code unitool sent.
        case wrongCode = "wrong_code"
        case error = "error"
    }

    /// Where a fail rule's message is looked up when the page holds only its number, the text
    /// being filled in by the page's script from a catalog (LemonLDAP::NG 2.x: `<span trmsg="5">`
    /// and `/static/languages/en.json`'s `PE5`): `fetch` on the failing page's own origin, `key`
    /// in its JSON object. `{{message}}` is what `message:` read; `{{language}}` the portal's.
    public struct MessageCatalog: Sendable {
        public var fetch: Template
        public var key: Template
    }

    public var name: String
    public var messageCatalog: MessageCatalog? = nil
    public var when: String
    /// The form to act on; by default the form that contains the `when` match, else the first form.
    public var form: String?
    public var action: Action
    /// A page the portal shows after the login has delivered its SAML response (a survey
    /// reminder, "confirm your e-mail", a password-expiry warning): this rule may act on it.
    /// Any other rule matching there means the portal asked for a second login, which is refused.
    public var afterLogin: Bool = false
    /// What the person is told when this rule acts (`tell:`): a choice made on their behalf that
    /// they would otherwise never see, such as an attribute release accepted for this login.
    public var tell: String? = nil
}

extension PageRule {
    /// Whether the rule sends the password or a one-time code.
    public var sendsSecret: Bool {
        guard case .fill(let values, _) = action else { return false }
        return values.contains { $0.value.variables.contains("password") || $0.value.variables.contains("totp") }
    }

    /// The order rules are tried in: every rule that sends no secret (each `fail:` rule among
    /// them) before every rule that sends one, each group in the order given. A page that shows
    /// an error *and* the login form again (a wrong password, a service the server refuses)
    /// then stops the login at its `fail:` rule, wherever the rule was written, and the password
    /// is never sent to it.
    public static func triedOrder(_ rules: [PageRule]) -> [PageRule] {
        rules.filter { !$0.sendsSecret } + rules.filter(\.sendsSecret)
    }

    /// The rule as one line of text, all that decides what it does: two rules with the same
    /// definition act the same on every page.
    var definition: String {
        let action: String
        switch self.action {
        case .fill(let values, let submit):
            action = "fill " + values.map { "\($0.name)=\($0.value.source)" }.joined(separator: "&") + " submit \(submit ?? "-")"
        case .autoSubmit: action = "auto_submit"
        case .fail(let reason, let message): action = "fail \(reason.rawValue) \(message ?? "-")"
        case .follow(let xpath): action = "follow \(xpath)"
        case .restart(let all): action = "restart \(all)"
        }
        let catalog = messageCatalog.map { " catalog \($0.fetch.source) \($0.key.source)" } ?? ""
        return "when \(when) form \(form ?? "-") \(action) after_login \(afterLogin)\(catalog)\(tell.map { " tell \($0)" } ?? "")"
    }
}

/// One login rule as `recipes lint --explain` shows it: where it stands in the order rules are
/// tried, where it came from, and what it does.
public struct TriedRule: Sendable, Equatable, Codable {
    public var position: Int
    public var name: String
    /// The platform it came from, or nil for the portal's own.
    public var platform: String?
    /// `fail: wrong_credentials`, `sends the password`, `auto_submit`, `follow`, `restart`, `fill`.
    public var action: String
}

extension PortalRecipe {
    /// The login rules in the order they are tried, each with its origin: what
    /// `recipes lint --explain` prints, so that a university sees which rule wins on a page two
    /// rules match.
    public var triedRules: [TriedRule] {
        login.pages.enumerated().map { index, rule in
            let action: String
            switch rule.action {
            case .fail(let reason, _): action = "fail: \(reason.rawValue)"
            case .fill(let values, _):
                let secrets = ["password", "totp"].filter { name in values.contains { $0.value.variables.contains(name) } }
                action =
                    secrets.isEmpty ? "fill" : "sends the " + secrets.map { $0 == "totp" ? "one-time code" : $0 }.joined(separator: " and ")
            case .autoSubmit: action = "auto_submit"
            case .follow: action = "follow"
            case .restart(let all): action = all ? "restart: all" : "restart"
            }
            let own = platform.map { $0.own.contains(rule.name) || $0.ruleOrigins[rule.name] == nil } ?? true
            return TriedRule(
                position: index + 1, name: rule.name, platform: own ? nil : platform?.ruleOrigins[rule.name],
                action: action + (rule.afterLogin ? " (after the login)" : ""))
        }
    }
}

extension LoginRecipe {
    /// How this login differs from `earlier` in what it may do on the way: rules added,
    /// changed or removed (by name), and a new start. What `recipes trust` tells a person about to
    /// trust a redefinition, since a login rule decides which forms are sent where.
    public func ruleChanges(from earlier: LoginRecipe) -> [String] {
        var changes: [String] = []
        if start != earlier.start { changes.append(localized("starts at '\(start)' (before: '\(earlier.start)')")) }
        let before = Dictionary(earlier.pages.map { ($0.name, $0.definition) }, uniquingKeysWith: { first, _ in first })
        let names = Set(pages.map(\.name))
        for rule in pages {
            guard let old = before[rule.name] else {
                changes.append(localized("adds login rule '\(rule.name)'"))
                continue
            }
            if old != rule.definition { changes.append(localized("changes login rule '\(rule.name)'")) }
        }
        for rule in earlier.pages where !names.contains(rule.name) { changes.append(localized("removes login rule '\(rule.name)'")) }
        return changes
    }
}

/// Where a portal publishes the version of its terms of use.
public struct TermsRecipe: Sendable {
    /// Where the version is read: a JSON API's field, or a place on the terms page itself (many
    /// portals have no API and only print "第3.2版" or "Version 3.2 vom …" under the heading).
    public enum VersionSource: Sendable, Equatable {
        case api(path: String, field: String)
        /// `xpath` names an element (its text) or a string; `regex`'s first group, if given, is
        /// the version within that text.
        case page(path: String, xpath: String, regex: String?)
    }

    public var version: VersionSource
    public var textField: String?
    public var urlField: String?
    /// On the page at `urlField` (or the version page), the element that holds the terms; the
    /// whole body by default.
    public var textXPath: String?

    public init(versionAPI: String, versionField: String, textField: String? = nil, urlField: String? = nil, textXPath: String? = nil) {
        self.version = .api(path: versionAPI, field: versionField)
        self.textField = textField
        self.urlField = urlField
        self.textXPath = textXPath
    }

    public init(versionPage: String, versionXPath: String, versionRegex: String? = nil, textXPath: String? = nil) {
        self.version = .page(path: versionPage, xpath: versionXPath, regex: versionRegex)
        self.textXPath = textXPath
    }

    /// The address the version is read from, as the recipe writes it.
    public var versionPath: String {
        switch version {
        case .api(let path, _), .page(let path, _, _): return path
        }
    }
}

extension PortalRecipe {
    static let knownKeys = [
        "portal", "name", "demo", "base_url", "idp_url", "credentials_may_go_to", "login", "terms", "charset", "timezone", "today",
        "services", "language", "headers",
    ]

    /// Reads and validates a portal recipe. Every problem names the file, line and key.
    public static func load(file: String, text: String, platforms: URL = RecipeComposer.bundledPlatforms) throws -> PortalRecipe {
        let (node, platform) = try RecipeComposer.compose(RecipeReader(file: file, text: text), platforms: platforms, kind: .portal)
        let top = try RecipeReader(file: platform.map { localized("\(file) (on platform \($0.platform))") } ?? file, root: node).top
        try top.allowOnly(knownKeys)
        let id = try top.requiredString("portal")
        if let problem = PortalID.problem(with: id) { throw top.error("portal", problem) }
        // With required: true a missing value throws; nil never comes back.
        let baseURL = try top.url("base_url", required: true)!
        let idpURL = try top.url("idp_url", required: false) ?? baseURL
        let targets = try top.stringList("credentials_may_go_to") ?? ["portal"]
        for target in targets where target != "portal" && target != "idp" && URL(string: target)?.scheme == nil {
            throw top.error(
                "credentials_may_go_to", localized("'\(target)' is neither 'portal', 'idp' nor an absolute URL"))
        }
        guard let loginReader = try top.mappingReader("login") else {
            throw top.error("login", localized("missing (this key is required)"))
        }
        var recipe = PortalRecipe(
            id: id, name: try top.string("name") ?? id, baseURL: baseURL, idpURL: idpURL,
            isDemo: try top.bool("demo") ?? false, credentialTargets: targets,
            login: try LoginRecipe.load(loginReader),
            terms: try top.mappingReader("terms").map(TermsRecipe.load), file: file)
        recipe.declaredCredentialOrigins = Array(Set(recipe.credentialOrigins)).sorted()
        recipe.charset = try top.charsetLabel("charset")
        if let zone = try top.string("timezone") {
            guard let timeZone = TimeZone(identifier: zone) else {
                throw top.error("timezone", localized("'\(zone)' is not a time zone; use a name such as Europe/Budapest or Asia/Tokyo"))
            }
            recipe.timeZone = timeZone
        }
        recipe.today = try (top.list("today") ?? []).map(TodayItem.load)
        recipe.headers = try top.headers()
        if let language = try top.string("language") {
            guard PortalLanguage.isTag(language) else {
                throw top.error("language", localized("'\(language)' is not a language tag; use one such as en, ja, de-DE or hu"))
            }
            recipe.language = language
        }
        recipe.platform = platform
        if let servicesReader = try top.mappingReader("services") {
            for name in servicesReader.keys {
                guard name.range(of: "^[a-z][a-z0-9-]*$", options: .regularExpression) != nil else {
                    throw servicesReader.error(name, localized("'\(name)' must be lowercase letters, digits and dashes"))
                }
                let service = try servicesReader.entry(name)
                try service.allowOnly(["base_url", "headers"])
                // With required: true a missing value throws; nil never comes back.
                recipe.services[name] = try service.url("base_url", required: true)!
                recipe.serviceHeaders[name] = try service.headers()
            }
        }
        return recipe
    }
}

extension LoginRecipe {
    static func load(_ reader: MappingReader) throws -> LoginRecipe {
        try reader.allowOnly(["start", "pages", "done_when", "max_steps", "browser"])
        let browserOnly = try reader.bool("browser") ?? false
        let pageReaders = try reader.list("pages") ?? []
        // A browser-only login needs no rules: the person signs in, and `done_when` says when.
        guard browserOnly || !pageReaders.isEmpty else {
            throw reader.error(
                "pages", localized("missing: a login needs at least one page rule (or 'browser: true' for a login done in a browser)"))
        }
        let pages = PageRule.triedOrder(try pageReaders.enumerated().map { index, page in try PageRule.load(page, index: index) })
        var done = DoneCondition()
        if let doneReader = try reader.mappingReader("done_when") {
            try doneReader.allowOnly(["url", "xpath"])
            done.urlPattern = try doneReader.string("url")
            if let pattern = done.urlPattern, (try? Regex(pattern)) == nil {
                throw doneReader.error("url", localized("'\(pattern)' is not a valid regular expression"))
            }
            done.xpath = try doneReader.xpath("xpath")
        }
        if browserOnly, done.urlPattern == nil, done.xpath == nil {
            throw reader.error(
                "done_when",
                localized("missing: a login done in a browser needs done_when (an xpath or url) to know when the person is signed in"))
        }
        return LoginRecipe(
            start: try reader.string("start") ?? "/", pages: pages, doneWhen: done,
            maxSteps: try reader.integer("max_steps") ?? 20, browserOnly: browserOnly)
    }
}

extension PageRule {
    static func load(_ reader: MappingReader, index: Int) throws -> PageRule {
        try reader.allowOnly([
            "name", "when", "form", "fill", "submit", "auto_submit", "fail", "message", "message_catalog", "follow", "restart",
            "after_login", "tell",
        ])
        let actions = ["fill", "auto_submit", "fail", "follow", "restart"].filter { reader.child($0) != nil }
        guard actions.count == 1 else {
            let found = actions.joined(separator: " and ")
            throw reader.reader.error(
                reader.node, reader.path,
                actions.isEmpty
                    ? localized("a page rule needs one action: fill, auto_submit, follow, restart or fail")
                    : localized("a page rule takes one action, found \(found)"))
        }
        let action: Action
        switch actions[0] {
        case "fill":
            let values = try reader.stringMap("fill") ?? []
            action = .fill(values: values.map { ($0.0, Template($0.1)) }, submit: try reader.xpath("submit"))
        case "auto_submit":
            guard try reader.bool("auto_submit") == true else {
                throw reader.error("auto_submit", localized("only 'true' makes sense here; remove the rule instead"))
            }
            action = .autoSubmit
        case "follow":
            action = .follow(xpath: try reader.requiredXPath("follow"))
        case "restart":
            switch try reader.string("restart") {
            case "true": action = .restart(all: false)
            case "all": action = .restart(all: true)
            default:
                throw reader.error(
                    "restart",
                    localized(
                        "use 'true' (forget the timed-out origin's cookies) or 'all' (the login service's too); to do neither, remove the rule"
                    ))
            }
        default:
            action = .fail(
                reason: try reader.choice("fail", of: FailureReason.self)!, messageXPath: try reader.xpath("message"))
        }
        var rule = PageRule(
            name: try reader.string("name") ?? "page \(index + 1)", when: try reader.requiredXPath("when"),
            form: try reader.xpath("form"), action: action)
        rule.afterLogin = try reader.bool("after_login") ?? false
        if let tell = try reader.string("tell") {
            if case .fail = action {
                throw reader.error("tell", localized("a fail rule says why already (message:); tell: is for a rule that acts"))
            }
            guard !tell.trimmingWhitespace().isEmpty else { throw reader.error("tell", localized("say what the person is told")) }
            rule.tell = tell
        }
        if let catalog = try reader.mappingReader("message_catalog") {
            guard case .fail = action else {
                throw reader.error("message_catalog", localized("only a fail rule has a message to look up"))
            }
            try catalog.allowOnly(["fetch", "key"])
            let fetch = Template(try catalog.requiredString("fetch"))
            let key = Template(try catalog.requiredString("key"))
            for (name, template) in [("fetch", fetch), ("key", key)] {
                let allowed = name == "fetch" ? ["language"] : ["language", "message"]
                if let unknown = template.variables.first(where: { !allowed.contains($0) }) {
                    let known = allowed.map { "{{\($0)}}" }.joined(separator: " or ")
                    throw catalog.error(name, localized("{{\(unknown)}} is not known here; use \(known)"))
                }
            }
            rule.messageCatalog = PageRule.MessageCatalog(fetch: fetch, key: key)
        }
        if rule.afterLogin {
            if case .fill(let values, _) = action,
                values.contains(where: { $0.1.variables.contains("password") || $0.1.variables.contains("totp") })
            {
                throw reader.error(
                    "after_login",
                    localized("a rule for pages after the login cannot send {{password}} or {{totp}}: that would be a second login"))
            }
            if case .restart = action {
                throw reader.error("after_login", localized("a restart starts a new login; it cannot be a page after one"))
            }
        }
        return rule
    }
}

extension TermsRecipe {
    static let apiKeys = ["version_api", "version_field", "text_field", "url_field"]
    static let pageKeys = ["version_page", "version_xpath", "version_regex"]

    /// Reads `terms:`: exactly one way to the version, the API's (`version_api`, with
    /// `version_field`, `url_field`, `text_field`) or the page's (`version_page`, with
    /// `version_xpath` and `version_regex`); keys of the other way are refused, not ignored, so
    /// that a recipe never silently reads its version from somewhere its writer did not mean.
    static func load(_ reader: MappingReader) throws -> TermsRecipe {
        try reader.allowOnly(apiKeys + pageKeys + ["text_xpath"])
        let hasAPI = reader.keys.contains("version_api")
        let hasPage = reader.keys.contains("version_page")
        if hasAPI && hasPage {
            throw reader.error(
                "version_page", localized("a terms version comes either from an API (version_api) or from a page (version_page), not both"),
                hint: localized("keep the one the portal has"))
        }
        if hasPage {
            if let apiKey = apiKeys.first(where: reader.keys.contains) {
                throw reader.error(
                    apiKey, localized("belongs to a terms API (version_api); with version_page the version is read from the page"))
            }
            let regex = try reader.string("version_regex")
            if let regex {
                let compiled: NSRegularExpression
                do {
                    compiled = try NSRegularExpression(pattern: regex)
                } catch {
                    throw reader.error("version_regex", localized("'\(regex)' is not a regular expression"))
                }
                guard compiled.numberOfCaptureGroups >= 1 else {
                    throw reader.error(
                        "version_regex", localized("'\(regex)' has no group: its first group (in parentheses) is the version"),
                        hint: localized("for example 'Version ([0-9.]+)'"))
                }
            }
            return TermsRecipe(
                versionPage: try reader.requiredString("version_page"), versionXPath: try reader.requiredXPath("version_xpath"),
                versionRegex: regex, textXPath: try reader.xpath("text_xpath"))
        }
        if let pageKey = pageKeys.first(where: reader.keys.contains) {
            throw reader.error(
                pageKey, localized("belongs to a terms page (version_page); name the page, or read the version from the API's field"),
                hint: localized("add 'version_page: /path/of/the/terms', or remove '\(pageKey)'"))
        }
        func path(_ key: String) throws -> String? {
            guard let text = try reader.string(key) else { return nil }
            guard (try? JSONPath(text)) != nil else {
                throw reader.error(key, localized("'\(text)' is not a field path: use names joined by dots, such as data.version"))
            }
            return text
        }
        guard hasAPI else {
            throw reader.error(
                "version_api", localized("missing: the terms version comes from an API (version_api) or from a page (version_page)"),
                hint: localized("a portal that shows the version only on its terms page: 'version_page: /terms' with 'version_xpath:'"))
        }
        return TermsRecipe(
            versionAPI: try reader.requiredString("version_api"),
            versionField: try path("version_field") ?? "version",
            textField: try path("text_field"), urlField: try path("url_field"),
            textXPath: try reader.xpath("text_xpath"))
    }
}

extension MappingReader {
    func url(_ key: String, required: Bool) throws -> URL? {
        guard let text = try required ? requiredString(key) : string(key) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw error(key, localized("'\(text)' is not an absolute http or https URL"))
        }
        return url
    }
}

extension URL {
    /// `scheme://host[:port]`, the unit a browser's same-origin rule and unitool's credential
    /// rule work on.
    ///
    /// As a browser compares them: the scheme and host in lower case, and a port that is the
    /// scheme's default (80 for http, 443 for https) left out, so `https://Portal.example:443/`
    /// is the origin of `https://portal.example/`.
    public var origin: String {
        let scheme = (self.scheme ?? "http").lowercased()
        let isDefault = (scheme == "http" && self.port == 80) || (scheme == "https" && self.port == 443)
        let port = isDefault ? "" : self.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\((host ?? "").lowercased())\(port)"
    }
}

/// A portal's id: lower-case letters, digits and hyphens, starting with a letter or digit.
///
/// The id names the recipe folder, the session folder and the keyring items, so it must never
/// carry a separator: a portal named `demo:totp` once read demo's TOTP secret as its password.
public enum PortalID {
    /// Why `id` is not a portal id, or nil when it is one.
    public static func problem(with id: String) -> String? {
        guard let first = id.unicodeScalars.first else { return localized("a portal id cannot be empty") }
        let allowed: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        guard allowed(first), id.unicodeScalars.allSatisfy({ allowed($0) || $0 == "-" }), id.utf8.count <= 64 else {
            return localized(
                "'\(id)' is not a portal id: use lower-case letters, digits and '-' (at most 64), starting with a letter or digit")
        }
        return nil
    }

    /// Throws a usage error naming the bad id.
    public static func validate(_ id: String) throws {
        if let problem = problem(with: id) {
            throw UniToolError(.usage, problem, hint: localized("portal ids look like 'demo' or 'tokyo-tech'; see 'unitool recipes list'"))
        }
    }
}
