import Foundation
import LibXML
import Testing
import UniToolKit

/// A page is parsed once: the login check's tree is the one the extraction reads (issue 40).
@Suite("A page's body is parsed once, and again only when it changes")
struct PageParsingTests {
    static func page(_ html: String) -> Page {
        Page(
            url: URL(string: "https://portal.example.edu/grades")!, status: 200, contentType: "text/html", body: Array(html.utf8), hops: [])
    }

    @Test("the same tree for a page and its copies; another for another charset override or a changed body")
    func parsedOnce() throws {
        var page = Self.page("<table><tr><td>A</td></tr></table>")
        let first = try page.document()
        let copy = page
        #expect(try copy.document() === first, "a copy shares the parse")
        #expect(try page.document(charsetOverride: "windows-1252") !== first, "another override is another parse")
        page.body = Array("<p>changed</p>".utf8)
        let changed = try page.document()
        #expect(changed !== first)
        #expect(try changed.select("//p").first?.text == "changed")
        #expect(try copy.document().select("//td").first?.text == "A", "the copy keeps its own body's tree")
    }

    @Test("a recipe's extraction reads the page's tree, the one its login check parsed")
    func extractionSharesTheTree() throws {
        let recipe = try DataRecipe.load(
            file: "t.yaml", text: "command: t\nfetch: /t\nrows: \"//tr\"\nfields:\n  cell: { xpath: td }\n", portal: "t")
        let page = Self.page("<table><tr><td>A</td></tr></table>")
        let checked = try page.document()
        let extractor = RecordExtractor(recipe: recipe, today: "2026-11-25")
        #expect(try extractor.document(of: page) === checked)
        #expect(try extractor.extract(from: try extractor.document(of: page)).records.first?["cell"] == .string("A"))
    }
}
