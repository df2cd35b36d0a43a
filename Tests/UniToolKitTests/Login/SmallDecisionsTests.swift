import Foundation
import Testing

@testable import UniToolKit

@Suite("Small decisions of the login and the session, without a network")
struct SmallDecisionsTests {
    @Test("a button's scripted location is read the ways pages write it")
    func scriptedLocation() {
        #expect(LoginFlow.scriptedLocation("location.href='/login'") == "/login")
        #expect(
            LoginFlow.scriptedLocation("window.location = \"https://cas.example/login?service=x\"") == "https://cas.example/login?service=x"
        )
        #expect(LoginFlow.scriptedLocation("location.assign('/a'); return false;") == "/a")
        #expect(LoginFlow.scriptedLocation("location.replace(\"/b\")") == "/b")
        #expect(LoginFlow.scriptedLocation("alert('hi')") == nil)
    }

    @Test("a recipe's charset applies to the portal's own pages only, never the login service's")
    func charsetOverride() throws {
        var portal = try PortalRecipe.load(
            file: "portal.yaml",
            text:
                "portal: p\nbase_url: https://portal.example.edu\nidp_url: https://idp.example.edu/idp\ncharset: sjis\nlogin:\n  pages:\n    - { when: \"//form\", auto_submit: true }\n"
        )
        #expect(portal.charsetOverride(for: URL(string: "https://portal.example.edu/grades")!) == "sjis")
        #expect(portal.charsetOverride(for: URL(string: "https://idp.example.edu/idp/login")!) == nil)
        portal.charset = nil
        #expect(portal.charsetOverride(for: URL(string: "https://portal.example.edu/")!) == nil)
        #expect {
            try PortalRecipe.load(
                file: "portal.yaml",
                text:
                    "portal: p\nbase_url: https://p.example\ncharset: klingon\nlogin:\n  pages:\n    - { when: \"//form\", auto_submit: true }\n"
            )
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("forgetting a site's cookies keeps every other site's")
    func forgetCookies() {
        var jar = CookieJar()
        let now = Date()
        jar.store(
            setCookieHeaders: ["s=1; Path=/app", "wide=1; Domain=example.edu"], from: URL(string: "https://portal.example.edu/app/x")!,
            now: now)
        jar.store(setCookieHeaders: ["idp=1"], from: URL(string: "https://idp.other.org/")!, now: now)
        jar.remove(cookiesFor: URL(string: "https://portal.example.edu/")!)
        #expect(jar.cookies.map(\.name) == ["idp"])
    }

    @Test("the one-time-code ledger keeps a step and a salted digest, never a code, and reads back what it wrote")
    func ledger() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ledger = OneTimeCodeLedger(portal: "p", user: "u", store: SessionStore(directory: folder))
        #expect(ledger.read() == nil)
        let digest = OneTimeCodeLedger.digest("123456", salt: "p/u")
        #expect(digest != OneTimeCodeLedger.digest("123456", salt: "p/v"), "the same code of another account looks different")
        let entry = OneTimeCodeLedger.Entry(step: 42, digest: digest, sentAt: Date(timeIntervalSince1970: 1_800_000_000))
        try ledger.write(entry)
        #expect(ledger.read() == entry)
        #expect(!(try String(contentsOf: ledger.file, encoding: .utf8)).contains("123456"))
    }

    @Test("a page's body as text, decoded as a browser would, for handing it on")
    func decodedText() {
        let page = Page(
            url: URL(string: "https://p.example/")!, status: 200, contentType: "text/html; charset=Shift_JIS",
            body: [0x87, 0x54, 0x82, 0xA0], hops: [])
        #expect(page.decodedText() == "Ⅰあ")
        #expect(page.decodedText(charsetOverride: "latin1") != "Ⅰあ")
    }
}
