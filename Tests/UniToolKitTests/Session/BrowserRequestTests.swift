import AsyncHTTPClient
import DemoUniversity
import Foundation
import Logging
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// `BrowserRequest`: what a browser sends, per kind of request; then the same headers as they
/// arrive at a real socket, and the demo IdP refusing, as LemonLDAP::NG does, a page load whose
/// `Accept` names JSON.
@Suite("Requests shaped as a browser's")
struct BrowserRequestTests {
    func url(_ text: String) -> URL { URL(string: text)! }

    func headers(_ request: BrowserRequest) -> [String: String] {
        Dictionary(request.headers.map { ($0.name, $0.value) }) { $1 }
    }

    @Test("a page load: an HTML Accept that names no JSON, an upgrade, and a navigation typed in")
    func navigation() {
        let sent = headers(BrowserRequest(kind: .navigation, method: "GET", url: url("https://portal.uni.example/grades")))
        #expect(sent["Accept"] == "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
        #expect(sent["Accept"]?.contains("json") == false)
        #expect(sent["Upgrade-Insecure-Requests"] == "1")
        #expect(sent["Sec-Fetch-Dest"] == "document" && sent["Sec-Fetch-Mode"] == "navigate" && sent["Sec-Fetch-User"] == "?1")
        #expect(sent["Sec-Fetch-Site"] == "none")
        #expect(sent["Origin"] == nil && sent["Referer"] == nil)
    }

    @Test("a form post says where it comes from: Origin, and Referer under strict-origin-when-cross-origin")
    func formPost() {
        let login = url("https://idp.uni.example/idp/profile/SAML2/Redirect/SSO?execution=e1s1#top")
        let same = headers(
            BrowserRequest(kind: .formPost, method: "POST", url: url("https://idp.uni.example/idp/profile"), referrer: login))
        #expect(same["Origin"] == "https://idp.uni.example")
        #expect(
            same["Referer"] == "https://idp.uni.example/idp/profile/SAML2/Redirect/SSO?execution=e1s1", "the whole address, no fragment")
        #expect(same["Sec-Fetch-Site"] == "same-origin")

        // The SAML response posted from the IdP to the portal: another origin of the same site.
        let sameSite = headers(
            BrowserRequest(
                kind: .formPost, method: "POST", url: url("https://portal.uni.example/Shibboleth.sso/SAML2/POST"), referrer: login))
        #expect(sameSite["Referer"] == "https://idp.uni.example/", "only the origin leaves for another origin")
        #expect(sameSite["Sec-Fetch-Site"] == "same-site")
        #expect(sameSite["Origin"] == "https://idp.uni.example")

        let crossSite = headers(
            BrowserRequest(kind: .formPost, method: "POST", url: url("https://sp.other.example/acs"), referrer: login))
        #expect(crossSite["Sec-Fetch-Site"] == "cross-site")
        // A public suffix is no site: two universities under ac.jp are two sites.
        #expect(BrowserRequest.site("www.u-tokyo.ac.jp") == "u-tokyo.ac.jp")
        #expect(BrowserRequest.site("127.0.0.1") == "127.0.0.1")

        let downgrade = headers(BrowserRequest(kind: .formPost, method: "POST", url: url("http://portal.uni.example/acs"), referrer: login))
        #expect(downgrade["Referer"] == nil, "nothing from https to http")
    }

    @Test("a JSON API is asked as a page's fetch() asks it")
    func fetch() {
        let dashboard = url("https://lms.uni.example/my/")
        let get = headers(
            BrowserRequest(kind: .fetch, method: "GET", url: url("https://lms.uni.example/api/terms/version"), referrer: dashboard))
        #expect(get["Accept"] == "*/*")
        #expect(get["Sec-Fetch-Mode"] == "cors" && get["Sec-Fetch-Dest"] == "empty" && get["Sec-Fetch-User"] == nil)
        #expect(get["Origin"] == nil, "a same-origin GET names no Origin")
        #expect(get["Upgrade-Insecure-Requests"] == nil)
        let post = headers(
            BrowserRequest(kind: .fetch, method: "POST", url: url("https://lms.uni.example/lib/ajax/service.php"), referrer: dashboard))
        #expect(post["Origin"] == "https://lms.uni.example")
    }

    @Test("the User-Agent is a browser's in shape and names unitool and its version")
    func userAgent() {
        #expect(BrowserRequest.userAgent.hasPrefix("Mozilla/5.0 "))
        #expect(BrowserRequest.userAgent.contains("unitool/\(UniToolVersion.current)"))
        #expect(HTTPSession.Configuration().userAgent == BrowserRequest.userAgent)
    }

    @Test("the session sends these headers: a page, a form from its page, a JSON call", .timeLimit(.minutes(1)))
    func sentOverTheWire() async throws {
        let server = try RecordingHTTPServer { _ in .status(200, body: "<p>ok</p>") }
        defer { server.stop() }
        let session = HTTPSession(logger: Logger(label: "browser-request"))
        defer { Task { await session.shutdown() } }
        _ = try await session.get(url(server.url("/page")))
        var form = FormSubmission(method: "POST", url: url(server.url("/login")), fields: [("u", "x")])
        form.pageURL = url(server.url("/page"))
        _ = try await session.submit(form)
        _ = try await session.post(url(server.url("/api")), json: "{}")
        let requests = server.requests
        #expect(requests.count == 3)
        guard requests.count == 3 else { return }
        #expect(requests[0].headers["accept"] == BrowserRequest.navigationAccept)
        #expect(requests[0].headers["sec-fetch-mode"] == "navigate")
        #expect(requests[1].headers["origin"] == server.baseURL.absoluteString)
        #expect(requests[1].headers["referer"] == server.url("/page"))
        #expect(requests[2].headers["accept"] == "*/*" && requests[2].headers["sec-fetch-mode"] == "cors")
        #expect(requests.allSatisfy { $0.headers["user-agent"] == BrowserRequest.userAgent })
    }

    @Test("the demo IdP answers a page load whose Accept names JSON with 401 and a JSON error, as LemonLDAP::NG does")
    func demoRefusesJSONAccept() async throws {
        try await DemoUniversity.withRunning { demo in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            var request = HTTPClientRequest(url: demo.baseURL.appendingPathComponent("idp/profile/SAML2/Redirect/SSO").absoluteString)
            request.headers.add(name: "Accept", value: "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8")
            let answer = await Result {
                let response = try await client.execute(request, timeout: .seconds(10))
                return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 16)))
            }
            try await client.shutdown()
            let (status, body) = try answer.get()
            #expect(status == 401)
            #expect(body == #"{"result":0,"error":"9"}"#)
        }
    }
}
