import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Every field of a HAR entry, one by one, with secrets put in each of them.
@Suite("HTTP trace: no field of any HAR entry holds a secret")
struct HTTPTraceTests {
    let password = "Kaland-2026"
    let shortPassword = "7x"
    let code = "493817"
    let sessionCookie = "bence.1700000000.c2lnbmF0dXJl"
    let samlResponse = "PHNhbWxwOlJlc3BvbnNlIElEPSJfYWJjIj48L3NhbWxwOlJlc3BvbnNlPg=="
    let samlRequest = "fZJdT8IwFIb%2FStN7GIwNWsNIUDSSIBKZXnhjpvXAmrTtaPuo4a_lqzMj"
    let relayState = "ss%3Amem%3A4f9c2a1b"

    /// The trace of a login as a hostile portal plays it: secrets in every field of every entry.
    func hostileTrace(includeBodies: Bool) throws -> (entries: [[String: Any]], text: String) {
        let trace = HTTPTrace(includeBodies: includeBodies)
        // As the login does before it sends them.
        trace.register(secret: password)
        trace.register(secret: code)
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        // 1. The SP sends the browser to the IdP: SAMLRequest and RelayState in Location.
        trace.record(
            started: started, duration: 0.01, method: "GET", url: URL(string: "https://portal.example/grades")!,
            requestHeaders: [("Cookie", "lang=en")], formFields: nil, secretFields: [], status: 302,
            responseHeaders: [
                ("Location", "https://idp.example/sso?SAMLRequest=\(samlRequest)&RelayState=\(relayState)"),
                ("Set-Cookie", "_shibstate_1=\(relayState); Path=/; Secure"),
            ],
            responseBody: Array(
                """
                <a href="https://idp.example/sso?SAMLRequest=\(samlRequest)&amp;RelayState=\(relayState)">go</a>
                <!-- debug: next session \(sessionCookie) -->
                """.utf8))
        // 2. The password is posted; the IdP echoes it in its page and in the next form.
        trace.record(
            started: started, duration: 0.02, method: "POST",
            url: URL(string: "https://idp.example/sso?execution=e1s2&SAMLRequest=\(samlRequest)")!,
            requestHeaders: [
                ("Referer", "https://idp.example/sso?SAMLRequest=\(samlRequest)&RelayState=\(relayState)"),
                ("Authorization", "Basic YWxpY2U6S2FsYW5kLTIwMjY="),
                ("Cookie", "JSESSIONID=A1B2C3D4E5F6; shib_idp_session=\(sessionCookie)"),
            ],
            formFields: [("j_username", "alice"), ("pw_field", shortPassword), ("token", code), ("csrf", "c1")],
            secretFields: ["pw_field", "token"], status: 200,
            responseHeaders: [("Content-Type", "text/html"), ("X-Echo", shortPassword)],
            responseBody: Array(
                """
                <p class="note">You typed \(password) and \(code).</p>
                <form method="post" action="https://portal.example/Shibboleth.sso/SAML2/POST">
                  <textarea name=RelayState>\(relayState)</textarea>
                  <input type=hidden name=SAMLResponse value=\(samlResponse)>
                  <input type=hidden name=typed value="\(shortPassword)">
                </form>
                """.utf8))
        // 3. The auto-submitted SAML POST carries the echoed password in a field of its own.
        trace.record(
            started: started, duration: 0.03, method: "POST",
            url: URL(string: "https://portal.example/Shibboleth.sso/SAML2/POST?echo=\(shortPassword)")!,
            requestHeaders: [("Cookie", "_shibstate_1=\(relayState)")],
            formFields: [("RelayState", "ss:mem:4f9c2a1b"), ("SAMLResponse", samlResponse), ("typed", shortPassword)],
            secretFields: [], status: 303,
            responseHeaders: [
                ("Location", "https://portal.example/grades?session=\(sessionCookie)#RelayState=ss:mem:4f9c2a1b"),
                ("Set-Cookie", "demo_sp_session=\(sessionCookie); Path=/; HttpOnly"),
            ],
            responseBody: [])
        let data = try trace.har()
        let har = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let log = try #require(har["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        return (entries, String(decoding: data, as: UTF8.self))
    }

    var secrets: [String] {
        [
            password, code, sessionCookie, samlResponse, "PHNhbWxw", samlRequest, "fZJdT8Iw", relayState, "4f9c2a1b", "A1B2C3D4E5F6",
            "YWxpY2U6",
        ]
    }

    @Test("no string anywhere in the HAR holds a secret, with and without bodies", arguments: [false, true])
    func noSecretAnywhere(includeBodies: Bool) throws {
        let (entries, text) = try hostileTrace(includeBodies: includeBodies)
        #expect(entries.count == 3)
        for string in jsonStrings(in: entries) {
            for secret in secrets { #expect(!string.contains(secret), "\(secret) in \(string)") }
            #expect(string != shortPassword, "the 2-character password is a whole value in the HAR")
        }
        for secret in secrets { #expect(!text.contains(secret)) }
    }

    @Test("request.url and request.queryString")
    func requestURLAndQuery() throws {
        let (entries, _) = try hostileTrace(includeBodies: false)
        let request = try #require(entries[1]["request"] as? [String: Any])
        let url = try #require(request["url"] as? String)
        #expect(url == "https://idp.example/sso?execution=e1s2&SAMLRequest=<redacted>")
        let query = try #require(request["queryString"] as? [[String: String]])
        #expect(query.first { $0["name"] == "SAMLRequest" }?["value"] == "<redacted>")
        #expect(query.first { $0["name"] == "execution" }?["value"] == "e1s2")
        let echo = try #require(entries[2]["request"] as? [String: Any])
        #expect((echo["url"] as? String)?.hasSuffix("?echo=<redacted>") == true)
        #expect((echo["queryString"] as? [[String: String]])?.first?["value"] == "<redacted>")
    }

    @Test("request headers: Referer, Authorization, Cookie")
    func requestHeaders() throws {
        let (entries, _) = try hostileTrace(includeBodies: false)
        let request = try #require(entries[1]["request"] as? [String: Any])
        let headers = try #require(request["headers"] as? [[String: String]])
        func header(_ name: String) -> String? { headers.first { $0["name"] == name }?["value"] }
        #expect(header("Referer") == "https://idp.example/sso?SAMLRequest=<redacted>&RelayState=<redacted>")
        #expect(header("Authorization") == "<redacted>")
        #expect(header("Cookie") == "JSESSIONID=<redacted>; shib_idp_session=<redacted>")
    }

    @Test("request postData: params and text, secret fields by name and echoed secrets by value, however short")
    func postData() throws {
        let (entries, _) = try hostileTrace(includeBodies: false)
        let login = try #require((entries[1]["request"] as? [String: Any])?["postData"] as? [String: Any])
        let params = try #require(login["params"] as? [[String: String]])
        #expect(params.map { $0["value"] ?? "" } == ["alice", "<redacted>", "<redacted>", "c1"])
        #expect(login["text"] as? String == "j_username=alice&pw_field=<redacted>&token=<redacted>&csrf=c1")
        let samlPost = try #require((entries[2]["request"] as? [String: Any])?["postData"] as? [String: Any])
        let samlParams = try #require(samlPost["params"] as? [[String: String]])
        #expect(samlParams.map { $0["value"] ?? "" } == ["<redacted>", "<redacted>", "<redacted>"])
        #expect(samlPost["text"] as? String == "RelayState=<redacted>&SAMLResponse=<redacted>&typed=<redacted>")
    }

    @Test("response headers (Location, Set-Cookie, any other) and redirectURL")
    func responseHeadersAndRedirect() throws {
        let (entries, _) = try hostileTrace(includeBodies: false)
        let first = try #require(entries[0]["response"] as? [String: Any])
        #expect(first["redirectURL"] as? String == "https://idp.example/sso?SAMLRequest=<redacted>&RelayState=<redacted>")
        let headers = try #require(first["headers"] as? [[String: String]])
        #expect(headers.first { $0["name"] == "Location" }?["value"] == first["redirectURL"] as? String)
        #expect(headers.first { $0["name"] == "Set-Cookie" }?["value"] == "_shibstate_1=<redacted>; Path=/; Secure")
        let second = try #require(entries[1]["response"] as? [String: Any])
        let echo = (second["headers"] as? [[String: String]])?.first { $0["name"] == "X-Echo" }
        #expect(echo?["value"] == "<redacted>")
        let third = try #require(entries[2]["response"] as? [String: Any])
        #expect(third["redirectURL"] as? String == "https://portal.example/grades?session=<redacted>#RelayState=<redacted>")
    }

    @Test("response bodies with --trace-bodies: the echoed password and code, the textarea and unquoted SAML values")
    func responseBodies() throws {
        let (entries, _) = try hostileTrace(includeBodies: true)
        let content = try #require((entries[1]["response"] as? [String: Any])?["content"] as? [String: Any])
        let body = try #require(content["text"] as? String)
        #expect(body.contains("You typed <redacted> and <redacted>."))
        #expect(body.contains("<textarea name=RelayState><redacted></textarea>"))
        #expect(body.contains("<input type=hidden name=SAMLResponse value=\"<redacted>\">"))
        #expect(body.contains("<input type=hidden name=typed value=\"<redacted>\">"))
        let withoutBodies = try hostileTrace(includeBodies: false).entries
        let bare = (withoutBodies[1]["response"] as? [String: Any])?["content"] as? [String: Any]
        #expect(bare?["text"] == nil)
    }

    @Test("no size field tells a secret's length: the login POST's bodySize and an echoing response's sizes")
    func sizesRevealNothing() throws {
        for includeBodies in [false, true] {
            var sizes: [[Int]] = []
            for password in ["a1", "a-much-longer-password-2026"] {
                let trace = HTTPTrace(includeBodies: includeBodies)
                trace.register(secret: password)
                trace.record(
                    started: Date(), duration: 0.01, method: "POST", url: URL(string: "https://idp.example/login")!,
                    requestHeaders: [], formFields: [("j_username", "alice"), ("j_password", password)], secretFields: ["j_password"],
                    status: 200, responseHeaders: [("Content-Type", "text/html")],
                    responseBody: Array("<p>Wrong password: <b>\(password)</b></p>".utf8))
                let har = try #require(try JSONSerialization.jsonObject(with: try trace.har()) as? [String: Any])
                let entry = try #require(((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
                let request = try #require(entry["request"] as? [String: Any])
                let response = try #require(entry["response"] as? [String: Any])
                let content = try #require(response["content"] as? [String: Any])
                sizes.append([
                    try #require(request["bodySize"] as? Int), try #require(response["bodySize"] as? Int),
                    try #require(content["size"] as? Int),
                ])
            }
            #expect(sizes[0] == sizes[1], "sizes differ with the password's length: \(sizes)")
        }
    }

    @Test("CAS tickets, OpenID Connect codes and Keycloak's login state are redacted in URLs, headers and bodies")
    func otherProtocols() throws {
        let trace = HTTPTrace(includeBodies: true)
        trace.record(
            started: Date(), duration: 0.01, method: "GET",
            url: URL(string: "https://lib.example/opac?ticket=ST-1234-abcdEFGH5678-cas01&lang=ja")!, requestHeaders: [],
            formFields: nil, secretFields: [], status: 302,
            responseHeaders: [
                ("Location", "https://kc.example/auth?session_code=SC-secret-1&execution=e1&client_data=eyJydSI6&tab_id=t1"),
                ("Content-Type", "text/html"),
            ],
            responseBody: Array(
                """
                <a href="/callback?code=oidc-code-77&state=s1">go</a> <script>var t = "PT-99-zyxwvuTSRQ-cas02";</script>
                <form action="/login-actions/authenticate?session_code=SC-secret-2&amp;client_data=eyJzdGF0">
                """.utf8))
        let text = String(decoding: try trace.har(), as: UTF8.self)
        for secret in ["ST-1234-abcdEFGH5678", "SC-secret-1", "SC-secret-2", "eyJydSI6", "eyJzdGF0", "oidc-code-77", "PT-99-zyxwvuTSRQ"] {
            #expect(!text.contains(secret), "\(secret) is in the trace")
        }
        #expect(
            text.contains("lang=ja") && text.contains("execution=e1") && text.contains("tab_id=t1"), "ordinary parameters stay readable")
    }

    @Test("a secret learned late (a session cookie set at the end) is scrubbed from earlier entries too")
    func lateSecret() throws {
        let (entries, _) = try hostileTrace(includeBodies: true)
        let all = jsonStrings(in: entries)
        #expect(!all.isEmpty)
        #expect(!all.contains { $0.contains(sessionCookie) })
    }
}
