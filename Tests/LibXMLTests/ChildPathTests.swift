import Foundation
import LibXML
import Testing

/// `ChildPath` reads simple field paths by walking a row's children; XPath is the reference it
/// must agree with, node for node and text for text.
@Suite("Child paths: simple field paths walked instead of evaluated")
struct ChildPathTests {
    @Test(
        "paths that only step down to children are walked",
        arguments: [
            ("td", [ChildPath.Step(name: "td", predicate: .none)], nil),
            ("td[3]", [.init(name: "td", predicate: .position(3))], nil),
            ("td[@class='grade']", [.init(name: "td", predicate: .attributeEquals(name: "class", value: "grade"))], nil),
            ("td[@data-x=\"a b\"]", [.init(name: "td", predicate: .attributeEquals(name: "data-x", value: "a b"))], nil),
            ("a/@href", [.init(name: "a", predicate: .none)], "href"),
            ("td[2]/a[@href]", [.init(name: "td", predicate: .position(2)), .init(name: "a", predicate: .hasAttribute("href"))], nil),
            ("@id", [], "id"),
            (".", [], nil),
        ] as [(String, [ChildPath.Step], String?)])
    func accepted(expression: String, steps: [ChildPath.Step], attribute: String?) throws {
        let path = try #require(ChildPath(expression))
        #expect(path.steps == steps)
        #expect(path.attribute == attribute)
    }

    @Test(
        "everything else is left to XPath",
        arguments: [
            "", "//td", "/html", "td[0]", "td[1][2]", "td[last()]", "string(td)", "td/text()", "atom:title", "*", "..",
            "td[ 1 ]", "td | th", "td[@class='x' and @id]", "following-sibling::td", "td[@class='unterminated]", "td/", "@",
            "td[position()=1]", "td[@a=b]", "1td",
        ])
    func rejected(expression: String) {
        #expect(ChildPath(expression) == nil, "\(expression)")
    }

    /// Rows with what a walk could get wrong: repeated and nested names, attributes with entities
    /// and namespaces, comments and CDATA inside cells, mixed content, empty cells.
    static let html = """
        <table><tbody>
        <tr id="r1"><td class="course">Algebra <b>I</b></td><td class="grade">A</td><td class="grade extra">B</td>
          <td class="date"> 20.11.2026 </td><td><a href="/c/1">one</a><a href="/c/2">two</a><a>none</a></td>
          <td class="x&amp;y">amp</td><td class=""></td><td><!-- note -->kept<!-- note --></td></tr>
        <tr id="r2"><td class="course">情報理論</td><td>only</td><th>head</th><td><table><tr><td>inner</td></tr></table></td>
          <td CLASS="grade">upper</td><td class="grade">  spaced
            out </td></tr>
        </tbody></table>
        """

    static let expressions = [
        "td", "td[1]", "td[2]", "td[3]", "td[9]", "td[@class='grade']", "td[@class='course']", "td[@class='x&y']",
        "td[@class='']", "td[@class]", "td[5]/a", "td[5]/a/@href", "td[5]/a[2]", "td[5]/a[@href]", "td[4]/table/tr/td", "th", "@id",
        ".", "td/b", "td[@class='missing']", "a", "td[@CLASS='grade']",
    ]

    @Test("on HTML rows, the walk finds the same nodes and text as XPath for every path")
    func agreesWithXPathOnHTML() throws {
        let document = try Document(html: Self.html)
        let rows = try document.select("//table/tbody/tr")
        #expect(rows.count == 2)
        for row in rows {
            for expression in Self.expressions {
                let path = try #require(ChildPath(expression), "\(expression)")
                let expected = try row.select(expression)
                #expect(path.nodes(from: row) == expected, "\(expression) in \(row.attribute("id") ?? "")")
                let text = expected.isEmpty ? nil : expected.map(\.text).joined(separator: " ")
                #expect(path.text(from: row) == text, "\(expression) in \(row.attribute("id") ?? "")")
            }
        }
    }

    @Test("on XML, a name without a prefix matches only elements in no namespace, as in XPath")
    func agreesWithXPathOnXML() throws {
        let document = try Document(
            xml: """
                <feed><entry xmlns:m="urn:m"><title>plain</title><m:title>prefixed</m:title><link href="/a" m:href="/b"/>
                <summary><![CDATA[<b>cdata</b>]]></summary></entry>
                <entry xmlns="http://www.w3.org/2005/Atom"><title>atom</title></entry></feed>
                """)
        let entries = try document.select("/feed/*")
        #expect(entries.count == 2)
        for entry in entries {
            for expression in ["title", "link/@href", "summary", "title[1]", "link[@href='/a']", "link[@href]"] {
                let path = try #require(ChildPath(expression))
                #expect(path.nodes(from: entry) == (try entry.select(expression)), "\(expression)")
                let expected = try entry.select(expression)
                #expect(path.text(from: entry) == (expected.isEmpty ? nil : expected.map(\.text).joined(separator: " ")), "\(expression)")
            }
        }
    }

    /// The first version of `collapsingWhitespace`, scalar by scalar: the reference for the
    /// byte-wise one.
    static func referenceCollapse(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}" {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                pendingSpace = false
                result.append(scalar)
            }
        }
        while let first = result.first, first.properties.isWhitespace { result.removeFirst() }
        while let last = result.last, last.properties.isWhitespace { result.removeLast() }
        return String(result)
    }

    @Test("white space folds byte by byte exactly as the scalar-by-scalar reference does")
    func collapsingMatchesTheReference() {
        let pieces = [
            "a", "b", " ", "  ", "\t", "\n", "\r\n", "\u{0C}", "\u{0B}", "\u{00A0}", "\u{3000}", "é", "情報", "\u{2028}", "x y", "\u{1}",
        ]
        var samples = ["", " ", "plain", "already clean text", "佐藤　由紀", "\u{3000}情報\u{3000}", " \u{00A0}A\u{00A0} "]
        // Every sequence of up to three pieces, so each kind of white space meets every neighbour.
        for first in pieces {
            for second in pieces {
                samples.append(first + second)
                for third in pieces { samples.append(first + second + third) }
            }
        }
        for sample in samples {
            #expect(sample.collapsingWhitespace() == Self.referenceCollapse(sample), "\(Array(sample.unicodeScalars))")
        }
    }
}
