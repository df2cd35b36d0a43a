import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Koha's OPAC starts a checkouts cell with a label for narrow screens,
/// `<td class="barcode"><span class="tdlabel">Barcode:</span>39020004417</td>` (issue 49), and a
/// theme may label a cell for screen readers only (`.visually-hidden`, `.sr-only`). The platform
/// recipe `koha/loans` must read and compare the cell's own text, with those labels and without.
@Suite("koha/loans: a cell's label is not part of its value")
struct KohaCellLabelTests {
    static let platforms = RecipeComposer.platformsDirectory(bundled: Fixtures.recipes)
    static let fixtures = Fixtures.root.appendingPathComponent("Fixtures/platforms/koha")

    static func loans() throws -> DataRecipe {
        try DataRecipe.load(file: "uni/loans.yaml", text: "use: koha/loans\n", portal: "uni", platforms: Self.platforms)
    }

    /// A checkouts table of one loan whose barcode cell is `cell`.
    static func page(barcodeCell cell: String) -> String {
        """
        <html><body><table id="checkoutst"><tbody><tr>
        <td class="title"><a class="title" href="/cgi-bin/koha/opac-detail.pl?biblionumber=7"><span class="biblio-title">Algebra</span></a></td>
        <td class="date_due" data-order="2026-07-04 23:59:00"><span class="tdlabel">Date due:</span> 07/04/2026 </td>
        \(cell)
        <td class="renew"><input type="checkbox" name="item" value="7107" /></td>
        </tr></tbody></table></body></html>
        """
    }

    @Test(
        "the barcode is the cell's text outside its label, whatever kind of label and however it is spaced",
        arguments: [
            #"<td class="barcode"><span class="tdlabel">Barcode:</span>39020004417</td>"#,
            "<td class=\"barcode\">\n  <span class=\"tdlabel\">Barcode:</span>\n  39020004417\n</td>",
            #"<td class="barcode"><span class="tdlabel"><strong>Barcode</strong>:</span> 39020004417 </td>"#,
            #"<td class="barcode"><span class="label tdlabel">Barcode:</span>39020004417</td>"#,
            #"<td class="barcode"><span class="visually-hidden">Barcode </span>39020004417</td>"#,
            #"<td class="barcode"><span class="sr-only">Barcode </span>39020004417</td>"#,
            #"<td class="barcode"> 39020004417 </td>"#,
            #"<td class="barcode"><a href="/cgi-bin/koha/opac-detail.pl?biblionumber=7">39020004417</a></td>"#,
        ])
    func barcodeValue(cell: String) throws {
        let records = try RecordExtractor(recipe: try Self.loans()).extract(from: try Document(html: Self.page(barcodeCell: cell))).records
        #expect(records.count == 1)
        #expect(records.first?["barcode"] == .string("39020004417"), "\(records)")
    }

    @Test("a class whose name only contains a label's is no label: its text stays")
    func notALabel() throws {
        let cell = #"<td class="barcode"><span class="tdlabels">Barcode:</span>39020004417</td>"#
        let records = try RecordExtractor(recipe: try Self.loans()).extract(from: try Document(html: Self.page(barcodeCell: cell))).records
        #expect(records.first?["barcode"] == .string("Barcode: 39020004417"), "\(records)")
    }

    struct Loan: Sendable, CustomTestStringConvertible {
        var version: String
        var page: String
        var labels: Bool
        var barcode: String
        var item: String?
        var testDescription: String { "\(version) \(page)\(labels ? "" : " without labels"): \(barcode)" }
    }

    /// The loans of the Koha fixtures' pages that carry barcodes, each page as saved (with its
    /// labels) and with every label span taken out (as Koha's main branch writes the cells).
    static func fixtureLoans() -> [Loan] {
        ["23.11", "24.05"].flatMap { version in
            ["checkouts", "label-adjoining"].flatMap { page -> [Loan] in
                let json = fixtures.appendingPathComponent("\(version)/loans/\(page).json")
                guard let data = try? Data(contentsOf: json),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let records = object["records"] as? [[String: Any]]
                else { return [] }
                return [true, false].flatMap { labels in
                    records.compactMap { record in
                        (record["barcode"] as? String).map {
                            Loan(version: version, page: page, labels: labels, barcode: $0, item: record["item"] as? String)
                        }
                    }
                }
            }
        }
    }

    static func document(_ loan: Loan) throws -> Document {
        var html = try String(contentsOf: fixtures.appendingPathComponent("\(loan.version)/loans/\(loan.page).html"), encoding: .utf8)
        if !loan.labels {
            html = html.replacing(#/<span class="(?:tdlabel|sr-only|visually-hidden)">[^<]*</span>/#, with: "")
            #expect(!html.contains(#"class="tdlabel""#), "a label is left on \(loan.page)")
        }
        return try Document(html: Array(html.utf8), url: "https://opac.example.edu/cgi-bin/koha/opac-user.pl", charsetOverride: "UTF-8")
    }

    @Test(
        "loans renew finds the loan's row by its barcode, with the cells' labels and without: the item number to tick, or the refusal",
        arguments: fixtureLoans())
    func renewRow(_ loan: Loan) throws {
        let renew = try #require(try Self.loans().actions.first { $0.name == "renew" })
        let document = try Self.document(loan)
        let values = ["barcode": loan.barcode]
        let (name, xpath) = try #require(renew.fillFromPage.first)
        #expect(name == "item")
        let found = try document.evaluate(try Template(xpath).render(values, encode: Template.xpathLiteral))
        guard case .nodes(let nodes) = found else {
            Issue.record("fill_from_page is not a node set: \(found)")
            return
        }
        #expect(nodes.map(\.text) == (loan.item.map { [$0] } ?? []), "\(loan.testDescription)")
        // A loan with no checkbox is refused before any form is sent; a renewable one is not.
        let refusedWhen = try #require(renew.refusedWhen)
        let refusal = try document.evaluate(try Template(refusedWhen).render(values, encode: Template.xpathLiteral))
        guard case .nodes(let refused) = refusal else {
            Issue.record("refused_when is not a node set: \(refusal)")
            return
        }
        #expect(refused.isEmpty == (loan.item != nil), "\(loan.testDescription): \(refused.map(\.text))")
    }

    @Test("the fixtures cover the issue's barcode, a label of each kind, and both versions")
    func coverage() {
        let loans = Self.fixtureLoans()
        #expect(Set(loans.map(\.version)) == ["23.11", "24.05"])
        #expect(loans.filter { $0.barcode == "39020004417" && $0.labels }.count == 2, "\(loans.map(\.testDescription))")
        #expect(loans.contains { $0.labels && $0.item == nil } && loans.contains { $0.labels && $0.item != nil })
    }
}
