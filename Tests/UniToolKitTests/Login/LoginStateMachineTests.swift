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
                - name: password
                  when: "//form[@id='login-password']"
                  fill: { j_password: "{{password}}" }
                - name: saml post
                  when: "//input[@name='SAMLResponse']"
                  auto_submit: true
                - name: mfa
                  when: "//form[@id='otp']"
                  fail: mfa_required
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
        #expect(rule(of: machine.decide(observe(2))) == "password")
        #expect(rule(of: machine.decide(observe(3))) == "saml post")
        guard case .loggedIn = machine.decide(observe(nil, onPortal: true)) else {
            Issue.record("expected loggedIn")
            return
        }
    }

    @Test("an error page is a wrong-credentials failure, not a layout change")
    func wrongPassword() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        _ = machine.decide(observe(1))
        _ = machine.decide(observe(2))
        guard case .failed(let error) = machine.decide(observe(0)) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .wrongCredentials)
    }

    @Test("MFA, wrong password and an unknown page are three different errors")
    func distinctFailures() {
        var mfa = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .failed(let mfaError) = mfa.decide(observe(4)) else { Issue.record("expected failure"); return }
        #expect(mfaError.kind == .mfaRequired)

        var unknown = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .failed(let unknownError) = unknown.decide(observe(nil, onPortal: false)) else {
            Issue.record("expected failure")
            return
        }
        #expect(unknownError.kind == .layoutChanged)
        #expect(unknownError.message.contains("rules tried: wrong password, user id, password, saml post, mfa"))
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
        for _ in 0..<7 { last = machine.decide(observe(3)) }
        guard case .failed(let error) = last else {
            Issue.record("expected failure")
            return
        }
        #expect(error.kind == .loginFailed)
        #expect(error.message.contains("6 pages"))
    }
}
