import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OneTimeCode

/// The identity provider: the login pages, one-time codes, consent, and the SAML response.
extension DemoRoutes {
    // MARK: IdP

    /// The SSO endpoint of the HTTP-POST binding: the AuthnRequest arrives in a form.
    func idpStartPost(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 20)))
        guard let parameter = form["SAMLRequest"], let authn = SAML.decodePost(parameter) else {
            return Self.html(Pages.idpError("The request is not a valid SAML AuthnRequest."), status: .badRequest)
        }
        return try await idpBegin(authn, relayState: form["RelayState"] ?? "", request: request)
    }

    func idpStart(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = FormDecoding.dictionary(request.uri.query)
        guard let parameter = query["SAMLRequest"], let authn = SAML.decodeRedirect(parameter) else {
            return Self.html(Pages.idpError("The request is not a valid SAML AuthnRequest."), status: .badRequest)
        }
        if faults.loginVariants.contains(.pageExpired), await state.firstExpiry() {
            // Keycloak's "page has expired": only its restart link goes on.
            let restart = request.uri.path + "?" + (request.uri.query ?? "")
            if faults.loginVariants.contains(.keycloak) {
                return Self.html(KeycloakPages.pageExpired(restart: restart, resume: restart))
            }
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
    func idpBegin(_ authn: SAML.AuthnRequest, relayState: String, request: Request) async throws -> Response {
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
            faults.loginVariants.contains(.localStorage) || faults.loginVariants.contains(.shibbolethV5)
            ? .localStorage
            : faults.loginVariants.contains(.combinedLogin) || faults.loginVariants.contains(.keycloak)
                || faults.loginVariants.contains(.scriptBuilt) ? .combined : .userID
        let (execution, flow) = await state.startFlow(request: authn, relayState: query["RelayState"] ?? "", step: first)
        return Self.html(page(for: flow, execution: execution, request: request))
    }

    /// The page that asks for a flow's current step.
    func page(for flow: DemoState.LoginFlow, execution: String, error: String? = nil, request: Request) -> String {
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
        case .combined:
            if faults.loginVariants.contains(.shibbolethV5) {
                return ShibbolethPages.login(execution: execution, csrf: flow.csrf, error: error)
            }
            if faults.loginVariants.contains(.keycloak) { return KeycloakPages.login(execution: execution, csrf: flow.csrf, error: error) }
            if faults.loginVariants.contains(.scriptBuilt) {
                return ScriptedSignInPages.signIn(execution: execution, csrf: flow.csrf, error: error)
            }
            return Pages.combinedForm(execution: execution, csrf: flow.csrf, error: error)
        case .oneTimeCode:
            if faults.loginVariants.contains(.shibbolethV5) {
                return ShibbolethPages.token(execution: execution, csrf: flow.csrf, error: error)
            }
            if faults.loginVariants.contains(.keycloak) { return KeycloakPages.otp(execution: execution, csrf: flow.csrf, error: error) }
            return Pages.oneTimeCodeForm(execution: execution, csrf: flow.csrf, error: error)
        case .consent:
            return Pages.consent(
                execution: execution, csrf: flow.csrf, user: DemoData.user(named: flow.username ?? "") ?? DemoData.defaultUser)
        }
    }

    func idpStep(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let query = FormDecoding.dictionary(request.uri.query)
        let execution = query["execution"] ?? ""
        var form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 20)))
        if faults.loginVariants.contains(.keycloak) {
            // Keycloak's field names, and its session code in the form's address, as the IdP's own.
            form["j_username"] = form["username"]
            form["j_password"] = form["password"]
            form["j_tokenNumber"] = form["otp"]
            form["csrf_token"] = query["session_code"]
        }
        if faults.loginVariants.contains(.scriptBuilt) {
            // The page's own field names; and the value its script computes, without which the
            // post is not the page's (a replay of the form's fields without running the script).
            form["j_username"] = form["login"]
            form["j_password"] = form["passwd"]
            if let flow = await state.flow(execution), form["canary"] != ScriptedSignInPages.canary(for: flow.csrf) {
                return Self.html(Pages.idpError("The sign-in page's script did not run. Sign in with a browser."), status: .badRequest)
            }
        }
        if form["j_tokenNumber"] == nil, let code = form["tokencode"] {
            // The Shibboleth IdP's official TOTP plugin names the field `tokencode`.
            form["j_tokenNumber"] = code
        }
        if faults.loginVariants.contains(.keycloak) {
            // Keycloak goes on unless the form says `cancel` (UsernamePasswordForm.action and
            // OTPFormAuthenticator.action, Keycloak 24–26): its button `login` is not needed, and a
            // browser never sends it, because the theme's onsubmit disables the button first
            // (login.ftl: `onsubmit="login.disabled = true; return true;"`).
            if form["cancel"] == nil { form["_eventId_proceed"] = "" }
        }
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
            let next: DemoState.LoginStep =
                faults.loginVariants.contains(.combinedLogin) || faults.loginVariants.contains(.shibbolethV5) ? .combined : .userID
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
            if form["j_password"] != nil { await state.receivedPassword() }
            if let user = DemoData.user(named: username), user.locked {
                // Each product words it its own way; the platform recipes know which.
                let message =
                    faults.loginVariants.contains(.keycloak)
                    ? "This account has been disabled; ask the university's help desk to enable it."
                    : "Your account is locked. Try again in 30 minutes."
                return await advance({ _ in }, error: message)
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
    func afterPassword(
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
    func samlPost(for user: DemoUser, flow: DemoState.LoginFlow, request: Request, echo: String? = nil)
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
}
