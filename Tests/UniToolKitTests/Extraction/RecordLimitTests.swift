import Foundation
import LibXML
import Testing
import UniToolKit

/// `max_records`: how many records one run may read, over all its pages, before it is an error
/// instead of an answer (10,000 unless the recipe says otherwise, at most 1,000,000).
@Suite("Rows per answer are bounded by max_records")
struct RecordLimitTests {
    static func recipe(_ extra: String = "") throws -> DataRecipe {
        try DataRecipe.load(
            file: "bulk.yaml",
            text: """
                command: bulk
                fetch: /bulk
                rows: "//tr"
                next: "//a[@rel='next']/@href"
                \(extra)
                fields:
                  n: { xpath: "td", type: integer, required: true }
                """, portal: "test")
    }

    static func page(rows: Range<Int>) throws -> Document {
        let body = rows.map { "<tr><td>\($0)</td></tr>" }.joined()
        return try Document(
            html: Array("<html><body><table>\(body)</table></body></html>".utf8), url: "https://portal.example.edu/bulk")
    }

    @Test("the default is 10,000; a recipe may set 1 to 1,000,000; anything else is refused with the key's line")
    func recipeKey() throws {
        #expect(try Self.recipe().maxRecords == 10_000)
        #expect(try Self.recipe("max_records: 250000").maxRecords == 250_000)
        #expect(try Self.recipe("max_records: 1").maxRecords == 1)
        for bad in ["0", "-5", "1000001", "lots"] {
            #expect("max_records: \(bad)") {
                try Self.recipe("max_records: \(bad)")
            } throws: { error in
                let error = error as? UniToolError
                return error?.kind == .recipeInvalid && error?.message.contains("max_records") == true
            }
        }
    }

    @Test("a page with more rows than the default is refused before any record is made, naming the recipe, the limit and how to raise it")
    func defaultLimit() throws {
        let extractor = RecordExtractor(recipe: try Self.recipe())
        #expect(try extractor.extract(from: try Self.page(rows: 0..<10_000)).records.count == 10_000)
        let fresh = RecordExtractor(recipe: try Self.recipe())
        #expect {
            try fresh.extract(from: try Self.page(rows: 0..<10_001))
        } throws: { error in
            guard let error = error as? UniToolError else { return false }
            return error.kind == .portalError && error.message.contains("test/bulk") && error.message.contains("bulk.yaml")
                && error.message.contains("max_records: 10000") && error.message.contains("10001")
                && error.hint?.contains("raise 'max_records' in bulk.yaml") == true
        }
    }

    @Test("the limit holds across the pages of one run: 6 rows and then 6 more pass a limit of 10 only on the first page")
    func acrossPages() throws {
        let extractor = RecordExtractor(recipe: try Self.recipe("max_records: 10"))
        #expect(try extractor.extract(from: try Self.page(rows: 0..<6)).records.count == 6)
        #expect {
            try extractor.extract(from: try Self.page(rows: 6..<12))
        } throws: { error in
            (error as? UniToolError)?.kind == .portalError && (error as? UniToolError)?.message.contains("12 in all") == true
        }
        // A refused page counts nothing: the 4 rows the run may still read are there to be read.
        #expect(try extractor.extract(from: try Self.page(rows: 12..<16)).records.count == 4)
        // A new run (a new extractor) starts again from nothing.
        #expect(
            try RecordExtractor(recipe: try Self.recipe("max_records: 10")).extract(from: try Self.page(rows: 0..<10)).records.count == 10)
    }

    @Test("a recipe's own higher limit lets a big page through")
    func raisedLimit() throws {
        let extractor = RecordExtractor(recipe: try Self.recipe("max_records: 20000"))
        #expect(try extractor.extract(from: try Self.page(rows: 0..<15_000)).records.count == 15_000)
    }
}
