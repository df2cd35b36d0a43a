import Foundation

/// IdP pages with the structure of Keycloak's login theme (keycloak.v2, Keycloak 24 and later),
/// for the `keycloak` login variant and `Recipes/platforms/keycloak.yaml`.
///
/// The structure (the form ids, field names, the hidden `credentialId`, the `login` button, the
/// error span `#input-error`, the session code in the form's address) follows the theme's
/// `login.ftl` and `login-otp.ftl`. The text and markup are the demo's own.
enum KeycloakPages {
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <!-- Structure after Keycloak's keycloak.v2 login theme (login.ftl, login-otp.ftl); demo text. -->
        <html class="login-pf" lang="en">
        <head><meta charset="utf-8"><title>\(HTML.escape(title))</title></head>
        <body id="keycloak-bg" class="">
          <div class="pf-v5-c-login">
            <div class="pf-v5-c-login__container">
              <header id="kc-header" class="pf-v5-c-login__header"><div id="kc-header-wrapper">Demo University</div></header>
              <main class="pf-v5-c-login__main">
                <div class="pf-v5-c-login__main-header"><h1 class="pf-v5-c-title pf-m-3xl" id="kc-page-title">\(HTML.escape(title))</h1></div>
                <div class="pf-v5-c-login__main-body">
        \(body)
                </div>
              </main>
            </div>
          </div>
        </body>
        </html>

        """
    }

    static func action(_ execution: String, _ csrf: String) -> String {
        let code = csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf
        return "/idp/profile/SAML2/Redirect/SSO?execution=\(execution)&amp;session_code=\(code)&amp;client_id=demo-portal&amp;tab_id=x1"
    }

    static func login(execution: String, csrf: String, error: String?) -> String {
        page(
            title: "Sign in to your account",
            body: """
                  <div id="kc-form"><div id="kc-form-wrapper">
                    <form id="kc-form-login" class="pf-v5-c-form" onsubmit="login.disabled = true; return true;" action="\(action(execution, csrf))" method="post" novalidate="novalidate">
                      <div class="pf-v5-c-form__group">
                        <label for="username" class="pf-v5-c-form__label">Username or email</label>
                        <input id="username" name="username" value="" type="text" autocomplete="username" class="pf-v5-c-form-control"\(error == nil ? "" : " aria-invalid=\"true\"")>
                        \(error.map { "<span id=\"input-error\" class=\"pf-v5-c-helper-text__item-text pf-m-error\" aria-live=\"polite\">\(HTML.escape($0))</span>" } ?? "")
                      </div>
                      <div class="pf-v5-c-form__group">
                        <label for="password" class="pf-v5-c-form__label">Password</label>
                        <input id="password" name="password" value="" type="password" autocomplete="current-password" class="pf-v5-c-form-control">
                      </div>
                      <div id="kc-form-buttons" class="pf-v5-c-form__group">
                        <input type="hidden" id="id-hidden-input" name="credentialId" value="">
                        <button class="pf-v5-c-button pf-m-primary pf-m-block" name="login" id="kc-login" type="submit">Sign In</button>
                      </div>
                    </form>
                  </div></div>
                """)
    }

    static func otp(execution: String, csrf: String, error: String?) -> String {
        page(
            title: "Sign in to your account",
            body: """
                  <form id="kc-otp-login-form" class="pf-v5-c-form" action="\(action(execution, csrf))" method="post">
                    <div class="pf-v5-c-form__group">
                      <label for="otp" class="pf-v5-c-form__label">One-time code</label>
                      <input id="otp" name="otp" autocomplete="one-time-code" type="text" class="pf-v5-c-form-control" autofocus>
                      \(error.map { "<span id=\"input-error-otp-code\" class=\"pf-v5-c-helper-text__item-text pf-m-error\" aria-live=\"polite\">\(HTML.escape($0))</span>" } ?? "")
                    </div>
                    <div id="kc-form-buttons" class="pf-v5-c-form__group">
                      <input class="pf-v5-c-button pf-m-primary pf-m-block" name="login" id="kc-login" type="submit" value="Sign In">
                    </div>
                  </form>
                """)
    }
}
