import Foundation
import Testing

@testable import UniToolKit

/// A login met while fetching an address ends when the browser is back at that address (issue
/// 34, part 4): `done_when` is written for the start page, and a terms API behind the login lands
/// on `/api/terms`, not there.
@Suite("A login met while fetching a page is done back at that page")
struct RequestedPageTests {
    static let recipe: LoginRecipe = {
        let text = """
            portal: p
            base_url: https://portal.example.edu
            login:
              pages:
                - name: password
                  when: "//form[@id='login']"
                  fill: { j_password: "{{password}}" }
              done_when: { url: "^/campus" }
            """
        return try! PortalRecipe.load(file: "portal.yaml", text: text).login
    }()

    func observation(doneHolds: Bool, requested: Bool, rule: Int? = nil) -> LoginStateMachine.Observation {
        .init(
            matchedRule: rule, isOnPortal: true, doneConditionHolds: doneHolds, summary: "https://portal.example.edu/api/terms",
            doneFailure: doneHolds ? nil : "url \"^/campus\" does not match \"/api/terms\"", isRequestedPage: requested)
    }

    @Test("back at the requested page, a failing done_when is no error: logged in")
    func backAtRequested() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .loggedIn = machine.decide(observation(doneHolds: false, requested: true)) else {
            Issue.record("expected logged in")
            return
        }
    }

    @Test("a page at the requested address that refreshes is on its way to the login, not the answer")
    func refreshingThere() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        var page = observation(doneHolds: false, requested: true)
        page.refreshes = true
        guard case .followRefresh = machine.decide(page) else {
            Issue.record("expected the refresh to be followed")
            return
        }
    }

    @Test("elsewhere on the portal, a failing done_when is still the recipe's error")
    func elsewhere() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .failed(let error) = machine.decide(observation(doneHolds: false, requested: false)) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.kind == .layoutChanged && error.message.contains("done_when"))
    }

    @Test("a login page at the requested address is still a login page")
    func loginPageThere() {
        var machine = LoginStateMachine(recipe: Self.recipe, portal: "p")
        guard case .act(let rule) = machine.decide(observation(doneHolds: false, requested: true, rule: 0)) else {
            Issue.record("expected the rule to act")
            return
        }
        #expect(rule.name == "password")
    }

    @Test(
        "the same address is the same origin and path, whatever the query; another path or origin is not",
        arguments: [
            ("https://portal.example.edu/api/terms", "https://portal.example.edu/api/terms", true),
            ("https://portal.example.edu/api/terms?ticket=1", "https://portal.example.edu/api/terms", true),
            ("https://PORTAL.example.edu:443/api/terms", "https://portal.example.edu/api/terms", true),
            ("https://portal.example.edu/api/terms/", "https://portal.example.edu/api/terms", false),
            ("https://portal.example.edu/campus", "https://portal.example.edu/api/terms", false),
            ("http://portal.example.edu/api/terms", "https://portal.example.edu/api/terms", false),
            ("https://lms.example.edu/api/terms", "https://portal.example.edu/api/terms", false),
            ("https://portal.example.edu/a%3Ab", "https://portal.example.edu/a:b", true),
        ])
    func sameAddress(page: String, requested: String, same: Bool) {
        #expect(LoginFlow.isSameAddress(URL(string: page)!, URL(string: requested)!) == same)
    }

    @Test(
        "the page the login landed on is the one asked for when its query has the same values, in any order or encoding",
        arguments: [
            ("https://portal.example.edu/grades?term=2026-fall", "https://portal.example.edu/grades?term=2026-fall", true),
            ("https://portal.example.edu/grades?b=2&a=1", "https://portal.example.edu/grades?a=1&b=2", true),
            ("https://portal.example.edu/grades?next=%2Fhome", "https://portal.example.edu/grades?next=/home", true),
            ("https://portal.example.edu:443/grades?term=x", "https://portal.example.edu/grades?term=x", true),
            ("https://portal.example.edu/grades", "https://portal.example.edu/grades?term=2026-fall", false),
            ("https://portal.example.edu/grades?term=2025-fall", "https://portal.example.edu/grades?term=2026-fall", false),
            ("https://portal.example.edu/home?term=2026-fall", "https://portal.example.edu/grades?term=2026-fall", false),
        ])
    func sameRequest(page: String, requested: String, same: Bool) {
        #expect(LoginFlow.isSameRequest(URL(string: page)!, URL(string: requested)!) == same)
    }
}
