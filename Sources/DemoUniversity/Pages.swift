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
                    <li><a href="/grades">Grades</a></li>
                    <li><a href="/terms">Terms of use</a></li>
                  </ul>
                """, signedIn: user.displayName)
    }

    static func grades(user: DemoUser, term: DemoTerm, layoutChanged: Bool) -> String {
        let options = DemoData.terms.map { candidate in
            let selected = candidate.id == term.id ? " selected" : ""
            let current = candidate.id == DemoData.currentTerm ? " (current)" : ""
            return "<option value=\"\(candidate.id)\"\(selected)>\(HTML.escape(candidate.label))\(current)</option>"
        }.joined(separator: "\n          ")
        let grades = user.grades[term.id] ?? []
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
