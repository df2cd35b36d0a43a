import Foundation
import Testing

@testable import UniToolKit

/// A login rule's `tell:`: what the person hears when the rule acted on their behalf (issue 50:
/// an attribute release accepted without a word).
@Suite("A login rule that acts for the person says so")
struct LoginRuleTellTests {
    func portal(_ rule: String) throws -> PortalRecipe {
        try PortalRecipe.load(
            file: "portal.yaml",
            text: """
                portal: p
                base_url: https://portal.example.edu
                login:
                  pages:
                \(rule)
                """)
    }

    @Test("tell: is read with the rule, and only a rule that acts may say it")
    func parsed() throws {
        let consent = try portal(
            """
                - name: attribute release
                  when: "//form[@id='consent']"
                  fill: { consent: "once" }
                  tell: "accepted the release of your details for this login"
            """)
        #expect(consent.login.pages.first?.tell == "accepted the release of your details for this login")
        for (rule, words) in [
            ("    - { name: f, when: \"//p\", fail: consent_required, tell: \"x\" }", "a fail rule says why already"),
            ("    - { name: e, when: \"//p\", auto_submit: true, tell: \"  \" }", "say what the person is told"),
        ] {
            #expect {
                try portal(rule)
            } throws: { error in
                (error as? UniToolError).map { $0.kind == .recipeInvalid && ($0.message + ($0.hint ?? "")).contains(words) } ?? false
            }
        }
    }

    @Test("the bundled Shibboleth rule that accepts an attribute release tells the person")
    func shibbolethTells() throws {
        let text = "portal: p\nbase_url: https://portal.example.edu\nlogin:\n  use: shibboleth-idp\n"
        let rules = try PortalRecipe.load(file: "portal.yaml", text: text).login.pages
        let release = try #require(rules.first { $0.name == "attribute release" })
        #expect(release.tell?.contains("for this login only") == true)
    }
}
