import Foundation
import Testing

@testable import UniToolKit

/// An action's `preview:` (issue 50): what it will change, read before the form is sent. The
/// decisions here are pure: which rows a flag marks, and the shape of the list.
@Suite("An action's preview: the flag and the list it shows")
struct ActionPreviewTests {
    static let recipe = """
        command: loans
        fetch: /loans
        rows: "//tr"
        fields:
          title:   { xpath: "td[1]", required: true }
          due:     { xpath: "td[2]", type: date, format: yyyy-MM-dd }
          overdue: { compute: { before_today: due } }
        actions:
          renew-all:
            fetch: /renew-all
            form: "//form"
            success_when: "//p[@class='ok']"
            preview:
              rows: "//table[@id='list']/tbody/tr"
              fields: [title, due]
              flag: { when: due, days: 14, says: "stays overdue" }
        """

    @Test("a preview is read from the recipe; it makes the action ask, as ask: true does")
    func loads() throws {
        let recipe = try DataRecipe.load(file: "loans.yaml", text: Self.recipe, portal: "x")
        let action = try #require(recipe.actions.first)
        #expect(
            action.preview
                == ActionSpec.Preview(
                    rows: "//table[@id='list']/tbody/tr", fields: ["title", "due"], flagWhen: "due", flagSays: "stays overdue", flagDays: 14
                ))
        #expect(action.asks && !action.ask)
    }

    @Test("a preview naming a field the recipe has not is refused when the recipe loads, naming its fields")
    func unknownFieldRefused() throws {
        let text = Self.recipe.replacingOccurrences(of: "fields: [title, due]", with: "fields: [title, renewals]")
        let error = #expect(throws: UniToolError.self) { try DataRecipe.load(file: "loans.yaml", text: text, portal: "x") }
        #expect(error?.kind == .recipeInvalid && error?.message.contains("'renewals'") == true, "\(String(describing: error))")
    }

    @Test("a date flags when it plus the days is still before today; a boolean when true; nothing else flags")
    func flags() {
        let renewal = ActionSpec.Preview(rows: "//tr", fields: [], flagWhen: "due", flagSays: "x", flagDays: 14)
        // Overdue since 30 Oct: 13 Nov is still past on 29 Nov.
        #expect(renewal.flags(.date("2026-10-30"), today: "2026-11-29"))
        // Overdue since 17 Nov: 1 Dec is not past; a renewal ends the overdue.
        #expect(!renewal.flags(.date("2026-11-17"), today: "2026-11-29"))
        // Exactly 14 days overdue: the new due date is today, which is not overdue.
        #expect(!renewal.flags(.date("2026-11-15"), today: "2026-11-29"))
        #expect(renewal.flags(.datetime("2026-11-14T23:59:00"), today: "2026-11-29"))
        #expect(renewal.flags(.bool(true), today: "2026-11-29") && !renewal.flags(.bool(false), today: "2026-11-29"))
        #expect(!renewal.flags(.null, today: "2026-11-29") && !renewal.flags(.string("soon"), today: "2026-11-29"))
    }

    @Test("the list has the chosen fields in their order, and a note only beside flagged rows")
    func shaped() {
        let preview = ActionSpec.Preview(rows: "//tr", fields: ["title", "due"], flagWhen: "overdue", flagSays: "may stay overdue")
        let records = RecordSet(
            columns: ["due", "title", "overdue"],
            records: [
                Record(fields: [("due", .date("2026-10-30")), ("title", .string("Knuth")), ("overdue", .bool(true))]),
                Record(fields: [("due", .date("2026-12-01")), ("title", .string("OSTEP")), ("overdue", .bool(false))]),
            ])
        let shown = preview.shaped(records, today: "2026-11-29")
        #expect(shown.columns == ["title", "due", "note"])
        #expect(shown.records[0]["note"] == .string("may stay overdue") && shown.records[1]["note"] == .null)
        #expect(shown.records[1].fields.map(\.name) == ["title", "due", "note"])
        // Without a flag, no note column.
        #expect(ActionSpec.Preview(rows: "//tr", fields: ["title"]).shaped(records).columns == ["title"])
    }
}
