import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A catalog for one command reads only the recipes that may define it.
@Suite("The catalog for one command")
struct FocusedCatalogTests {
    @Test(
        "the command a recipe's text names on its top-level line, or nil when only parsing can tell",
        arguments: [
            ("command: grades\nfetch: /g\n", "grades"), ("# c\ncommand: \"loans\"  # renewable\n", "loans"),
            ("command: 'news'\n", "news"), ("use: moodle/grades\nservice: lms\n", nil),
            ("summary: x\n  command: indented\n", nil), ("{command: flow, fetch: /x}\n", nil), ("command: Not A Name\n", nil),
            ("command:\n", nil), ("commands: other\ncommand: real\n", "real"),
        ] as [(String, String?)])
    func declaredCommand(text: String, expected: String?) {
        #expect(RecipeCatalog.declaredCommand(in: text) == expected)
    }

    @Test("a broken recipe of another command does not stop this one; the whole catalog still reports it")
    func otherRecipesAreNotRead() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let folder = sandbox.root.appendingPathComponent("recipes/demo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["portal.yaml", "grades.yaml", "loans.yaml"] {
            try FileManager.default.copyItem(
                at: Fixtures.recipes.appendingPathComponent("demo/\(name)"), to: folder.appendingPathComponent(name))
        }
        // Another command whose XPath does not compile: only a catalog that reads it fails.
        try Data("command: broken\nfetch: /x\nrows: \"//[\"\nfields:\n  a: { xpath: td }\n".utf8)
            .write(to: folder.appendingPathComponent("broken.yaml"))
        let directories = [sandbox.root.appendingPathComponent("recipes")]
        #expect { try RecipeCatalog(directories: directories) } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }

        let focused = try RecipeCatalog(directories: directories, command: "grades")
        #expect(try focused.recipe(portal: "demo", command: "grades").columns.contains("grade"))
        #expect(focused.dataRecipes["demo"]?.keys.sorted() == ["grades"], "loans.yaml and broken.yaml were not parsed")
        #expect(try focused.portal("demo").name == "Demo University")
        #expect { try RecipeCatalog(directories: directories, command: "broken") } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }
}
