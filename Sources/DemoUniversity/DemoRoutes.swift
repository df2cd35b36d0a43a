import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OneTimeCode

/// The demo's HTTP surface.
///
/// SP: `/home`, `/grades`, `/terms`, `/api/terms/version`, and the Shibboleth-style endpoints
/// `/Shibboleth.sso/SAML2/POST` (the ACS) and `/logout`.
/// IdP: `/idp/profile/SAML2/Redirect/SSO`, a two-step login (user ID, then password) with a
/// CSRF token in every form.
struct DemoRoutes: Sendable {
    let state: DemoState
    /// The key the IdP and SP share for the assertion's integrity check.
    let samlKeyBytes: Data
    var samlKey: SymmetricKey { SymmetricKey(data: samlKeyBytes) }
    let faults: DemoFaults
    /// A random name for this run of the demo.
    let bootID: String

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.redirect(to: "/home") }
        router.get("/home") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(Pages.home(user: user))
            }
        }
        // The same page at an address with a trailing slash, as many portals' start pages are.
        router.get("/campus/") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(Pages.home(user: user))
            }
        }
        router.get("/grades") { request, context in
            try await self.withUser(request, context) { user in
                let query = FormDecoding.dictionary(request.uri.query)
                let termID = query["term"] ?? DemoData.currentTerm
                let terms = DemoData.terms(count: self.faults.termCount)
                guard let term = terms.first(where: { $0.id == termID }) else {
                    return Self.html(Pages.notFound("There is no term '\(termID)'.", user: user), status: .notFound)
                }
                let page = Pages.grades(user: user, term: term, terms: terms, layoutChanged: self.faults.layoutChanged)
                guard let hostile = self.faults.hostileXML else { return Self.html(page) }
                // A data page with the same DOCTYPE, and the entity in a course's cell.
                let doctype = Self.hostileDoctype(hostile, origin: Self.origin(of: request), root: "html")
                return Self.html(
                    doctype + "\n"
                        + page.replacingOccurrences(of: "<!DOCTYPE html>", with: "")
                        .replacingOccurrences(of: "<td class=\"course\">", with: "<td class=\"course\">\(hostile.entityReference)"))
            }
        }
        registerCampus(on: router)
        router.get("/api/terms/version") { request, context in
            guard self.faults.termsAPI == .protected else { return try await self.termsVersionAPI() }
            return try await self.withUser(request, context) { _ in try await self.termsVersionAPI() }
        }
        router.get("/terms") { _, _ in
            let version = await self.state.termsVersion
            return Self.html(HTML.page(title: "Terms of use", body: Pages.terms(version: version)))
        }
        router.get("/logout") { _, _ in
            var headers = HTTPFields()
            headers[.location] = "/home"
            headers.append(HTTPField(name: .setCookie, value: "\(DemoUniversity.sessionCookie)=; Path=/; Max-Age=0"))
            return Response(status: .seeOther, headers: headers)
        }
        router.get("/Shibboleth.sso/DS") { request, _ in
            Self.html(Pages.discovery(target: FormDecoding.dictionary(request.uri.query)["target"] ?? "/home"))
        }
        router.get("/Shibboleth.sso/Login") { request, _ in await self.discoveryLogin(request) }
        router.post("/Shibboleth.sso/SAML2/POST") { request, context in try await self.assertionConsumer(request, context) }
        router.get("/idp/profile/SAML2/Redirect/SSO") { request, context in try await self.idpStart(request, context) }
        router.post("/idp/profile/SAML2/POST/SSO") { request, context in try await self.idpStartPost(request, context) }
        router.get("/reminder") { request, context in
            try await self.withUser(request, context) { _ in
                let target = FormDecoding.dictionary(request.uri.query)["target"] ?? "/home"
                if self.faults.loginVariants.contains(.reminderForm) {
                    return Self.html(
                        HTML.page(
                            title: "Contact e-mail",
                            body: """
                                <h1>Please confirm your contact e-mail</h1>
                                <form id="contact" method="post" action="/reminder?target=\(HTML.escape(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/home"))">
                                  <input type="email" name="email" value="alice@example.edu">
                                  <button type="submit" name="confirm" value="1">Confirm</button>
                                  <button type="submit" name="later" value="1">Remind me later</button>
                                </form>
                                """))
                }
                return Self.html(
                    HTML.page(
                        title: "アンケート",
                        body:
                            "<h1>授業アンケートにご協力ください</h1><p><a href=\"/survey\">回答する</a> <a id=\"answer-later\" href=\"\(HTML.escape(target))\">後で回答する</a></p>"
                    ))
            }
        }
        router.post("/reminder") { request, context in
            try await self.withUser(request, context) { _ in
                var request = request
                let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
                guard form["later"] == "1" || form["confirm"] == "1" else {
                    return Self.html(HTML.page(title: "Contact e-mail", body: "<h1>Choose an answer</h1>"), status: .badRequest)
                }
                return Self.redirect(to: FormDecoding.dictionary(request.uri.query)["target"] ?? "/home")
            }
        }
        router.post("/idp/profile/SAML2/Redirect/SSO") { request, context in try await self.idpStep(request, context) }
        // A small lab for the session engine's tests: redirects of every kind, echoed back.
        router.post("/lab/redirect/{code}") { _, context in
            let code = Int(context.parameters.get("code") ?? "") ?? 302
            return Self.redirect(to: "/lab/echo", status: HTTPResponse.Status(code: code))
        }
        // How many requests the demo has served, this one not counted: for benchmarks.
        router.get("/lab/stats") { _, _ in
            let count = await self.state.requests.filter { $0.path != "/lab/stats" }.count
            return Self.json("{\"requests\": \(count)}")
        }
        router.get("/lab/signed") { _, _ in Self.redirect(to: DemoUniversity.signedRedirectLocation, status: .found) }
        router.get("/lab/loop") { _, _ in Self.redirect(to: "/lab/loop", status: .found) }
        // The same redirect, to a look-alike origin (localhost for 127.0.0.1), and to a local file.
        router.post("/lab/redirect-elsewhere/{code}") { request, context in
            let code = Int(context.parameters.get("code") ?? "") ?? 307
            let lookalike = Self.origin(of: request).replacingOccurrences(of: "127.0.0.1", with: "localhost")
            return Self.redirect(to: lookalike + "/lab/echo", status: HTTPResponse.Status(code: code))
        }
        router.get("/lab/redirect-file") { _, _ in Self.redirect(to: "file:///etc/passwd", status: .found) }
        router.get("/lab/echo") { request, _ in Self.echo(request, body: "") }
        router.post("/lab/echo") { request, _ in
            var request = request
            return Self.echo(request, body: String(buffer: try await request.collectBody(upTo: 1 << 16)))
        }
        router.get("/static/site.css") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/css"
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "body{font-family:sans-serif;margin:2em}")))
        }
    }

    // MARK: SP

    /// Runs `body` for the signed-in user, or starts SAML SSO through the HTTP-Redirect binding.
    private func withUser(
        _ request: Request, _ context: BasicRequestContext, _ body: (DemoUser) async throws -> Response
    ) async throws -> Response {
        if let value = request.cookies[DemoUniversity.sessionCookie]?.value, let user = await verifySession(value) {
            if faults.sessionTimeout || faults.loginVariants.contains(.timeoutPage), await state.timesOut(value) {
                // As a portal's own time-out page: 200, no redirect, and the cookie deleted.
                let marker = faults.loginVariants.contains(.timeoutPage) ? " id=\"session-timeout\"" : ""
                var response = Self.html(
                    HTML.page(
                        title: "Session timed out",
                        body: "<h1\(marker)>Your session has timed out</h1><p>Please <a href=\"/home\">sign in</a> again.</p>"))
                response.headers.append(HTTPField(name: .setCookie, value: "\(DemoUniversity.sessionCookie)=; Path=/; Max-Age=0"))
                return response
            }
            return try await body(user)
        }
        let target = request.uri.path + (request.uri.query.map { "?\($0)" } ?? "")
        if faults.loginVariants.contains(.loginLink) {
            // A signed-out page of its own, whose "Log in" is a plain link (no form, no redirect).
            var components = URLComponents()
            components.queryItems = [
                URLQueryItem(name: "entityID", value: DemoUniversity.idpEntityID), URLQueryItem(name: "target", value: target),
            ]
            let link = "/Shibboleth.sso/Login?" + components.percentEncodedQuery!
            return Self.html(
                HTML.page(
                    title: "Welcome",
                    body:
                        "<h1>Demo University portal</h1><p>You are signed out.</p><p><a id=\"login-link\" class=\"button\" href=\"\(HTML.escape(link))\">Log in</a></p>"
                ))
        }
        if faults.loginVariants.contains(.discovery) {
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "target", value: target)]
            return sendBrowser(to: "/Shibboleth.sso/DS?" + components.percentEncodedQuery!)
        }
        return await startSAML(target: target, request: request)
    }

    /// Sends the browser to the IdP with a SAML AuthnRequest in the HTTP-Redirect binding.
    private func startSAML(target: String, request: Request) async -> Response {
        let origin = Self.origin(of: request)
        let authn = SAML.AuthnRequest(
            id: SAML.newID(), issuer: DemoUniversity.audience,
            assertionConsumerServiceURL: "\(origin)/Shibboleth.sso/SAML2/POST")
        let relay = await state.rememberRequest(id: authn.id, target: target)
        if faults.loginVariants.contains(.postBinding) {
            let postDestination = "\(origin)/idp/profile/SAML2/POST/SSO"
            let xml = SAML.authnRequestXML(authn, destination: postDestination, now: Date())
            return Self.html(
                """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Redirecting – Demo University</title></head>
                <body onload="document.forms[0].submit()">
                  <form method="post" action="\(HTML.escape(postDestination))">
                    <input type="hidden" name="SAMLRequest" value="\(Data(xml.utf8).base64EncodedString())">
                    <input type="hidden" name="RelayState" value="\(HTML.escape(relay))">
                    <noscript><button type="submit">Continue</button></noscript>
                  </form>
                </body></html>
                """)
        }
        let destination = "\(origin)/idp/profile/SAML2/Redirect/SSO"
        let encoded = SAML.encodeRedirect(SAML.authnRequestXML(authn, destination: destination, now: Date()))
        var components = URLComponents(string: destination)!
        components.queryItems = [URLQueryItem(name: "SAMLRequest", value: encoded), URLQueryItem(name: "RelayState", value: relay)]
        // URLComponents leaves '+' alone in queries; SAML parameters must encode it.
        let query = components.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
        return sendBrowser(to: destination + "?" + query)
    }

    /// A 302, or with the meta-refresh variant a page that refreshes to the address.
    private func sendBrowser(to location: String) -> Response {
        if faults.loginVariants.contains(.metaRefresh) { return Self.html(Pages.metaRefresh(to: location)) }
        return Self.redirect(to: location, status: .found)
    }

    /// The discovery service's answer: start SAML with the chosen IdP, if it is ours.
    private func discoveryLogin(_ request: Request) async -> Response {
        let query = FormDecoding.dictionary(request.uri.query)
        guard let entityID = query["entityID"], !entityID.isEmpty else {
            return Self.html(Pages.discovery(target: query["target"] ?? "/home"))
        }
        guard entityID == DemoUniversity.idpEntityID else {
            return Self.html(
                Pages.idpError("The institution '\(entityID)' does not take part in this federation's demo."), status: .badRequest)
        }
        return await startSAML(target: query["target"] ?? "/home", request: request)
    }

    private func assertionConsumer(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 20)))
        guard let samlResponse = form["SAMLResponse"], let relay = form["RelayState"] else {
            return Self.html(Pages.idpError("The SAML message is incomplete."), status: .badRequest)
        }
        let assertion: SAML.Assertion
        do {
            assertion = try SAML.parseResponse(samlResponse, key: samlKey)
            guard assertion.audience == DemoUniversity.audience else { throw SAML.ValidationError.audience }
            guard assertion.recipient == "\(Self.origin(of: request))/Shibboleth.sso/SAML2/POST" else {
                throw SAML.ValidationError.recipient
            }
            let now = Date()
            guard let notBefore = SAML.date(assertion.notBefore), let notOnOrAfter = SAML.date(assertion.notOnOrAfter),
                notBefore.addingTimeInterval(-60) <= now, now < notOnOrAfter
            else { throw SAML.ValidationError.expired }
            guard await state.consumeRequest(id: assertion.inResponseTo) != nil else {
                throw SAML.ValidationError.unknownRequest
            }
        } catch let error as SAML.ValidationError {
            return Self.html(Pages.idpError("Login rejected: \(error)."), status: .forbidden)
        }
        var target = await state.target(forRelayState: relay) ?? "/home"
        if faults.loginVariants.contains(.reminderLink) || faults.loginVariants.contains(.reminderForm) {
            // Every login passes the portal's reminder page first.
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "target", value: target)]
            target = "/reminder?" + components.percentEncodedQuery!
        }
        var headers = HTTPFields()
        headers[.location] = target
        headers.append(
            HTTPField(
                name: .setCookie,
                value: "\(DemoUniversity.sessionCookie)=\(signSession(user: assertion.nameID)); Path=/; HttpOnly; SameSite=Lax"))
        return Response(status: .seeOther, headers: headers)
    }

    /// The IdP's own session cookie (the `idp-session` login variant).
    static let idpSessionCookie = "demo_idp_session"

    /// The user of a valid IdP session cookie: signed as the SP's, and not expired.
    static func verifyIdPSession(_ value: String) -> DemoUser? {
        let parts = value.split(separator: ".")
        guard parts.count == 4, let expiry = TimeInterval(parts[1]), Date().timeIntervalSince1970 < expiry else { return nil }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(parts[0...2].joined(separator: ".").utf8), using: DemoUniversity.cookieKey)
        guard Data(mac).map({ String(format: "%02x", $0) }).joined() == parts[3] else { return nil }
        return DemoData.user(named: String(parts[0]))
    }

    /// The time step whose code `code` is (now, or one step either side), if any.
    static func acceptedStep(_ code: String, secret: String, period: Int) -> Int64? {
        guard let parsed = try? TOTP(parsing: secret) else { return nil }
        let totp = TOTP(secret: parsed.secret, digits: parsed.digits, period: period, algorithm: parsed.algorithm)
        let now = Int64(Date().timeIntervalSince1970) / Int64(period)
        return [now, now - 1, now + 1].first { totp.code(counter: UInt64(max(0, $0))) == code }
    }

    /// `user.expiry.boot.mac`: stateless, so it survives a restart of the demo. `boot` names the
    /// demo run that issued it, so that the `expire-sessions` fault can drop every earlier one.
    private func signSession(user: String) -> String {
        let now = Date().timeIntervalSince1970
        // The issue time (in microseconds) lets `expire-after` revoke the sessions issued so far.
        let payload = "\(user).\(Int(now + DemoUniversity.sessionLifetime)).\(bootID)-\(Self.nowMicroseconds())"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: DemoUniversity.cookieKey)
        return payload + "." + Data(mac).map { String(format: "%02x", $0) }.joined()
    }

    static func nowMicroseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    private func verifySession(_ value: String) async -> DemoUser? {
        let parts = value.split(separator: ".")
        guard parts.count == 4, let expiry = TimeInterval(parts[1]) else { return nil }
        let payload = parts[0...2].joined(separator: ".")
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: DemoUniversity.cookieKey)
        guard Data(mac).map({ String(format: "%02x", $0) }).joined() == parts[3] else { return nil }
        guard Date().timeIntervalSince1970 < expiry else { return nil }
        let issue = parts[2].split(separator: "-")
        if faults.expireSessions && issue.first.map(String.init) != bootID { return nil }
        if let limit = faults.expireAfterDataPages {
            // Decided in one step, so that of several requests at once exactly the later ones fail.
            guard let issued = issue.last.flatMap({ Int64($0) }),
                await state.admitSession(issuedAt: issued, expireAfter: limit, now: Self.nowMicroseconds())
            else { return nil }
        }
        if faults.rejectSessions { return nil }
        return DemoData.user(named: String(parts[0]))
    }

    // MARK: IdP

    /// The SSO endpoint of the HTTP-POST binding: the AuthnRequest arrives in a form.
    private func idpStartPost(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 20)))
        guard let parameter = form["SAMLRequest"], let authn = SAML.decodePost(parameter) else {
            return Self.html(Pages.idpError("The request is not a valid SAML AuthnRequest."), status: .badRequest)
        }
        return try await idpBegin(authn, relayState: form["RelayState"] ?? "", request: request)
    }

    private func idpStart(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = FormDecoding.dictionary(request.uri.query)
        guard let parameter = query["SAMLRequest"], let authn = SAML.decodeRedirect(parameter) else {
            return Self.html(Pages.idpError("The request is not a valid SAML AuthnRequest."), status: .badRequest)
        }
        if faults.loginVariants.contains(.pageExpired), await state.firstExpiry() {
            // Keycloak's "page has expired": only its restart link goes on.
            let restart = request.uri.path + "?" + (request.uri.query ?? "")
            return Self.html(
                HTML.page(
                    title: "Page has expired",
                    body:
                        "<h1>Page has expired</h1><p>To restart the login process <a id=\"loginRestartLink\" href=\"\(HTML.escape(restart))\">click here</a>.</p>"
                ))
        }
        return try await idpBegin(authn, relayState: query["RelayState"] ?? "", request: request)
    }

    /// An AuthnRequest arrived, by either binding: single sign-on, or the first login page.
    private func idpBegin(_ authn: SAML.AuthnRequest, relayState: String, request: Request) async throws -> Response {
        let query = ["RelayState": relayState]
        if faults.loginVariants.contains(.idpSession), let value = request.cookies[Self.idpSessionCookie]?.value,
            let user = Self.verifyIdPSession(value)
        {
            // Single sign-on: the IdP knows this browser, so it answers at once.
            let (_, flow) = await state.startFlow(request: authn, relayState: query["RelayState"] ?? "", step: .userID)
            return samlPost(for: user, flow: flow, request: request)
        }
        if faults.loginVariants.contains(.errorPage) {
            return Self.html(
                Pages.idpError("The login service is down for maintenance until 06:00. Please try again later."))
        }
        let first: DemoState.LoginStep =
            faults.loginVariants.contains(.localStorage)
            ? .localStorage : faults.loginVariants.contains(.combinedLogin) ? .combined : .userID
        let (execution, flow) = await state.startFlow(request: authn, relayState: query["RelayState"] ?? "", step: first)
        return Self.html(page(for: flow, execution: execution, request: request))
    }

    /// The page that asks for a flow's current step.
    private func page(for flow: DemoState.LoginFlow, execution: String, error: String? = nil, request: Request) -> String {
        switch flow.step {
        case .localStorage: return Pages.localStorage(execution: execution, csrf: flow.csrf)
        case .userID:
            if faults.loginVariants.contains(.redesigned) { return Pages.redesignedSignIn(execution: execution, csrf: flow.csrf) }
            return Pages.userIDForm(execution: execution, csrf: flow.csrf, error: error)
        case .password:
            let page = Pages.passwordForm(execution: execution, csrf: flow.csrf, username: flow.username ?? "", error: error)
            let lookalike = Self.origin(of: request).replacingOccurrences(of: "127.0.0.1", with: "localhost")
            if faults.formactionLookalike {
                return page.replacingOccurrences(
                    of: "<button type=\"submit\" name=\"_eventId_proceed\"",
                    with:
                        "<button type=\"submit\" formaction=\"\(lookalike)/idp/profile/SAML2/Redirect/SSO?execution=\(execution)\" name=\"_eventId_proceed\""
                )
            }
            guard faults.lookalikeIdP else { return page }
            return page.replacingOccurrences(of: "<head>", with: "<head>\n  <base href=\"\(lookalike)/\">")
        case .combined: return Pages.combinedForm(execution: execution, csrf: flow.csrf, error: error)
        case .oneTimeCode: return Pages.oneTimeCodeForm(execution: execution, csrf: flow.csrf, error: error)
        case .consent:
            return Pages.consent(
                execution: execution, csrf: flow.csrf, user: DemoData.user(named: flow.username ?? "") ?? DemoData.defaultUser)
        }
    }

    private func idpStep(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let execution = FormDecoding.dictionary(request.uri.query)["execution"] ?? ""
        let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 20)))
        guard let flow = await state.flow(execution) else {
            return Self.html(
                Pages.idpError("Your login session has expired. Go back to the portal and start again."), status: .badRequest)
        }
        guard form["csrf_token"] == flow.csrf else {
            return Self.html(Pages.idpError("The form was stale (CSRF token mismatch). Please start again."), status: .forbidden)
        }
        if flow.step == .consent, form["_eventId_AttributeReleaseRejected"] != nil {
            await state.finish(execution)
            return Self.html(Pages.idpError("You declined to release your information to the portal, so you cannot sign in."))
        }
        // A browser sends only the button that was clicked; two at once is not a browser.
        guard form["_eventId_proceed"] != nil, form["_eventId_cancel"] == nil else {
            await state.finish(execution)
            return Self.html(Pages.idpError("The login was cancelled."))
        }
        /// Moves the flow on (a fresh CSRF token each time) and shows its next page.
        func advance(_ change: @escaping @Sendable (inout DemoState.LoginFlow) -> Void, error: String? = nil) async -> Response {
            let updated = await state.update(execution, change)!
            return Self.html(page(for: updated, execution: execution, error: error, request: request))
        }
        switch flow.step {
        case .localStorage:
            let next: DemoState.LoginStep = faults.loginVariants.contains(.combinedLogin) ? .combined : .userID
            return await advance { $0.step = next }
        case .userID:
            let username = (form["j_username"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !username.isEmpty else { return await advance({ _ in }, error: "Enter your user ID.") }
            return await advance {
                $0.step = .password
                $0.username = username
            }
        case .password, .combined:
            let username = flow.step == .combined ? (form["j_username"] ?? "").trimmingCharacters(in: .whitespaces) : flow.username ?? ""
            if faults.passwordRedirect {
                let lookalike = Self.origin(of: request).replacingOccurrences(of: "127.0.0.1", with: "localhost")
                return Self.redirect(to: lookalike + request.uri.description, status: .temporaryRedirect)
            }
            guard let user = DemoData.user(named: username), form["j_password"] == user.password else {
                let echoed = faults.echoSecrets ? " (you typed '\(form["j_password"] ?? "")')" : ""
                return await advance({ _ in }, error: "The user ID or password you entered was incorrect\(echoed).")
            }
            return await afterPassword(
                user, execution: execution, flow: flow, request: request, advance: advance,
                echo: faults.echoSecrets ? form["j_password"] : nil)
        case .oneTimeCode:
            guard let user = DemoData.user(named: flow.username ?? ""), let secret = user.totpSecret,
                let code = form["j_tokenNumber"], let step = Self.acceptedStep(code, secret: secret, period: faults.totpPeriod)
            else {
                return await advance({ _ in }, error: "That code is not valid. Wait for a new code and try again.")
            }
            guard await state.useCode(user: user.username, step: step) else {
                return await advance({ _ in }, error: "That code was already used. Wait for a new code and try again.")
            }
            if user.asksConsent { return await advance { $0.step = .consent } }
            await state.finish(execution)
            return samlPost(for: user, flow: flow, request: request)
        case .consent:
            guard let user = DemoData.user(named: flow.username ?? "") else {
                return Self.html(Pages.idpError("Unknown user."), status: .badRequest)
            }
            await state.finish(execution)
            return samlPost(for: user, flow: flow, request: request)
        }
    }

    /// After a correct password: a one-time code, consent, or straight back to the portal.
    private func afterPassword(
        _ user: DemoUser, execution: String, flow: DemoState.LoginFlow, request: Request,
        advance: (@escaping @Sendable (inout DemoState.LoginFlow) -> Void, String?) async -> Response,
        echo: String? = nil
    ) async -> Response {
        let username = user.username
        if user.totpSecret != nil {
            return await advance(
                {
                    $0.step = .oneTimeCode
                    $0.username = username
                }, nil)
        }
        if user.asksConsent {
            return await advance(
                {
                    $0.step = .consent
                    $0.username = username
                }, nil)
        }
        await state.finish(execution)
        return samlPost(for: user, flow: flow, request: request, echo: echo)
    }

    /// - Parameter echo: with the `echo-secrets` fault, the password, repeated in a hidden field.
    private func samlPost(for user: DemoUser, flow: DemoState.LoginFlow, request: Request, echo: String? = nil)
        -> Response
    {
        let now = Date()
        let assertion = SAML.Assertion(
            id: SAML.newID(), inResponseTo: flow.request.id, audience: flow.request.issuer,
            recipient: flow.request.assertionConsumerServiceURL, notBefore: SAML.iso(now),
            notOnOrAfter: SAML.iso(now.addingTimeInterval(300)), nameID: user.username)
        let xml = SAML.responseXML(assertion, issuer: "\(Self.origin(of: request))/idp", key: samlKey)
        var page = Pages.samlPost(
            acs: flow.request.assertionConsumerServiceURL, samlResponse: Data(xml.utf8).base64EncodedString(),
            relayState: flow.relayState)
        if faults.echoSecrets {
            page = Pages.samlPostCarelessly(
                acs: flow.request.assertionConsumerServiceURL, samlResponse: Data(xml.utf8).base64EncodedString(),
                relayState: flow.relayState, echo: echo ?? "")
        }
        if faults.loginVariants.contains(.idpSession) {
            var response = Self.html(page)
            response.headers.append(
                HTTPField(name: .setCookie, value: "\(Self.idpSessionCookie)=\(signSession(user: user.username)); Path=/idp; HttpOnly"))
            return response
        }
        guard let hostile = faults.hostileXML else { return Self.html(page) }
        let doctype = Self.hostileDoctype(hostile, origin: Self.origin(of: request), root: "html")
        return Self.html(
            page.replacingOccurrences(of: "<!DOCTYPE html>", with: doctype)
                .replacingOccurrences(of: "press Continue once.", with: "press Continue once. \(hostile.entityReference)"))
    }

    // MARK: Helpers

    /// A DOCTYPE that a careless parser would act on: an external DTD and an external entity on
    /// this demo (so that a fetch would show in its request log) and a local file, or nested
    /// entities that expand to gigabytes.
    static func hostileDoctype(_ kind: DemoFaults.HostileXML, origin: String, root: String) -> String {
        switch kind {
        case .xxe:
            return """
                <!DOCTYPE \(root) SYSTEM "\(origin)/lab/hostile.dtd" [
                  <!ENTITY xxe SYSTEM "file:///etc/passwd">
                  <!ENTITY remote SYSTEM "\(origin)/lab/hostile-entity">
                ]>
                """
        case .laughs:
            let levels = (1...9).map { level in
                "  <!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
            }
            return "<!DOCTYPE \(root) [\n  <!ENTITY lol0 \"lol\">\n" + levels.joined(separator: "\n") + "\n]>"
        case .quadratic:
            return "<!DOCTYPE \(root) [\n  <!ENTITY big \"" + String(repeating: "A", count: 20_000) + "\">\n]>"
        }
    }

    static func origin(of request: Request) -> String {
        "http://\(request.head.authority ?? "127.0.0.1")"
    }

    static func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    // MARK: Campus: courses, library, news

    private func registerCampus(on router: Router<BasicRequestContext>) {
        router.get("/courses") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(CampusPages.courses(user: user, courses: DemoData.courses[user.username] ?? []))
            }
        }
        router.get("/syllabus/{code}") { _, context in
            let code = context.parameters.get("code") ?? ""
            guard let course = DemoData.courses.values.joined().first(where: { $0.code == code }) else {
                return Self.html(Pages.notFound("No syllabus for \(code)."), status: .notFound)
            }
            return Self.html(CampusPages.syllabus(code: code, title: course.title))
        }
        router.get("/library") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(CampusPages.library(user: user))
            }
        }
        router.get("/library/files/{name}") { request, _ in
            guard request.uri.path == DemoData.openingHoursPath else {
                return Self.html(Pages.notFound("This file has been replaced by a newer version."), status: .notFound)
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/pdf"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: CampusPages.openingHoursPDF)))
        }
        router.get("/library/loans") { request, context in
            try await self.withUser(request, context) { user in
                let loans = DemoData.loans[user.username] ?? []
                let pages = max(1, (loans.count + DemoData.loansPerPage - 1) / DemoData.loansPerPage)
                let page = min(max(1, Int(FormDecoding.dictionary(request.uri.query)["page"] ?? "1") ?? 1), pages)
                var rows: [(loan: DemoLoan, due: String, renewalsLeft: Int)] = []
                for loan in loans.dropFirst((page - 1) * DemoData.loansPerPage).prefix(DemoData.loansPerPage) {
                    let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                    rows.append((loan, CampusPages.dueDate(inDays: loan.dueInDays + 14 * done), loan.renewalsLeft - done))
                }
                return Self.html(CampusPages.loans(user: user, rows: rows, page: page, pages: pages))
            }
        }
        router.get("/library/renew") { request, context in
            try await self.withUser(request, context) { user in
                let barcode = FormDecoding.dictionary(request.uri.query)["barcode"] ?? ""
                guard let loan = DemoData.loans[user.username]?.first(where: { $0.barcode == barcode }) else {
                    return Self.html(
                        CampusPages.renewResult(
                            user: user, loan: nil, barcode: barcode, newDue: nil,
                            refusal: "There is no loan with barcode \(barcode) on your account."))
                }
                let done = await self.state.renewalsDone(user: user.username, barcode: barcode)
                return Self.html(
                    CampusPages.renewForm(
                        user: user, loan: loan, due: CampusPages.dueDate(inDays: loan.dueInDays + 14 * done),
                        csrf: Self.renewToken(user, barcode)))
            }
        }
        router.post("/library/renew") { request, context in
            var request = request
            let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
            return try await self.withUser(request, context) { user in
                let barcode = form["barcode"] ?? ""
                guard form["csrf"] == Self.renewToken(user, barcode), form["confirm"] == "yes", form["cancel"] == nil else {
                    return Self.html(Pages.notFound("The form was stale; open your loans and try again.", user: user), status: .forbidden)
                }
                guard let loan = DemoData.loans[user.username]?.first(where: { $0.barcode == barcode }) else {
                    return Self.html(
                        CampusPages.renewResult(
                            user: user, loan: nil, barcode: barcode, newDue: nil,
                            refusal: "There is no loan with barcode \(barcode) on your account."))
                }
                let done = await self.state.renewalsDone(user: user.username, barcode: barcode)
                let refusal: String? =
                    loan.reserved
                    ? "This item is reserved by another reader and cannot be renewed. Please return it by its due date."
                    : loan.renewalsLeft - done <= 0 ? "No renewals left: this item has been renewed the maximum number of times." : nil
                if refusal == nil { await self.state.renew(user: user.username, barcode: barcode) }
                return Self.html(
                    CampusPages.renewResult(
                        user: user, loan: loan, barcode: barcode, newDue: CampusPages.dueDate(inDays: loan.dueInDays + 14 * (done + 1)),
                        refusal: refusal))
            }
        }
        router.get("/news") { request, context in
            try await self.withUser(request, context) { user in
                let items = DemoData.news
                let pages = (items.count + DemoData.newsPerPage - 1) / DemoData.newsPerPage
                let page = min(max(1, Int(FormDecoding.dictionary(request.uri.query)["page"] ?? "1") ?? 1), pages)
                let slice = Array(items.dropFirst((page - 1) * DemoData.newsPerPage).prefix(DemoData.newsPerPage))
                return Self.html(CampusPages.newsList(user: user, items: slice, page: page, pages: pages))
            }
        }
        router.get("/news/{id}") { _, context in
            guard let item = DemoData.news.first(where: { String($0.id) == context.parameters.get("id") }) else {
                return Self.html(Pages.notFound("No such news item."), status: .notFound)
            }
            return Self.html(CampusPages.newsItem(item))
        }
        router.get("/feeds/news.rss") { request, _ in
            let feed = CampusPages.rss(base: Self.origin(of: request), items: DemoData.news)
            guard let hostile = self.faults.hostileXML else { return Self.xml(feed, type: "application/rss+xml") }
            // The DOCTYPE goes after the XML declaration; the first item's title uses the entity.
            let doctype = Self.hostileDoctype(hostile, origin: Self.origin(of: request), root: "rss")
            var lines = feed.components(separatedBy: "\n")
            lines.insert(doctype, at: 1)
            let text = lines.joined(separator: "\n")
            let range = text.range(of: "<item>\n")!
            let hostileFeed = text.replacingCharacters(in: range, with: "<item>\n<description>\(hostile.entityReference)</description>\n")
            return Self.xml(hostileFeed, type: "application/rss+xml")
        }
        router.get("/feeds/news.atom") { request, _ in
            Self.xml(CampusPages.atom(base: Self.origin(of: request), items: DemoData.news), type: "application/atom+xml")
        }
    }

    /// The renew form's CSRF token: tied to the user and the loan, stable across demo restarts.
    static func renewToken(_ user: DemoUser, _ barcode: String) -> String {
        let digest = SHA256.hash(data: Data("renew/\(user.username)/\(barcode)".utf8))
        return digest.prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    static func xml(_ body: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "\(type); charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `{"version": "...", "url": "/terms", "updated": "..."}`, or one of its failures.
    private func termsVersionAPI() async throws -> Response {
        let version = await state.termsVersion
        switch faults.termsAPI {
        case nil, .protected:
            // Encoded, not pasted: a test's version may hold any character, control characters
            // and decomposed accents included, and must arrive exactly as it was set.
            let literal = String(decoding: try JSONEncoder().encode(version), as: UTF8.self)
            return Self.json("{\"version\": \(literal), \"url\": \"/terms\"}")
        case .error:
            return Self.html(HTML.page(title: "Error", body: "<h1>500 Internal Server Error</h1>"), status: .internalServerError)
        case .notJSON:
            return Self.html(HTML.page(title: "Maintenance", body: "<h1>The portal is down for maintenance</h1>"))
        case .noVersion:
            return Self.json("{\"url\": \"/terms\", \"updated\": \"2026-09-01\"}")
        case .numberVersion:
            return Self.json("{\"version\": 202609, \"url\": \"/terms\"}")
        case .trailingComma:
            return Self.json("{\"version\": \"\(version)\", \"url\": \"/terms\",}")
        }
    }

    /// The method, the raw query and the body, exactly as they arrived.
    static func echo(_ request: Request, body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        let text = "method=\(request.method.rawValue)\nquery=\(request.uri.query ?? "")\nbody=\(body)\n"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(to location: String, status: HTTPResponse.Status = .seeOther) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: status, headers: headers)
    }
}
