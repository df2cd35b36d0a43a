import Foundation
import Testing

@testable import UniToolKit

/// What `restart:` forgets: the cookies of the origin that timed out, not the login service's.
@Suite("Forgetting a timed-out portal's cookies")
struct CookieForgettingTests {
    func jar() -> CookieJar {
        var jar = CookieJar()
        let portal = URL(string: "http://127.0.0.1:8080/campus/home")!
        jar.store(setCookieHeaders: ["sp_session=a; Path=/", "campus_pref=b; Path=/campus"], from: portal)
        jar.store(setCookieHeaders: ["idp_session=c; Path=/idp"], from: URL(string: "http://127.0.0.1:8080/idp/login")!)
        jar.store(setCookieHeaders: ["elsewhere=d; Path=/"], from: URL(string: "http://idp.example.edu/login")!)
        return jar
    }

    @Test("restart: true forgets what goes to the timed-out host, except the login service's own path; other hosts stay")
    func keepsTheIdP() {
        var kept = jar()
        kept.remove(
            cookiesFor: URL(string: "http://127.0.0.1:8080/campus/timeout")!, keepingThoseFor: URL(string: "http://127.0.0.1:8080/idp")!)
        #expect(Set(kept.cookies.map(\.name)) == ["idp_session", "elsewhere"])
    }

    @Test("restart: all, or no login service named, forgets every cookie of the host")
    func forgetsAll() {
        var all = jar()
        all.remove(cookiesFor: URL(string: "http://127.0.0.1:8080/campus/timeout")!)
        #expect(Set(all.cookies.map(\.name)) == ["elsewhere"])
    }

    @Test("restart takes true or all, and says so for anything else")
    func ruleValues() throws {
        func rule(_ value: String) throws -> PageRule.Action? {
            let text = """
                portal: p
                base_url: https://portal.example.edu
                login: { pages: [{ name: timed out, when: "//h1", restart: \(value) }] }
                """
            return try PortalRecipe.load(file: "portal.yaml", text: text).login.pages.first?.action
        }
        guard case .restart(let all)? = try rule("true"), case .restart(let everything)? = try rule("all") else {
            Issue.record("restart was not read")
            return
        }
        #expect(!all && everything)
        #expect {
            _ = try rule("maybe")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid && ($0 as? UniToolError)?.message.contains("'all'") == true }
    }
}
