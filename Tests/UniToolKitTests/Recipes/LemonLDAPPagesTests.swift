import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// The `lemonldap` platform recipe against the pages the real LemonLDAP::NG 2.16.1 served
/// (saved by Tests/EndToEndTests/Interop/lemonldap/check.sh, described in its PAGES.md): each
/// page is known by the rule written for it, and the error pages give the number that LemonLDAP's
/// message catalog is looked up by.
@Suite("The lemonldap platform recipe on LemonLDAP::NG's own pages")
struct LemonLDAPPagesTests {
    static let pages = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/lemonldap/pages")

    static let portal: PortalRecipe = {
        let file = Fixtures.root.appendingPathComponent("Examples/recipes/lemonldap/portal.yaml")
        return try! PortalRecipe.load(file: file.path, text: try! String(contentsOf: file, encoding: .utf8))
    }()

    func document(_ name: String) throws -> Document {
        try Document(html: Array(try Data(contentsOf: Self.pages.appendingPathComponent(name))), url: "http://127.0.0.1:18080/")
    }

    /// The first rule whose `when` matches, as the login flow picks it.
    func rule(for name: String) throws -> PageRule? {
        let page = try document(name)
        return try Self.portal.login.pages.first { try page.evaluate($0.when).booleanValue }
    }

    @Test(
        "each saved page is known by its rule",
        arguments: [
            ("login.html", "sign in"), ("login-error.html", "wrong password"), ("totp.html", "one-time code"),
            ("totp-error.html", "wrong one-time code"), ("saml-post.html", "saml post"), ("saml-post-sso.html", "saml post"),
            ("saml-post-totp.html", "saml post"), ("login-token-reused.html", "error"), ("login-without-pdata.html", "error"),
            ("webauthn.html", "security key"),
        ])
    func known(page: String, ruleName: String) throws {
        #expect(try rule(for: page)?.name == ruleName)
    }

    @Test("LemonLDAP's own portal menu after a login is no login page")
    func menu() throws {
        #expect(try rule(for: "idp-menu.html") == nil)
    }

    @Test(
        "an error page gives the number its message is looked up by, and the catalog's address and key",
        arguments: [("login-error.html", "5"), ("totp-error.html", "96"), ("login-token-reused.html", "82")])
    func messageNumber(page: String, number: String) throws {
        let matched = try #require(try rule(for: page))
        guard case .fail(_, let messageXPath) = matched.action, let messageXPath else {
            Issue.record("\(matched.name) is no fail rule with a message")
            return
        }
        #expect(try document(page).evaluate(messageXPath).stringValue == number)
        let catalog = try #require(matched.messageCatalog)
        #expect(try catalog.fetch.render(["language": "en"]) == "/static/languages/en.json")
        #expect(try catalog.key.render(["message": number]) == "PE\(number)")
    }

    @Test("the sign-in form keeps LemonLDAP's hidden fields and fills user and password")
    func signInForm() throws {
        let matched = try #require(try rule(for: "login.html"))
        guard case .fill(let values, _) = matched.action else {
            Issue.record("sign in does not fill")
            return
        }
        #expect(values.map(\.0) == ["user", "password"])
        let form = try #require(try document("login.html").select("//form[@id='lform']").first)
        let names = try form.select(".//input[@type='hidden']").compactMap { $0.attribute("name") }
        #expect(Set(names).isSuperset(of: ["url", "skin", "token"]), "\(names)")
    }
}
