import Foundation
import Testing
import UniToolKit

/// The pure decisions of a login done in a browser: what the tab shows (`BrowserLoginWatch`), a
/// recipe's `browser: true`, and a form login that meets a page only a browser can fill.
@Suite("Browser login decisions, without a browser")
struct BrowserLoginDecisionTests {
    static let portalText = """
        portal: p
        base_url: https://portal.example.edu
        idp_url: https://idp.example.edu
        login:
          pages:
            - name: password
              when: "//form[@id='login']"
              fill: { j_password: "{{password}}" }
          done_when: { xpath: "//a[@id='logout']" }
        """

    static let portal = try! PortalRecipe.load(file: "portal.yaml", text: portalText)

    @Test("signed in only on one of the portal's own pages that no rule takes for a login and that passes done_when")
    func verdicts() {
        let watch = BrowserLoginWatch(portal: Self.portal)
        let signedIn = #"<html><body><a id="logout" href="/logout">Log out</a></body></html>"#
        #expect(watch.verdict(url: "https://portal.example.edu/home", contentType: "text/html", markup: signedIn) == .signedIn)
        // The same markup elsewhere (the IdP, a look-alike) is not the portal.
        #expect(
            watch.verdict(url: "https://idp.example.edu/home", contentType: "text/html", markup: signedIn)
                == .waiting("for you to sign in at idp.example.edu"))
        guard
            case .waiting(let what) = watch.verdict(
                url: "https://portal.example.edu/home", contentType: "text/html", markup: "<p>Welcome</p>")
        else {
            Issue.record("a portal page without the logout link is not signed in")
            return
        }
        #expect(what.contains("xpath"))
        // A login page of the portal's own (a rule matches) is still signing in, logout link or not.
        let loginPage = #"<form id="login"></form><a id="logout">x</a>"#
        #expect(
            watch.verdict(url: "https://portal.example.edu/login", contentType: "text/html", markup: loginPage)
                == .waiting("for you to sign in to p"))
        #expect(watch.verdict(url: "about:blank", contentType: "", markup: "") == .waiting("for the login page to open"))
    }

    @Test("browser: true needs no page rules but needs done_when; without it, a login needs rules")
    func browserOnlyRecipe() throws {
        let browserOnly = try PortalRecipe.load(
            file: "portal.yaml",
            text: """
                portal: p
                base_url: https://portal.example.edu
                login:
                  browser: true
                  done_when: { xpath: "//a[@id='logout']" }
                """)
        #expect(browserOnly.login.browserOnly)
        #expect(browserOnly.login.pages.isEmpty)
        #expect(!Self.portal.login.browserOnly)
        #expect(throws: UniToolError.self) {
            try PortalRecipe.load(file: "portal.yaml", text: "portal: p\nbase_url: https://portal.example.edu\nlogin:\n  browser: true\n")
        }
        #expect(throws: UniToolError.self) {
            try PortalRecipe.load(file: "portal.yaml", text: "portal: p\nbase_url: https://portal.example.edu\nlogin:\n  start: /\n")
        }
    }

    @Test("a login page built by script, off the portal, fails with the browser hint; on the portal it is an unrecognised portal page")
    func scriptBuiltPage() {
        var machine = LoginStateMachine(recipe: Self.portal.login, portal: "p")
        let scripted = LoginStateMachine.Observation(
            matchedRule: nil, isOnPortal: false, doneConditionHolds: false, summary: "https://login.example.com/ (no forms)",
            isScriptBuilt: true)
        guard case .failed(let error) = machine.decide(scripted) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .loginFailed)
        #expect(error.hint?.contains("auth login --browser") == true)
        var other = LoginStateMachine(recipe: Self.portal.login, portal: "p")
        let plain = LoginStateMachine.Observation(
            matchedRule: nil, isOnPortal: false, doneConditionHolds: false, summary: "https://login.example.com/ (no forms)")
        guard case .failed(let unrecognised) = other.decide(plain) else {
            Issue.record("expected a failure")
            return
        }
        #expect(unrecognised.kind == .layoutChanged)
    }
}
