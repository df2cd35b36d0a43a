import Foundation
import Testing
import UniToolKit

/// A portal may not grow the saved session without bound: 50 cookies per domain and 4096 bytes
/// per cookie, the oldest evicted first, as browsers do (RFC 6265, sections 5.3 and 6.1).
@Suite("Cookie limits: 50 per domain, 4096 bytes each, oldest evicted")
struct CookieLimitsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let portal = URL(string: "https://portal.example.edu/app/grades")!

    @Test("450 cookies from one portal leave 50, the newest, and a saved session of a few KB")
    func perDomainCap() throws {
        var jar = CookieJar()
        for index in 0..<450 {
            jar.store(
                setCookieHeaders: ["c\(index)=\(String(repeating: "v", count: 400)); Path=/"], from: portal,
                now: now.addingTimeInterval(Double(index)))
        }
        #expect(jar.cookies.count == CookieLimits.maxCookiesPerDomain)
        #expect(Set(jar.cookies.map(\.name)) == Set((400..<450).map { "c\($0)" }))
        let saved = try SessionStore.encode(jar)
        #expect(saved.count < 40_000, "the saved session is \(saved.count) bytes")
    }

    @Test("cookies set in one response (the same moment) are evicted in the order they came")
    func sameMomentEvictsEarlierFirst() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: (0..<60).map { "c\($0)=1; Path=/" }, from: portal, now: now)
        #expect(jar.cookies.map(\.name) == (10..<60).map { "c\($0)" })
    }

    @Test("each domain has its own 50: a parent-domain cookie does not push out the host's own")
    func capIsPerDomain() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: (0..<50).map { "host\($0)=1" }, from: portal, now: now)
        jar.store(
            setCookieHeaders: (0..<50).map { "wide\($0)=1; Domain=example.edu" }, from: portal, now: now.addingTimeInterval(1))
        #expect(jar.cookies.count == 100)
        jar.store(setCookieHeaders: ["one-more=1; Domain=example.edu"], from: portal, now: now.addingTimeInterval(2))
        #expect(jar.cookies.filter { $0.domain == "example.edu" }.count == 50)
        #expect(jar.cookies.filter { $0.domain == "portal.example.edu" }.count == 50)
        #expect(!jar.cookies.contains { $0.name == "wide0" } && jar.cookies.contains { $0.name == "one-more" })
    }

    @Test("a replaced cookie keeps its creation time, so the session cookie set first is evicted first, not the newest")
    func replacedCookieKeepsItsAge() {
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["sid=first; Path=/"], from: portal, now: now)
        for index in 1..<50 {
            jar.store(setCookieHeaders: ["c\(index)=1; Path=/"], from: portal, now: now.addingTimeInterval(Double(index)))
        }
        jar.store(setCookieHeaders: ["sid=renewed; Path=/"], from: portal, now: now.addingTimeInterval(100))
        #expect(jar.cookies.count == 50 && jar.cookies.contains { $0.value == "renewed" })
        jar.store(setCookieHeaders: ["late=1; Path=/"], from: portal, now: now.addingTimeInterval(101))
        #expect(!jar.cookies.contains { $0.name == "sid" }, "RFC 6265 keeps the old cookie's creation time on replacement")
        #expect(jar.cookies.contains { $0.name == "late" } && jar.cookies.contains { $0.name == "c1" })
    }

    @Test("a cookie whose name and value pass 4096 bytes is ignored; one of exactly 4096 is kept")
    func perCookieSize() throws {
        let fits = "n=" + String(repeating: "v", count: 4095)
        let tooLong = "n=" + String(repeating: "v", count: 4096)
        #expect(Cookie.parse(setCookie: fits, from: portal, now: now) != nil)
        #expect(Cookie.parse(setCookie: tooLong, from: portal, now: now) == nil)
        var jar = CookieJar()
        jar.store(setCookieHeaders: ["n=small", tooLong], from: portal, now: now)
        #expect(jar.cookies.map(\.value) == ["small"], "an over-long cookie neither enters nor replaces")
        // Bytes, not letters: 'é' is two bytes in UTF-8, so 2047 of them fit (4094 bytes) and 2100 do not.
        #expect(Cookie.parse(setCookie: "é=" + String(repeating: "é", count: 2046), from: portal, now: now) != nil)
        #expect(Cookie.parse(setCookie: "n=" + String(repeating: "é", count: 2100), from: portal, now: now) == nil)
        // A cookie changed in code after parsing is held to the same limit when stored.
        var big = try #require(Cookie.parse(setCookie: "big=1", from: portal, now: now))
        big.value = String(repeating: "x", count: 5000)
        jar.store(big, now: now)
        #expect(!jar.cookies.contains { $0.name == "big" })
    }

    @Test("the eviction order: expired first, then the oldest, then the earlier stored")
    func evictionOrder() {
        let base = Date(timeIntervalSince1970: 0)
        let cookies: [(created: Date, expired: Bool)] = [
            (base.addingTimeInterval(5), false), (base.addingTimeInterval(1), false), (base.addingTimeInterval(9), true),
            (base.addingTimeInterval(1), false), (base.addingTimeInterval(3), false),
        ]
        #expect(CookieLimits.evictions(among: cookies, keeping: 5) == [])
        #expect(CookieLimits.evictions(among: cookies, keeping: 4) == [2])
        #expect(CookieLimits.evictions(among: cookies, keeping: 3) == [1, 2])
        #expect(CookieLimits.evictions(among: cookies, keeping: 2) == [1, 2, 3])
        #expect(CookieLimits.evictions(among: cookies, keeping: 1) == [1, 2, 3, 4])
    }
}
