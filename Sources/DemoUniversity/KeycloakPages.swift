import Foundation

/// IdP pages with the structure of Keycloak 26's keycloak.v2 login theme (the default since
/// Keycloak 24), for the `keycloak` login variant and `Recipes/platforms/keycloak.yaml`.
///
/// The structure follows the theme's `template.ftl`, `login.ftl`, `login-otp.ftl`, `field.ftl`
/// and `buttons.ftl`, and base/login's `login-page-expired.ftl` (26.x), as rebuilt in
/// `Fixtures/platforms/keycloak/26-v2/`: form ids, field names, the hidden `credentialId`, the
/// `login` button, and `field.ftl`'s error container `div#input-error-container-<field>`, present
/// and empty on every page, with `div#input-error-<field>` inside it only when there is an error.
/// The text is the demo's own.
enum KeycloakPages {
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <!-- Structure after Keycloak 26's keycloak.v2 login theme (template.ftl); demo text. -->
        <html class="login-pf" lang="en">
        <head>
          <meta charset="utf-8">
          <meta name="robots" content="noindex, nofollow">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <title>\(HTML.escape(title))</title>
        </head>
        <body id="keycloak-bg" class="">
        <div class="pf-v5-c-login">
          <div class="pf-v5-c-login__container">
            <header id="kc-header" class="pf-v5-c-login__header">
              <div id="kc-header-wrapper" class="pf-v5-c-brand">Demo University</div>
            </header>
            <main class="pf-v5-c-login__main">
              <div class="pf-v5-c-login__main-header">
                <h1 class="pf-v5-c-title pf-m-3xl" id="kc-page-title">\(HTML.escape(title))</h1>
              </div>
              <div class="pf-v5-c-login__main-body">
        \(body)
                <div class="pf-v5-c-login__main-footer">
                </div>
              </div>
              <div class="pf-v5-c-login__main-footer">
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

    /// field.ftl's `input` macro: a labelled text field in its form group, marked invalid and
    /// followed by its error when the field has one (the user name, the one-time code).
    static func input(_ name: String, label: String, autocomplete: String, error: String?) -> String {
        """
        <div class="pf-v5-c-form__group">
          <div class="pf-v5-c-form__group-label pf-v5-u-pb-xs">
            <label for="\(name)" class="pf-v5-c-form__label"><span class="pf-v5-c-form__label-text">\(label)</span></label>
          </div>
          <span class="pf-v5-c-form-control\(error == nil ? "" : " pf-m-error")">
            <input id="\(name)" name="\(name)" value="" type="text" autocomplete="\(autocomplete)" autofocus aria-invalid="\(error == nil ? "" : "true")"/>
          </span>
          \(errorContainer(name, error))
        </div>
        """
    }

    /// field.ftl's error container for a field: always there, empty unless the field has an error.
    static func errorContainer(_ field: String, _ error: String?) -> String {
        guard let error else {
            return """
                <div id="input-error-container-\(field)">
                            </div>
                """
        }
        return """
            <div id="input-error-container-\(field)">
                          <div class="pf-v5-c-form__helper-text" aria-live="polite">
                            <div class="pf-v5-c-helper-text pf-v5-u-display-flex pf-v5-u-justify-content-space-between">
                              <div class="pf-v5-c-helper-text__item pf-m-error" id="input-error-\(field)">
                                <span class="pf-v5-c-helper-text__item-text pf-m-error kc-feedback-text">\(HTML.escape(error))</span>
                              </div>
                            </div>
                          </div>
                        </div>
            """
    }

    /// buttons.ftl's loginButton: the `login` button in its action group.
    static let loginButton = """
                    <div class="pf-v5-c-form__group">
                      <div class="pf-v5-c-form__actions pf-v5-u-pt-xs">
                        <button class="pf-v5-c-button pf-m-primary pf-m-block" name="login" id="kc-login" type="submit">Log in</button>
                      </div>
                    </div>
        """

    static func login(execution: String, csrf: String, error: String?) -> String {
        page(
            title: "Log in with your university account",
            body: """
                  <div id="kc-form">
                    <div id="kc-form-wrapper">
                      <form id="kc-form-login" class="pf-v5-c-form pf-v5-u-w-100" onsubmit="login.disabled = true; return true;" action="\(action(execution, csrf))" method="post" novalidate="novalidate">
                        \(input("username", label: "User name or e-mail", autocomplete: "username", error: error))
                        <div class="pf-v5-c-form__group">
                          <div class="pf-v5-c-form__group-label pf-v5-u-pb-xs">
                            <label for="password" class="pf-v5-c-form__label"><span class="pf-v5-c-form__label-text">Password</span></label>
                          </div>
                          <div class="pf-v5-c-input-group">
                            <div class="pf-v5-c-input-group__item pf-m-fill">
                              <span class="pf-v5-c-form-control">
                                <input id="password" name="password" value="" type="password" autocomplete="current-password" aria-invalid=""/>
                              </span>
                            </div>
                            <div class="pf-v5-c-input-group__item">
                              <button class="pf-v5-c-button pf-m-control" type="button" aria-label="Reveal password" aria-controls="password" data-password-toggle id="password-show-password"><i class="fa-eye fas" aria-hidden="true"></i></button>
                            </div>
                          </div>
                          <div class="pf-v5-c-form__helper-text" aria-live="polite">
                            <div class="pf-v5-c-helper-text pf-v5-u-display-flex pf-v5-u-justify-content-space-between">
                            </div>
                          </div>
                          \(errorContainer("password", nil))
                        </div>
                        <input type="hidden" id="id-hidden-input" name="credentialId" />
                \(loginButton)
                      </form>
                    </div>
                  </div>
                """)
    }

    static func otp(execution: String, csrf: String, error: String?) -> String {
        page(
            title: "Second step: one-time code",
            body: """
                  <form id="kc-otp-login-form" class="pf-v5-c-form pf-v5-u-w-100" onsubmit="login.disabled = true; return true;" action="\(action(execution, csrf))" method="post">
                    <input id="selectedCredentialId" type="hidden" name="selectedCredentialId" value="">
                    \(input("otp", label: "Code from your authenticator app", autocomplete: "one-time-code", error: error))
                \(loginButton)
                  </form>
                """)
    }

    /// base/login's login-page-expired.ftl in the v2 frame: only text and two links, the first
    /// of which starts the login again: the `page-expired` fault's page for the `keycloak` variant.
    static func pageExpired(restart: String, resume: String) -> String {
        page(
            title: "This page is no longer valid",
            body: """
                  <p id="instruction1" class="instruction">
                    To begin the login afresh, <a id="loginRestartLink" href="\(HTML.escape(restart))">use this link</a> .
                    To pick up where you left off, <a id="loginContinueLink" href="\(HTML.escape(resume))">use this one</a> .
                  </p>
                """)
    }
}
