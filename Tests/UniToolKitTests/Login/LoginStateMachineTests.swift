import Testing
import UniToolKit

@Suite("Login state machine, page by page, without a network")
struct LoginStateMachineTests {
    static let recipe: LoginRecipe = {
        let text = """
            portal: p
            base_url: https://portal.example.edu
            login:
              max_steps: 6
              pages:
                - name: wrong password
                  when: "//p[@class='login-error']"
                  fail: wrong_credentials
                - name: user id
                  when: "//form[@id='login-id']"
                  fill: { j_username: "{{username}}" }
                - name: saml post
                  when: "//input[@name='SAMLResponse']"
                  auto_submit: true
                - name: mfa
                  when: "//form[@id='otp']"
                  fail: mfa_required
                - name: password
                  when: "//form[@id='login-password']"
                  fill: { j_password: "{{password}}" }
            """
        return try! PortalRecipe.load(file: "portal.yaml", text: text).login
    }()

    func observe(_ rule: Int?, onPortal: Bool = false, done: Bool = true) -> LoginStateMachine.Observation {
        .init(matchedRule: rule, isOnPortal: onPortal, doneConditionHolds: done, summary: "https://x/ (test page)")
    }

    func rule(of decision: LoginStateMachine.Decision) -> String? {
        if case .act(let rule) = decision { return rule.name }
        return nil
    }

    @Test("user id, password, SAML post, then the portal: logged in")
    func happyPath() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        #expect(rule(of: machine.decide(observe(1))) == "user id")
        #expect(rule(of: machine.decide(observe(4))) == "password")
        #expect(rule(of: machine.decide(observe(2))) == "saml post")
        guard case .loggedIn = machine.decide(observe(nil, onPortal: true)) else {
            Issue.record("expected loggedIn")
            return
        }
    }

    @Test("an error page is a wrong-credentials failure, not a layout change")
    func wrongPassword() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        _ = machine.decide(observe(1))
        _ = machine.decide(observe(4))
        guard case .failed(let error) = machine.decide(observe(0)) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .wrongCredentials)
    }

    @Test("MFA, wrong password and an unknown page are three different errors")
    func distinctFailures() {
        var mfa = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .failed(let mfaError) = mfa.decide(observe(3)) else {
            Issue.record("expected failure")
            return
        }
        #expect(mfaError.kind == .mfaRequired)

        var unknown = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .failed(let unknownError) = unknown.decide(observe(nil, onPortal: false)) else {
            Issue.record("expected failure")
            return
        }
        #expect(unknownError.kind == .layoutChanged)
        #expect(unknownError.message.contains("rules tried: wrong password, user id, saml post, mfa, password"))
    }

    @Test("an answer for a script (401, 403, JSON) where a login page was expected is named so, not as a changed layout")
    func scriptAnswerIsNoLayoutChange() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        let answer = LoginStateMachine.Observation(
            matchedRule: nil, isOnPortal: false, doneConditionHolds: true,
            summary: "https://idp.example/ (HTTP 401, application/json, 24 bytes, no title, no forms)", isScriptAnswer: true)
        guard case .failed(let error) = machine.decide(answer) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .loginFailed)
        #expect(error.message.contains("an answer for a script, not a page") && error.message.contains("HTTP 401, application/json"))
        #expect(
            error.hint?.contains("--trace") == true && error.hint?.contains("login.pages") == false
                && error.hint?.contains("headers:") == true)
    }

    @Test("a portal page that fails the done test is not a successful login")
    func doneConditionMustHold() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .failed(let error) = machine.decide(observe(nil, onPortal: true, done: false)) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .layoutChanged)
    }

    @Test("the same form twice in a row means the portal rejected it")
    func repeatedFormIsDetected() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        _ = machine.decide(observe(1))
        guard case .failed(let error) = machine.decide(observe(1)) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .loginFailed)
    }

    @Test("a login that never ends is cut off after max_steps")
    func stepLimit() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        var last: LoginStateMachine.Decision = .loggedIn
        for _ in 0..<7 { last = machine.decide(observe(2)) }
        guard case .failed(let error) = last else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .loginFailed)
        #expect(error.message.contains("6 pages"))
    }

    static let aroundTheLogin: LoginRecipe = {
        let text = """
            portal: p
            base_url: https://portal.example.edu
            login:
              pages:
                - name: reminder
                  when: "//a[@id='later']"
                  follow: "//a[@id='later']"
                  after_login: true
                - name: timed out
                  when: "//h1[@id='timeout']"
                  restart: true
                - name: locked
                  when: "//p[@id='locked']"
                  fail: account_locked
                - name: password
                  when: "//form[@id='login-password']"
                  fill: { j_password: "{{password}}" }
            """
        return try! PortalRecipe.load(file: "portal.yaml", text: text).login
    }()

    @Test("after the SAML response, only after_login rules act; another login page is a second login; fail rules always speak")
    func afterDelivery() {
        var machine = LoginStateMachine(recipe: Self.aroundTheLogin, portal: "p")
        #expect(rule(of: machine.decide(observe(3))) == "password")
        machine.noteDelivered()
        #expect(rule(of: machine.decide(observe(0, onPortal: true))) == "reminder")
        guard case .failed(let error) = machine.decide(observe(3)) else {
            Issue.record("a password page after the SAML response was acted on")
            return
        }
        #expect(error.kind == .loginFailed && error.message.contains("login again right after"))
        var other = LoginStateMachine(recipe: Self.aroundTheLogin, portal: "p")
        other.noteDelivered()
        guard case .failed(let locked) = other.decide(observe(2)) else {
            Issue.record("a fail rule after the SAML response was not honoured")
            return
        }
        #expect(locked.kind == .accountLocked)
    }

    @Test("a restart happens once per login; the same link page twice in a row is a loop")
    func restartOnceAndLinkLoops() {
        var machine = LoginStateMachine(recipe: Self.aroundTheLogin, portal: "p")
        #expect(rule(of: machine.decide(observe(1, onPortal: true))) == "timed out")
        #expect(rule(of: machine.decide(observe(3))) == "password")
        guard case .failed(let again) = machine.decide(observe(1, onPortal: true)) else {
            Issue.record("a second restart was allowed")
            return
        }
        #expect(again.message.contains("again after a fresh login"))
        var links = LoginStateMachine(recipe: Self.aroundTheLogin, portal: "p")
        #expect(rule(of: links.decide(observe(0, onPortal: true))) == "reminder")
        guard case .failed = links.decide(observe(0, onPortal: true)) else {
            Issue.record("following a link back to the same page was not stopped")
            return
        }
    }

    @Test("a portal page that fails done_when is named as such, with the test that failed")
    func doneWhenFailureNamed() {
        var machine = LoginStateMachine(recipe: Self.aroundTheLogin, portal: "p")
        let page = LoginStateMachine.Observation(
            matchedRule: nil, isOnPortal: true, doneConditionHolds: false, summary: "https://x/campus/ (test page)",
            doneFailure: "url \"^/campus$\" does not match \"/campus/\"")
        guard case .failed(let error) = machine.decide(page) else {
            Issue.record("a page failing done_when counted as logged in")
            return
        }
        #expect(error.message.contains("fails login.done_when") && error.message.contains("does not match \"/campus/\""))
    }

    @Test("after_login rules cannot send a password, and a rule takes one action")
    func afterLoginValidation() {
        let base = "portal: p\nbase_url: https://portal.example.edu\nlogin:\n  pages:\n"
        #expect {
            try PortalRecipe.load(
                file: "portal.yaml",
                text: base + "    - { when: \"//form\", fill: { p: \"{{password}}\" }, after_login: true }\n")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
        #expect {
            try PortalRecipe.load(file: "portal.yaml", text: base + "    - { when: \"//a\", follow: \"//a\", restart: true }\n")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("a follow rule that matches again says where its link went: back to the same page, or to another one")
    func followSaysWhereItWent() throws {
        let recipe = try PortalRecipe.load(
            file: "portal.yaml",
            text: """
                portal: p
                base_url: https://portal.example.edu
                login:
                  pages:
                    - name: login link
                      when: "//a[@id='login-link']"
                      follow: "//a[@id='login-link']"
                """
        ).login
        func page(_ summary: String) -> LoginStateMachine.Observation {
            .init(matchedRule: 0, isOnPortal: true, doneConditionHolds: false, summary: summary)
        }
        var elsewhere = LoginStateMachine(recipe: recipe, portal: "p")
        #expect(rule(of: elsewhere.decide(page("https://portal.example.edu/ (Home)"))) == "login link")
        guard case .failed(let error) = elsewhere.decide(page("https://other.example.net/ (Welcome)")) else {
            Issue.record("a second match did not fail")
            return
        }
        #expect(!error.message.contains("led back to the same page"), "\(error.message)")
        #expect(error.message.contains("led to https://other.example.net/ (Welcome)"), "\(error.message)")
        #expect(error.message.contains("on https://portal.example.edu/ (Home)"), "\(error.message)")
        var same = LoginStateMachine(recipe: recipe, portal: "p")
        _ = same.decide(page("https://portal.example.edu/ (Home)"))
        guard case .failed(let loop) = same.decide(page("https://portal.example.edu/ (Home)")) else {
            Issue.record("a second match did not fail")
            return
        }
        #expect(loop.message.contains("led back to the same page: https://portal.example.edu/ (Home)"), "\(loop.message)")
    }
}
