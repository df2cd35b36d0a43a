import Foundation
import Testing
import UniToolKit

@Suite("Sorting records: --sort, the recipe's sort:, and the order totals, sort and fields apply in")
struct RecordSortTests {
    let set = RecordSet(
        columns: ["title", "due", "count", "done"],
        records: [
            Record(fields: [("title", .string("b")), ("due", .date("2026-11-27")), ("count", .integer(10)), ("done", .bool(true))]),
            Record(fields: [("title", .string("a")), ("due", .null), ("count", .integer(2)), ("done", .bool(false))]),
            Record(fields: [("title", .string("c")), ("due", .date("2026-11-13")), ("count", .number(2.5)), ("done", .bool(false))]),
            Record(fields: [("title", .string("d")), ("due", .date("2026-11-13")), ("count", .null), ("done", .bool(true))]),
        ])

    func titles(_ set: RecordSet) -> [String] { set.records.map { $0["title"]?.text ?? "?" } }

    @Test("'due,-title' parses to keys; blanks and spaces are ignored")
    func parse() {
        #expect(SortKey.parse("due, -title,") == [SortKey(field: "due"), SortKey(field: "title", descending: true)])
        #expect(SortKey.parse("").isEmpty)
    }

    @Test("dates and text by their text, numbers by value (10 after 2.5), empty values last in either direction, ties stable")
    func order() throws {
        #expect(titles(try set.sorted(by: SortKey.parse("due"))) == ["c", "d", "b", "a"])
        #expect(titles(try set.sorted(by: SortKey.parse("-due"))) == ["b", "c", "d", "a"])
        #expect(titles(try set.sorted(by: SortKey.parse("count"))) == ["a", "c", "b", "d"])
        #expect(titles(try set.sorted(by: SortKey.parse("-count"))) == ["b", "c", "a", "d"])
        #expect(titles(try set.sorted(by: SortKey.parse("due,-title"))) == ["d", "c", "b", "a"])
        #expect(titles(try set.sorted(by: SortKey.parse("done"))) == ["a", "c", "b", "d"])
        #expect(titles(try set.sorted(by: [])) == ["b", "a", "c", "d"])
    }

    @Test("a field that does not exist is a usage error naming the fields")
    func unknownField() {
        #expect {
            try set.sorted(by: SortKey.parse("dew"))
        } throws: { error in
            (error as? UniToolError)?.kind == .usage && "\(error)".contains("title, due, count, done")
        }
    }

    @Test("the recipe's sort: is checked when it loads, applied by default, and --sort and --fields come after the totals")
    func shape() throws {
        let text =
            "command: t\nfetch: /t\nrows: \"//tr\"\nsort: -due\nfields:\n  title: { xpath: td }\n  due: { xpath: td, type: date, format: yyyy-MM-dd }\n"
        let recipe = try DataRecipe.load(file: "t.yaml", text: text, portal: "p")
        #expect(recipe.sort == [SortKey(field: "due", descending: true)])
        let records = RecordSet(
            columns: ["title", "due"], records: set.records.map { Record(fields: [("title", $0["title"]!), ("due", $0["due"]!)]) })
        #expect(titles(try RecordShape().apply(to: records, of: recipe)) == ["b", "c", "d", "a"])
        #expect(titles(try RecordShape(sort: SortKey.parse("title")).apply(to: records, of: recipe)) == ["a", "b", "c", "d"])
        let onlyTitles = try RecordShape(sort: SortKey.parse("due"), fields: ["title"]).apply(to: records, of: recipe)
        #expect(onlyTitles.columns == ["title"] && titles(onlyTitles) == ["c", "d", "b", "a"])
        #expect {
            try DataRecipe.load(file: "t.yaml", text: text.replacingOccurrences(of: "sort: -due", with: "sort: nope"), portal: "p")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }
}
