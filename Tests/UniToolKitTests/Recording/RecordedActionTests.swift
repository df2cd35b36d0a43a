import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A form the person sent after the login becomes an action that asks first: told by what they
/// did (the form they posted, the button they pressed, the fields they typed into, the row the
/// page's address named, the portal's confirmation page they sent on), never by the words on the
/// buttons: the portals here are German and Japanese.
@Suite("Recording: a form sent after the login becomes an action that asks first")
struct RecordedActionTests {
    static let base = "https://portal.example.edu"
    static let token = "f3A9kQ7zLw2Xp8RtV5nB"

    static func entry(_ method: String, _ path: String, form: [(String, String)]? = nil, html: String) -> [String: Any] {
        RecordingBoundariesTests.entry(method, base + path, referer: base + "/home", form: form, html: html)
    }

    static func page(_ body: String) -> String {
        "<html><head><title>Portal</title></head><body><header class='top'><a id='logout' href='/logout'>Abmelden</a></header><main>\(body)</main></body></html>"
    }

    static func draft(_ pages: [[String: Any]]) throws -> RecipeDraft {
        try RecipeDraft(portal: "uni", title: nil, archive: try RecordingBoundariesTests.login(pages: pages))
    }

    static let loans = page(
        """
        <h1>Meine Ausleihen</h1>
        <table id='ausleihen'><tr><th>Titel</th><th>Mediennummer</th><th>Frist</th><th></th></tr>
        <tr><td class='titel'>Der Zauberberg</td><td class='nr'>4711</td><td class='frist'>01.12.2026</td><td><a href='/verlaengern?nr=4711'>Verlängern</a></td></tr>
        <tr><td class='titel'>Faust</td><td class='nr'>4712</td><td class='frist'>03.12.2026</td><td><a href='/verlaengern?nr=4712'>Verlängern</a></td></tr>
        </table>
        """)

    static func renewForm(_ number: String) -> String {
        page(
            """
            <h1>Verlängern</h1><p>Wirklich verlängern?</p>
            <form id='verl' method='post' action='/verlaengern'>
              <input type='hidden' name='nr' value='\(number)'><input type='hidden' name='csrf' value='\(token)'>
              <button type='submit' name='abbrechen' value='1'>Abbrechen</button>
              <button type='submit' name='ok' value='1'>Ja, verlängern</button>
            </form>
            """)
    }

    static let renewed = page(
        "<h1>Verlängern</h1><p class='erfolg'>Verlängert bis <strong class='neue-frist'>15.12.2026</strong>.</p><a href='/ausleihen'>Zurück</a>"
    )

    @Test(
        "a renewal chosen on the loans page: an action of the loans command, its argument the row the address named, the button pressed (not the first), asking first, the page's token left to the page"
    )
    func renewalOfARow() throws {
        let draft = try Self.draft([
            Self.entry("GET", "/ausleihen", html: Self.loans),
            Self.entry("GET", "/verlaengern?nr=4711", html: Self.renewForm("4711")),
            Self.entry("POST", "/verlaengern", form: [("nr", "4711"), ("csrf", Self.token), ("ok", "1")], html: Self.renewed),
        ])
        let loans = RecordingBoundariesTests.text(draft, "ausleihen.yaml")
        #expect(loans.contains("actions:\n"), "\(loans)")
        #expect(loans.contains("  verl:\n    summary: \"Verlängern\"\n    argument: nr\n    ask: true\n"), "\(loans)")
        #expect(loans.contains("fetch: \"/verlaengern?nr={{nr}}\""), "\(loans)")
        #expect(loans.contains("form: \"//form[@id='verl'][.//input[@name='nr'][@value={{nr}}]]\""), "\(loans)")
        #expect(loans.contains("submit: \".//button[@name='ok']\""), "the button pressed, not the form's first: \(loans)")
        #expect(loans.contains("success_when: \"//p[@class='erfolg']\""), "\(loans)")
        #expect(loans.contains("neue_frist: { xpath: \"//p[@class='erfolg']//strong[@class='neue-frist']\" }"), "\(loans)")
        #expect(!loans.contains("csrf") && !loans.contains(Self.token), "the page fills its own token: \(loans)")
        #expect(draft.leaks(in: draft.files).isEmpty)
        let recipe = try DataRecipe.load(file: "ausleihen.yaml", text: loans, portal: "uni")
        let action = try #require(recipe.actions.first)
        #expect(action.ask && action.argument == "nr" && action.parameters.isEmpty && action.refusedWhen == nil)
        #expect(
            draft.recognised.contains { $0.contains("'ausleihen verl <nr>'") && $0.contains("asks before it sends") }, "\(draft.recognised)"
        )
        #expect(draft.guessed.contains { $0.contains("ausleihen verl: success_when") }, "\(draft.guessed)")
        // The result page read by the action's own fields, as the engine will.
        let result = try Document(html: Array(Self.renewed.utf8), url: Self.base + "/verlaengern")
        #expect(try result.evaluate(action.successWhen).booleanValue)
        #expect(try Document(html: Array(Self.renewForm("4711").utf8), url: Self.base).select(action.successWhen).isEmpty)
    }

    static func holds(_ forms: (String) -> String) -> String {
        page(
            "<h1>Vormerkungen</h1><table id='holds'>"
                + ["9001", "9002", "9003"].map { "<tr><td class='titel'>Buch \($0)</td><td>\(forms($0))</td></tr>" }.joined()
                + "</table>")
    }

    @Test(
        "a form of each row (a holds list's cancel form): the hidden value that tells the rows apart and the person sent is the argument, in the form's XPath; without one, no action that could act on another row"
    )
    func formPerRow() throws {
        let cancelled = Self.page("<h1>Vormerkungen</h1><p class='erfolg'>Vormerkung storniert.</p>")
        func cancel(_ id: String) -> String {
            "<form action='opac-modrequest.pl' method='post'><input type='hidden' name='reserve_id' value='\(id)'><input type='hidden' name='csrf' value='\(Self.token)'><button type='submit' name='submit' value='cancel'>Stornieren</button></form>"
        }
        let draft = try Self.draft([
            Self.entry("GET", "/opac-user.pl", html: Self.holds(cancel)),
            Self.entry(
                "POST", "/opac-modrequest.pl", form: [("reserve_id", "9002"), ("csrf", Self.token), ("submit", "cancel")], html: cancelled),
        ])
        let holds = try #require(
            draft.files.first { file in
                file.path.hasSuffix(".yaml") && String(decoding: file.data, as: UTF8.self).contains("actions:")
            })
        let text = String(decoding: holds.data, as: UTF8.self)
        #expect(text.contains("argument: reserve_id"), "\(text)")
        let form = "//form[@action='opac-modrequest.pl'][.//input[@name='reserve_id'][@value={{reserve_id}}]]"
        #expect(text.contains("form: \"\(form)\""), "\(text)")
        // Forms alike that no hidden value tells apart: no action, and the report says why.
        func same(_ id: String) -> String {
            "<form action='opac-modrequest.pl' method='post'><input type='hidden' name='op' value='cancel'><button type='submit' name='submit' value='cancel'>Stornieren</button></form>"
        }
        let blind = try Self.draft([
            Self.entry("GET", "/opac-user.pl", html: Self.holds(same)),
            Self.entry("POST", "/opac-modrequest.pl", form: [("op", "cancel"), ("submit", "cancel")], html: cancelled),
        ])
        let paths = blind.files.map { $0.path }
        #expect(!blind.files.contains { String(decoding: $0.data, as: UTF8.self).contains("actions:") }, "\(paths)")
        #expect(blind.skipped.contains { $0.contains("3 forms like it") && $0.contains("another row") }, "\(blind.skipped)")
    }

    @Test("a form of each row whose address names it (/loans/31000103/renew): the number in the path is the argument, in the form's XPath")
    func formPerRowByPath() throws {
        let renewed = Self.page("<h1>Ausleihen</h1><p class='erfolg'>Verlängert.</p>")
        func renew(_ id: String) -> String {
            "<form action='/loans/\(id)/renew' method='post'><button type='submit' name='go' value='1'>Verlängern</button></form>"
        }
        let draft = try Self.draft([
            Self.entry("GET", "/loans", html: Self.holds(renew)),
            Self.entry("POST", "/loans/9002/renew", form: [("go", "1")], html: renewed),
        ])
        let file = try #require(draft.files.first { String(decoding: $0.data, as: UTF8.self).contains("actions:") })
        let text = String(decoding: file.data, as: UTF8.self)
        #expect(text.contains("argument: loans"), "\(text)")
        #expect(text.contains("form: \"//form[@action=concat('/loans/', {{loans}}, '/renew')]\""), "\(text)")
        let form = try #require(try DataRecipe.load(file: file.path, text: text, portal: "uni").actions.first?.form)
        let page = try Document(html: Array(Self.holds(renew).utf8), url: Self.base + "/loans")
        let filled = form.replacingOccurrences(of: "{{loans}}", with: Template.xpathLiteral("9003"))
        #expect(try page.select(filled).first?.attribute("action") == "/loans/9003/renew", "\(filled)")
    }

    static let requestForm = page(
        """
        <h1>購入依頼</h1>
        <form id='irai' method='post' action='/irai'>
          <input type='hidden' name='token' value='\(token)'>
          <p><label for='shomei'>書名 *</label><input type='text' id='shomei' name='shomei' required></p>
          <p><label for='riyuu'>理由</label><textarea id='riyuu' name='riyuu'></textarea></p>
          <p><label for='bikou'>備考</label><input type='text' id='bikou' name='bikou' value=''></p>
          <button type='submit' name='kakunin' value='1'>確認</button>
        </form>
        """)

    static func confirmPage(_ title: String) -> String {
        page(
            """
            <h1>購入依頼</h1><dl><dt>書名</dt><dd>\(title)</dd></dl>
            <form id='irai-kakunin' method='post' action='/irai/soushin'>
              <input type='hidden' name='token' value='\(token)'><input type='hidden' name='shomei' value='\(title)'>
              <button type='submit' name='modoru' value='1'>戻る</button>
              <button type='submit' name='soushin' value='1'>送信</button>
            </form>
            """)
    }

    @Test(
        "a purchase request through 入力 → 確認 → 完了, sent back once for a missing title: a command of its own, the typed fields as parameters with their labels, the confirmation page, the objection as refused_when"
    )
    func requestThroughItsConfirmationPage() throws {
        let objected = Self.requestForm.replacingOccurrences(
            of: "<form id='irai'", with: "<ul class='form-errors'><li>書名を入力してください</li></ul><form id='irai'")
        let title = "吾輩は猫である"
        let draft = try Self.draft([
            Self.entry("GET", "/irai", html: Self.requestForm),
            Self.entry(
                "POST", "/irai", form: [("token", Self.token), ("shomei", ""), ("riyuu", ""), ("bikou", ""), ("kakunin", "1")],
                html: objected),
            Self.entry(
                "POST", "/irai", form: [("token", Self.token), ("shomei", title), ("riyuu", "ゼミで使うため"), ("bikou", ""), ("kakunin", "1")],
                html: Self.confirmPage(title)),
            Self.entry(
                "POST", "/irai/soushin", form: [("token", Self.token), ("shomei", title), ("soushin", "1")],
                html: Self.page("<h1>購入依頼</h1><p class='kanryou'>受け付けました。<strong class='bangou'>R-0042</strong></p>")),
        ])
        #expect(draft.commands.contains("irai"), "\(draft.commands)")
        #expect(draft.files.contains { $0.path == "Fixtures/irai/recorded.html" }, "its page is the command's fixture")
        #expect(!draft.skipped.contains { $0.hasPrefix("/irai has no table") }, "\(draft.skipped)")
        let text = RecordingBoundariesTests.text(draft, "irai.yaml")
        #expect(text.contains("  irai:\n    summary: \"購入依頼\"\n    parameters:\n"), "\(text)")
        #expect(text.contains("shomei: { required: true, help: \"書名\" }"), "\(text)")
        #expect(text.contains("riyuu: { help: \"理由\" }") && text.contains("bikou: { help: \"備考\" }"), "\(text)")
        #expect(text.contains("ask: true\n    fetch: \"/irai\"\n    form: \"//form[@id='irai']\""), "\(text)")
        #expect(text.contains("submit: \".//button[@name='kakunin']\""), "\(text)")
        #expect(text.contains("refused_when: \"//ul[@class='form-errors']\""), "\(text)")
        #expect(
            text.contains("confirm_page: { form: \"//form[@id='irai-kakunin']\", submit: \".//button[@name='soushin']\" }"),
            "the button the person sent it with, not the first: \(text)")
        #expect(text.contains("success_when: \"//p[@class='kanryou']\""), "\(text)")
        #expect(text.contains("bangou: { xpath: \"//p[@class='kanryou']//strong[@class='bangou']\" }"), "\(text)")
        #expect(!text.contains(title) && !text.contains("ゼミ"), "what the person typed is a value of theirs, not the recipe's: \(text)")
        let recipe = try DataRecipe.load(file: "irai.yaml", text: text, portal: "uni")
        let action = try #require(recipe.actions.first)
        #expect(action.ask && action.argument.isEmpty && action.confirmPage?.submit == ".//button[@name='soushin']")
        #expect(
            action.parameters.map(\.name) == ["shomei", "riyuu", "bikou"] && action.parameters.map(\.required) == [true, false, false])
        #expect(action.fill.map(\.name) == ["shomei", "riyuu", "bikou"])
        #expect(
            draft.recognised.filter { $0.contains("asks before it sends") }.count == 1,
            "one action, the attempt that led on: \(draft.recognised)")
    }

    @Test(
        "a row ticked on the loans page itself: an action of that page's command, the ticked value its argument; the person going back from the confirmation page is no attempt"
    )
    func tickedRowOnTheListAndBack() throws {
        let list = Self.page(
            """
            <h1>Ausleihen</h1>
            <form id='liste' method='post' action='/ausleihen'>
            <table id='ausleihen'><tr><th></th><th>Titel</th><th>Frist</th></tr>
            <tr><td><input type='checkbox' name='item' value='811'></td><td class='titel'>Faust</td><td class='frist'>01.12.2026</td></tr>
            <tr><td><input type='checkbox' name='item' value='812'></td><td class='titel'>Effi Briest</td><td class='frist'>03.12.2026</td></tr>
            </table>
            <button type='submit' name='los' value='1'>Markierte verlängern</button>
            </form>
            """)
        let check = Self.page(
            "<h1>Bestätigen</h1><form id='pruefen' method='post' action='/ausleihen/ok'><input type='hidden' name='item' value='811'><button name='zurueck' value='1'>Zurück</button><button name='weiter' value='1'>Weiter</button></form>"
        )
        let done = Self.page("<p class='ergebnis'>Verlängert: <span class='anzahl'>1</span></p>")
        let draft = try Self.draft([
            Self.entry("GET", "/ausleihen", html: list),
            Self.entry("POST", "/ausleihen", form: [("item", "811"), ("los", "1")], html: check),
            Self.entry("POST", "/ausleihen/ok", form: [("item", "811"), ("zurueck", "1")], html: list),
            Self.entry("POST", "/ausleihen", form: [("item", "811"), ("los", "1")], html: check),
            Self.entry("POST", "/ausleihen/ok", form: [("item", "811"), ("weiter", "1")], html: done),
        ])
        let text = RecordingBoundariesTests.text(draft, "ausleihen.yaml")
        #expect(text.contains("  liste:\n    summary: \"Ausleihen\"\n    argument: item\n    ask: true\n"), "\(text)")
        #expect(text.contains("fetch: \"/ausleihen\"\n    form: \"//form[@id='liste']\"\n    fill: { \"item\": \"{{item}}\" }"), "\(text)")
        #expect(text.contains("confirm_page: { form: \"//form[@id='pruefen']\", submit: \".//button[@name='weiter']\" }"), "\(text)")
        #expect(text.contains("anzahl: { xpath: \"//p[@class='ergebnis']//span[@class='anzahl']\" }"), "\(text)")
        #expect(!draft.skipped.contains { $0.contains("/ausleihen") && $0.contains("showed it again") }, "\(draft.skipped)")
        let recipe = try DataRecipe.load(file: "ausleihen.yaml", text: text, portal: "uni")
        #expect(recipe.actions.map(\.name) == ["liste"] && recipe.actions.first?.argument == "item")
    }

    @Test(
        "a session key both the address and the form carry names no row: it is never the argument, and an action only it would name is left out, said why"
    )
    func sessionKeyIsNoRow() throws {
        let key = "Ab3dE5fG7h"
        let form = Self.renewForm("4711").replacingOccurrences(
            of: "<input type='hidden' name='nr' value='4711'>",
            with: "<input type='hidden' name='k' value='\(key)'><script>var M = {\"sesskey\":\"\(key)\"};</script>")
        let draft = try Self.draft([
            Self.entry("GET", "/ausleihen", html: Self.loans),
            Self.entry("GET", "/verlaengern?k=\(key)", html: form),
            Self.entry("POST", "/verlaengern", form: [("k", key), ("csrf", Self.token), ("ok", "1")], html: Self.renewed),
        ])
        let everything = draft.files.map { String(decoding: $0.data, as: UTF8.self) }.joined()
        #expect(!everything.contains(key) && !everything.contains("argument: k"), "\(everything)")
        #expect(draft.skipped.contains { $0.contains("//form[@id='verl']") && $0.contains("sesskey") }, "\(draft.skipped)")
        #expect(draft.leaks(in: draft.files).isEmpty)
    }

    @Test("no action from the login, the notices passed after it, forms that post themselves, or a POST the export hook takes")
    func noActionFromTheLogin() throws {
        let archive = try RecipeDraftTests.archive("playwright-chromium-reminder.har")
        let login = try RecordedLogin(reading: archive)
        #expect(RecordedAction.read(login, origins: [login.portal.origin]).actions.isEmpty)
        let posting = try RecordingBoundariesTests.login(pages: [
            Self.entry("GET", "/ausleihen", html: Self.loans),
            Self.entry("GET", "/verlaengern?nr=4711", html: Self.renewForm("4711")),
            Self.entry("POST", "/verlaengern", form: [("nr", "4711"), ("csrf", Self.token), ("ok", "1")], html: Self.renewed),
            Self.entry(
                "GET", "/sso",
                html: Self.page("<form id='auto' method='post' action='/acs'><input type='hidden' name='state' value='x'></form>")),
            Self.entry("POST", "/acs", form: [("state", "x")], html: Self.page("<p class='hi'>Hallo</p>")),
        ])
        let withPosts = try RecordedLogin(reading: posting)
        let read = RecordedAction.read(withPosts, origins: [withPosts.portal.origin])
        #expect(read.actions.map(\.name) == ["verl"], "a form of hidden fields that posted itself is none: \(read.actions)")
        let exported = RecordedAction.read(withPosts, origins: [withPosts.portal.origin]) { $0.url.path == "/verlaengern" }
        #expect(exported.actions.isEmpty, "left to RecordedExport")
        #expect(RecordedAction.read(withPosts, origins: ["https://elsewhere.example"]).actions.isEmpty)
    }
}
