import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// The `cas` platform's fail rules are right wherever they are tried (issue 49): the order rules
/// are tried in changes (every `fail:` rule before every rule that fills a password, a portal's
/// own rules before the platform's), so a fail rule may not lean on a rule before it to keep it
/// off a page. Held to every CAS fixture, of every product and version
/// (`Fixtures/platforms/cas/*`).
@Suite("The cas platform's fail rules do not depend on their place among the rules")
struct CASRuleOrderTests {
    static func casPages() -> [PlatformFixturesTests.LoginPage] {
        PlatformFixturesTests.loginPages().filter { $0.platform == "cas" }
    }

    static func isFail(_ rule: PageRule) -> Bool {
        if case .fail = rule.action { return true }
        return false
    }

    @Test("there are CAS fixtures of each product: Apereo 6.6 and 7.1, django-cas-server 3.1")
    func products() {
        let folders = Set(Self.casPages().map { $0.folder.lastPathComponent })
        #expect(folders == ["6.6", "7.1", "django-cas-server-3.1"])
    }

    @Test(
        "a page the login goes on from (a form to fill, a warn page to confirm) matches no fail rule; an error page's own fail rule is the first fail rule that matches it",
        arguments: casPages())
    func failRulesAnywhere(_ page: PlatformFixturesTests.LoginPage) throws {
        let recipe = try PlatformFixturesTests.loginRecipe(page)
        let bytes = Array(try Data(contentsOf: page.folder.appendingPathComponent("\(page.state).html")))
        let document = try Document(html: bytes, url: "https://idp.example.edu/login", charsetOverride: "UTF-8")
        let fails = recipe.pages.filter(Self.isFail)
        let matchingFails = try fails.filter { try document.evaluate($0.when).booleanValue }.map(\.name)
        let expected = recipe.pages.first { $0.name == page.rule }
        if let expected, Self.isFail(expected) {
            #expect(matchingFails.first == expected.name, "fail rules matching, in their order: \(matchingFails)")
        } else {
            #expect(matchingFails.isEmpty, "a fail rule would stop a login that goes on here: \(matchingFails)")
        }
        // Tried with every fail rule first, the page still gets the rule written for it.
        let failsFirst = fails + recipe.pages.filter { !Self.isFail($0) }
        let matched = try failsFirst.first { try document.evaluate($0.when).booleanValue }
        #expect(matched?.name == page.rule)
    }

    @Test("the pages that show the login form with an error get a fail rule, so the password is never sent to them")
    func errorWithLoginForm() throws {
        var seen = 0
        for page in Self.casPages() {
            let recipe = try PlatformFixturesTests.loginRecipe(page)
            let bytes = Array(try Data(contentsOf: page.folder.appendingPathComponent("\(page.state).html")))
            let document = try Document(html: bytes, url: "https://idp.example.edu/login", charsetOverride: "UTF-8")
            guard try !document.select("//form//input[@type='password']").isEmpty,
                let rule = recipe.pages.first(where: { $0.name == page.rule }), Self.isFail(rule)
            else { continue }
            seen += 1
            // The sign-in rule knows the form too: the fail rule must be tried before it.
            let sender = try recipe.pages.firstIndex { try $0.sendsSecret && document.evaluate($0.when).booleanValue }
            let failing = try #require(recipe.pages.firstIndex { $0.name == rule.name })
            #expect(sender.map { failing < $0 } ?? true, "\(page.testDescription): tried in order \(recipe.pages.map(\.name))")
        }
        // django-cas-server's "service not allowed" and wrong password, Apereo's wrong password
        // and locked panel (6.6 and 7.1).
        #expect(seen >= 6)
    }
}
