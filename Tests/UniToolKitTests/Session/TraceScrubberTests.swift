import Foundation
import Testing
import UniToolKit

/// The rules of what a trace or a quoted portal message may hold, without a network.
@Suite("Trace scrubber: SAML messages, RelayState, cookies and the run's secrets")
struct TraceScrubberTests {
    let redacted = TraceScrubber.redacted
    let password = "Kaland 2026&ß\"'"
    let scrubber = TraceScrubber(secrets: ["Kaland 2026&ß\"'", "7x", "q", "493817"])

    @Test("a page kept for a drift report loses each long secret in any encoding, and keeps everything else as it was")
    func page() {
        let token = "62eb2db838f26147cbc4deb24fdaaff0e254325a"
        let scrubber = TraceScrubber(secrets: [token, "7x"])
        let page = "<a href=\"/ical/\(token)/basic.ics\">feed</a> <p>7x is a room</p> <i>\(token.uppercased())</i>"
        let kept = scrubber.scrubPage(page)
        #expect(!kept.contains(token), "\(kept)")
        #expect(kept.contains("<a href=\"/ical/\(TraceScrubber.redacted)/basic.ics\">feed</a> <p>7x is a room</p>"), "\(kept)")
    }

    // MARK: URLs

    @Test(
        "SAMLRequest, SAMLResponse, RelayState and SAMLart are removed from absolute and relative URLs, query and fragment",
        arguments: [
            "https://idp.example/sso?SAMLRequest=fZJdT8Iw%2BvX&RelayState=ss%3Amem%3Aabc123",
            "/Shibboleth.sso/SAML2/POST?samlresponse=PHNhbWxwOl&relaystate=cookie%3A1",
            "https://sp.example/acs#SAMLart=AAQAAMh48%2F1oXIM&RelayState=/grades",
            "https://sp.example/acs?a=1&SAMLart=AAQAAMh48&b=2",
        ])
    func samlParametersInURLs(url: String) {
        let scrubbed = scrubber.scrubURL(url)
        for secret in ["fZJdT8Iw", "ss%3Amem", "PHNhbWxwOl", "cookie%3A1", "AAQAAMh48", "/grades"] {
            #expect(!scrubbed.contains(secret), "\(scrubbed)")
        }
        #expect(scrubbed.contains(redacted))
        if url.contains("a=1") { #expect(scrubbed.contains("a=1&") && scrubbed.hasSuffix("&b=2")) }
    }

    @Test("a query parameter whose value is a secret is removed whatever its name or length, in any URL encoding")
    func secretValuesInURLs() {
        let urls = [
            "https://portal.example/search?q=x&term=7x",
            "https://portal.example/search?echo=Kaland+2026%26%C3%9F%22%27&x=1",
            "https://portal.example/search?echo=Kaland%202026%26%c3%9f%22%27",
            "https://portal.example/search?code=493817",
        ]
        for url in urls {
            let scrubbed = scrubber.scrubURL(url)
            #expect(scrubbed.contains(redacted), "\(scrubbed)")
            for secret in ["=7x", "Kaland", "493817"] { #expect(!scrubbed.contains(secret), "\(scrubbed)") }
        }
        #expect(scrubber.scrubURL("https://portal.example/grades?term=7xl&page=2") == "https://portal.example/grades?term=7xl&page=2")
    }

    @Test("a URL without secrets is left exactly as it was")
    func innocentURL() {
        let url = "https://portal.example/grades?term=2026-fall&sort=name#top"
        #expect(scrubber.scrubURL(url) == url)
    }

    // MARK: Form fields

    @Test("form fields: password-like names, declared names and SAML names are secret by name, whatever the value")
    func secretFieldNames() {
        let plain = TraceScrubber()
        for name in ["j_password", "password", "new_passphrase", "pwd", "otp", "totp", "j_tokenNumber", "SAMLResponse", "relaystate"] {
            #expect(plain.scrubField(name: name, value: "anything", declared: []) == redacted, "\(name)")
        }
        #expect(plain.scrubField(name: "pin", value: "1234", declared: ["pin"]) == redacted)
        #expect(plain.scrubField(name: "csrf_token", value: "abc", declared: []) == "abc")
    }

    @Test("a field whose whole value is a secret is removed whatever its name, even a 1- or 2-character secret")
    func shortSecretsAsWholeValues() {
        #expect(scrubber.scrubField(name: "typed", value: "7x") == redacted)
        #expect(scrubber.scrubField(name: "echo", value: "q") == redacted)
        #expect(scrubber.scrubField(name: "echo", value: " q ") == redacted)
        #expect(scrubber.scrubField(name: "hidden_check", value: password) == redacted)
        #expect(scrubber.scrubField(name: "code", value: "493817") == redacted)
        // A short secret is not looked for inside other values: "7x" in "17xl" is not the password.
        #expect(scrubber.scrubField(name: "size", value: "17xl") == "17xl")
        #expect(scrubber.scrubField(name: "query", value: "quiet") == "quiet")
    }

    @Test("a long secret is removed inside longer values too")
    func longSecretsInsideValues() {
        #expect(scrubber.scrubField(name: "note", value: "you typed \(password)!") == "you typed \(redacted)!")
        #expect(scrubber.scrubField(name: "note", value: "code 493817 sent") == "code \(redacted) sent")
    }

    // MARK: Headers

    @Test("headers: Authorization, Cookie and Set-Cookie values go; Location, Referer and Refresh are scrubbed as URLs")
    func headers() {
        #expect(scrubber.scrubHeader(name: "Authorization", value: "Basic dXNlcjpwYXNz") == redacted)
        #expect(scrubber.scrubHeader(name: "proxy-authorization", value: "Bearer abc") == redacted)
        #expect(
            scrubber.scrubHeader(name: "Cookie", value: "JSESSIONID=ABC123; shib_idp_session=xyz")
                == "JSESSIONID=\(redacted); shib_idp_session=\(redacted)")
        let setCookie = scrubber.scrubHeader(name: "Set-Cookie", value: "demo_sp_session=bence.123.sig; Path=/; HttpOnly")
        #expect(setCookie == "demo_sp_session=\(redacted); Path=/; HttpOnly")
        let location = scrubber.scrubHeader(name: "Location", value: "https://idp.example/sso?SAMLRequest=fZJd&RelayState=ss%3Amem")
        #expect(location == "https://idp.example/sso?SAMLRequest=\(redacted)&RelayState=\(redacted)")
        let referer = scrubber.scrubHeader(name: "Referer", value: "https://portal.example/x?echo=7x")
        #expect(referer == "https://portal.example/x?echo=\(redacted)")
        let refresh = scrubber.scrubHeader(name: "Refresh", value: "0; url=/sso?SAMLResponse=PHNhbWxw")
        #expect(!refresh.contains("PHNhbWxw"))
        #expect(scrubber.scrubHeader(name: "X-Echo", value: "7x") == redacted)
        #expect(scrubber.scrubHeader(name: "X-Debug", value: "user sent \(password)") == "user sent \(redacted)")
        #expect(scrubber.scrubHeader(name: "Content-Type", value: "text/html; charset=utf-8") == "text/html; charset=utf-8")
    }

    // MARK: Bodies

    @Test(
        "SAMLResponse and RelayState in HTML inputs, quoted, single-quoted or unquoted, in either attribute order",
        arguments: [
            #"<input type="hidden" name="SAMLResponse" value="QUJDREVGR0hJSktMTU5PUA==">"#,
            #"<input value='QUJDREVGR0hJSktMTU5PUA==' name='SAMLResponse'>"#,
            #"<input type=hidden name=SAMLResponse value=QUJDREVGR0hJSktMTU5PUA==>"#,
            #"<input value=QUJDREVGR0hJSktMTU5PUA== type=hidden name=SAMLResponse />"#,
            #"<INPUT NAME="RelayState" VALUE="QUJDREVGR0hJSktMTU5PUA==">"#,
            #"<input name=relaystate value='QUJDREVGR0hJSktMTU5PUA=='/>"#,
        ])
    func protocolInputs(html: String) {
        let scrubbed = scrubber.scrubText("<form>\(html)</form>")
        #expect(!scrubbed.contains("QUJDREVG"), "\(scrubbed)")
        #expect(scrubbed.contains(redacted))
    }

    @Test("SAMLResponse and RelayState in a textarea, a form body, a link and JSON")
    func protocolElsewhere() {
        let bodies = [
            "<form><textarea name=SAMLResponse>QUJDREVGR0hJSktM\nTU5PUA==</textarea></form>",
            "<form><textarea rows=\"3\" name=\"RelayState\" hidden>QUJDREVGR0hJSktM</textarea></form>",
            "SAMLResponse=QUJDREVGR0hJSktM&RelayState=QUJDREVGR0hJSktN",
            "<a href=\"/sso?x=1&amp;RelayState=QUJDREVGR0hJSktM\">go</a>",
            "{\"SAMLResponse\": \"QUJDREVGR0hJSktM\", \"RelayState\":\"QUJDREVGR0hJSktN\"}",
            "<script>var assertion = 'PHNhbWxwOlJlc3BvbnNlIElEPSJfMTIzIj4=';</script>",
        ]
        for body in bodies {
            let scrubbed = scrubber.scrubText(body)
            #expect(!scrubbed.contains("QUJDREVG") && !scrubbed.contains("PHNhbWxw"), "\(scrubbed)")
            #expect(scrubbed.contains(redacted))
        }
    }

    @Test("the value of a password input in a page is removed")
    func passwordInput() {
        let scrubbed = TraceScrubber().scrubText(#"<input type="password" name="pw" value="prefilled">"#)
        #expect(!scrubbed.contains("prefilled"))
    }

    @Test(
        "a long secret is removed wherever it reappears: as it is, percent-encoded, form-encoded, HTML-escaped, JSON-escaped",
        arguments: [
            "Kaland 2026&ß\"'",
            "Kaland%202026%26%C3%9F%22%27",
            "Kaland+2026%26%C3%9F%22%27",
            "Kaland%202026%26%c3%9f%22%27",
            "Kaland+2026%26%C3%9F%22'",
            "Kaland 2026&amp;ß&quot;&#39;",
            "Kaland 2026&amp;ß&quot;&#x27;",
            "Kaland&#32;2026&#38;&#223;&#34;&#39;",
            "&#x4b;&#x61;&#x6c;&#x61;&#x6e;&#x64;&#x20;&#x32;&#x30;&#x32;&#x36;&#x26;&#xdf;&#x22;&#x27;",
            "Kaland 2026&ß\\\"'",
            "Kaland 2026&\\u00df\\\"'",
        ])
    func longSecretEncodings(echo: String) {
        let scrubbed = scrubber.scrubText("<p>You typed: \(echo) (wrong)</p>")
        #expect(scrubbed == "<p>You typed: \(redacted) (wrong)</p>", "\(echo) -> \(scrubbed)")
    }

    @Test("a short secret in a body is removed where it is a whole value: attribute, parameter, element text, JSON string")
    func shortSecretInBody() {
        let body = """
            <input type=hidden name=typed value="7x"><input name=other value=7x>
            <input name=third value='7x'><textarea name=note>7x</textarea><td> q </td>
            <a href="/next?echo=7x&amp;page=2">next</a> {"typed": "7x"}
            """
        let scrubbed = scrubber.scrubText(body)
        #expect(!scrubbed.contains("\"7x\"") && !scrubbed.contains("=7x") && !scrubbed.contains("'7x'"), "\(scrubbed)")
        #expect(!scrubbed.contains(">7x<") && !scrubbed.contains("> q <"), "\(scrubbed)")
        // An echo in the page's prose, its quotes HTML-escaped, is a whole value too.
        let echo = scrubber.scrubText("<p class=\"login-error\">Wrong password (you typed &#39;7x&#39;).</p>")
        #expect(echo == "<p class=\"login-error\">Wrong password (you typed &#39;\(redacted)&#39;).</p>")
        // ...but not inside other words: a 2-character password must not blank the page.
        let prose = "<p>Size 17xl, quite quick.</p>"
        #expect(scrubber.scrubText(prose) == prose)
    }

    @Test("scrubbing is idempotent, and a page without secrets is left exactly as it was")
    func idempotentAndInnocent() {
        let page = """
            <html><body><form action="/grades" method="get"><input name="term" value="2026-fall">
            <select name="sort"><option value="name">Name</option></select></form>
            <table><tr><td>Számítógépes hálózatok</td><td>4.5</td></tr></table></body></html>
            """
        #expect(scrubber.scrubText(page) == page)
        let hostile = #"<input name=SAMLResponse value=QUJD><a href="?RelayState=abc&amp;x=\#(password)">"#
        let once = scrubber.scrubText(hostile)
        #expect(scrubber.scrubText(once) == once)
    }

    // MARK: Messages

    @Test("a portal message quoted in an error loses every secret, a short one where it stands as a word")
    func messages() {
        #expect(scrubber.scrubMessage("Wrong password 'q' for alice") == "Wrong password '\(redacted)' for alice")
        #expect(scrubber.scrubMessage("your password 7x is too short") == "your password \(redacted) is too short")
        #expect(scrubber.scrubMessage("You typed \(password).") == "You typed \(redacted).")
        #expect(scrubber.scrubMessage("Quick quiz: 17xl") == "Quick quiz: 17xl")
    }

    @Test("a secret is compared by its exact code points, and empty secrets are ignored")
    func registration() {
        var scrubber = TraceScrubber()
        scrubber.register("")
        #expect(scrubber.secrets.isEmpty)
        #expect(scrubber.scrubText("anything") == "anything")
        scrubber.register("abc")
        #expect(scrubber.isSecretValue("abc"))
        #expect(!scrubber.isSecretValue("abcd"))
    }
}

/// Issue 47: the encodings a portal echoes a secret in, and what is data, not a secret.
@Suite("Trace scrubber: base64, PHP's JSON, <wbr>, wrapped SAML; course codes and plain cookies left alone")
struct TraceScrubberEncodingTests {
    let redacted = TraceScrubber.redacted
    let password = "Kéz/láb-2026"
    var scrubber: TraceScrubber { TraceScrubber(secrets: [password, "jdoe:\(password)"]) }

    @Test(
        "the password as base64 (standard, URL-safe, unpadded), as HTTP Basic's user:password, in PHP's json_encode, with upper-case \\u escapes, split by <wbr> or a soft hyphen",
        arguments: [
            Data("Kéz/láb-2026".utf8).base64EncodedString(),
            Data("Kéz/láb-2026".utf8).base64EncodedString().replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: ""),
            Data("jdoe:Kéz/láb-2026".utf8).base64EncodedString(),
            #"K\u00e9z\/l\u00e1b-2026"#, #"K\u00E9z/l\u00E1b-2026"#, #"K\u00E9z\/l\u00E1b-2026"#,
            "Kéz<wbr>/láb<wbr/>-2026", "Kéz&shy;/láb-2026", "K&#233;z<WBR>/l&#xe1;b-2026",
        ])
    func encodings(echo: String) {
        let scrubbed = scrubber.scrubText("<p>seen: \(echo).</p>")
        #expect(scrubbed == "<p>seen: \(redacted).</p>", "\(echo) -> \(scrubbed)")
    }

    @Test("a SAML message's base64 wrapped over lines (76 columns) goes whole, also registered as a secret line by line")
    func wrappedSAML() {
        let message = Data(
            #"<samlp:Response ID="_1234567890abcdef"><saml:Assertion><saml:Subject>jdoe</saml:Subject></saml:Assertion></samlp:Response>"#
                .utf8
        ).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        let lines = message.split(separator: "\n")
        #expect(lines.count > 1)
        let scrubbed = TraceScrubber().scrubText("<script>var m = '\(message)';</script><p>Continue</p>")
        for line in lines { #expect(!scrubbed.contains(line), "\(scrubbed)") }
        #expect(scrubbed.contains("<p>Continue</p>"), "\(scrubbed)")
        let known = TraceScrubber(secrets: [message])
        let apart = known.scrubText("<pre>\(lines[1])</pre>")
        #expect(apart == "<pre>\(redacted)</pre>", "\(apart)")
    }

    @Test("'code' is OAuth's only beside state (or a like parameter) or when it looks like a token; a course code is data")
    func codeInContext() {
        let plain = TraceScrubber()
        for data in [
            #"{"code": "MATH-101", "title": "Analysis"}"#, "<a href=\"/course?code=MATH-101&amp;term=2026\">MATH-101</a>",
            "<input name=code value=MATH-101>",
        ] {
            #expect(plain.scrubText(data) == data)
        }
        #expect(
            plain.scrubURL("https://portal.example/course?code=MATH-101&term=2026")
                == "https://portal.example/course?code=MATH-101&term=2026")
        #expect(plain.scrubField(name: "code", value: "MATH-101", siblings: ["code", "term"]) == "MATH-101")
        // OAuth's: beside state, in JSON beside state, in a form_post page, or a token by its looks.
        for secret in [
            "https://portal.example/cb?code=abc-77&state=xyz", "/cb?state=xyz&code=abc-77",
            "<a href=\"/cb?code=abc-77&amp;state=s1\">go</a>", #"{"code": "abc-77", "state": "xyz"}"#,
            "<form><input type=hidden name=code value=abc-77><input type=hidden name=state value=xyz></form>",
            "/cb?code=Zx81fQp7Lm2Rk9TbW4vC", #"{"code": "Zx81fQp7Lm2Rk9TbW4vC"}"#,
        ] {
            let scrubbed = secret.hasPrefix("http") || secret.hasPrefix("/") ? plain.scrubURL(secret) : plain.scrubText(secret)
            #expect(!scrubbed.contains("abc-77") && !scrubbed.contains("Zx81fQp7"), "\(secret) -> \(scrubbed)")
        }
        // A field judged alone (a trace's queryString) stays secret: nothing tells it is data.
        #expect(plain.scrubField(name: "code", value: "MATH-101") == redacted)
    }

    @Test("what is plain data and what looks like a token, by value: words, booleans, language tags, paths, course codes vs random ids")
    func valueShapes() {
        for plain in [
            "true", "dark", "en-US", "zh-Hant-TW", "/portal/home", "MATH-101", "2026-11-25", "1", "Dark Matter", "necessary,analytics",
        ] {
            #expect(TraceScrubber.isPlainValue(plain), "\(plain)")
            #expect(!TraceScrubber.looksLikeToken(plain), "\(plain)")
        }
        for secret in ["9f8e7d6c5b4a39281706f5e4d3c2b1a0", "Zx81fQp7Lm2Rk9TbW4vC", "3f2a9c1e-5b7d-4e8f-a012-3456789abcde"] {
            #expect(!TraceScrubber.isPlainValue(secret) && TraceScrubber.looksLikeToken(secret), "\(secret)")
        }
        #expect(!TraceScrubber.isPlainValue("dGhlbWU9ZGFyaw=="), "base64 mixes cases")
        #expect(!TraceScrubber.isPlainValue("1700000000123"), "a long number may be a session's")
    }
}
