import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// A table whose cells carry a label for narrow screens or screen readers (Koha's
/// `<span class="tdlabel">Barcode:</span>`, Bootstrap's `.visually-hidden`): the recipe drafted
/// from a recording reads the value without the label (issue 49).
@Suite("Recording: a cell's label is not its value")
struct CellLabelDraftTests {
    static let html = """
        <html><body><table id="checkouts"><thead><tr><th>Title</th><th>Due</th><th>Barcode</th><th>Renewable</th></tr></thead><tbody>
        <tr><td class="title">Algebra</td><td class="date_due"><span class="tdlabel">Date due:</span> 07/04/2026 </td>
        <td class="barcode"><span class="tdlabel">Barcode:</span>39020004417</td>
        <td class="renewable"><i class="icon-ok"></i><span class="visually-hidden">Yes</span></td></tr>
        <tr><td class="title">Topology</td><td class="date_due"><span class="tdlabel">Date due:</span> 07/11/2026 </td>
        <td class="barcode"><span class="tdlabel">Barcode:</span>39020004418</td>
        <td class="renewable"><i class="icon-no"></i><span class="visually-hidden">No</span></td></tr>
        </tbody></table></body></html>
        """

    @Test("labelled cells are read without their labels; a cell whose only words are a screen-reader label keeps them")
    func draftedWithoutLabels() throws {
        let document = try Document(html: Array(Self.html.utf8), url: "https://opac.example.edu/loans", encoding: "utf-8")
        let table = try #require(try document.select("//table").first)
        let draft = try #require(
            RecordedPage.tableRecipe(
                table, in: document, command: "loans", fetch: "/loans", url: URL(string: "https://opac.example.edu/loans")!,
                contentType: "text/html", body: Array(Self.html.utf8)))
        let fields = Dictionary(uniqueKeysWithValues: draft.fields.map { ($0.name, $0) })
        let barcode = try #require(fields["barcode"], "\(draft.fields.map(\.name))")
        #expect(barcode.guesses.contains { $0.contains("without the cells' labels ('Barcode:')") }, "\(barcode.guesses)")
        let due = try #require(fields["due"])
        #expect(due.type == "date" && due.format == "MM/dd/yyyy", "the values typed are the dates alone: \(due)")
        let renewable = try #require(fields["renewable"])
        #expect(!renewable.xpath.contains("text()"), "the screen-reader words are that cell's value: \(renewable.xpath)")

        let recipe = try DataRecipe.load(file: "loans.yaml", text: RecipeDraft.yaml(draft), portal: "myuni")
        let records = try RecordExtractor(recipe: recipe).extract(from: document).records
        #expect(records.map { $0["barcode"]?.text } == ["39020004417", "39020004418"])
        #expect(records.map { $0["due"]?.text } == ["2026-07-04", "2026-07-11"])
        #expect(records.map { $0["renewable"]?.text } == ["Yes", "No"])
    }
}
