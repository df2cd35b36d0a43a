import Foundation

/// IdP pages with the structure of the Shibboleth IdP v5's own views, for the `shibboleth-v5`
/// login variant and `Recipes/platforms/shibboleth-idp.yaml`.
///
/// The structure (element nesting, classes, field and button names, their order) follows the
/// IdP's `views/login.vm` of v5 (unchanged in this respect since v4) and the naming of the
/// common TOTP plugins. The text and markup are the demo's own.
enum ShibbolethPages {
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <!-- Structure after the Shibboleth IdP v5 views (login.vm); demo text. -->
        <html lang="en">
        <head><meta charset="utf-8"><title>\(HTML.escape(title))</title></head>
        <body>
          <div class="wrapper">
            <div class="container">
              <header><img src="/idp/images/logo.png" alt="Demo University"></header>
              <div class="content">
                <div class="column one">
        \(body)
                </div>
              </div>
            </div>
            <footer><div class="container"><p>Demo University identity service</p></div></footer>
          </div>
        </body>
        </html>

        """
    }

    static func error(_ message: String?) -> String {
        message.map { "<section><p class=\"form-element form-error\">\(HTML.escape($0))</p></section>" } ?? ""
    }

    /// The user name and password form: no id on the form, the error in `.form-error`, the
    /// "don't remember" and "clear consent" boxes, and `_eventId_proceed`.
    static func login(execution: String, csrf: String, error message: String?) -> String {
        page(
            title: "Web Login Service",
            body: """
                  <form action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)" method="post">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    \(error(message))
                    <legend>Log in to <strong>Demo University Portal</strong></legend>
                    <div class="form-element-wrapper">
                      <label for="username">Username</label>
                      <input class="form-element form-field" id="username" name="j_username" type="text" value="">
                    </div>
                    <div class="form-element-wrapper">
                      <label for="password">Password</label>
                      <input class="form-element form-field" id="password" name="j_password" type="password" value="">
                    </div>
                    <div class="form-element-wrapper">
                      <input type="checkbox" name="donotcache" value="1" id="donotcache">
                      <label for="donotcache">Don't remember login</label>
                    </div>
                    <div class="form-element-wrapper">
                      <input id="_shib_idp_revokeConsent" type="checkbox" name="_shib_idp_revokeConsent" value="true">
                      <label for="_shib_idp_revokeConsent">Clear prior granting of permission for release of your information to this service.</label>
                    </div>
                    <div class="form-element-wrapper">
                      <button class="form-element form-button" type="submit" name="_eventId_proceed">Login</button>
                    </div>
                  </form>
                  <ul class="list list-help"><li class="list-help-item"><a href="/idp/help">Need help?</a></li></ul>
                """)
    }

    /// A TOTP plugin's token form: `j_tokenNumber`, the error inside the form.
    static func token(execution: String, csrf: String, error message: String?) -> String {
        page(
            title: "Web Login Service - Token",
            body: """
                  <form action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)" method="post">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    \(error(message))
                    <legend>Enter the code from your authenticator app</legend>
                    <div class="form-element-wrapper">
                      <label for="j_tokenNumber">Token code</label>
                      <input class="form-element form-field" id="j_tokenNumber" name="j_tokenNumber" type="text" autocomplete="off">
                    </div>
                    <div class="form-element-wrapper">
                      <button class="form-element form-button" type="submit" name="_eventId_proceed">Continue</button>
                    </div>
                  </form>
                """)
    }
}
