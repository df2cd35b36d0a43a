import Foundation
import LibXML
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("HTML forms as a browser submits them")
struct HTMLFormTests {
    let pageURL = URL(string: "https://idp.example.edu/idp/login")!

    func form(_ id: String) throws -> (HTMLForm, Document) {
        let document = try Document(html: try Fixtures.bytes("html/login-forms.html"), url: pageURL.absoluteString)
        let node = try #require(try document.select("//form[@id='\(id)']").first)
        return (try HTMLForm(node, pageURL: pageURL), document)
    }

    @Test("hidden, text, checked boxes, radios, selects and textareas are sent; disabled, file and unchecked are not")
    func entryList() throws {
        let (form, _) = try form("everything")
        let names = form.fields.map(\.name)
        #expect(names == ["csrf_token", "j_username", "j_password", "remember", "bare", "lang", "idp", "first-by-default", "note"])
        let values = Dictionary(uniqueKeysWithValues: form.fields.map { ($0.name, $0.value) })
        #expect(values["remember"] == "yes")
        #expect(values["bare"] == "on")
        #expect(values["lang"] == "hu")
        #expect(values["idp"] == "https://idp.example.edu")
        #expect(values["first-by-default"] == "a")
        #expect(values["note"] == "line one\nline two")
    }

    @Test("the action is resolved against <base href>")
    func actionUsesBase() throws {
        let (form, _) = try form("everything")
        #expect(form.action.absoluteString == "https://idp.example.edu/idp/profile/SAML2/Redirect/SSO?execution=e1s2")
        #expect(form.method == "POST")
    }

    @Test("only the clicked button is sent; without a click, the first submit button is")
    func buttons() throws {
        let (form, document) = try form("everything")
        #expect(form.buttons.count == 2)
        let implicit = try form.submission(values: [("j_username", "alice")])
        #expect(implicit.fields.contains { $0.name == "_eventId_proceed" })
        #expect(!implicit.fields.contains { $0.name == "_eventId_cancel" })
        #expect(implicit.fields.first { $0.name == "j_username" }?.value == "alice")

        let cancel = try #require(try document.select("//button[@name='_eventId_cancel']").first)
        let cancelled = try form.submission(values: [], clicking: cancel)
        #expect(cancelled.method == "GET")
        #expect(cancelled.url.absoluteString == "https://idp.example.edu/idp/cancel")
        #expect(cancelled.fields.last?.name == "_eventId_cancel")
        #expect(!cancelled.fields.contains { $0.name == "_eventId_proceed" })
    }

    @Test("a button that does not submit cannot be clicked")
    func nonSubmitButtonIsRefused() throws {
        let (form, document) = try form("everything")
        let button = try #require(try document.select("//button[@name='js-only']").first)
        #expect { try form.submission(values: [], clicking: button) } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
    }

    @Test("a GET form with an empty action submits to the page itself, percent-encoding UTF-8")
    func getFormEncoding() throws {
        let (form, _) = try form("search")
        let submission = try form.submission(values: [])
        #expect(submission.method == "GET")
        #expect(submission.requestURL.absoluteString == "https://idp.example.edu/idp/login?q=caf%C3%A9+%26+%E6%97%A5%E6%9C%AC")
    }

    @Test("the Shibboleth local-storage form posts its hidden fields")
    func localStorageInterstitial() throws {
        let (form, _) = try form("shib-ls")
        let submission = try form.submission(values: [])
        #expect(submission.encodedFields.contains("shib_idp_ls_success.shib_idp_session_ss=false"))
        #expect(submission.url.absoluteString == "https://idp.example.edu/idp/profile/SAML2/Redirect/SSO?execution=e1s1")
    }

    @Test("a submission's description names the fields but never shows a value")
    func descriptionHidesValues() throws {
        let (form, _) = try form("everything")
        let submission = try form.submission(values: [("j_password", "hunter2-secret")])
        #expect(!submission.description.contains("hunter2-secret"))
        #expect(submission.description.contains("j_password"))
    }

    @Test("a form is sent in its page's charset: Shift_JIS and ISO-8859-2 bytes, percent-encoded")
    func formUsesPageCharset() throws {
        let japanese = try Document(html: try Fixtures.bytes("html/shift-jis.html"))
        let form = try HTMLForm(try #require(try japanese.select("//form").first), pageURL: URL(string: "https://x.example/")!)
        #expect(form.charset?.uppercased() == "SHIFT_JIS")
        // 線形代数 in Shift_JIS is 90 FC 8C 60 91 E3 90 94.
        #expect(try form.submission(values: []).encodedFields == "q=%90%FC%8C%60%91%E3%90%94")

        let hungarian = try Document(html: try Fixtures.bytes("html/iso-8859-2-no-meta.html"), encoding: "ISO-8859-2")
        let second = try HTMLForm(try #require(try hungarian.select("//form").first), pageURL: URL(string: "https://x.example/")!)
        // é is E9 in ISO-8859-2; ő is F5; a character it lacks goes as a character reference.
        #expect(try second.submission(values: [("q", "Bevezetés ő 日")]).encodedFields == "q=Bevezet%E9s+%F5+%26%2326085%3B")
    }
}
