import Foundation
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
        #expect(document.encoding.name.uppercased() == encoding)
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

    @Test("a feed that declares an external entity is refused, and nothing is read from the file system")
    func externalEntityIsNotLoaded() throws {
        do {
            _ = try Document(xml: try Fixtures.bytes("html/entities-xxe.xml"))
            Issue.record("a document declaring entities was accepted")
        } catch let error as LibXMLError {
            #expect(String(describing: error).contains("declares entities"))
            #expect(!String(describing: error).contains("root:"))
        }
    }

    @Test("an old RSS feed whose DOCTYPE only names an external DTD is still read (the DTD is never loaded)")
    func externalDTDOnlyIsFine() throws {
        let feed = """
            <?xml version="1.0"?>
            <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://127.0.0.1:9/rss-0.91.dtd">
            <rss version="0.91"><channel><title>News</title></channel></rss>
            """
        let document = try Document(xml: feed)
        #expect(try document.evaluate("string(/rss/channel/title)").stringValue == "News")
    }

    @Test("one 20 KB entity referenced 10,000 times (quadratic expansion) is refused")
    func quadraticEntityExpansionIsRefused() throws {
        let feed =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE rss [<!ENTITY big \"" + String(repeating: "A", count: 20_000) + "\">]>\n"
            + "<rss><channel><title>" + String(repeating: "&big;", count: 10_000) + "</title></channel></rss>"
        #expect(throws: LibXMLError.self) { try Document(xml: feed) }
    }

    @Test("an XPath whose cost explodes is stopped by the operation limit, with its own error")
    func exponentialXPathIsStopped() throws {
        let rows = (0..<400).map { "<tr><td>\($0)</td><td>x</td></tr>" }.joined()
        let document = try Document(html: "<html><body><table>\(rows)</table></body></html>")
        do {
            _ = try document.evaluate("count(//*[count(//*[count(//*) > 0]) > 0])")
            Issue.record("the costly XPath ran to the end")
        } catch let error as LibXMLError {
            guard case .xpathTooCostly = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(String(describing: error).contains("stopped after"))
        }
        // An ordinary expression on the same page is untouched by the limit.
        #expect(try document.select("//tr").count == 400)
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

    /// A page as Japanese servers send it: Windows-31J bytes (NEC row 13) under the label Shift_JIS.
    static func windows31JPage(rows: Int, meta: Bool) -> [UInt8] {
        var bytes = Array("<html><head>\(meta ? "<meta charset=\"Shift_JIS\">" : "")<title>".utf8)
        bytes += [0x90, 0xAC, 0x90, 0xD1]  // 成績
        bytes += Array("</title></head><body><table>".utf8)
        for row in 0..<rows {
            bytes += Array("<tr><td>\(row)</td><td>".utf8)
            bytes += [0x8F, 0xEE, 0x95, 0xF1, 0x97, 0x9D, 0x98, 0x5F, 0x87, 0x54]  // 情報理論Ⅰ
            bytes += Array("</td><td>".utf8) + [0x87, 0x40] + Array("</td></tr>".utf8)  // ①
        }
        return bytes + Array("</table></body></html>".utf8)
    }

    @Test("Windows-31J under the label Shift_JIS, from the header or the <meta>, keeps every row")
    func windows31JRows() throws {
        for (header, meta) in [("Shift_JIS", false), (nil, true), ("sjis", true)] as [(String?, Bool)] {
            let document = try Document(html: Self.windows31JPage(rows: 40, meta: meta), encoding: header)
            let rows = try document.select("//tr")
            #expect(rows.count == 40)
            #expect(try rows[39].select("td[2]").first?.text == "情報理論Ⅰ")
            #expect(try rows[39].select("td[3]").first?.text == "①")
            #expect(document.encoding.name == "Shift_JIS")
            #expect(document.decodingErrors == 0)
            #expect(document.title == "成績")
        }
    }

    @Test("an undecodable byte is U+FFFD, the rest of the page is read, and -v hears of it")
    func undecodableBytes() throws {
        let heard = Heard()
        LibXMLDiagnostics.setHandler { heard.append($0) }
        defer { LibXMLDiagnostics.setHandler(nil) }
        var bytes = Self.windows31JPage(rows: 3, meta: false)
        let cell = try #require(bytes.firstIndex(of: 0x87))
        bytes[cell] = 0x85  // a lead byte with no character
        let document = try Document(html: bytes, url: "https://p.example/grades", encoding: "Shift_JIS")
        #expect(try document.select("//tr").count == 3)
        #expect(document.decodingErrors == 1)
        #expect(try document.select("//tr[1]/td[2]").first?.text.contains("\u{FFFD}") == true)
        #expect(heard.messages.contains { $0.contains("not valid Shift_JIS") && $0.contains("https://p.example/grades") })
    }

    @Test("markup for people and drift reports is UTF-8, characters as characters, <meta> saying UTF-8")
    func utf8Markup() throws {
        let document = try Document(html: Self.windows31JPage(rows: 2, meta: true))
        let markup = document.markup()
        #expect(markup.contains("情報理論Ⅰ") && markup.contains("①") && !markup.contains("&#"))
        #expect(!markup.lowercased().contains("shift_jis"))
        #expect(markup.lowercased().contains("charset=utf-8"))
        // Read back, the markup is the same document.
        let again = try Document(html: Array(markup.utf8))
        #expect(again.encoding == .utf8 && again.encodingSource == .meta)
        #expect(try again.select("//tr[2]/td[2]").first?.text == "情報理論Ⅰ")
        // A page with no <head> and no declaration gets one.
        let bare = try Document(html: Array("<p>日本</p>".utf8)).markupWithoutFormValues()
        #expect(bare.contains("日本") && bare.lowercased().contains("charset=utf-8"))
        // A feed stays XML, in UTF-8.
        let feed = try Document(
            xml: Array("<?xml version=\"1.0\" encoding=\"EUC-JP\"?><rss><t>".utf8) + [0xC6, 0xFC] + Array("</t></rss>".utf8))
        #expect(try feed.select("//t").first?.text == "日")
        #expect(feed.markup().contains("日") && feed.markup().contains("UTF-8"))
    }
}

/// Messages received by a diagnostics handler, from any thread.
final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []
    func append(_ message: String) { lock.withLock { received.append(message) } }
    var messages: [String] { lock.withLock { received } }
}

@Suite("libxml2's messages for -v")
struct LibXMLDiagnosticsTests {
    @Test("'Tag X invalid' (an HTML5 or custom element libxml2's HTML 4 parser does not know) is no news; other messages are")
    func unknownTags() {
        #expect(LibXMLDiagnostics.isUnknownTag("Tag main invalid"))
        #expect(LibXMLDiagnostics.isUnknownTag("Tag my-widget invalid"))
        #expect(!LibXMLDiagnostics.isUnknownTag("Unexpected end tag : p"))
        #expect(!LibXMLDiagnostics.isUnknownTag("htmlParseEntityRef: expecting ';'"))
        #expect(!LibXMLDiagnostics.isUnknownTag("Tag main invalid here"))
    }
}
