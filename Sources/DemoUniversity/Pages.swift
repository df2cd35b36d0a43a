/// The demo's pages. Their markup is modelled on real Shibboleth IdP and campus portal pages,
/// so that the demo recipes exercise what real recipes meet.
enum Pages {
    // MARK: IdP

    static func userIDForm(execution: String, csrf: String, error: String? = nil) -> String {
        HTML.page(
            title: "Sign in",
            body: """
                  <h1>Sign in to Demo University</h1>
                  \(error.map { "<p class=\"login-error\">\(HTML.escape($0))</p>" } ?? "")
                  <form id="login-id" method="post" action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    <label for="username">User ID</label>
                    <input id="username" name="j_username" type="text" autocomplete="username" value="">
                    <button type="submit" name="_eventId_proceed" value="">Next</button>
                    <button type="submit" name="_eventId_cancel" value="">Cancel</button>
                  </form>
                """)
    }

    /// The sign-in page after a redesign: the same flow behind it, but nothing a recipe written
    /// for the old page would recognise.
    static func redesignedSignIn(execution: String, csrf: String) -> String {
        HTML.page(
            title: "Welcome back – Demo University",
            body: """
                  <main class="auth-card">
                    <h1>Welcome back</h1>
                    <form id="signin-form" method="post" action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)">
                      <input type="hidden" name="csrf_token" value="\(csrf)">
                      <label for="identifier">Email or student number</label>
                      <input id="identifier" name="identifier" type="email" autocomplete="username">
                      <button type="submit" name="_eventId_proceed" value="">Continue</button>
                    </form>
                  </main>
                """)
    }

    static func passwordForm(execution: String, csrf: String, username: String, error: String? = nil) -> String {
        HTML.page(
            title: "Sign in",
            body: """
                  <h1>Enter your password</h1>
                  <p class="user">Signing in as <strong>\(HTML.escape(username))</strong></p>
                  \(error.map { "<p class=\"login-error\">\(HTML.escape($0))</p>" } ?? "")
                  <form id="login-password" method="post" action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    <label for="password">Password</label>
                    <input id="password" name="j_password" type="password" autocomplete="current-password">
                    <label><input type="checkbox" name="donotcache" value="1"> Do not remember my login</label>
                    <button type="submit" name="_eventId_proceed" value="">Sign in</button>
                  </form>
                """)
    }

    /// The SAML POST binding page: JavaScript submits it at once; `<noscript>` gives a button.
    static func samlPost(acs: String, samlResponse: String, relayState: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Continue – Demo University</title></head>
        <body onload="document.forms[0].submit()">
          <noscript><p><strong>Note:</strong> Your browser does not support JavaScript, so press Continue once.</p></noscript>
          <form method="post" action="\(HTML.escape(acs))">
            <input type="hidden" name="RelayState" value="\(HTML.escape(relayState))">
            <input type="hidden" name="SAMLResponse" value="\(samlResponse)">
            <noscript><button type="submit">Continue</button></noscript>
          </form>
        </body>
        </html>

        """
    }

    /// The SAML POST page as a careless IdP writes it (the `echo-secrets` fault): `SAMLResponse`
    /// in an unquoted attribute, `RelayState` in a `<textarea>`, and the password the user typed
    /// repeated in a hidden field. A browser submits the same form.
    static func samlPostCarelessly(acs: String, samlResponse: String, relayState: String, echo: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Continue – Demo University</title></head>
        <body onload="document.forms[0].submit()">
          <form method="post" action="\(HTML.escape(acs))">
            <textarea name=RelayState hidden>\(HTML.escape(relayState))</textarea>
            <input type=hidden name=SAMLResponse value=\(samlResponse) >
            <input type=hidden name=typed value="\(HTML.escape(echo))">
            <noscript><button type="submit">Continue</button></noscript>
          </form>
        </body>
        </html>

        """
    }

    /// Shibboleth's local-storage probe. A browser's script fills the `shib_idp_ls_*` fields and
    /// submits at once; without script the user presses the `<noscript>` button. The script does
    /// what the IdP's client-storage/read.vm (4.3, 5.1) does on load: reads the stored session
    /// (none here), says whether local storage works, and posts the form.
    static func localStorage(execution: String, csrf: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Loading Session Information – Demo University</title>
        <script>
        function doLoad() {
          var form = document.forms[0];
          var supported = false;
          try { supported = typeof window.localStorage !== "undefined" && window.localStorage !== null; } catch (e) {}
          form.elements["shib_idp_ls_supported"].value = supported ? "true" : "false";
          if (supported) {
            var stored = window.localStorage.getItem("shib_idp_session_ss");
            if (stored !== null) { form.elements["shib_idp_ls_value.shib_idp_session_ss"].value = stored; }
            form.elements["shib_idp_ls_success.shib_idp_session_ss"].value = "true";
          }
          form.submit();
        }
        </script></head>
        <body onload="doLoad()">
          <noscript><p><strong>Note:</strong> Since your browser does not support JavaScript, you must press the Continue button once to proceed.</p></noscript>
          <form action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)" method="post">
            <input type="hidden" name="csrf_token" value="\(csrf)">
            <input name="shib_idp_ls_exception.shib_idp_session_ss" type="hidden">
            <input name="shib_idp_ls_success.shib_idp_session_ss" type="hidden" value="false">
            <input name="shib_idp_ls_value.shib_idp_session_ss" type="hidden">
            <input name="shib_idp_ls_supported" type="hidden">
            <input name="_eventId_proceed" type="hidden">
            <noscript><input type="submit" value="Continue"></noscript>
          </form>
        </body>
        </html>

        """
    }

    /// User ID and password on one page, as many IdPs have them.
    static func combinedForm(execution: String, csrf: String, error: String? = nil) -> String {
        HTML.page(
            title: "Sign in",
            body: """
                  <h1>Sign in to Demo University</h1>
                  \(error.map { "<p class=\"login-error\">\(HTML.escape($0))</p>" } ?? "")
                  <form id="login" method="post" action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    <label for="username">User ID</label>
                    <input id="username" name="j_username" type="text" autocomplete="username" value="">
                    <label for="password">Password</label>
                    <input id="password" name="j_password" type="password" autocomplete="current-password">
                    <label><input type="checkbox" name="donotcache" value="1"> Do not remember my login</label>
                    <button type="submit" name="_eventId_proceed" value="">Sign in</button>
                  </form>
                """)
    }

    /// The one-time-code page of a user with two-factor authentication.
    static func oneTimeCodeForm(execution: String, csrf: String, error: String? = nil) -> String {
        HTML.page(
            title: "Two-factor authentication",
            body: """
                  <h1>Enter your one-time code</h1>
                  <p>Open your authenticator app and enter the 6-digit code for Demo University.</p>
                  \(error.map { "<p class=\"totp-error\">\(HTML.escape($0))</p>" } ?? "")
                  <form id="login-totp" method="post" action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    <label for="code">Code</label>
                    <input id="code" name="j_tokenNumber" type="text" inputmode="numeric" autocomplete="one-time-code">
                    <button type="submit" name="_eventId_proceed" value="">Verify</button>
                    <button type="submit" name="_eventId_cancel" value="">Cancel</button>
                  </form>
                """)
    }

    /// Shibboleth's attribute-release page: which attributes go to the portal, how long to
    /// remember the answer, and two buttons of which only the clicked one may be sent.
    static func consent(execution: String, csrf: String, user: DemoUser) -> String {
        HTML.page(
            title: "Information Release",
            body: """
                  <h1>Information Release</h1>
                  <p>You are about to access the service <strong>Demo University Portal</strong>.</p>
                  <form id="consent" method="post" action="/idp/profile/SAML2/Redirect/SSO?execution=\(execution)">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                    <table class="attributes">
                      <tr><th>displayName</th><td>\(HTML.escape(user.displayName))</td></tr>
                      <tr><th>eduPersonPrincipalName</th><td>\(HTML.escape(user.username))@demo.unitool.invalid</td></tr>
                    </table>
                    <fieldset>
                      <label><input type="radio" name="_shib_idp_consentOptions" value="_shib_idp_doNotRememberConsent"> Ask me again at next login</label>
                      <label><input type="radio" name="_shib_idp_consentOptions" value="_shib_idp_rememberConsent" checked> Ask me again if information changes</label>
                      <label><input type="radio" name="_shib_idp_consentOptions" value="_shib_idp_globalConsent"> Do not ask me again</label>
                    </fieldset>
                    <button type="submit" name="_eventId_AttributeReleaseRejected" value="Reject">Reject</button>
                    <button type="submit" name="_eventId_proceed" value="Accept">Accept</button>
                  </form>
                """)
    }

    /// "Where are you from?": the SP's discovery service, a select of institutions.
    static func discovery(target: String) -> String {
        HTML.page(
            title: "Where are you from?",
            body: """
                  <h1>Where are you from?</h1>
                  <form id="discovery" method="get" action="/Shibboleth.sso/Login">
                    <input type="hidden" name="target" value="\(HTML.escape(target))">
                    <label for="idp">Your institution</label>
                    <select id="idp" name="entityID">
                      <option value="" selected>Choose your institution…</option>
                      <option value="https://idp.example-college.invalid/idp">Example College</option>
                      <option value="\(DemoUniversity.idpEntityID)">Demo University</option>
                      <option value="https://sso.other-university.invalid/idp">Other University</option>
                    </select>
                    <label><input type="checkbox" name="remember" value="1"> Remember my choice</label>
                    <button type="submit" name="select" value="Continue">Continue</button>
                  </form>
                """)
    }

    /// A redirect by `<meta http-equiv="refresh">`, as some SPs send the browser to the IdP.
    static func metaRefresh(to location: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(HTML.escape(location))"><title>Redirecting – Demo University</title></head>
        <body><p>Taking you to the login page. <a href="\(HTML.escape(location))">Continue</a> if nothing happens.</p></body>
        </html>

        """
    }

    static func idpError(_ message: String) -> String {
        HTML.page(title: "Login error", body: "<h1>Login error</h1>\n<p class=\"idp-error\">\(HTML.escape(message))</p>")
    }

    // MARK: SP

    static func home(user: DemoUser) -> String {
        HTML.page(
            title: "Home",
            body: """
                  <h1>Welcome, \(HTML.escape(user.displayName))</h1>
                  <ul class="tiles">
                    <li><a href="/courses">My courses</a></li>
                    <li><a href="/exams">My exams</a></li>
                    <li><a href="/grades">Grades</a></li>
                    <li><a href="/library/loans">My loans</a></li>
                    <li><a href="/library">Library</a></li>
                    <li><a href="/news">News</a></li>
                    <li><a href="/terms">Terms of use</a></li>
                  </ul>
                """, signedIn: user.displayName)
    }

    static func grades(user: DemoUser, term: DemoTerm, terms: [DemoTerm] = DemoData.terms, layoutChanged: Bool) -> String {
        let options = terms.map { candidate in
            let selected = candidate.id == term.id ? " selected" : ""
            let current = candidate.id == DemoData.currentTerm ? " (current)" : ""
            return "<option value=\"\(candidate.id)\"\(selected)>\(HTML.escape(candidate.label))\(current)</option>"
        }.joined(separator: "\n          ")
        let grades = user.grades[term.id] ?? (DemoData.terms.contains { $0.id == term.id } ? [] : user.grades[DemoData.terms[0].id] ?? [])
        let table: String
        if grades.isEmpty {
            table = "<p class=\"no-grades\">No grades have been recorded for this term.</p>"
        } else {
            let courseClass = layoutChanged ? "course-title" : "course"
            let rows = grades.map { grade in
                """
                      <tr>
                        <td class="\(courseClass)">\(HTML.escape(grade.course))</td>
                        <td class="code">\(grade.code)</td>
                        <td class="credits">\(formatNumber(grade.credits))</td>
                        <td class="grade">\(grade.grade.map(HTML.escape) ?? "<em>in progress</em>")</td>
                        <td class="points">\(grade.points.map(formatNumber) ?? "–")</td>
                        <td class="date">\(grade.date.map(formatDate) ?? "")</td>
                      </tr>
                """
            }.joined(separator: "\n")
            table = """
                  <table id="grades" class="data">
                    <thead>
                      <tr><th>Course</th><th>Code</th><th>Credits</th><th>Grade</th><th>Points</th><th>Date</th></tr>
                    </thead>
                    <tbody>
                \(rows)
                    </tbody>
                  </table>
                """
        }
        return HTML.page(
            title: "Grades",
            body: """
                  <h1>Grades</h1>
                  <form id="term-form" method="get" action="/grades">
                    <label for="term">Term</label>
                    <select id="term" name="term">
                      \(options)
                    </select>
                    <button type="submit">Show</button>
                  </form>
                  <h2 class="term-title">\(HTML.escape(term.label))</h2>
                \(table)
                """, signedIn: user.displayName)
    }

    /// The terms of use: short, but real text, so that `unitool terms show` has something to show.
    static func terms(version: String) -> String {
        """
        <h1>Terms of use</h1>
        <p class="terms-version">Version \(HTML.escape(version))</p>
        <main id="terms">
        <p>1. Demo University is a demonstration portal bundled with unitool. Use it for testing unitool only.</p>
        <p>2. The grades, courses and loans shown here belong to invented students.</p>
        <p>3. Scripts and front ends that act for a student must show these terms and ask again whenever
        their version changes.</p>
        </main>
        """
    }

    static func notFound(_ what: String, user: DemoUser? = nil) -> String {
        HTML.page(title: "Not found", body: "<h1>Not found</h1>\n<p>\(HTML.escape(what))</p>", signedIn: user?.displayName)
    }

    /// Credits with a decimal comma (`4,5`), as many European portals print them.
    static func formatNumber(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value).replacingOccurrences(of: ".", with: ",")
    }

    /// Dates as `22.11.2026`, the continental style: the recipe converts them to ISO 8601.
    static func formatDate(_ iso: String) -> String {
        let parts = iso.split(separator: "-")
        return parts.count == 3 ? "\(parts[2]).\(parts[1]).\(parts[0])" : iso
    }
}
