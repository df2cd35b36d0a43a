import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("A recipe's words for people, per language (summary, label, event summaries)")
struct RecipeTextTests {
    let text = RecipeText(variants: [
        .init(language: "en", text: "Grades"), .init(language: "ja", text: "成績"), .init(language: "pt", text: "Notas"),
        .init(language: "pt_BR", text: "Notas (BR)"),
    ])

    @Test("the first asked-for locale the recipe gives, territory first; else English")
    func chosenByTheAskedLocales() {
        #expect(text.text(for: ["ja_JP", "hu"], orFirst: false) == "成績")
        #expect(text.text(for: ["hu_HU", "ja"], orFirst: false) == "成績")
        #expect(text.text(for: ["pt_BR"], orFirst: false) == "Notas (BR)")
        #expect(text.text(for: ["pt_PT"], orFirst: false) == "Notas")
        #expect(text.text(for: ["de_DE"], orFirst: false) == "Grades")
        #expect(text.text(for: [], orFirst: false) == "Grades")
    }

    @Test("without English: a summary says its first text, a label gives way to the field's name")
    func withoutEnglish() {
        let japanese = RecipeText(variants: [.init(language: "ja", text: "成績"), .init(language: "hu", text: "Jegyek")])
        #expect(japanese.text(for: ["de"], orFirst: true) == "成績")
        #expect(japanese.text(for: ["de"], orFirst: false) == nil)
        #expect(RecipeText("Grades").text(for: ["ja"], orFirst: false) == "Grades")
    }

    @Test("a recipe gives summary and labels per language; a key that is no language code is a recipe error with its line")
    func read() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-text-\(UUID().uuidString)/demo")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), to: folder.appendingPathComponent("portal.yaml"))
        let recipe = """
            command: grades
            summary: { en: Grades for a term, ja: 学期の成績 }
            fetch: /grades
            rows: //tr
            fields:
              grade: { label: { ja: 成績, hu: Jegy }, xpath: td }
              code: { xpath: td }
            """
        try recipe.write(to: folder.appendingPathComponent("grades.yaml"), atomically: true, encoding: .utf8)
        let grades = try RecipeCatalog(directories: [folder.deletingLastPathComponent()]).recipe(portal: "demo", command: "grades")
        // Read in English (the tests' language): the en summary, no label for a table in English.
        #expect(grades.summary == "Grades for a term")
        #expect(grades.columnDisplay["grade"]?.label == nil)
        let japanese = Translation(preference: LanguagePreference(locales: ["ja_JP"]), catalogs: [])
        let inJapanese = try Translation.$override.withValue(japanese) {
            try RecipeCatalog(directories: [folder.deletingLastPathComponent()]).recipe(portal: "demo", command: "grades")
        }
        #expect(inJapanese.summary == "学期の成績")
        #expect(inJapanese.columnDisplay["grade"]?.label == "成績")
        #expect(inJapanese.columnDisplay["code"]?.label == nil)

        try recipe.replacingOccurrences(of: "ja: 成績", with: "Japanese: 成績").write(
            to: folder.appendingPathComponent("grades.yaml"), atomically: true, encoding: .utf8)
        #expect {
            try RecipeCatalog(directories: [folder.deletingLastPathComponent()])
        } throws: { error in
            let error = error as? UniToolError
            return error?.kind == .recipeInvalid && error?.message.contains("grades.yaml:6") == true
                && error?.message.contains("'Japanese' is not a language code") == true
        }
    }
}
