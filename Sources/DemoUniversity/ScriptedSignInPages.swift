import Foundation

/// A sign-in page whose form exists only once its script has run, in the manner of Microsoft
/// Entra ID: the HTML carries a configuration blob (`$Config`: where to post, the flow's token, a
/// value to derive the canary from) and a script that builds the form and, on submit, posts a
/// value computed in the page. A form replay finds no form, and could not compute the canary if
/// it did: only a browser (`auth login --browser`) signs in here.
enum ScriptedSignInPages {
    /// What the page's script posts as `canary`: the flow's token reversed. The IdP refuses a
    /// post without it, as Entra refuses one without its computed fields.
    static func canary(for token: String) -> String { String(token.reversed()) }

    static func signIn(execution: String, csrf: String, error: String?) -> String {
        let config: [String: String?] = [
            "urlPost": "/idp/profile/SAML2/Redirect/SSO?execution=\(execution)", "sFT": csrf, "sErrTxt": error,
        ]
        let blob =
            (try? JSONSerialization.data(withJSONObject: config.mapValues { $0 ?? NSNull() as Any }, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        // `</` cannot end the script early: the blob's text is the IdP's own, but the rule holds.
        let safeBlob = blob.replacingOccurrences(of: "</", with: "<\\/")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <title>Sign in to your account</title>
            </head>
            <body>
              <div id="signin-root"><noscript>This sign-in page needs JavaScript. Turn it on, or use a browser that has it.</noscript></div>
              <script>var $Config=\(safeBlob);</script>
              <script>
              (function () {
                var config = window.$Config;
                var root = document.getElementById("signin-root");
                var heading = document.createElement("h1");
                heading.textContent = "Sign in";
                root.appendChild(heading);
                if (config.sErrTxt) {
                  var error = document.createElement("p");
                  error.id = "signin-error";
                  error.textContent = config.sErrTxt;
                  root.appendChild(error);
                }
                var form = document.createElement("form");
                form.method = "post";
                form.action = config.urlPost;
                function input(type, name, label) {
                  var field = document.createElement("input");
                  field.type = type;
                  field.name = name;
                  if (label) {
                    field.setAttribute("aria-label", label);
                    field.placeholder = label;
                  }
                  form.appendChild(field);
                  return field;
                }
                input("text", "login", "Email, phone, or user ID");
                input("password", "passwd", "Password");
                input("hidden", "csrf_token").value = config.sFT;
                var canary = input("hidden", "canary");
                input("hidden", "_eventId_proceed");
                var button = document.createElement("button");
                button.type = "submit";
                button.id = "idSIButton9";
                button.textContent = "Sign in";
                form.appendChild(button);
                form.addEventListener("submit", function () {
                  canary.value = config.sFT.split("").reverse().join("");
                });
                root.appendChild(form);
              })();
              </script>
            </body>
            </html>
            """
    }
}
