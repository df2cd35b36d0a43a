import Foundation
import Testing
import UniToolKit

@Suite("Redirect policy: what a browser does with each redirect, without a network")
struct RedirectPolicyTests {
    let policy = RedirectPolicy(maxRedirects: 3)
    let login = URL(string: "https://idp.example.edu/login?x=1")!

    func post(_ url: URL? = nil) -> RedirectPolicy.Request { .init(method: "POST", url: url ?? login, hasBody: true) }

    @Test(
        "301 and 302 turn a POST into a GET, 303 turns anything into one, 307 and 308 repeat method and body",
        arguments: [
            (301, "GET", false), (302, "GET", false), (303, "GET", false), (307, "POST", true), (308, "POST", true),
        ] as [(Int, String, Bool)])
    func methods(status: Int, method: String, keepsBody: Bool) {
        guard case .follow(let next, let keeps) = policy.decide(status: status, location: "/next", after: post()) else {
            Issue.record("\(status) was not followed")
            return
        }
        #expect(next.method == method && keeps == keepsBody && next.hasBody == keepsBody)
        #expect(next.url.absoluteString == "https://idp.example.edu/next")
        // A GET stays a GET, and a 303 after a PUT-like method becomes one.
        let get = RedirectPolicy.Request(method: "GET", url: login, hasBody: false)
        if case .follow(let after, _) = policy.decide(status: status, location: "/n", after: get) { #expect(after.method == "GET") }
    }

    @Test("the Location is resolved against the request and kept byte for byte; no Location, or another status, is the page")
    func locations() {
        if case .follow(let next, _) = policy.decide(status: 302, location: "  ?sig=a%2Fb+c&x=%7E ", after: post()) {
            #expect(next.url.absoluteString == "https://idp.example.edu/login?sig=a%2Fb+c&x=%7E")
        } else {
            Issue.record("a relative Location was not followed")
        }
        #expect(policy.decide(status: 302, location: nil, after: post()) == .stop)
        #expect(policy.decide(status: 200, location: "/elsewhere", after: post()) == .stop)
        #expect(policy.decide(status: 304, location: "/elsewhere", after: post()) == .stop)
    }

    @Test("only http and https are followed, and a loop ends after maxRedirects hops")
    func refusals() {
        let file = URL(string: "file:///etc/passwd")!
        let refusal = policy.refusal(for: file, hops: [login, file])
        #expect(refusal?.kind == .unsafeRequest && refusal?.message.contains("a redirect from") == true)
        #expect(
            policy.refusal(for: URL(string: "javascript:alert(1)")!, hops: [URL(string: "javascript:alert(1)")!])?.kind == .unsafeRequest)
        let hops = (0...3).map { URL(string: "https://p.example/\($0)")! }
        #expect(policy.refusal(for: hops[3], hops: hops) == nil)
        let tooMany = hops + [URL(string: "https://p.example/4")!]
        #expect(policy.refusal(for: tooMany[4], hops: tooMany)?.message.contains("more than 3 times") == true)
    }
}
