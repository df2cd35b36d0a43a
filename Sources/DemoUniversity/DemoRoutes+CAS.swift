import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The `cas` login variant: an Apereo CAS server at `/cas/` (structure after CAS 6 and 7's
/// `casLoginView` and the Google Authenticator token view; the text is the demo's), and a portal
/// that signs on with CAS's service tickets instead of SAML.
extension DemoRoutes {
    static let ticketGrantingCookie = "TGC"

    func registerCAS(on router: Router<BasicRequestContext>) {
        router.get("/cas/login") { request, _ in
            let service = FormDecoding.dictionary(request.uri.query)["service"] ?? ""
            guard !service.isEmpty else { return Self.html(Pages.idpError("No service was named."), status: .badRequest) }
            // Single sign-on: CAS knows this browser, so the next service gets a ticket at once.
            if let value = request.cookies[Self.ticketGrantingCookie]?.value, let user = Self.verifyIdPSession(value) {
                return await self.casTicketRedirect(user: user.username, service: service)
            }
            let execution = UUID().uuidString
            await self.state.setCASFlow(execution, (service, nil))
            return Self.html(CASPages.login(service: service, execution: execution, error: nil))
        }
        router.post("/cas/login") { request, _ in
            var request = request
            let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
            let execution = form["execution"] ?? ""
            guard let flow = await self.state.casFlows[execution], form["_eventId"] == "submit" else {
                return Self.html(Pages.idpError("Your login has expired. Go back to the portal and start again."), status: .badRequest)
            }
            if let username = flow.awaitingCodeFor {
                guard let user = DemoData.user(named: username), let secret = user.totpSecret, let code = form["token"],
                    let step = Self.acceptedStep(code, secret: secret, period: self.faults.totpPeriod),
                    await self.state.useCode(user: username, step: step)
                else {
                    return Self.html(
                        CASPages.token(execution: execution, error: "Authentication has failed: the code is invalid or was used."))
                }
                await self.state.setCASFlow(execution, nil)
                return await self.casTicketRedirect(user: username, service: flow.service, setCookie: true)
            }
            if form["password"] != nil { await self.state.receivedPassword() }
            let username = (form["username"] ?? "").trimmingCharacters(in: .whitespaces)
            if DemoData.user(named: username)?.locked == true {
                return Self.html(CASPages.login(service: flow.service, execution: execution, error: "This account has been locked."))
            }
            guard let user = DemoData.user(named: username), form["password"] == user.password else {
                return Self.html(CASPages.login(service: flow.service, execution: execution, error: "Invalid credentials."))
            }
            if user.totpSecret != nil {
                await self.state.setCASFlow(execution, (flow.service, username))
                return Self.html(CASPages.token(execution: execution, error: nil))
            }
            await self.state.setCASFlow(execution, nil)
            return await self.casTicketRedirect(user: username, service: flow.service, setCookie: true)
        }
    }

    /// Back to the service with a ticket, and CAS's own cookie for the next service.
    func casTicketRedirect(user: String, service: String, setCookie: Bool = false) async -> Response {
        let ticket = await state.issueTicket(user: user, service: service)
        var headers = HTTPFields()
        headers[.location] = service + (service.contains("?") ? "&" : "?") + "ticket=" + ticket
        if setCookie {
            headers.append(
                HTTPField(name: .setCookie, value: "\(Self.ticketGrantingCookie)=\(signSession(user: user)); Path=/cas; HttpOnly"))
        }
        return Response(status: .found, headers: headers)
    }

    /// The portal's side: a page asked for with a ticket validates it (CAS's serviceValidate,
    /// in process) and starts the portal's session; without one, the browser goes to CAS.
    func casSignOn(request: Request, target: String) async -> Response {
        let origin = Self.origin(of: request)
        var components = URLComponents(string: origin + target)!
        let ticket = components.queryItems?.first { $0.name == "ticket" }?.value
        components.queryItems = components.queryItems?.filter { $0.name != "ticket" }
        if components.queryItems?.isEmpty == true { components.queryItems = nil }
        let service = components.string!
        if let ticket {
            guard let user = await state.validateTicket(ticket, service: service) else {
                return Self.html(Pages.idpError("The service ticket was not valid."), status: .forbidden)
            }
            var headers = HTTPFields()
            headers[.location] = String(service.dropFirst(origin.count))
            headers.append(
                HTTPField(
                    name: .setCookie, value: "\(DemoUniversity.sessionCookie)=\(signSession(user: user)); Path=/; HttpOnly; SameSite=Lax"))
            return Response(status: .found, headers: headers)
        }
        var login = URLComponents(string: (idpOrigin.origin ?? origin) + "/cas/login")!
        login.queryItems = [URLQueryItem(name: "service", value: service)]
        return Self.redirect(to: login.string!, status: .found)
    }

}

/// Apereo CAS's login and token pages, by the structure of CAS 6 and 7's views.
enum CASPages {
    static func page(_ body: String) -> String {
        """
        <!DOCTYPE html>
        <!-- Structure after Apereo CAS 6/7 (casLoginView, the Google Authenticator view); demo text. -->
        <html lang="en"><head><meta charset="UTF-8"><title>CAS - Central Authentication Service</title></head>
        <body class="login mdc-typography">
          <main role="main" class="container mt-3 mb-3"><div id="content" class="d-flex justify-content-center">
            <section id="loginForm" class="login-section login-form card-body">
        \(body)
            </section>
          </div></main>
        </body></html>

        """
    }

    static func errors(_ message: String?) -> String {
        message.map {
            "<div id=\"loginErrorsPanel\" class=\"banner banner-danger alert alert-danger\" role=\"alert\"><p>\(HTML.escape($0))</p></div>"
        } ?? ""
    }

    static func login(service: String, execution: String, error: String?) -> String {
        var action = URLComponents(string: "login")!
        action.queryItems = [URLQueryItem(name: "service", value: service)]
        return page(
            """
                  <form method="post" id="fm1" action="\(HTML.escape(action.string!))">
                    \(errors(error))
                    <h3 class="text-center">Enter Username &amp; Password</h3>
                    <section class="cas-field form-group"><label for="username">Username:</label>
                      <input class="form-control required" id="username" size="25" type="text" accesskey="u" autocomplete="off" name="username" value=""></section>
                    <section class="cas-field form-group"><label for="password">Password:</label>
                      <input class="form-control required" type="password" id="password" size="25" accesskey="p" autocomplete="off" name="password" value=""></section>
                    <input type="hidden" name="execution" value="\(execution)">
                    <input type="hidden" name="_eventId" value="submit">
                    <input type="hidden" name="geolocation">
                    <button class="mdc-button mdc-button--raised btn btn-primary" name="submit" accesskey="l" type="submit" value="Login"><span class="mdc-button__label">Login</span></button>
                  </form>
            """)
    }

    static func token(execution: String, error: String?) -> String {
        page(
            """
                  <form method="post" id="fm1" action="login">
                    \(errors(error))
                    <h3>Enter your verification code</h3>
                    <section class="cas-field form-group"><label for="token">Verification code:</label>
                      <input class="form-control required" type="text" id="token" size="25" autocomplete="off" name="token"></section>
                    <input type="hidden" name="execution" value="\(execution)">
                    <input type="hidden" name="_eventId" value="submit">
                    <button class="mdc-button mdc-button--raised btn btn-primary" name="submit" accesskey="l" type="submit" value="Login"><span class="mdc-button__label">Login</span></button>
                  </form>
            """)
    }
}
