import Foundation
import LibXML
import Logging

/// Drives a login through a portal's pages, as the portal recipe describes them.
///
/// Each page is classified by the recipe's rules; the state machine decides; this type acts:
/// it fills and submits forms, submits SAML auto-post forms, and refuses to send a password to
/// any origin the recipe does not allow.
public struct LoginFlow: Sendable {
    public let portal: PortalRecipe
    public let session: HTTPSession
    public let logger: Logger
    /// Told about each page as the login leaves it; `unitool doctor login` prints them.
    public let observer: LoginObserver?
    /// Told what the login is doing, for the person waiting ("page 3 of the login"): the
    /// connection passes its caller's `Interaction`.
    let progress: @Sendable (String) -> Void
    /// Told what a rule did on the person's behalf (its `tell:`), to be shown after the login too.
    let tell: @Sendable (String) -> Void

    public init(
        portal: PortalRecipe, session: HTTPSession, logger: Logger, observer: LoginObserver? = nil,
        progress: @escaping @Sendable (String) -> Void = { _ in }, tell: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.portal = portal
        self.session = session
        self.logger = logger
        self.observer = observer
        self.progress = progress
        self.tell = tell
    }

    /// Logs in from the portal's start page.
    public func logIn(credentials: Credentials) async throws -> Page {
        let start = try startAddress()
        return try await continueLogin(from: try await session.get(start), credentials: credentials)
    }

    /// Carries on from a page the session has reached, such as the IdP page that a data page
    /// redirected to. Returns the first page of the logged-in portal.
    ///
    /// `returningTo` is the address whose fetch met the login: landing back on it (same origin
    /// and path, as SAML's RelayState brings the browser back) is as done as `done_when`, which
    /// was written for the start page (a terms API behind the login lands on `/api/terms`).
    public func continueLogin(from firstPage: Page, credentials: Credentials, returningTo requested: URL? = nil) async throws -> Page {
        // The password is read once, when a page first asks for it, and registered with the
        // session before it is sent: the trace and any error that quotes the portal must not
        // show it, even where the portal echoes it.
        let password = OnceSecret { [session] in
            let secret = try credentials.password()
            session.registerSecret(secret.reveal())
            return secret
        }
        var machine = LoginStateMachine(recipe: portal.login, portal: portal.id)
        var page = firstPage
        var pageNumber = 0
        while true {
            pageNumber += 1
            progress(localized("signing in to \(portal.name): page \(pageNumber) of the login"))
            let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
            let matched = try classify(document)
            var step = observer.map { _ in self.step(on: page, document: document, matched: matched?.rule) }
            func report(_ action: LoginStep.Action, error: (any Error)? = nil) {
                guard var finished = step, let observer else { return }
                finished.action = action
                finished.error = error.map { ($0 as? UniToolError)?.message ?? "\($0)" }
                observer(finished)
                step = nil
            }
            // The login service under the portal's own origin (an IdP at /idp) is not the portal:
            // its 401 is the login service's answer, not a portal page that failed.
            let isOnPortal = portal.isOwn(page.url) && !isLoginService(page.url)
            if matched == nil, isOnPortal, page.status >= 400 {
                let error = UniToolError(
                    .portalError, localized("the portal answered \(page.status) for \(page.url.redactedForLog)"),
                    hint: page.status == 404
                        ? localized("the page does not exist; check the command's options") : localized("try again later"))
                report(.failed, error: error)
                throw error
            }
            let refresh = MetaRefresh(document, pageURL: page.url)
            let doneFailure = try self.doneFailure(page: page, document: document)
            let observation = LoginStateMachine.Observation(
                matchedRule: matched?.index, isOnPortal: isOnPortal, doneConditionHolds: doneFailure == nil,
                summary: describe(page: page, document: document), refreshes: refresh != nil, doneFailure: doneFailure,
                isScriptAnswer: [401, 403].contains(page.status) || Self.mediaType(of: page).contains("json"),
                isScriptBuilt: (try? document.select("//form").isEmpty) == true && (try? document.select("//script").isEmpty) == false,
                // The page that met the login is no return to it: only one the login led back to.
                isRequestedPage: pageNumber > 1
                    && requested.map { Self.isSameAddress(page.url, $0) && (200..<300).contains(page.status) } ?? false)
            switch machine.decide(observation) {
            case .loggedIn:
                logger.debug("logged in; at \(page.url.redactedForLog)")
                report(.loggedIn)
                return page
            case .failed(var error):
                // A fail rule may point at the portal's own explanation; add it to the message.
                if let matched, case .fail(let reason, let messageXPath) = matched.rule.action {
                    var message = try portalMessage(document, xpath: messageXPath ?? matched.rule.when)
                    if let catalog = matched.rule.messageCatalog, let code = message {
                        message = await lookUp(code, in: catalog, from: page) ?? message
                    }
                    error = LoginStateMachine.error(for: reason, rule: matched.rule, portalMessage: message)
                }
                // A refused password: the hint names where it came from, the one place to fix it.
                if error.kind == .wrongCredentials, let origin = credentials.origin.value {
                    error = UniToolError(error.kind, error.message, hint: origin.refusedHint(portal: portal.id, user: credentials.username))
                }
                report(.failed, error: error)
                throw error
            case .followRefresh:
                // The machine follows a refresh only when the page has one (`page.refreshes`).
                guard let target = refresh?.url else {
                    throw UniToolError(
                        .internal, localized("the login was told to follow a refresh on a page without one"),
                        hint: localized("please report it"))
                }
                logger.debug("login page 'meta refresh' at \(page.url.redactedForLog) -> \(target.redactedForLog)")
                step?.submitted = "GET \(target.redactedForLog)"
                do {
                    page = try await session.get(target)
                } catch {
                    report(.failed, error: error)
                    throw error
                }
                step?.arrivedAt = page.url.redactedForLog
                step?.redirects = page.hops.count - 1
                report(.followedRefresh)
            case .act(let rule):
                logger.debug("login page '\(rule.name)' at \(page.url.redactedForLog)")
                // Only a form submitted as the page's own script would submits the answer: a
                // page the person fills in (a code field beside a hidden state) does not.
                let postsAssertion: Bool
                if case .autoSubmit = rule.action {
                    postsAssertion = try document.evaluate(Self.carriesAnswer).booleanValue
                } else {
                    postsAssertion = false
                }
                do {
                    let outcome = try await act(
                        rule, on: page, document: document, credentials: credentials, password: password, step: &step)
                    page = outcome
                } catch {
                    report(.failed, error: error)
                    throw error
                }
                step?.arrivedAt = page.url.redactedForLog
                step?.redirects = page.hops.count - 1
                if let words = rule.tell { tell("\(portal.name): \(words)") }
                switch rule.action {
                case .autoSubmit: report(.autoSubmitted)
                case .follow: report(.followedLink)
                case .restart: report(.restarted)
                default: report(.filledForm)
                }
                if postsAssertion { machine.noteDelivered() }
            }
        }
    }

    /// A page whose form carries the login service's answer to the portal: a SAML response, or
    /// an OpenID Connect authorization response sent with `response_mode=form_post` (code or
    /// id_token beside state: OpenID Connect Core 1.0 3.1.2.5 and 3.3.2.5, OAuth 2.0 Form Post
    /// Response Mode 2). Once it went to the portal, another login page means the portal did not
    /// keep the session. (An answer by redirect, OIDC's query mode or a CAS ticket, is no page.)
    /// Both are hidden fields of a form that posts: an OP's page with a hidden `state` and a
    /// code the person types (`<input name="code">`) is no answer.
    static let carriesAnswer =
        "boolean(//form//input[@name='SAMLResponse'] | //form[translate(@method, 'POST', 'post') = 'post'][.//input[@type='hidden'][@name='state']]//input[@type='hidden'][@name='code' or @name='id_token'])"

    /// Same origin and path: the query may differ (a SAML SP adds none, some portals add a
    /// session marker), and the path is compared as the address bar shows it.
    static func isSameAddress(_ page: URL, _ requested: URL) -> Bool {
        func path(_ url: URL) -> String {
            let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
            return path.isEmpty ? "/" : path
        }
        return page.origin == requested.origin && path(page).removingPercentEncoding == path(requested).removingPercentEncoding
    }

    /// The same request as far as the portal can tell: the same address, and the same query
    /// values in any order and any percent-encoding (a SAML SP's or CAS's return address is
    /// rebuilt by the server, which writes `%3A` where unitool wrote `:`, or orders the values
    /// its own way). The page the login landed on then is the page asked for, and asking again
    /// would be a request the browser never makes.
    static func isSameRequest(_ page: URL, _ requested: URL) -> Bool {
        guard isSameAddress(page, requested) else { return false }
        func items(_ url: URL) -> [String] {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
            return items.map { "\($0.name)=\($0.value ?? "")" }.sorted()
        }
        return items(page) == items(requested)
    }

    /// An address of the login service where it lives under a path of the portal's own origin
    /// (`idp_url: https://portal.example.edu/idp`).
    func isLoginService(_ url: URL) -> Bool {
        // An IdP at the root of the portal's own origin has no path of its own to tell it by.
        guard portal.idpURL != portal.baseURL, url.origin == portal.idpURL.origin, portal.idpURL.path.count > 1 else { return false }
        let root = portal.idpURL.path.hasSuffix("/") ? portal.idpURL.path : portal.idpURL.path + "/"
        return url.path.hasPrefix(root) || url.path + "/" == root
    }

    /// Is this page one the login must handle (rather than a page of the logged-in portal)?
    public func needsLogin(_ page: Page) throws -> Bool {
        // The login service under the portal's own origin (an IdP at /idp): a login, even on a
        // page that no rule knows, so that the error names the login page, not a drifted recipe.
        if isLoginService(page.url) {
            return true
        }
        if !portal.isOwn(page.url) {
            // A login done in a browser may go anywhere (Entra ID, Okta, the university's own
            // IdP): the portal sending the browser away is its session ending.
            if portal.login.browserOnly { return true }
            // The login service, or a page a login rule knows (a discovery service elsewhere),
            // is a login. Any other origin is not the portal's business: a login there would
            // only ask for a password that has nowhere safe to go.
            if page.url.origin == portal.idpURL.origin || portal.credentialOrigins.contains(page.url.origin) { return true }
            if page.contentType?.contains("html") ?? true,
                let document = try? page.document(charsetOverride: portal.charsetOverride(for: page.url)), try classify(document) != nil
            {
                return true
            }
            throw UniToolError(
                .unsafeRequest,
                localized(
                    "the portal sent unitool to \(page.url.redactedForLog), which is neither the portal (\(portal.baseURL.origin)) nor its login service (\(portal.idpURL.origin)), and no login rule knows that page"
                ),
                hint: localized(
                    "if the portal or its login really moved, update base_url or idp_url in \(portal.file); otherwise look at the portal in a browser"
                )
            )
        }
        guard page.contentType?.contains("html") ?? true else { return false }
        let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
        if try classify(document) != nil { return true }
        // A portal page that refreshes at once, and is not the logged-in portal, is on its way
        // to the login (some SPs send the browser to the IdP this way).
        guard MetaRefresh(document, pageURL: page.url) != nil else { return false }
        return try !doneConditionHolds(page: page, document: document)
    }

    private func classify(_ document: Document) throws -> (index: Int, rule: PageRule)? {
        try portal.login.rule(matching: document)
    }

    private func doneConditionHolds(page: Page, document: Document) throws -> Bool {
        try doneFailure(page: page, document: document) == nil
    }

    /// Which test of `done_when` the page fails, in words, or nil when it passes (or has none).
    ///
    /// The URL test sees the path as requested, trailing slash included (`^/campus/$`), and the
    /// query: what a browser's address bar shows, not Foundation's `path`, which drops the slash.
    func doneFailure(page: Page, document: Document) throws -> String? {
        try portal.login.doneWhen.failure(page: page, document: document)
    }

    private func act(
        _ rule: PageRule, on page: Page, document: Document, credentials: Credentials, password: OnceSecret,
        step: inout LoginStep?
    ) async throws -> Page {
        switch rule.action {
        case .follow(let xpath):
            let target = try linkTarget(xpath, rule: rule, in: document, page: page)
            try checkLoginTarget(target, page: page, rule: rule)
            step?.submitted = "GET \(target.redactedForLog)"
            logger.debug("following '\(rule.name)': \(target.redactedForLog)")
            return try await session.get(target)
        case .restart(let all):
            // The portal's session is dead: forget the cookies of the origin that timed out, then
            // ask for the start page, which sends the browser to the login service. Its session
            // is alive, and signs the user in again with no password, so its cookies stay even
            // where it shares the host (its path), unless the rule says `restart: all`.
            session.forgetCookies(for: page.url, keepingThoseFor: all ? nil : portal.idpURL)
            if all { session.forgetCookies(for: portal.idpURL) }
            let start = try startAddress()
            step?.submitted = "GET \(start.redactedForLog)"
            logger.debug("'\(rule.name)': the portal's session timed out; starting a fresh login at \(start.redactedForLog)")
            progress(localized("the login page of \(portal.name) had expired ('\(rule.name)'); signing in again"))
            return try await session.get(start)
        default:
            break
        }
        let formNode = try findForm(for: rule, in: document, page: page)
        let form = try HTMLForm(formNode, pageURL: page.url)
        switch rule.action {
        case .autoSubmit:
            let submission = try form.submission(values: [])
            try checkLoginTarget(submission.url, page: page, rule: rule)
            step?.record(submission, filled: [])
            return try await session.submit(submission)
        case .fill(let templates, let submitXPath):
            var values: [(name: String, value: String)] = []
            var filled: [LoginStep.FilledField] = []
            var secretFields: Set<String> = []
            var sendsPassword = false
            var variables = ["username": credentials.username]
            if templates.contains(where: { $0.1.variables.contains("password") }) {
                variables["password"] = try password.get().reveal()
            }
            if templates.contains(where: { $0.1.variables.contains("totp") }) {
                guard let makeCode = credentials.oneTimeCode else {
                    throw LoginStateMachine.error(for: .mfaRequired, rule: rule)
                }
                let code = try makeCode().reveal()
                session.registerSecret(code)
                variables["totp"] = code
            }
            for (name, template) in templates {
                guard form.controlNames.contains(name) else {
                    let fields = form.controlNames.joined(separator: ", ")
                    throw UniToolError(
                        .layoutChanged,
                        localized(
                            "the '\(rule.name)' form at \(page.url.redactedForLog) has no field named '\(name)' (it has: \(fields))"),
                        hint: localized("the portal's login form may have changed; adjust 'fill' in the portal recipe"))
                }
                if template.variables.contains("password") || template.variables.contains("totp") {
                    sendsPassword = true
                    secretFields.insert(name)
                }
                values.append((name, try template.render(variables)))
                filled.append(.init(name: name, source: LoginStep.describeSource(of: template)))
            }
            var button: Node?
            if let submitXPath {
                guard let found = try formNode.select(submitXPath).first ?? document.select(submitXPath).first else {
                    throw UniToolError(
                        .layoutChanged,
                        localized("the '\(rule.name)' page at \(page.url.redactedForLog) has no button matching \(submitXPath)"),
                        hint: localized("the portal's login form may have changed; adjust 'submit' in the portal recipe"))
                }
                button = found
            }
            var submission = try form.submission(values: values, clicking: button)
            submission.secretFieldNames = secretFields
            step?.record(submission, filled: filled)
            if sendsPassword { try checkCredentialTarget(submission.url, page: page) }
            try checkLoginTarget(submission.url, page: page, rule: rule)
            logger.debug("submitting '\(rule.name)': \(submission)")
            // A 307 or 308 would repeat the password to wherever it points: the same check applies.
            return try await session.submit(submission, secretsMayGoTo: { [self] target in try checkCredentialTarget(target, page: page) })
        case .fail, .follow, .restart:
            preconditionFailure("the state machine never asks to act on a fail rule; links and restarts are handled above")
        }
    }

    /// Where a `follow` rule leads: the selected element's `href` (an `<a>`, or any element that
    /// carries one), the address in a button's `onclick="location.href='...'"`, or the address
    /// the XPath yields as a value; resolved against the page and its `<base href>`.
    func linkTarget(_ xpath: String, rule: PageRule, in document: Document, page: Page) throws -> URL {
        var written: String?
        switch try document.evaluate(xpath) {
        case .nodes(let nodes):
            if let node = nodes.first {
                written =
                    node.attribute("href") ?? node.attribute("formaction") ?? node.attribute("data-href")
                    ?? node.attribute("onclick").flatMap(Self.scriptedLocation)
            }
        case let value:
            written = value.stringValue
        }
        let text = written?.trimmingWhitespaceAndNewlines() ?? ""
        let base =
            (try? document.select("//base[@href]").first?.attribute("href")).flatMap { URL(string: $0, relativeTo: page.url) } ?? page.url
        guard !text.isEmpty, !text.lowercased().hasPrefix("javascript:"), let target = URL(string: text, relativeTo: base)?.absoluteURL
        else {
            let address = page.url.redactedForLog
            throw UniToolError(
                .layoutChanged,
                text.isEmpty
                    ? localized("the '\(rule.name)' page at \(address) has no link matching \(xpath)")
                    : localized("the '\(rule.name)' page at \(address) has no link matching \(xpath) that unitool can follow"),
                hint: localized("the page may have changed; adjust 'follow' in the portal recipe"))
        }
        return target
    }

    /// The address in `location.href = '...'`, `location = "..."` or `location.assign('...')`.
    static func scriptedLocation(_ script: String) -> String? {
        let pattern = #/location(?:\.href)?\s*(?:=\s*|\.assign\(\s*|\.replace\(\s*)(['"])(.*?)\1/#
        return script.firstMatch(of: pattern).map { String($0.2) }
    }

    /// An address a login rule produced (a link it follows, the form and button it submits) goes
    /// only where `OriginPolicy.loginRefusal` allows, checked before anything is sent.
    func checkLoginTarget(_ target: URL, page: Page, rule: PageRule) throws {
        if let refusal = OriginPolicy(portal: portal).loginRefusal(to: target, from: page.url, rule: rule.name) { throw refusal }
    }

    /// Where a fresh login begins: `login.start`, which the recipe writes, so it is held to the
    /// same origins as the addresses its rules produce.
    func startAddress() throws -> URL {
        let start = try portal.url(for: portal.login.start)
        if let refusal = OriginPolicy(portal: portal).loginRefusal(to: start, from: portal.baseURL, rule: "login.start") { throw refusal }
        return start
    }

    /// A password goes only to an origin the recipe names, and never over plain HTTP to a
    /// host other than this machine.
    func checkCredentialTarget(_ target: URL, page: Page) throws {
        if let refusal = OriginPolicy(portal: portal).credentialRefusal(to: target) { throw refusal }
    }

    private func findForm(for rule: PageRule, in document: Document, page: Page) throws -> Node {
        if let formXPath = rule.form {
            if let form = try document.select(formXPath).first { return form }
            throw UniToolError(
                .layoutChanged, localized("the '\(rule.name)' page at \(page.url.redactedForLog) has no form matching \(formXPath)"))
        }
        if case .nodes(let nodes) = try document.evaluate(rule.when), let match = nodes.first {
            if match.name == "form" { return match }
            if let form = match.ancestor(named: "form") { return form }
        }
        if let form = try document.select("//form").first { return form }
        throw UniToolError(
            .layoutChanged, localized("the '\(rule.name)' page at \(page.url.redactedForLog) has no form to submit"))
    }

    /// The portal's own explanation, for the error message: scrubbed of every secret of the login
    /// (a portal may well repeat the password it refused) before it is cut to length, so that
    /// the cut cannot leave part of a secret behind.
    /// A fail rule's message from the portal's own catalog (`message_catalog`), or nil when it
    /// cannot be had: the error then quotes what the page holds. Asked as the page's script asks
    /// it, and only of the failing page's origin.
    private func lookUp(_ code: String, in catalog: PageRule.MessageCatalog, from page: Page) async -> String? {
        let values = ["language": PortalLanguage.primary(portal.language ?? "en"), "message": code]
        guard let path = try? catalog.fetch.render(values, encode: Template.urlEncode), let key = try? catalog.key.render(values),
            let url = URL(string: path, relativeTo: page.url)?.absoluteURL, url.origin == page.url.origin,
            let answer = try? await session.get(url, asFetch: true), (200..<300).contains(answer.status),
            let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
            let text = object[key] as? String
        else {
            logger.debug("the message catalog of rule failed; quoting the page as it is")
            return nil
        }
        let scrubbed = session.scrubber.scrubMessage(text).trimmingWhitespaceAndNewlines()
        return scrubbed.isEmpty ? nil : String(scrubbed.prefix(200))
    }

    private func portalMessage(_ document: Document, xpath: String) throws -> String? {
        let text: String
        switch try document.evaluate(xpath) {
        case .nodes(let nodes): text = nodes.first?.normalizedText ?? ""
        case let value: text = value.stringValue
        }
        let scrubbed = session.scrubber.scrubMessage(text)
        return scrubbed.isEmpty ? nil : String(scrubbed.prefix(200))
    }

    private func step(on page: Page, document: Document, matched: PageRule?) -> LoginStep {
        let forms = ((try? document.select("//form")) ?? []).map { node -> String in
            guard let form = try? HTMLForm(node, pageURL: page.url) else { return localized("form (unreadable)") }
            return "form\(form.id.map { "#\($0)" } ?? "") \(form.method) \(form.action.redactedForLog)"
        }
        return LoginStep(
            url: page.url.redactedForLog, status: page.status, title: document.title, forms: forms,
            matchedRule: matched?.name, action: .failed, submitted: nil, filled: [], keptFromPage: [], arrivedAt: nil,
            redirects: 0, error: nil)
    }

    /// The page in a few words, for the message of an unrecognised page; its title and form
    /// actions are the portal's text, so they are scrubbed of the login's secrets and SAML messages.
    func describe(page: Page, document: Document) -> String {
        let scrubber = session.scrubber
        let title = document.title.map { text in localized("title \"\(scrubber.scrubMessage(text))\"") } ?? localized("no title")
        let forms = ((try? document.select("//form")) ?? []).map { form -> String in
            let id = form.attribute("id").map { "#\(scrubber.scrubText($0))" } ?? ""
            // As -v shows addresses: query values hidden (Keycloak's session_code, a ticket).
            let written = form.attribute("action") ?? ""
            let action =
                URL(string: written.trimmingWhitespace(), relativeTo: page.url)?.absoluteURL.redactedForLog
                ?? scrubber.scrubURL(written)
            return "form\(id) action=\"\(scrubber.scrubText(action))\""
        }
        let formText = forms.isEmpty ? localized("no forms") : forms.joined(separator: ", ")
        let type = Self.mediaType(of: page)
        var parts = [
            "HTTP \(page.status)", type.isEmpty ? localized("no content type") : type,
            localized("\(page.body.count) byte", plural: "\(page.body.count) bytes", count: page.body.count), title, formText,
        ]
        // A body that is no page (JSON, plain text) says more by its first line than by its title.
        if !type.isEmpty, !type.contains("html") {
            let firstLine =
                String(decoding: page.body.prefix(512), as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let shown = scrubber.scrubMessage(firstLine.trimmingWhitespace())
            if !shown.isEmpty {
                let beginning = shown.count > 120 ? String(shown.prefix(120)) + "…" : shown
                parts.append(localized("begins \"\(beginning)\""))
            }
        }
        return "\(page.url.redactedForLog) (\(parts.joined(separator: ", ")))"
    }

    /// The page's media type in lower case (`application/json`), without parameters; empty when
    /// the answer names none.
    static func mediaType(of page: Page) -> String {
        (page.contentType?.split(separator: ";").first.map { $0.trimmingWhitespace() } ?? "").lowercased()
    }
}

extension PortalRecipe {
    /// An address on the portal, from a path such as `/grades?term=x` or an absolute URL.
    public func url(for pathOrURL: String) throws -> URL {
        guard let url = URL(string: pathOrURL, relativeTo: baseURL)?.absoluteURL else {
            throw UniToolError(.recipeInvalid, localized("\(file): '\(pathOrURL)' is not a valid path or URL"))
        }
        return url
    }
}

/// `<meta http-equiv="refresh" content="0; url=...">`, when it sends the browser on at once
/// (within a few seconds). A longer delay is a page meant to be read, not a redirect.
struct MetaRefresh {
    let url: URL

    init?(_ document: Document, pageURL: URL) {
        let xpath =
            "//meta[translate(@http-equiv, 'REFSH', 'refsh')='refresh']/@content"
        guard let content = try? document.evaluate(xpath).stringValue, !content.isEmpty else { return nil }
        let parts = content.split(separator: ";", maxSplits: 1).map { $0.trimmingWhitespace() }
        guard let delay = Double(parts[0]), delay <= 5, parts.count == 2 else { return nil }
        var target = parts[1]
        if target.lowercased().hasPrefix("url") {
            target = String(target.dropFirst(3)).trimmingWhitespace()
            guard target.hasPrefix("=") else { return nil }
            target = String(target.dropFirst()).trimmingWhitespace()
        }
        target = target.trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        guard !target.isEmpty, let url = URL(string: target, relativeTo: pageURL)?.absoluteURL else { return nil }
        self.url = url
    }
}

/// A secret produced on first use and kept for the rest of one login: a password command runs
/// once, however many pages ask.
final class OnceSecret: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Secret?
    private let produce: () throws -> Secret

    init(_ produce: @escaping () throws -> Secret) { self.produce = produce }

    func get() throws -> Secret {
        try lock.withLock {
            if let value { return value }
            let made = try produce()
            value = made
            return made
        }
    }
}

extension LoginRecipe {
    /// The first rule, in the order rules are tried (`PageRule.triedOrder`), whose `when`
    /// matches the page, and its index.
    public func rule(matching document: Document) throws -> (index: Int, rule: PageRule)? {
        for (index, rule) in pages.enumerated() where try document.evaluate(rule.when).booleanValue {
            return (index, rule)
        }
        return nil
    }
}
