import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("What changed between two answers")
struct RecordChangesTests {
    func grade(_ code: String, _ grade: FieldValue, date: String = "2026-01-22") -> Record {
        Record(fields: [("term", .string("2026-fall")), ("code", .string(code)), ("grade", grade), ("date", .date(date))])
    }

    func set(_ records: [Record]) -> RecordSet { RecordSet(columns: ["term", "code", "grade", "date"], records: records) }

    @Test("a grade that comes in is one change, field by field, followed by its key")
    func gradeArrives() {
        let changes = RecordChanges(
            from: set([grade("MATH-301", .null), grade("CS-320", .string("B"))]),
            to: set([grade("MATH-301", .string("A-")), grade("CS-320", .string("B"))]), keys: ["term", "code"])
        #expect(
            changes.changes == [
                .changed(
                    key: "2026-fall/MATH-301", record: grade("MATH-301", .string("A-")),
                    fields: [RecordChanges.FieldChange(field: "grade", old: .null, new: .string("A-"))])
            ])
    }

    @Test("content is compared, not dates: a grade released with an old date is still a change")
    func oldDateStillAChange() {
        let changes = RecordChanges(
            from: set([grade("MATH-301", .string(""), date: "2026-01-01")]),
            to: set([grade("MATH-301", .string("B+"), date: "2026-01-01")]), keys: ["term", "code"])
        #expect(changes.changes.map(\.kind) == ["changed"])
    }

    @Test("records added and removed are named, in order; identical answers have no changes")
    func addedAndRemoved() {
        let old = set([grade("A", .string("A")), grade("B", .string("B"))])
        let new = set([grade("B", .string("B")), grade("C", .string("C"))])
        let changes = RecordChanges(from: old, to: new, keys: ["code"])
        #expect(changes.changes.map(\.kind) == ["added", "removed"])
        #expect(changes.changes.map(\.key) == ["C", "A"])
        #expect(RecordChanges(from: old, to: old, keys: ["code"]).isEmpty)
    }

    @Test("without keys, a record is its whole content: an edit is a removal and an addition")
    func noKeys() {
        let changes = RecordChanges(from: set([grade("A", .string("A"))]), to: set([grade("A", .string("B"))]), keys: [])
        #expect(changes.changes.map(\.kind) == ["added", "removed"])
    }

    @Test("a recipe without key fields gets a lint warning; the bundled ones all have keys")
    func keylessRecipeWarns() throws {
        let keyless = try DataRecipe.load(
            file: "x.yaml", text: "command: x\nsummary: x\nfetch: /x\nrows: //tr\nfields:\n  a: { xpath: td }\n", portal: "p")
        #expect(keyless.warnings.count == 1 && keyless.warnings[0].contains("key: true"))
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        for recipe in catalog.dataRecipes.values.flatMap(\.values) {
            #expect(recipe.warnings.isEmpty, "\(recipe.file)")
        }
    }
}

@Suite("Fields compared in part: compare: false and compare: path")
struct RecordComparisonTests {
    func item(_ link: String, _ token: String) -> Record {
        Record(fields: [("title", .string("Welcome")), ("link", .url(link)), ("token", .string(token))])
    }

    func set(_ record: Record) -> RecordSet { RecordSet(columns: ["title", "link", "token"], records: [record]) }

    @Test("a link on another host, or a field never compared, is no change; a new path or query is")
    func partial() {
        let comparisons: [String: FieldSpec.Comparison] = ["link": .path, "token": .ignored]
        let moved = RecordChanges(
            from: set(item("http://127.0.0.1:4001/news/1?lang=en", "a")), to: set(item("http://127.0.0.1:5002/news/1?lang=en", "b")),
            keys: ["title"], comparisons: comparisons)
        #expect(moved.isEmpty)
        let changed = RecordChanges(
            from: set(item("http://127.0.0.1:4001/news/1?lang=en", "a")), to: set(item("http://127.0.0.1:5002/news/1?lang=hu", "a")),
            keys: ["title"], comparisons: comparisons)
        #expect(changed.changes.count == 1)
        // Without the recipe's word, every change counts.
        #expect(!RecordChanges(from: set(item("http://a/1", "a")), to: set(item("http://b/1", "a")), keys: ["title"]).isEmpty)
    }

    @Test("compare: is checked when the recipe is read")
    func loading() throws {
        let base = "command: x\nfetch: /x\nrows: \"//tr\"\nfields:\n  title: { xpath: \"td\", key: true }\n"
        let recipe = try DataRecipe.load(
            file: "x.yaml", text: base + "  link: { xpath: \"a/@href\", type: url, compare: path }\n", portal: "p")
        #expect(recipe.comparisons == ["link": .path])
        for bad in [
            "  link: { xpath: \"a\", compare: path }\n", "  link: { xpath: \"a\", compare: sometimes }\n",
            "  other: { xpath: \"b\", key: true, compare: false }\n",
        ] {
            #expect { try DataRecipe.load(file: "x.yaml", text: base + bad, portal: "p") } throws: {
                ($0 as? UniToolError)?.kind == .recipeInvalid
            }
        }
    }
}
