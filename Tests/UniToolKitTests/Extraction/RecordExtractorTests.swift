import Foundation
import LibXML
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("Extraction of typed records with XPath recipes")
struct RecordExtractorTests {
    static let recipeText = """
        command: grades
        fetch: /grades
        rows: "//table[@id='grades']/tbody/tr"
        empty_when: "//p[@class='no-grades']"
        fields:
          term:    { xpath: "//select[@id='term']/option[@selected]/@value", required: true }
          course:  { xpath: "td[@class='course']", required: true }
          credits: { xpath: "td[@class='credits']", type: number, required: true }
          grade:   { xpath: "td[@class='grade']", regex: "^(?!in progress$).*" }
          points:  { xpath: "td[@class='points']", type: number, regex: "^[0-9.,]+$" }
          date:    { xpath: "td[@class='date']", type: date, format: dd.MM.yyyy }
          missing: { xpath: "td[@class='nothing']", default: "n/a" }
        """

    func extract(_ fixture: String) throws -> RecordSet {
        let recipe = try DataRecipe.load(file: "grades.yaml", text: Self.recipeText, portal: "test")
        let document = try Document(html: try Fixtures.bytes(fixture), url: "https://portal.example.edu/grades")
        return try RecordExtractor(recipe: recipe).extract(from: document)
    }

    @Test("rows become records with typed fields in the recipe's order")
    func typedRecords() throws {
        let set = try extract("html/grades-table.html")
        #expect(set.columns == ["term", "course", "credits", "grade", "points", "date", "missing"])
        #expect(set.records.count == 3)
        let first = set.records[0]
        #expect(first["term"] == .string("2026-spring"))
        #expect(first["course"] == .string("Analysis II"))
        #expect(first["credits"] == .number(7.5))
        #expect(first["points"] == .number(3.3))
        #expect(first["date"] == .date("2026-07-10"))
        #expect(first["missing"] == .string("n/a"))
    }

    @Test("spaces other than ASCII ones are the page's and are kept; ASCII whitespace is folded; non-ASCII text survives")
    func unicodeText() throws {
        let set = try extract("html/grades-table.html")
        #expect(set.records[1]["course"] == .string("Adatszerkezetek\u{A0}és algoritmusok"))
        #expect(set.records[2]["course"] == .string("日本語初級 II"))
    }

    @Test("a regex that does not match gives null, not the raw text")
    func regexFiltersPlaceholders() throws {
        let set = try extract("html/grades-table.html")
        #expect(set.records[2]["grade"] == .null)
        #expect(set.records[2]["points"] == .null)
        #expect(set.records[2]["date"] == .null)
    }

    @Test("a page the recipe marks as empty gives no records")
    func legitimatelyEmpty() throws {
        let set = try extract("html/grades-empty-term.html")
        #expect(set.records.isEmpty)
    }

    @Test("a redesigned page is an error naming the recipe and the XPath, never an empty result")
    func layoutChangeIsAnError() throws {
        do {
            _ = try extract("html/grades-redesigned.html")
            Issue.record("expected a layout error")
        } catch let error as UniToolError {
            #expect(error.kind == .layoutChanged)
            #expect(error.message.contains("test/grades"))
            #expect(error.message.contains("//table[@id='grades']/tbody/tr"))
        }
    }

    @Test("a required field that matches nothing names the field and its XPath")
    func requiredFieldMissing() throws {
        let text = Self.recipeText.replacingOccurrences(of: "td[@class='course']", with: "td[@class='course-title']")
        let recipe = try DataRecipe.load(file: "grades.yaml", text: text, portal: "test")
        let document = try Document(html: try Fixtures.bytes("html/grades-table.html"))
        do {
            _ = try RecordExtractor(recipe: recipe).extract(from: document)
            Issue.record("expected a layout error")
        } catch let error as UniToolError {
            #expect(error.kind == .layoutChanged)
            #expect(error.message.contains("'course'"))
            #expect(error.message.contains("td[@class='course-title']"))
        }
    }

    @Test("a value that does not fit its type is an error, not a silent null")
    func typeMismatch() throws {
        #expect {
            try FieldTyper.convert("soon", to: .date, format: "yyyy-MM-dd", baseURL: nil) { UniToolError(.layoutChanged, $0) }
        } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
        #expect {
            try FieldTyper.convert("four", to: .number, format: nil, baseURL: nil) { UniToolError(.layoutChanged, $0) }
        } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
    }

    @Test("numbers with decimal commas and thousands separators, and relative URLs")
    func typing() throws {
        let invalid: (String) -> UniToolError = { UniToolError(.layoutChanged, $0) }
        #expect(try FieldTyper.convert("4,5", to: .number, format: nil, baseURL: nil, invalid: invalid) == .number(4.5))
        #expect(try FieldTyper.convert("1,234.5", to: .number, format: nil, baseURL: nil, invalid: invalid) == .number(1234.5))
        #expect(try FieldTyper.convert("1 234", to: .integer, format: nil, baseURL: nil, invalid: invalid) == .integer(1234))
        #expect(
            try FieldTyper.convert(
                "../syllabus/cs100", to: .url, format: nil, baseURL: "https://p.example.edu/courses/list", invalid: invalid)
                == .url("https://p.example.edu/syllabus/cs100"))
        #expect(try FieldTyper.convert("yes", to: .bool, format: nil, baseURL: nil, invalid: invalid) == .bool(true))
    }
}
