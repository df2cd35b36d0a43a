import Foundation

/// IdP pages with the structure of the Shibboleth IdP v5's own views, for the `shibboleth-v5`
/// login variant and `Recipes/platforms/shibboleth-idp.yaml`.
///
/// The structure (element nesting, classes, field and button names, their order) follows the
/// IdP's `views/login.vm` at 5.1.3 (the layout of 4.2 onwards; Fixtures/platforms/shibboleth-idp/5.1)
/// and the community TOTP plugin's field name. The text is the demo's own.
enum ShibbolethPages {
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <!-- Structure after the Shibboleth IdP 5.1 views (login.vm); demo text. -->
        <html>
        <head>
          <title>\(HTML.escape(title))</title>
          <meta charset="UTF-8">
          <meta name="viewport" content="width=device-width, initial-scale=1.0, maximum-scale=5.0">
        </head>
        <body>
          <main class="main">
            <header>
              <img class="main-logo" src="/idp/images/logo.png" alt="Demo University">
              <h1>Signing in to the Demo University Portal</h1>
            </header>
            <section>
        \(body)
            </section>
          </main>
          <footer class="footer"><div class="cc"><p>Demo University identity service</p></div></footer>
        </body>
        </html>

        """
    }

    static func error(_ message: String?) -> String {
        message.map { "<p class=\"output-message output--error\">\(HTML.escape($0))</p>" } ?? ""
    }

    /// The user name and password form, as login.vm of IdP 4.2 to 5.x has it: no id on the form,
    /// the error in `p.output-message.output--error` inside it, the "don't remember" and "clear
    /// consent" boxes, and `_eventId_proceed` in `div.grid`.
    static func login(execution: String, csrf: String, error message: String?) -> String {
        page(
            title: "Demo University sign-in",
            body: """
                  <form action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)" method="post">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    \(error(message))
                    <label for="username">University ID</label>
                    <input type="text" id="username" name="j_username" value="">
                    <label for="password">Passphrase</label>
                    <input type="password" id="password" name="j_password" value="">
                    <input type="checkbox" name="donotcache" value="1" id="donotcache">
                    <label for="donotcache">Forget this sign-in when the browser closes</label>
                    <input id="_shib_idp_revokeConsent" type="checkbox" name="_shib_idp_revokeConsent" value="true">
                    <label for="_shib_idp_revokeConsent">Ask me again which details the portal may receive.</label>
                    <div class="grid">
                      <div class="grid-item">
                        <button type="submit" name="_eventId_proceed" onClick="this.childNodes[0].nodeValue='One moment...'">Sign in</button>
                      </div>
                    </div>
                  </form>
                  <ul>
                    <li><a href="/idp/help">Lost your passphrase?</a></li>
                    <li><a href="/idp/help">Get support</a></li>
                  </ul>
                """)
    }

    /// The official TOTP plugin's code form (`tokencode`), laid out as the IdP 5.1's own views:
    /// the error inside the form, `_eventId_proceed` in `div.grid`.
    static func token(execution: String, csrf: String, error message: String?) -> String {
        page(
            title: "Demo University sign-in",
            body: """
                  <form action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)" method="post">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    \(error(message))
                    <label for="tokencode">Six-digit code from your authenticator app</label>
                    <input type="text" id="tokencode" name="tokencode" value="" autocomplete="off">
                    <div class="grid">
                      <div class="grid-item">
                        <button type="submit" name="_eventId_proceed">Verify</button>
                      </div>
                    </div>
                  </form>
                """)
    }
}
