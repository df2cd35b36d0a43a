import Foundation
import HTTPTypes
import Hummingbird
import MessageDigest
import NIOCore
import OneTimeCode

/// The service provider: sessions, the SAML request (either binding), the assertion consumer.
extension DemoRoutes {
    // MARK: SP

    /// Runs `body` for the signed-in user, or starts SAML SSO through the HTTP-Redirect binding.
    func withUser(
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
        if faults.loginVariants.contains(.cas) { return await casSignOn(request: request, target: target) }
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
    func startSAML(target: String, request: Request) async -> Response {
        let origin = Self.origin(of: request)
        // The IdP is on the main address; a service on another host sends its sign-on there.
        let idp = idpOrigin.origin ?? origin
        let authn = SAML.AuthnRequest(
            id: SAML.newID(), issuer: DemoUniversity.audience,
            assertionConsumerServiceURL: "\(origin)/Shibboleth.sso/SAML2/POST")
        let relay = await state.rememberRequest(id: authn.id, target: target)
        if faults.loginVariants.contains(.postBinding) {
            let postDestination = "\(idp)/idp/profile/SAML2/POST/SSO"
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
        let destination = "\(idp)/idp/profile/SAML2/Redirect/SSO"
        let encoded = SAML.encodeRedirect(SAML.authnRequestXML(authn, destination: destination, now: Date()))
        var components = URLComponents(string: destination)!
        components.queryItems = [URLQueryItem(name: "SAMLRequest", value: encoded), URLQueryItem(name: "RelayState", value: relay)]
        // URLComponents leaves '+' alone in queries; SAML parameters must encode it.
        let query = components.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
        return sendBrowser(to: destination + "?" + query)
    }

    /// A 302, or with the meta-refresh variant a page that refreshes to the address.
    func sendBrowser(to location: String) -> Response {
        if faults.loginVariants.contains(.metaRefresh) { return Self.html(Pages.metaRefresh(to: location)) }
        return Self.redirect(to: location, status: .found)
    }

    /// The discovery service's answer: start SAML with the chosen IdP, if it is ours.
    func discoveryLogin(_ request: Request) async -> Response {
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

    func assertionConsumer(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
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
        if faults.loginVariants.contains(.rebuiltTarget), let question = target.firstIndex(of: "?") {
            let query = target[target.index(after: question)...].split(separator: "&").map { pair in
                pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part in
                    (part.removingPercentEncoding ?? String(part)).addingPercentEncoding(withAllowedCharacters: .alphanumerics)
                        ?? String(part)
                }.joined(separator: "=")
            }
            target = String(target[..<question]) + "?" + query.joined(separator: "&")
        }
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
        let mac = MessageDigest.hmac(.sha256, key: DemoUniversity.cookieKey, message: parts[0...2].joined(separator: ".").utf8)
        guard mac.map({ String(format: "%02x", $0) }).joined() == parts[3] else { return nil }
        return DemoData.user(named: String(parts[0]))
    }

    /// The time step whose code `code` is, if any: now, or as far either side as one 30-second
    /// step reaches (the usual window of an IdP with the usual period). With a test's short
    /// period (`totp-period=2`) that is several steps, so a code is not refused for the delay of
    /// a busy machine; a code used before is still refused (`DemoState`), whichever step it is.
    static func acceptedStep(_ code: String, secret: String, period: Int) -> Int64? {
        guard let parsed = try? TOTP(parsing: secret) else { return nil }
        let totp = TOTP(secret: parsed.secret, digits: parsed.digits, period: period, algorithm: parsed.algorithm)
        let now = Int64(Date().timeIntervalSince1970) / Int64(period)
        let reach = Int64(max(1, (30 + period - 1) / period))
        let steps = [now] + (1...reach).flatMap { [now - $0, now + $0] }
        return steps.first { totp.code(counter: UInt64(max(0, $0))) == code }
    }

    /// `user.expiry.boot.mac`: stateless, so it survives a restart of the demo. `boot` names the
    /// demo run that issued it, so that the `expire-sessions` fault can drop every earlier one.
    func signSession(user: String) -> String {
        let now = Date().timeIntervalSince1970
        // The issue time (in microseconds) lets `expire-after` revoke the sessions issued so far.
        let payload = "\(user).\(Int(now + DemoUniversity.sessionLifetime)).\(bootID)-\(Self.nowMicroseconds())"
        let mac = MessageDigest.hmac(.sha256, key: DemoUniversity.cookieKey, message: payload.utf8)
        return payload + "." + mac.map { String(format: "%02x", $0) }.joined()
    }

    static func nowMicroseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    func verifySession(_ value: String) async -> DemoUser? {
        let parts = value.split(separator: ".")
        guard parts.count == 4, let expiry = TimeInterval(parts[1]) else { return nil }
        let payload = parts[0...2].joined(separator: ".")
        let mac = MessageDigest.hmac(.sha256, key: DemoUniversity.cookieKey, message: payload.utf8)
        guard mac.map({ String(format: "%02x", $0) }).joined() == parts[3] else { return nil }
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
}
