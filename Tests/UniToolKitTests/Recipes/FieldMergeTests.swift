import Foundation
import Testing

@testable import UniToolKit

/// A data recipe's `fields`, `options` and `actions` over its platform's merge entry by entry
/// (issue 35): the university gives only what differs, or `replace: true` for a whole new entry.
@Suite("A field override merges with the platform's field")
struct FieldMergeTests {
    let platforms: URL

    init() throws {
        platforms = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-platforms-\(UUID().uuidString)")
        let folder = platforms.appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        platform: shop/loans
        command: loans
        summary: Loans
        fetch: /loans
        rows: //tr
        fields:
          title:   { xpath: "td[1]", required: true, key: true }
          due:     { xpath: "td[2]/@data-order", type: date, format: "yyyy-MM-dd", required: true }
          overdue: { compute: { before_today: due } }
        options:
          sort: { default: "due", help: "the order" }

        """.write(to: folder.appendingPathComponent("loans.yaml"), atomically: true, encoding: .utf8)
    }

    /// The recipe on the platform; the platform's folder is removed after, unless `keeping` it
    /// for another load.
    func load(_ text: String, keeping: Bool = false) throws -> DataRecipe {
        defer { if !keeping { try? FileManager.default.removeItem(at: platforms) } }
        return try DataRecipe.load(
            file: "uni/loans.yaml", text: "command: loans\nuse: shop/loans\n" + text, portal: "uni", platforms: platforms)
    }

    @Test(
        "an own xpath reads its own way: the platform's type and format go with its xpath (issue 49), required stays; extends: true keeps them"
    )
    func xpathOnly() throws {
        let own = try load("fields:\n  due: { xpath: \"td[5]\", type: date, format: \"dd.MM.yyyy\" }\n", keeping: true)
        let due = try #require(own.primary.fields.first { $0.name == "due" })
        #expect(due.xpath == "td[5]" && due.type == .date && due.format == "dd.MM.yyyy" && due.required)
        #expect(own.primary.fields.map(\.name) == ["title", "due", "overdue"])

        let extended = try load("fields:\n  due: { xpath: \"td[5]\", extends: true }\n", keeping: true)
        let kept = try #require(extended.primary.fields.first { $0.name == "due" })
        #expect(kept.xpath == "td[5]" && kept.type == .date && kept.format == "yyyy-MM-dd" && kept.required)

        // An xpath alone reads text, which before_today cannot count with: said at load, with both ways out.
        #expect {
            try load("fields:\n  due: { xpath: \"td[5]\" }\n")
        } throws: { error in
            "\(error)".contains("before_today needs a date field") && "\(error)".contains("extends: true")
        }
    }

    @Test("replace: true replaces the platform's field whole; a new field is added after the platform's")
    func wholeReplacement() throws {
        let recipe = try load("fields:\n  title: { xpath: \"td[3]\", replace: true }\n  room: { xpath: \"td[4]\" }\n")
        let title = try #require(recipe.primary.fields.first { $0.name == "title" })
        #expect(title.xpath == "td[3]" && !title.required)
        #expect(recipe.primary.fields.map(\.name) == ["title", "due", "overdue", "room"])
    }

    @Test("a field's replace: with regex replacements is still that, and merges as any key")
    func regexReplacements() throws {
        let recipe = try load("fields:\n  title: { replace: { \"^Book: \": \"\" } }\n")
        let title = try #require(recipe.primary.fields.first { $0.name == "title" })
        #expect(title.xpath == "td[1]" && title.required && title.replacements.map(\.pattern) == ["^Book: "])
    }

    @Test("an option's default alone keeps the platform's help")
    func option() throws {
        let recipe = try load("options:\n  sort: { default: \"title\" }\n")
        let sort = try #require(recipe.options.first { $0.name == "sort" })
        #expect(sort.defaultValue == "title" && sort.help == "the order")
    }
}
