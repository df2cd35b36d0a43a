import Foundation
import PublicSuffix
import Testing
import UniToolKit

@Suite("Cookie jar (RFC 6265)")
struct CookieJarTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let portal = URL(string: "https://portal.example.edu/app/grades")!

    @Test("empty attributes (a trailing or doubled semicolon, a bare '=') are skipped; found by fuzzing, it used to crash")
    func emptyAttributes() throws {
        for header in ["sid=abc;", "sid=abc;;", "sid=abc; ; Path=/app", "sid=abc;=x; Secure"] {
            let cookie = try #require(Cookie.parse(setCookie: header, from: portal, now: now), "\(header)")
            #expect(cookie.name == "sid" && cookie.value == "abc", "\(header)")
        }
        #expect(Cookie.parse(setCookie: "sid=abc;=x; Secure", from: portal, now: now)?.secure == true)
    }

    @Test("Max-Age and Expires are capped at 400 days, so a saved session always reads back; found by fuzzing")
    func lifetimeIsCapped() throws {
        var jar = CookieJar()
        jar.store(
            setCookieHeaders: ["a=1; Max-Age=8198552929648689676", "b=2; Expires=Fri, 31 Dec 9999 23:59:59 GMT"], from: portal, now: now)
        #expect(jar.cookies.count == 2)
        for cookie in jar.cookies { #expect(cookie.expires == now.addingTimeInterval(400 * 86400), "\(cookie.name)") }
        #expect(try SessionStore.decode(try SessionStore.encode(jar)) == jar)
    }

    @Test("an Expires date with a combining mark is ignored, not a crash in DateFormatter; found by fuzzing")
    func combiningMarkInExpires() throws {
        let cookie = try #require(Cookie.parse(setCookie: "a=b; expires=Sunday, 07\u{331}-94 08:49:37 GMT", from: portal, now: now))
        #expect(cookie.expires == nil)
    }

    @Test("a host-only cookie goes back to the same host only")
    func hostOnlyCookie() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["sid=abc; Path=/"], from: portal, now: now)
        #expect(jar.header(for: URL(string: "https://portal.example.edu/x")!, now: now) == "sid=abc")
        #expect(jar.header(for: URL(string: "https://sub.portal.example.edu/x")!, now: now) == nil)
        #expect(jar.header(for: URL(string: "https://example.edu/x")!, now: now) == nil)
    }

    @Test("a Domain cookie is shared with subdomains, and a foreign Domain is refused")
    func domainCookie() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1; Domain=.example.edu; Path=/", "evil=1; Domain=attacker.org"], from: portal, now: now)
        #expect(jar.header(for: URL(string: "https://idp.example.edu/")!, now: now) == "a=1")
        #expect(jar.header(for: URL(string: "https://attacker.org/")!, now: now) == nil)
        #expect(jar.cookies.count == 1)
    }

    @Test("a cookie for a public suffix is refused, by the real Public Suffix List (libpsl); the registrable domain is fine")
    func publicSuffixes() {
        #expect(PublicSuffixList.isAvailable, "libpsl found no list: install the publicsuffix package")
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["tld=1; Domain=edu", "dotted=1; Domain=.EDU", "ok=1; Domain=example.edu"], from: portal, now: now)
        #expect(jar.cookies.map(\.name) == ["ok"])
        let japanese = URL(string: "https://portal.campus.u-tokyo.ac.jp/")!
        jar.store(setCookieHeaders: ["wide=1; Domain=ac.jp", "jp=1; Domain=jp", "uni=1; Domain=u-tokyo.ac.jp"], from: japanese, now: now)
        #expect(jar.cookies.map(\.name) == ["ok", "uni"])
        // A private suffix too: a site on github.io cannot set a cookie for every other one.
        jar.store(setCookieHeaders: ["pages=1; Domain=github.io"], from: URL(string: "https://uni.github.io/")!, now: now)
        #expect(!jar.cookies.contains { $0.name == "pages" })
        #expect(jar.header(for: URL(string: "https://other.ac.jp/")!, now: now) == nil)
        #expect(jar.header(for: URL(string: "https://www.u-tokyo.ac.jp/")!, now: now) == "uni=1")
    }

    @Test("a host that is itself a public suffix may name it, and the cookie stays with that host")
    func hostThatIsASuffix() {
        var jar = CookieJar()
        let local = URL(string: "http://localhost:8080/")!
        jar.store(setCookieHeaders: ["s=1; Domain=localhost"], from: local, now: now)
        #expect(jar.cookies.first?.hostOnly == true)
        #expect(jar.header(for: local, now: now) == "s=1")
        #expect(jar.header(for: URL(string: "http://app.localhost/")!, now: now) == nil)
        // The decision is a parameter, so the rule itself is tested without the list too.
        let cookie = Cookie.parse(setCookie: "a=1; Domain=example.test", from: URL(string: "https://www.example.test/")!, now: now) {
            $0 == "example.test"
        }
        #expect(cookie == nil)
    }

    @Test("the default path is the directory of the request, and paths match on segment boundaries")
    func pathMatching() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["p=1"], from: portal, now: now)
        #expect(jar.cookies.first?.path == "/app")
        #expect(jar.header(for: URL(string: "https://portal.example.edu/app/other")!, now: now) == "p=1")
        #expect(jar.header(for: URL(string: "https://portal.example.edu/application")!, now: now) == nil)
    }

    @Test("Secure cookies are neither accepted nor sent over plain HTTP")
    func secureCookies() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["s=1; Secure"], from: URL(string: "http://portal.example.edu/")!, now: now)
        #expect(jar.cookies.isEmpty)
        jar.store(setCookieHeaders: ["s=1; Secure; Path=/"], from: portal, now: now)
        #expect(jar.header(for: URL(string: "http://portal.example.edu/")!, now: now) == nil)
        #expect(jar.header(for: URL(string: "https://portal.example.edu/")!, now: now) == "s=1")
    }

    @Test("Max-Age wins over Expires, and an expired cookie deletes the stored one")
    func expiry() {
        var jar = CookieJar()
        jar.store(
            setCookieHeaders: ["e=1; Path=/; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: portal, now: now)
        #expect(jar.header(for: portal, now: now) == "e=1")
        #expect(jar.header(for: portal, now: now.addingTimeInterval(61)) == nil)
        jar.store(setCookieHeaders: ["e=gone; Path=/; Max-Age=0"], from: portal, now: now)
        #expect(jar.cookies.isEmpty)
        jar.store(setCookieHeaders: ["old=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: portal, now: now)
        #expect(jar.cookies.isEmpty)
    }

    @Test("a cookie with the same name, domain and path replaces the old one")
    func replacement() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["sid=old; Path=/"], from: portal, now: now)
        jar.store(setCookieHeaders: ["sid=new; Path=/"], from: portal, now: now.addingTimeInterval(1))
        #expect(jar.header(for: portal, now: now) == "sid=new")
    }

    @Test("longer paths are sent first")
    func ordering() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["root=1; Path=/", "deep=2; Path=/app"], from: portal, now: now)
        #expect(jar.header(for: portal, now: now) == "deep=2; root=1")
    }

    @Test("cookies on 127.0.0.1 are shared across ports, as browsers do")
    func loopbackAcrossPorts() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["sid=1; Path=/"], from: URL(string: "http://127.0.0.1:4000/")!, now: now)
        #expect(jar.header(for: URL(string: "http://127.0.0.1:5000/grades")!, now: now) == "sid=1")
    }

    @Test("a jar survives encoding and decoding, as the saved session does")
    func codable() throws {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["sid=abc; Path=/; Max-Age=600; HttpOnly"], from: portal, now: now)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(CookieJar.self, from: try encoder.encode(jar))
        #expect(decoded.header(for: portal, now: now) == "sid=abc")
    }
}
