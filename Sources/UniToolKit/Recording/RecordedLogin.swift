import Foundation
import LibXML

/// A login page rule as a recording shows it, before it is written as YAML.
public struct DraftRule: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Fields to fill (`{{username}}`, `{{password}}`, `{{totp}}` or the value the user chose)
        /// and the button pressed (nil: the form's first, as Enter does).
        case fill([Value], submit: String?)
        case autoSubmit
        case follow(String)
        /// A page that means the login cannot succeed (the portal's message on its answer to a
        /// wrong password, read from a recording of one: `RecordedFailure`), and where it says why.
        case fail(PageRule.FailureReason, message: String?)
    }

    public struct Value: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public var name: String
    public var when: String
    public var action: Action
    public var afterLogin = false
    /// What the page was taken for, in words ("a form with user name and password").
    public var reading: String
    /// What was guessed rather than read from the page, or nil.
    public var guess: String?
}

/// What a recorded login says about a portal: where it starts, where the password went, each
/// page the person acted on and how, and how the portal looks once the login is over.
///
/// A pure reading of the recording: no request is made. The rules follow what the person did on
/// each page (which field took the user name, the password or a code, which choice was made,
/// which button was pressed), not what the page merely offered; pages that moved on by
/// themselves (redirects, `<meta http-equiv="refresh">`) need no rule, and forms that posted
/// themselves (SAML, the local-storage probe) become `auto_submit`.
public struct RecordedLogin: Sendable {
    public struct Step: Sendable {
        public var rule: DraftRule
        /// The page the rule acts on, when the recording holds it.
        public var page: Document?
        public var pageURL: URL
    }

    /// The page loads of the recording, in order.
    public var pageLoads: [HTTPArchive.Exchange]
    /// The portal's origin: where the login ended.
    public var portal: URL
    /// The path (and query) the login started at.
    public var start: String
    public var identityProvider: URL
    /// Where a password or a code may go: each origin the recorded password was posted to, and
    /// each origin a recorded one-time code was posted to during the login, with why.
    public struct CredentialDestination: Sendable, Equatable {
        public var origin: String
        /// In words for the report ("the password was posted to /idp/login").
        public var reason: String
    }

    public var credentialDestinations: [CredentialDestination] = []
    /// The origins a password or a code was sent to.
    public var credentialOrigins: [String] { credentialDestinations.map(\.origin) }
    public var steps: [Step]
    /// `done_when`: an XPath, or a URL pattern when the page shows nothing to tell it by.
    public var doneXPath: String?
    public var doneURLPattern: String?
    public var doneReading: String
    /// The index in `pageLoads` of the first page of the logged-in portal.
    public var donePage: Int
    /// What the person typed: the user name (scrubbed from fixtures), passwords and codes.
    public var username: String?
    public var typedSecrets: [String] = []
    /// The person's name (and e-mail) as the portal shows them, for the fixtures' scrubbing.
    public var personalTexts: [String] = []

    public init(reading archive: HTTPArchive) throws {
        let loads = archive.exchanges.filter(\.isPageLoad)
        pageLoads = loads
        guard !loads.isEmpty else {
            throw UniToolError(
                .usage, localized("the recording holds no page loads"),
                hint: localized("record in the Network tab with 'Preserve log' on, from the portal's first page until you see your data"))
        }
        let documents = loads.map(Self.document)
        // A posted field is a password when the page it came from showed it as a password field,
        // or when it is named like one (the page not in the recording). The names, per load, of
        // the previous page's password fields:
        let passwordFields = loads.indices.map { index -> Set<String> in
            guard index > 0, let page = documents[index - 1] else { return [] }
            return Set((try? page.select("//input[@type='password']/@name").map(\.text)) ?? [])
        }
        func isPassword(_ name: String, postedAt index: Int) -> Bool {
            passwordFields[index].contains(name) || Self.isPasswordName(name)
        }

        // Where the password went: the attempt that led on to the portal, not the first one seen
        // (a wrong password typed first shows the form again and is typed again). A password-type
        // field posted after the password with another, code-like value is a one-time code (CAS's
        // token input is `type=password`), so its post is no attempt of the password.
        let attempts = LoginAttempts(loads: loads, documents: documents, isPassword: isPassword)
        guard let passwordPost = attempts.successful else {
            throw UniToolError(
                .usage, localized("the recording holds no password being sent, so it is not a recording of a login"),
                hint: localized(
                    "log out first (or use a private window), turn on 'Preserve log' in the Network tab, then log in and open your grades before saving the HAR"
                )
            )
        }
        // Where the service provider's session began: the SAML response (or WS-Federation's
        // wresult) posted back, or CAS's ticket brought back; else the password post itself.
        var sessionStart = passwordPost
        for index in passwordPost..<loads.count {
            let load = loads[index]
            let names = Set((load.formFields ?? []).map(\.name))
            let query = Set(URLComponents(url: load.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
            if names.contains("SAMLResponse") || names.contains("wresult") || (load.method == "GET" && query.contains("ticket")) {
                sessionStart = index
                break
            }
        }
        // The first page after that with a way to log out is the logged-in portal, unless the
        // person left it by a choice that led back to where they were going (a survey's "later",
        // a notice's "continue"): that page is an interstitial, and the login ends after it.
        var done: (index: Int, xpath: String?, reading: String)?
        var interstitials: [Interstitial] = []
        for index in (sessionStart + 1)..<max(loads.count, sessionStart + 1) where loads[index].status == 200 {
            guard let document = documents[index] else { continue }
            if let (xpath, reading) = Self.logoutMarker(in: document) {
                done = (index, xpath, reading)
                break
            }
        }
        while let current = done, let found = Interstitial(at: current.index, loads: loads, documents: documents) {
            interstitials.append(found)
            let landing = documents[found.landing]
            let marker = landing.flatMap(Self.logoutMarker(in:))
            done = (found.landing, marker?.0, marker?.1 ?? "the page the person went on to")
        }
        if var current = done, !interstitials.isEmpty {
            // done_when must be false on every interstitial: the landing page's marker, without
            // the interstitials' containers.
            let xpath = current.xpath ?? "/html"
            current.xpath = xpath + interstitials.map { "[not(\($0.container))]" }.joined()
            current.reading += ", on a page without \(Plural.count(interstitials.count, "notice")) shown after the login"
            done = current
        }
        // Else the first page after it (a recording without page contents has no links to read).
        if done == nil,
            let index = ((sessionStart + 1)..<max(loads.count, sessionStart + 1)).first(where: {
                loads[$0].status == 200 && (documents[$0] != nil || loads[$0].body == nil)
            })
        {
            done = (
                index, nil,
                documents[index] == nil
                    ? "the recording holds no page contents; the login is taken as over at \(loads[index].url.path)"
                    : "no link to log out on \(loads[index].url.path); the login is taken as over at that address"
            )
        }
        guard let done else {
            throw UniToolError(
                .usage, localized("the recording ends before the portal showed a page after the login"),
                hint: localized("record until the portal's own page has loaded, then open the pages you want as commands"))
        }
        donePage = done.index
        let portalURL = loads[done.index].url
        guard let portalRoot = URL(string: portalURL.origin + "/") else {
            let address = TerminalText.escaped(portalURL.absoluteString)
            throw UniToolError(.usage, localized("the portal's address in the recording is not one unitool can use: \(address)"))
        }
        portal = portalRoot
        doneXPath = done.xpath
        doneURLPattern =
            done.xpath == nil
            ? "^"
                + NSRegularExpression.escapedPattern(for: SessionInAddress.stripped(portalURL).url.path).replacingOccurrences(
                    of: "\\/", with: "/") : nil
        doneReading = done.reading
        if let first = loads.first(where: { $0.url.origin == portalURL.origin }), first.url.query.map({ !$0.contains("ticket=") }) ?? true {
            start = SessionInAddress.stripped(first.url).pathAndQuery
        } else {
            start = SessionInAddress.stripped(portalURL).pathAndQuery.split(separator: "?").first.map(String.init) ?? "/"
        }
        // The identity provider: where the password went; under the portal's own origin, its
        // first path segment (an IdP at /idp), so that its pages are known as the login's.
        let target = SessionInAddress.stripped(loads[passwordPost].url).url
        let firstSegment = (URLComponents(url: target, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "")
            .split(separator: "/").first.map(String.init)
        if target.origin == portalURL.origin, let firstSegment, let url = URL(string: target.origin + "/" + firstSegment) {
            identityProvider = url
        } else {
            identityProvider = URL(string: target.origin + "/") ?? portalRoot
        }

        // The rules: one for each page the person (or its script) acted on, up to the portal.
        var steps: [Step] = []
        var specificWhens: [String?] = []
        // The passwords and codes the rules read, told apart by where they were typed.
        var passwords: Set<String> = []
        var codes: Set<String> = []
        for index in 1...done.index {
            let previous = loads[index - 1]
            let request = loads[index]
            if (300..<400).contains(previous.status) { continue }
            let page = documents[index - 1]
            // A page that refreshes itself moved on alone, unless a form of it was posted.
            if request.formFields == nil, let page,
                (try? page.select("//meta[translate(@http-equiv, 'REFSH', 'refsh')='refresh']").isEmpty) == false
            {
                continue
            }
            var rule: DraftRule?
            var specificWhen: String?
            if request.formFields != nil
                || (request.method == "GET" && page.map({ Self.getForm(in: $0, sending: request.url) != nil }) == true)
            {
                let reading = Self.formRule(
                    page: page, pageURL: previous.url, request: request, afterPassword: index > passwordPost,
                    passwords: attempts.passwordValues)
                rule = reading.rule
                specificWhen = reading.specificWhen
                if let username = reading.username { self.username = self.username ?? username }
                typedSecrets += reading.secrets
                for secret in reading.secrets {
                    if reading.codes.contains(secret) { codes.insert(secret) } else { passwords.insert(secret) }
                }
            } else if request.method == "GET", let page {
                rule = Self.linkRule(page: page, pageURL: previous.url, target: request.url)
            }
            guard var rule else { continue }
            rule.afterLogin = index - 1 > sessionStart
            if let interstitial = interstitials.first(where: { $0.page == index - 1 }) {
                rule.when = interstitial.container
                rule.afterLogin = true
                rule.reading += ", on a page shown after the login (\(interstitial.why))"
            }
            // The same rule again (a form typed again after an error, a page opened twice): the
            // later is the attempt that led on, so its action is kept; the earlier page, without
            // the error the failed attempt brought, stays the page it is recognised by.
            // Two forms of one id that take other fields are two rules: each by its fields.
            if let earlier = steps.firstIndex(where: { $0.rule.when == rule.when }), let specificWhen,
                let earlierWhen = specificWhens[earlier], earlierWhen != specificWhen
            {
                steps[earlier].rule.when = earlierWhen
                rule.when = specificWhen
            }
            if let earlier = steps.firstIndex(where: { $0.rule.when == rule.when }) {
                let earlierPage = steps[earlier].page
                steps.remove(at: earlier)
                specificWhens.remove(at: earlier)
                steps.append(Step(rule: rule, page: earlierPage ?? page, pageURL: previous.url))
                specificWhens.append(specificWhen)
                continue
            }
            steps.append(Step(rule: rule, page: page, pageURL: previous.url))
            specificWhens.append(specificWhen)
        }
        // A service's own sign-on page after the login (a library catalogue's "log in with the
        // university account" link to the login service): the person's link becomes a rule.
        let loginOrigin = identityProvider.origin
        for index in (done.index + 1)..<max(loads.count, done.index + 1) {
            let previous = loads[index - 1]
            let request = loads[index]
            guard previous.status == 200, request.method == "GET", request.formFields == nil, let page = documents[index - 1],
                previous.url.origin != loginOrigin, Self.leadsToLoginService(request.url, loginOrigin: loginOrigin),
                var rule = Self.linkRule(page: page, pageURL: previous.url, target: request.url)
            else { continue }
            if let container = Self.container(of: rule.when, on: page, absentFrom: documents[done.index]) {
                rule.when = container
                if case .follow(let link) = rule.action { rule.action = .follow(container + link) }
            }
            rule.name = "sign on (\(previous.url.host ?? previous.url.origin))"
            rule.reading += ", the sign-on page of \(previous.url.origin) leading to the login service"
            guard !steps.contains(where: { $0.rule.when == rule.when }) else { continue }
            steps.append(Step(rule: rule, page: page, pageURL: previous.url))
        }
        self.steps = steps
        // Every password the recording sent, wherever it went, and every code sent during the
        // login (also a POST the rules above did not read: the first load of a recording, a page
        // the browser lost), so that none of them is ever written.
        for (index, load) in loads.enumerated() {
            for field in load.formFields ?? [] where !field.value.isEmpty {
                if codes.contains(field.value) {
                    // A code typed into a password-type field, read as such above.
                } else if isPassword(field.name, postedAt: index) {
                    passwords.insert(field.value)
                } else if index <= done.index, Self.isCodeName(field.name), field.value.count <= 10,
                    field.value.allSatisfy(\.isASCIIDigit)
                {
                    codes.insert(field.value)
                } else {
                    continue
                }
                if !typedSecrets.contains(field.value) { typedSecrets.append(field.value) }
            }
        }
        // Where they may go: where the recorded password's value was posted, and where a
        // recorded code was posted during the login. A field merely named like one elsewhere
        // (`passthrough=1` to a survey, `zipcode=12345` after the login) widens nothing.
        var destinations: [CredentialDestination] = []
        for (index, load) in loads.enumerated() {
            let origin = load.url.origin
            guard !destinations.contains(where: { $0.origin == origin }) else { continue }
            let fields = (load.formFields ?? []).filter { !$0.value.isEmpty }
            let path = load.url.path.isEmpty ? "/" : load.url.path
            if fields.contains(where: { passwords.contains($0.value) && ($0.value.count >= 4 || isPassword($0.name, postedAt: index)) }) {
                destinations.append(CredentialDestination(origin: origin, reason: localized("the recorded password was posted to \(path)")))
            } else if index <= done.index, fields.contains(where: { codes.contains($0.value) }) {
                destinations.append(
                    CredentialDestination(
                        origin: origin, reason: localized("a recorded one-time code was posted to \(path) during the login")))
            }
        }
        credentialDestinations = destinations
        if let page = documents[done.index] { personalTexts = Self.personalTexts(in: page, username: username) }
    }

    // MARK: Pages

    static func document(_ load: HTTPArchive.Exchange) -> Document? {
        guard load.isHTML, let body = load.body, !body.isEmpty else { return nil }
        return try? Document(html: body, url: load.url.absoluteString, encoding: Page.charset(ofContentType: load.contentType))
    }

    /// The path and query as the browser asked for them: a trailing slash kept (`/portal/` is
    /// not `/portal`, and a cookie's path may tell them apart), percent-encoding as it was.
    static func pathAndQuery(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components.map(\.percentEncodedPath).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        return components?.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// Names that mark a password field when the page that showed it is not in the recording:
    /// the products' own (`j_password`, `password`, as `TraceScrubber.credentialFieldNames`) and
    /// the common short forms. A name that merely contains one (`passthrough`, `bypass`,
    /// `compass_direction`) is no password: it would make a third site a place the password goes.
    static let passwordNames: Set<String> = [
        "password", "j_password", "passwd", "pass", "pwd", "pw", "passwort", "userpassword", "user_password", "login_password",
        "loginpassword",
    ]

    static func isPasswordName(_ name: String) -> Bool {
        passwordNames.contains(name.lowercased())
    }

    /// Names of user-name fields, as the products and portals name them.
    static let userNames: Set<String> = ["username", "user", "j_username", "login", "email", "uid", "userid", "user_id", "loginname"]

    static func isUserName(_ name: String) -> Bool { userNames.contains(name.lowercased()) }

    /// Names of one-time-code fields: Shibboleth's TOTP plugins (`j_tokenNumber`), Keycloak
    /// (`otp`), CAS (`token`), LemonLDAP::NG (`code`), and names built of them (`otp_code`,
    /// `totpCode`): a word of the name, not a part of a word (`zipcode`, `tokenizer` are none).
    static func isCodeName(_ name: String) -> Bool {
        var words: [String] = []
        var word = ""
        for character in name {
            if !(character.isLetter || character.isNumber) {
                if !word.isEmpty { words.append(word) }
                word = ""
                continue
            }
            if character.isUppercase, let last = word.last, last.isLowercase {
                words.append(word)
                word = ""
            }
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        return words.contains { ["token", "otp", "code", "totp", "passcode", "mfa", "2fa"].contains($0.lowercased()) }
    }

    /// A link to log out, as the logged-in portal shows one: an XPath for it and words for the report.
    static func logoutMarker(in page: Document) -> (String, String)? {
        let hrefWords = ["logout", "logoff", "signout", "sign-out", "sign_out", "log-out", "abmelden", "deconnexion"]
        let textWords = [
            "log out", "logout", "sign out", "log off", "abmelden", "ausloggen", "déconnexion", "se déconnecter",
            "kijelentkezés", "ログアウト", "退出", "esci", "cerrar sesión", "uitloggen", "wyloguj",
        ]
        for link in (try? page.select("//a")) ?? [] {
            let href = link.attribute("href") ?? ""
            let text = link.normalizedText.lowercased()
            let id = link.attribute("id") ?? ""
            let hrefWord = hrefWords.first { href.lowercased().contains($0) }
            guard hrefWord != nil || textWords.contains(text) || id.lowercased().contains("logout") else { continue }
            if !id.isEmpty {
                return ("//a[@id=\(Template.xpathLiteral(id))]", "its link to log out, by its id")
            }
            if let hrefWord, let range = href.range(of: hrefWord, options: .caseInsensitive) {
                let written = String(href[range])
                return ("//a[contains(@href, \(Template.xpathLiteral(written)))]", "its link to log out, by its address")
            }
            return (
                "//a[normalize-space()=\(Template.xpathLiteral(link.normalizedText))]", "its link to log out, by its words"
            )
        }
        return nil
    }

    /// The form on `page` whose GET submission is `target` (a discovery service's choice).
    static func getForm(in page: Document, sending target: URL) -> Node? {
        guard let query = target.query, !query.isEmpty else { return nil }
        for node in (try? page.select("//form")) ?? [] {
            guard let form = try? HTMLForm(node, pageURL: page.url.flatMap(URL.init(string:)) ?? target), form.method == "GET",
                form.action.origin == target.origin, form.action.path == target.path
            else { continue }
            return node
        }
        return nil
    }

    /// The person's own name and e-mail address as the logged-in page shows them: text in an
    /// element whose id or class names the user or the account, and the user name itself.
    static func personalTexts(in page: Document, username: String?) -> [String] {
        let xpath =
            "//*[not(self::a) and not(self::html) and not(self::body)][contains(translate(@id, 'USERACNTMILN', 'useracntmiln'), 'user') or contains(translate(@class, 'USERACNT', 'useracnt'), 'user') or contains(translate(@class, 'ACOUNT', 'acount'), 'account') or contains(translate(@id, 'ACOUNT', 'acount'), 'account') or contains(translate(@id, 'MAIL', 'mail'), 'mail') or contains(translate(@id, 'NAME', 'name'), 'name')]"
        var texts: [String] = []
        for node in (try? page.select(xpath)) ?? [] where node.elementChildren.count <= 3 {
            let text = node.normalizedText
            let lowered = text.lowercased()
            guard (2...80).contains(text.count), text != username, !["log out", "logout", "sign out", "log off"].contains(lowered)
            else { continue }
            if !texts.contains(text) { texts.append(text) }
        }
        return texts
    }

    // MARK: Forms

    struct FormReading {
        var rule: DraftRule?
        var username: String?
        var secrets: [String] = []
        /// The secrets that are one-time codes.
        var codes: Set<String> = []
        /// The form's id with the fields that tell this step from another of the same form: CAS's
        /// password and token views are both form#fm1, and are two rules, not one seen twice.
        var specificWhen: String?
    }

    /// A named control of a form as the page shows it: its value the one the page would send
    /// (a select's chosen option, a textarea's text), the type a browser gives it.
    struct Control {
        var node: Node
        var name: String
        var tag: String
        var type: String
        var value: String
        var checked: Bool
    }

    /// The named controls of `form`, in the page's order.
    static func controls(of form: Node) -> [Control] {
        ((try? form.select(".//input | .//select | .//textarea | .//button")) ?? []).compactMap { control in
            guard let name = control.attribute("name"), !name.isEmpty else { return nil }
            let type =
                (control.attribute("type") ?? (control.name == "button" ? "submit" : control.name == "input" ? "text" : control.name))
                .lowercased()
            var value = control.attribute("value") ?? ""
            if control.name == "select" {
                let options = (try? control.select(".//option")) ?? []
                let chosen = options.last { $0.hasAttribute("selected") } ?? options.first
                value = chosen.map { $0.attribute("value") ?? $0.normalizedText } ?? ""
            } else if control.name == "textarea" {
                value = control.text
            }
            return Control(node: control, name: name, tag: control.name, type: type, value: value, checked: control.hasAttribute("checked"))
        }
    }

    /// The rule for the form on `page` that sent `request`: what the person filled in, chose and pressed.
    static func formRule(
        page: Document?, pageURL: URL, request: HTTPArchive.Exchange, afterPassword: Bool = false, passwords: Set<String> = []
    ) -> FormReading {
        let posted =
            request.formFields
            ?? (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        guard let page else { return ruleWithoutPage(posted: posted) }
        let node = matchingForm(in: page, pageURL: pageURL, request: request, posted: posted)
        guard let node else { return ruleWithoutPage(posted: posted) }
        let controls = Self.controls(of: node)
        let textTypes: Set<String> = ["text", "email", "tel", "number", "search", "url"]
        var reading = FormReading()
        var values: [DraftRule.Value] = []
        var typed: [(name: String, value: String, tag: String)] = []
        var password: (name: String, tag: String)?
        var clicked: Control?
        var hiddenNames: [String] = []
        for (name, value) in posted {
            let matching = controls.filter { $0.name == name }
            if let button = matching.first(where: { ["submit", "image"].contains($0.type) && ($0.tag == "button" || $0.tag == "input") }),
                matching.allSatisfy({ ["submit", "image"].contains($0.type) })
            {
                clicked = button
                continue
            }
            guard let control = matching.first else {
                if isPasswordName(name), !value.isEmpty {
                    password = (name, "input")
                    reading.secrets.append(value)
                }
                continue
            }
            switch control.type {
            case "password" where afterPassword && LoginAttempts.isCode(name: name, value: value, passwords: passwords):
                // A one-time code in a password-type field (CAS's token input).
                typed.append((name, value, control.tag))
            case "password":
                password = (name, control.tag)
                if !value.isEmpty { reading.secrets.append(value) }
            case "hidden":
                hiddenNames.append(name)
            case "radio":
                values.append(.init(name: name, value: value))
            case "checkbox":
                if !control.checked { values.append(.init(name: name, value: value)) }
            case _ where control.tag == "select":
                if value != control.value { values.append(.init(name: name, value: value)) }
            case _ where textTypes.contains(control.type) || control.tag == "textarea":
                if value.isEmpty || value == control.value { continue }
                typed.append((name, value, control.tag))
            default:
                continue
            }
        }
        var roles: [String] = []
        var signature: [(name: String, tag: String)] = []
        if let password {
            if let user = typed.first {
                values.insert(.init(name: user.name, value: "{{username}}"), at: 0)
                reading.username = user.value
                signature.append((user.name, user.tag))
                roles.append("user name")
            }
            values.insert(.init(name: password.name, value: "{{password}}"), at: values.isEmpty || typed.isEmpty ? 0 : 1)
            signature.append((password.name, password.tag))
            roles.append("password")
        } else if typed.count == 1, let field = typed.first {
            // Digits alone are a code only after the password: before it, a student number.
            let isCode =
                !isUserName(field.name)
                && (isCodeName(field.name)
                    || afterPassword && field.value.count >= 4 && field.value.count <= 10 && field.value.allSatisfy(\.isASCIIDigit))
            if isCode {
                values.insert(.init(name: field.name, value: "{{totp}}"), at: 0)
                reading.secrets.append(field.value)
                reading.codes.insert(field.value)
                roles.append("one-time code")
            } else {
                values.insert(.init(name: field.name, value: "{{username}}"), at: 0)
                reading.username = field.value
                roles.append("user name")
            }
            signature.append((field.name, field.tag))
        }
        let choices = values.filter { !$0.value.hasPrefix("{{") }
        if !choices.isEmpty { roles.append("choice (\(choices.map(\.name).joined(separator: ", ")))") }
        let visible = controls.contains { !["hidden", "submit", "image", "button", "reset"].contains($0.type) }
        let formID = node.attribute("id").flatMap { $0.isEmpty ? nil : $0 }
        let when: String
        if let formID {
            // The id and the fields that tell this step from another of the same form (CAS's
            // password and token views are both form#fm1).
            when = "//form[@id=\(Template.xpathLiteral(formID))]"
            if !signature.isEmpty {
                reading.specificWhen = when + signature.map { "[.//\($0.tag)[@name=\(Template.xpathLiteral($0.name))]]" }.joined()
            }
        } else if !signature.isEmpty {
            when = "//form" + signature.map { "[.//\($0.tag)[@name=\(Template.xpathLiteral($0.name))]]" }.joined()
        } else if let choice = choices.first {
            when = "//form[.//*[@name=\(Template.xpathLiteral(choice.name))]]"
        } else if let hidden = distinctiveHidden(hiddenNames) {
            when =
                hidden.hasSuffix("_")
                ? "//form[.//input[starts-with(@name, \(Template.xpathLiteral(hidden)))]]"
                : "//form[.//input[@name=\(Template.xpathLiteral(hidden))]]"
        } else if let clicked {
            when = "//form[.//*[@name=\(Template.xpathLiteral(clicked.name))]]"
        } else {
            return reading
        }
        // Buttons alone, one of several pressed, are the person's choice (accept or reject, now or
        // later), not a form that posts itself.
        let buttons = controls.filter { ["submit", "image"].contains($0.type) }
        if values.isEmpty && !visible && !(clicked != nil && buttons.count > 1) {
            reading.rule = DraftRule(
                name: autoSubmitName(hiddenNames), when: when, action: .autoSubmit,
                reading: "a form that posts itself (\(hiddenNames.prefix(3).joined(separator: ", ")))")
            return reading
        }
        let submit = clicked.map { ".//\($0.tag)[@name=\(Template.xpathLiteral($0.name))]" }
        let name = roles.isEmpty ? (clicked.map { "continue (\($0.name))" } ?? "continue") : roles.joined(separator: " and ")
        reading.rule = DraftRule(
            name: name, when: when, action: .fill(values, submit: submit),
            reading: "a form" + (roles.isEmpty ? "" : ": " + roles.joined(separator: ", "))
                + (clicked.map { "; button '\($0.name)'" } ?? ""))
        return reading
    }

    /// A rule for a form whose page the recording lost (the browser had moved on): from the
    /// names it posted alone.
    static func ruleWithoutPage(posted: [(String, String)]) -> FormReading {
        let names = posted.map(\.0)
        var reading = FormReading()
        for protocolField in ["SAMLResponse", "SAMLRequest", "wresult"] where names.contains(protocolField) {
            reading.rule = DraftRule(
                name: autoSubmitName(names), when: "//form[.//input[@name=\(Template.xpathLiteral(protocolField))]]", action: .autoSubmit,
                reading: "a form that posts itself (\(protocolField)), its page gone from the recording")
            return reading
        }
        guard let password = posted.first(where: { isPasswordName($0.0) && !$0.1.isEmpty }) else {
            // A user name or a code, named as the products name them (a recording without
            // page contents loses every page).
            if let user = posted.first(where: { userNames.contains($0.0.lowercased()) && !$0.1.isEmpty }) {
                reading.username = user.1
                reading.rule = DraftRule(
                    name: "user name", when: "//form[.//input[@name=\(Template.xpathLiteral(user.0))]]",
                    action: .fill([.init(name: user.0, value: "{{username}}")], submit: nil), reading: "a user name form",
                    guess: "the page was not in the recording: the field is named from what was posted")
                return reading
            }
            if let code = posted.first(where: { isCodeName($0.0) && $0.1.count >= 4 && $0.1.allSatisfy(\.isASCIIDigit) }) {
                reading.secrets.append(code.1)
                reading.codes.insert(code.1)
                reading.rule = DraftRule(
                    name: "one-time code", when: "//form[.//input[@name=\(Template.xpathLiteral(code.0))]]",
                    action: .fill([.init(name: code.0, value: "{{totp}}")], submit: nil), reading: "a one-time code form",
                    guess: "the page was not in the recording: the field is named from what was posted")
                return reading
            }
            // A page the browser left before its body was kept, posting nothing typed: it
            // posted itself (the local-storage probe's script runs on load).
            guard let hidden = distinctiveHidden(names) else { return reading }
            reading.rule = DraftRule(
                name: autoSubmitName(names),
                when: hidden.hasSuffix("_")
                    ? "//form[.//input[starts-with(@name, \(Template.xpathLiteral(hidden)))]]"
                    : "//form[.//input[@name=\(Template.xpathLiteral(hidden))]]", action: .autoSubmit,
                reading: "a form that posts itself (\(names.prefix(3).joined(separator: ", "))), its page gone from the recording",
                guess: "the browser left the page before it was recorded, so it is taken to post itself")
            return reading
        }
        reading.secrets.append(password.1)
        var values = [DraftRule.Value(name: password.0, value: "{{password}}")]
        var signature = [password.0]
        if let user = posted.first(where: { userNames.contains($0.0.lowercased()) }) {
            values.insert(.init(name: user.0, value: "{{username}}"), at: 0)
            reading.username = user.1
            signature.insert(user.0, at: 0)
        }
        reading.rule = DraftRule(
            name: "password", when: "//form" + signature.map { "[.//input[@name=\(Template.xpathLiteral($0))]]" }.joined(),
            action: .fill(values, submit: nil), reading: "a password form",
            guess: "the page was not in the recording: the fields are named from what was posted")
        return reading
    }

    static func autoSubmitName(_ names: [String]) -> String {
        if names.contains("SAMLResponse") { return "saml post" }
        if names.contains("SAMLRequest") { return "saml request post" }
        if names.contains("wresult") { return "ws-federation post" }
        if names.contains(where: { $0.hasPrefix("shib_idp_ls_") }) { return "local storage" }
        return "form that posts itself"
    }

    /// A hidden field that tells the form apart: a protocol's, or a family of fields by prefix.
    static func distinctiveHidden(_ names: [String]) -> String? {
        for name in ["SAMLResponse", "SAMLRequest", "wresult"] where names.contains(name) { return name }
        if names.contains(where: { $0.hasPrefix("shib_idp_ls_") }) { return "shib_idp_ls_" }
        let common: Set<String> = ["csrf_token", "_csrf", "execution", "_eventId", "token", "lt", "authenticity_token"]
        return names.first { !common.contains($0) } ?? names.first
    }

    /// The form that sent `request`: the one whose action is the request's address, else the
    /// one whose names cover the most posted names.
    static func matchingForm(in page: Document, pageURL: URL, request: HTTPArchive.Exchange, posted: [(String, String)]) -> Node? {
        let forms = (try? page.select("//form")) ?? []
        func sameTarget(_ node: Node) -> Bool {
            guard let form = try? HTMLForm(node, pageURL: pageURL) else { return false }
            if request.method == "GET" { return form.action.origin == request.url.origin && form.action.path == request.url.path }
            return form.action.absoluteString.split(separator: "#").first == request.url.absoluteString.split(separator: "#").first
        }
        let names = Set(posted.map(\.0))
        func coverage(_ node: Node) -> Int {
            Set(((try? node.select(".//*[@name]")) ?? []).compactMap { $0.attribute("name") }).intersection(names).count
        }
        let targeted = forms.filter(sameTarget)
        return (targeted.isEmpty ? forms : targeted).max { coverage($0) < coverage($1) }.flatMap {
            coverage($0) > 0 || targeted.count == 1 ? $0 : nil
        }
    }

    // MARK: Links

    /// The rule for a link the person followed on `page`.
    static func linkRule(page: Document, pageURL: URL, target: URL) -> DraftRule? {
        let base = (try? page.select("//base[@href]").first?.attribute("href")).flatMap { URL(string: $0, relativeTo: pageURL) } ?? pageURL
        let candidates = ((try? page.select("//a[@href]")) ?? []).filter { link in
            guard let href = link.attribute("href"), let resolved = URL(string: href, relativeTo: base)?.absoluteURL else { return false }
            return resolved.absoluteString.split(separator: "#").first == target.absoluteString.split(separator: "#").first
        }
        // Several links may lead there (the site's logo and "remind me later" both to /home):
        // the one the page marks with an id, else one in the page's content rather than its
        // header, navigation or footer.
        func inChrome(_ link: Node) -> Bool {
            (try? link.select("ancestor::header | ancestor::nav | ancestor::footer").isEmpty) == false
        }
        let ranked =
            candidates.filter { $0.attribute("id").map { !$0.isEmpty } ?? false } + candidates.filter { !inChrome($0) } + candidates
        for link in ranked.prefix(1) {
            guard let href = link.attribute("href") else { continue }
            // A query or a ;jsessionid may hold this session's token: match the path alone.
            let path = String(href.split(whereSeparator: { $0 == "?" || $0 == ";" || $0 == "#" }).first ?? "")
            let byHref =
                path == href || path.isEmpty
                ? "//a[@href=\(Template.xpathLiteral(href))]" : "//a[starts-with(@href, \(Template.xpathLiteral(path)))]"
            let xpath = link.attribute("id").flatMap { $0.isEmpty ? nil : "//a[@id=\(Template.xpathLiteral($0))]" } ?? byHref
            let words = String(link.normalizedText.prefix(40))
            return DraftRule(
                name: "link \(words.isEmpty ? path : words)", when: xpath, action: .follow(xpath), reading: "a link ('\(words)')")
        }
        return nil
    }
}

extension Character {
    /// 0-9 only (`isNumber` alone takes "²" and "٣").
    var isASCIIDigit: Bool { isASCII && isNumber }
}
