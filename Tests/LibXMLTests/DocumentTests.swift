import LibXML
import Testing
import UniToolTestSupport

@Suite("HTML and XML documents over libxml2")
struct DocumentTests {
    @Test("a page saved for a drift report keeps its markup but loses every form value")
    func formValuesRemoved() throws {
        let document = try Document(
            html: """
                <form><input type="hidden" name="csrf_token" value="s3cret-token"><input name="j_username" value="alice">
                <textarea name="note">typed text</textarea><select name="t"><option value="2026-fall" selected>Fall</option></select></form>
                <p class="grade">A-</p>
                """)
        let markup = document.markupWithoutFormValues()
        #expect(!markup.contains("s3cret-token") && !markup.contains("alice") && !markup.contains("typed text"))
        #expect(markup.contains("name=\"csrf_token\"") && markup.contains("<p class=\"grade\">A-</p>"))
        #expect(markup.contains("2026-fall"), "option values are the page's, not the user's")
        #expect(try document.select("//input[@value='alice']").count == 1, "the document itself is unchanged")
    }

    @Test("broken markup is repaired as a browser would, not rejected")
    func brokenMarkupIsRecovered() throws {
        let document = try Document(html: try Fixtures.bytes("html/broken-markup.html"))
        let cells = try document.select("//table[@id='t']//td").map(\.normalizedText)
        #expect(cells == ["one", "two", "three", "four"])
        #expect(try document.evaluate("string(//p[@class='unquoted'])").stringValue.contains("unclosed bold"))
    }

    @Test("the charset declared in the page is honoured")
    func latin1PageIsDecoded() throws {
        let document = try Document(html: try Fixtures.bytes("html/latin1.html"))
        #expect(try document.select("//p[@id='n']").first?.text == "Prüfungsergebnis: Übung bestanden")
    }

    @Test(
        "Shift_JIS and EUC-JP from <meta>, ISO-8859-2 from the HTTP header, are decoded",
        arguments: [
            ("html/shift-jis.html", nil, "情報理論：優", "SHIFT_JIS"),
            ("html/euc-jp.html", nil, "日本語初級：良", "EUC-JP"),
            ("html/iso-8859-2-no-meta.html", "ISO-8859-2", "Számítógépes hálózatok: jeles, Łódź", "ISO-8859-2"),
        ] as [(String, String?, String, String)])
    func legacyCharsets(file: String, header: String?, expected: String, encoding: String) throws {
        let document = try Document(html: try Fixtures.bytes(file), encoding: header)
        #expect(try document.select("//p[@id='n']").first?.text == expected)
        #expect(document.encoding?.uppercased() == encoding)
    }

    @Test("a page without a declared charset is read as UTF-8")
    func undeclaredCharsetDefaultsToUTF8() throws {
        let document = try Document(html: Array("<p>日本語 és magyar</p>".utf8))
        #expect(try document.select("//p").first?.text == "日本語 és magyar")
    }

    @Test("XPath works relative to a node, and absolute paths still read the page")
    func relativeAndAbsoluteXPath() throws {
        let document = try Document(html: try Fixtures.bytes("html/grades-table.html"))
        let rows = try document.select("//table[@id='grades']/tbody/tr")
        #expect(rows.count == 3)
        #expect(try rows[1].select("td[@class='code']").first?.text == "CS-210")
        #expect(try rows[1].evaluate("//select[@id='term']/option[@selected]/@value").stringValue == "2026-spring")
    }

    @Test("XPath functions return values, not nodes")
    func xpathValues() throws {
        let document = try Document(html: try Fixtures.bytes("html/grades-table.html"))
        guard case .number(let count) = try document.evaluate("count(//tbody/tr)") else {
            Issue.record("count() should give a number")
            return
        }
        #expect(count == 3)
        #expect(try document.evaluate("boolean(//a[@id='logout'])").booleanValue)
        #expect(throws: LibXMLError.self) { try document.select("count(//tr)") }
    }

    @Test("an invalid XPath is reported with the expression")
    func invalidXPathIsAnError() throws {
        #expect(throws: LibXMLError.self) { try XPath.validate("//td[@class='x'") }
        do {
            try XPath.validate("//td[")
            Issue.record("expected an error")
        } catch let error as LibXMLError {
            #expect(String(describing: error).contains("//td["))
        }
        try XPath.validate("//table[@id='grades']/tbody/tr")
    }

    @Test("nested entities (billion laughs) are refused, never expanded")
    func entityExpansionIsRefused() throws {
        do {
            let document = try Document(xml: try Fixtures.bytes("html/entities.xml"))
            let title = try document.evaluate("string(/rss/channel/title)").stringValue
            #expect(!title.contains("lollollol"))
        } catch let error as LibXMLError {
            #expect(String(describing: error).contains("entity"))
        }
    }

    @Test("an external entity is not loaded from the file system")
    func externalEntityIsNotLoaded() throws {
        let document = try Document(xml: try Fixtures.bytes("html/entities-xxe.xml"))
        let item = try document.evaluate("string(/rss/channel/item/title)").stringValue
        #expect(!item.contains("root:"))
        #expect(try document.evaluate("string(/rss/channel/title)").stringValue == "News")
    }

    @Test("attributes, children and ancestors are reachable without C pointers")
    func nodeNavigation() throws {
        let document = try Document(html: try Fixtures.bytes("html/login-forms.html"))
        let input = try #require(try document.select("//input[@name='csrf_token']").first)
        #expect(input.attribute("value") == "tok-123")
        #expect(input.attribute("missing") == nil)
        #expect(input.ancestor(named: "form")?.attribute("id") == "everything")
        #expect(document.title == "Sign in")
    }
}
