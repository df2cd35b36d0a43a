import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// `OriginPolicy`: where a request a recipe causes may go, decided before it is sent, one kind
/// of request at a time.
@Suite("Origin policy: a recipe's requests reach only its portal's origins")
struct OriginPolicyTests {
    let policy = OriginPolicy(
        ownOrigins: ["https://portal.uni.example", "https://lms.uni.example"], credentialOrigins: ["https://idp.uni.example"],
        portal: "uni", definition: "/recipes/uni/portal.yaml")

    /// An address written in the test, which is always a valid one.
    func url(_ text: String) -> URL { URL(string: text)! }

    @Test("every kind of request may go to the base URL and to a declared service", arguments: OriginPolicy.RequestKind.allCases)
    func ownOriginsPass(kind: OriginPolicy.RequestKind) throws {
        #expect(policy.refusal(kind, to: url("https://portal.uni.example/grades?term=1")) == nil)
        #expect(policy.refusal(kind, to: url("https://lms.uni.example/my/")) == nil)
    }

    @Test(
        "every kind of request to another origin is refused before it is sent, naming the kind and the file",
        arguments: OriginPolicy.RequestKind.allCases)
    func otherOriginsAreRefused(kind: OriginPolicy.RequestKind) throws {
        for address in [
            "https://collector.example/steal?grade=A",  // another host
            "https://other.uni.example/",  // a sibling under the university's domain, which its cookies may cover
            "http://portal.uni.example/grades",  // the same host without TLS
            "https://portal.uni.example:8443/grades",  // another port
            "https://idp.uni.example/login",  // the login service is for the login, not for a recipe's pages
        ] {
            let refusal = try #require(policy.refusal(kind, to: url(address), recipe: "/pack/uni/grades.yaml"))
            #expect(refusal.kind == .unsafeRequest)
            #expect(refusal.message.hasPrefix("/pack/uni/grades.yaml: "), "\(refusal)")
            #expect(refusal.message.contains(url(address).origin), "\(refusal)")
            #expect(refusal.message.contains(kind.origin), "\(refusal)")
            #expect(refusal.message.contains("nothing was sent"), "\(refusal)")
        }
    }

    @Test("a local file, script or inline data is never fetched, whatever asks", arguments: OriginPolicy.RequestKind.allCases)
    func onlyHTTP(kind: OriginPolicy.RequestKind) throws {
        for address in ["file:///etc/passwd", "javascript:alert(1)", "data:text/html,<p>x</p>", "ftp://portal.uni.example/"] {
            let refusal = try #require(policy.refusal(kind, to: url(address)))
            #expect(refusal.kind == .unsafeRequest)
            #expect(refusal.message.contains("only http and https"), "\(refusal)")
        }
    }

    @Test("origins compare as a browser compares them: case and the scheme's default port do not matter")
    func originsAreNormalised() {
        for address in ["https://portal.uni.example:443/grades", "HTTPS://Portal.Uni.Example/grades", "https://lms.uni.example:443/"] {
            #expect(policy.refusal(.next, to: url(address)) == nil, "\(address)")
        }
        #expect(url("http://portal.uni.example:80/").origin == "http://portal.uni.example")
        #expect(url("http://portal.uni.example:443/").origin == "http://portal.uni.example:443")
        #expect(policy.refusal(.next, to: url("https://portal.uni.example:80/")) != nil)
    }

    @Test("the message says which kind of request it was")
    func kindsAreNamed() throws {
        let collector = url("https://collector.example/")
        #expect(policy.refusal(.next, to: collector)?.message.contains("'next' link") == true)
        #expect(policy.refusal(.read, to: collector)?.message.contains("'read'") == true)
        #expect(policy.refusal(.terms, to: collector)?.message.contains("terms of use") == true)
        #expect(policy.refusal(.page, to: collector)?.hint?.contains("path such as /grades") == true)
        #expect(policy.refusal(.action, to: collector)?.hint?.contains("services:") == true)
    }

    @Test("a password goes only to credentials_may_go_to, and only over HTTPS unless to this machine")
    func credentials() throws {
        #expect(policy.credentialRefusal(to: url("https://idp.uni.example/login")) == nil)
        let elsewhere = try #require(policy.credentialRefusal(to: url("https://portal.uni.example/login")))
        #expect(elsewhere.kind == .unsafeRequest && elsewhere.message.contains("allows only https://idp.uni.example"))

        let plain = OriginPolicy(
            ownOrigins: [], credentialOrigins: ["http://idp.uni.example", "http://127.0.0.1:8080", "http://127.evil.example:8080"],
            portal: "uni", definition: "portal.yaml")
        let overHTTP = try #require(plain.credentialRefusal(to: url("http://idp.uni.example/login")))
        #expect(overHTTP.message.contains("without HTTPS"))
        #expect(plain.credentialRefusal(to: url("http://127.0.0.1:8080/login")) == nil)
        let lookalike = try #require(plain.credentialRefusal(to: url("http://127.evil.example:8080/login")))
        #expect(lookalike.message.contains("without HTTPS"), "a name that starts with 127. is not this machine")
    }

    @Test("loopback is an address of this machine, never a name that looks like one")
    func loopback() {
        for host in ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"] {
            #expect(OriginPolicy.isLoopback(host: host), "\(host)")
        }
        for host in ["127.evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1", "128.0.0.1", ""] {
            #expect(!OriginPolicy.isLoopback(host: host), "\(host)")
        }
    }

    @Test("the policy of a portal is its base URL and its services, as relocated")
    func fromPortal() throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let demo = try catalog.portal("demo").relocated(to: url("http://127.0.0.1:5555"))
        let policy = OriginPolicy(portal: demo)
        #expect(policy.ownOrigins == ["http://127.0.0.1:5555"])
        #expect(policy.refusal(.fetch, to: url("http://127.0.0.1:5555/grades")) == nil)
        #expect(policy.refusal(.fetch, to: url("http://127.0.0.2:5555/grades")) != nil)
    }

    @Test("an address a login rule builds goes only to the portal, its login service, credentials_may_go_to or the page's own origin")
    func loginRulesStayOnTheLoginsOrigins() throws {
        let policy = OriginPolicy(
            portal: try PortalRecipe.load(
                file: "/recipes/uni/portal.yaml",
                text: """
                    portal: uni
                    name: Uni
                    base_url: https://portal.uni.example
                    idp_url: https://login.uni.example/idp
                    credentials_may_go_to: [idp, "https://mfa.uni.example"]
                    services: { lms: { base_url: "https://lms.uni.example/" } }
                    login: { pages: [{ name: form, when: "//form", auto_submit: true }] }
                    """))
        let page = url("https://wayf.federation.example/DS?entityID=x")
        for allowed in [
            "https://portal.uni.example/Shibboleth.sso/SAML2/POST", "https://lms.uni.example/login",
            "https://login.uni.example/idp/profile",
            "https://mfa.uni.example/verify", "https://wayf.federation.example/DS?select=1",
        ] {
            #expect(policy.loginRefusal(to: url(allowed), from: page, rule: "form") == nil, "\(allowed)")
        }
        for refused in [
            "http://127.0.0.10:8080/g?who=alice",  // an address built from the page
            "https://collector.example/?SAMLResponse=PHNhbWw+",
            "http://portal.uni.example/Shibboleth.sso/SAML2/POST",  // the portal's host without TLS is another origin
            "javascript:alert(1)", "file:///etc/passwd",
        ] {
            let refusal = try #require(policy.loginRefusal(to: url(refused), from: page, rule: "steal"), "\(refused)")
            #expect(refusal.kind == .unsafeRequest)
            #expect(refusal.message.contains("login rule 'steal'") && refusal.message.contains("nothing was sent"), "\(refusal)")
            #expect(refusal.hint?.contains("/recipes/uni/portal.yaml") == true, "\(refusal)")
        }
    }
}
