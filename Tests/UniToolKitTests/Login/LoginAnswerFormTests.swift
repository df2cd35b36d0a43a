import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Which pages carry the login service's answer to the portal (`LoginFlow.carriesAnswer`): after
/// such a page is submitted, another login page means the portal did not keep the session. SAML's
/// POST page did; OpenID Connect's form_post page (issue 49) does too, and the OP's own pages,
/// which also carry a state, do not.
@Suite("The pages that carry the login's answer to the portal")
struct LoginAnswerFormTests {
    static let fixtures = Fixtures.root.appendingPathComponent("Fixtures/platforms")

    func carriesAnswer(_ relativePath: String) throws -> Bool {
        let bytes = Array(try Data(contentsOf: Self.fixtures.appendingPathComponent(relativePath)))
        let document = try Document(html: bytes, url: "https://idp.example.edu/login", charsetOverride: "UTF-8")
        return try document.evaluate(LoginFlow.carriesAnswer).booleanValue
    }

    @Test(
        "SAML's POST page and OpenID Connect's form_post pages (code or id_token with state) carry it",
        arguments: [
            "simplesamlphp/1.19/saml-post.html", "oidc/form-post-1.0/spec-id-token.html", "oidc/form-post-1.0/idpyoidc-code.html",
            "oidc/form-post-1.0/authlib-hybrid.html", "oidc/form-post-1.0/lemonldap-code.html",
        ])
    func answers(_ page: String) throws {
        #expect(try carriesAnswer(page))
    }

    @Test(
        "an OP's error posted back, its consent page (state, no code), its login page and its error page do not",
        arguments: [
            "oidc/form-post-1.0/error-access-denied.html", "oidc/django-oidc-provider-0.9/consent.html",
            "oidc/django-oidc-provider-0.9/login.html", "oidc/django-oidc-provider-0.9/error.html", "simplesamlphp/1.19/login.html",
        ])
    func notAnswers(_ page: String) throws {
        #expect(try !carriesAnswer(page))
    }

    @Test("a page where the person types a code beside a hidden state (a provider's one-time-code page) carries no answer")
    func typedCodeIsNoAnswer() throws {
        let page = """
            <html><body><form method="post" action="/u/mfa-otp-challenge"><input type="hidden" name="state" value="hKFo2SBx">
            <input type="text" name="code" autocomplete="one-time-code"><button type="submit">Continue</button></form></body></html>
            """
        let document = try Document(html: Array(page.utf8), url: "https://login.example.edu/u/mfa-otp-challenge", charsetOverride: "UTF-8")
        #expect(try !document.evaluate(LoginFlow.carriesAnswer).booleanValue)
    }
}
