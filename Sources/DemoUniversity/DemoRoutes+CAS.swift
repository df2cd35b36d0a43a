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
                // CAS 7.x shows a locked account on a page of its own (casAccountLockedView.html).
                return Self.html(CASPages.locked())
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

/// Apereo CAS's login and token pages, by the structure of CAS 7.1's default Thymeleaf views
/// (support/cas-server-support-thymeleaf templates: layout.html, login/casLoginView.html with
/// fragments/loginform.html and fragments/submitbutton.html, gauth/casGoogleAuthenticatorLoginView.html),
/// as in Fixtures/platforms/cas/7.1. The text is the demo's own.
enum CASPages {
    static func page(_ body: String) -> String {
        """
        <!DOCTYPE html>
        <!-- Structure after Apereo CAS 7.1 (layout.html, casLoginView, the Google Authenticator view); demo text. -->
        <html lang="en">
        <head>
          <meta charset="UTF-8"/>
          <meta name="viewport" content="width=device-width, initial-scale=1, shrink-to-fit=no"/>
          <title>CAS - Central Authentication Service Demo sign-on</title>
        </head>
        <body>
          <header id="app-bar" class="mdc-top-app-bar mdc-top-app-bar--fixed mdc-elevation--z4 shadow-sm">
            <nav class="mdc-top-app-bar__row navbar navbar-dark bg-dark">
              <div class="container-fluid container-fluid d-flex align-items-center justify-content-between">
                <section class="mdc-top-app-bar__section">
                  <div class="cas-brand mx-auto"><h1 class="visually-hidden">CAS</h1><a href="/cas/"><img id="cas-logo" class="cas-logo" alt="Demo University sign-on" src="/cas/images/cas-logo.png"/></a></div>
                </section>
              </div>
            </nav>
          </header>
          <div class="mdc-drawer-scrim"></div>
          <div class="mdc-drawer-app-content mdc-top-app-bar--fixed-adjust d-flex justify-content-center">
            <main id="main-content" class="container-lg py-4">
        \(body)
            </main>
          </div>
          <footer class="py-3 d-flex justify-content-center align-items-center cas-footer">
            <span id="copyright" class="me-2 d-inline-block">Demo University central sign-on</span>
          </footer>
        </body></html>

        """
    }

    /// casAccountLockedView.html (7.1): a card with a heading and a line, no form.
    static func locked() -> String {
        page(
            """
            <div class="mdc-card card p-4 m-auto w-lg-66">
                <h2>This account has been locked.</h2>
                <p>The university's help desk can unlock it.</p>
            </div>
            """)
    }

    static func errors(_ message: String?) -> String {
        message.map {
            "<div id=\"loginErrorsPanel\" class=\"banner banner-danger alert alert-danger banner-dismissible\" role=\"alert\"><h2>Sign-in refused</h2><p>\(HTML.escape($0)) </p></div>"
        } ?? ""
    }

    static func login(service: String, execution: String, error: String?) -> String {
        var action = URLComponents(string: "login")!
        action.queryItems = [URLQueryItem(name: "service", value: service)]
        return page(
            """
              <div class="d-flex justify-content-center">
                <div class="d-flex justify-content-center flex-md-row flex-column mdc-card mdc-card-content card flex-grow-1">
                  <section id="loginForm" class="login-section login-form card-body">
                    <div class="d-flex flex-column justify-content-between m-auto">
                      <div class="form-wrapper">
                        <form method="post" id="fm1" action="\(HTML.escape(action.string!))" onsubmit="loginFormSubmission();">
                          <div id="login-form-controls">
                            <h2 class="text-center"><i class="mdi mdi-login fas fa-shield-alt" aria-hidden="true"></i> <span>Sign in with your demo user name and password</span></h2>
                            \(errors(error))
                            <section class="cas-field form-group my-3" id="usernameSection">
                              <label for="username" class="mdc-text-field mdc-text-field--outlined control-label w-100">
                                <span class="mdc-notched-outline"><span class="mdc-notched-outline__notch"><span class="mdc-floating-label">User name</span></span></span>
                                <input class="mdc-text-field__input form-control" id="username" size="25" type="text" accesskey="u" autocapitalize="none" spellcheck="false" autocomplete="username" required name="username" value=""/>
                              </label>
                            </section>
                            <section class="cas-field form-group my-3 mdc-input-group form-group" id="passwordSection">
                              <div class="mdc-input-group-field mdc-input-group-field-append">
                                <label for="password" class="mdc-text-field caps-check mdc-text-field--outlined control-label mdc-text-field--with-trailing-icon control-label w-100">
                                  <span class="mdc-notched-outline"><span class="mdc-notched-outline__notch"><span class="mdc-floating-label">Password</span></span></span>
                                  <input class="mdc-text-field__input form-control pwd" type="password" id="password" size="25" required accesskey="p" autocomplete="off" name="password" value=""/>
                                  <button class="reveal-password mdc-button mdc-button--unelevated mdc-input-group-append mdc-icon-button btn btn-primary" tabindex="-1" type="button" title="Show the password"><i class="mdi mdi-eye reveal-password-icon fas fa-eye" aria-hidden="true"></i></button>
                                </label>
                              </div>
                            </section>
                            <section class="cas-field form-check">
                              <div class="mdc-form-field "><div id="warnSwitchButtonPanel" style="display: none">
                                <button id="warnButton" name="warnButton" class="mdc-switch mdc-switch--unselected" type="button" role="switch" aria-checked="false"></button>
                                <label class="form-check-label" id="warnButtonLabel">Ask before signing me in elsewhere</label>
                                <input type="hidden" name="warn" id="warn" value="false" data-switch-btn="warnButton"/>
                              </div></div>
                            </section>
                            <section class="cas-field">
                              <input type="hidden" name="execution" value="\(execution)"/>
                              <input type="hidden" name="_eventId" value="submit"/>
                              <input type="hidden" name="geolocation"/>
                              <input type="hidden" name="deviceFingerprint"/>
                            </section>
                            <button class="mdc-button mdc-button--raised btn btn-primary btn-primary" name="submitBtn" id="submitBtn" accesskey="l" type="submit"><i class="mdi mdi-login fas fa-shield-alt" aria-hidden="true"></i> <span class="mdc-button__label">Sign in</span></button>
                          </div>
                        </form>
                      </div>
                    </div>
                  </section>
                </div>
              </div>
            """)
    }

    static func token(execution: String, error: String?) -> String {
        page(
            """
              <div id="login" class="mdc-card card mdc-card-content w-lg-50 p-4 m-auto">
                <p>Enter the six-digit code your authenticator app shows for the demo.</p>
                <form method="post" id="fm1" action="login">
                  \(error == nil ? "" : "<div id=\"msg\" class=\"banner banner-danger alert alert-danger my-2\"><span>\(HTML.escape(error ?? "")) </span></div>")
                  <input type="hidden" name="_eventId" value="submit"/>
                  <input type="hidden" name="execution" value="\(execution)"/>
                  <input type="hidden" name="geolocation"/>
                  <section class="cas-field form-group my-3 mdc-input-group">
                    <div class="d-flex">
                      <div class="w-100 mdc-input-group-field mdc-input-group-field-append">
                        <div class="d-flex">
                          <input type="hidden" id="accountId" name="accountId" size="25" autocomplete="off" value=""/>
                          <label for="token" class="mdc-text-field caps-check mdc-text-field--outlined control-label mdc-text-field--with-trailing-icon">
                            <span class="mdc-notched-outline"><span class="mdc-notched-outline__notch"><span class="mdc-floating-label">Code</span></span></span>
                            <input class="mdc-text-field__input form-control pwd" type="password" name="token" id="token" size="25" autocomplete="off" required value=""/>
                          </label>
                        </div>
                      </div>
                      <button class="reveal-password align-self-end mdc-button mdc-button--raised btn btn-primary mdc-input-group-append mdc-icon-button" tabindex="-1" type="button"><i class="mdi mdi-eye fas fa-eye reveal-password-icon" aria-hidden="true"></i><span class="visually-hidden">Show the code</span></button>
                    </div>
                  </section>
                  <button id="loginButton" class="mdc-button mdc-button--raised btn btn-primary" accesskey="l"><span class="mdc-button__label">Verify</span></button>
                  <a class="mdc-button mdc-button--raised btn btn-primary button-cancel" id="cancel" name="cancel" onclick="location.href = location.href;"><span class="mdc-button__label">Start over</span></a>
                </form>
              </div>
            """)
    }
}
