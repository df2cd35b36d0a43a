import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("Recipe loading and validation")
struct RecipeLoadingTests {
    @Test("the bundled demo recipes load")
    func bundledRecipesLoad() throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let portal = try catalog.portal("demo")
        #expect(portal.isDemo)
        #expect(portal.login.pages.map(\.name).contains("password"))
        let grades = try catalog.recipe(portal: "demo", command: "grades")
        #expect(grades.columns.prefix(3) == ["term", "course", "code"])
        #expect(grades.options.first?.resolve["current"] != nil)
        #expect(grades.options.first?.resolve["all"]?.many == true)
        #expect(grades.options.first?.resolve["current"]?.showsRecords == true)
        #expect(grades.options.first?.resolve["all"]?.showsRecords == false)
        #expect(
            Set(catalog.dataRecipes["demo"]!.keys) == [
                "attendance", "catalogue", "coop-hours", "courses", "deadlines", "exams", "grades", "headlines", "library",
                "library-calendar",
                "links", "lms-courses", "loans", "menu", "menu-pdf", "news", "study-support", "syllabus",
            ])
        let news = try catalog.recipe(portal: "demo", command: "news")
        #expect(news.sources.compactMap(\.name) == ["rss", "atom", "page"])
        #expect(try catalog.recipe(portal: "demo", command: "loans").actions.map(\.name) == ["renew", "renew-all"])
    }

    @Test("a misspelt key names the file, the line and the key, and suggests the right one")
    func typoIsReportedWithLine() throws {
        do {
            _ = try RecipeCatalog(directories: [Fixtures.url("recipes/typo")])
            Issue.record("expected an error")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains("grades.yaml:7"))
            #expect(error.message.contains("fields.credits.xpth"))
            #expect(error.hint?.contains("did you mean 'xpath'?") == true)
        }
    }

    @Test("broken YAML names the line")
    func badYAML() throws {
        do {
            _ = try RecipeCatalog(directories: [Fixtures.url("recipes/bad-yaml")])
            Issue.record("expected an error")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains("not valid YAML"))
            #expect(error.message.contains("line"))
        }
    }

    @Test("an XPath syntax error is caught when the recipe is loaded, before any request")
    func badXPath() throws {
        let text = """
            command: grades
            fetch: /grades
            rows: "//table[@id='grades'/tbody/tr"
            fields:
              course: { xpath: "td[1]" }
            """
        #expect {
            try DataRecipe.load(file: "grades.yaml", text: text, portal: "x")
        } throws: { error in
            let error = error as? UniToolError
            return error?.kind == .recipeInvalid && error?.message.contains("grades.yaml:3: rows:") == true
        }
    }

    @Test("shows_records is for one value: with many: true it is refused, naming the key")
    func showsRecordsWithMany() {
        let text = """
            command: grades
            options:
              term:
                resolve:
                  all: { fetch: /grades, xpath: "//option/@value", many: true, shows_records: true }
            fetch: /grades?term={{term}}
            rows: "//tr"
            fields:
              course: { xpath: "td[1]" }
            """
        #expect {
            try DataRecipe.load(file: "g.yaml", text: text, portal: "x")
        } throws: { error in
            let error = error as? UniToolError
            return error?.kind == .recipeInvalid && error?.message.contains("shows_records") == true
        }
    }

    @Test("a fetch template that names an undeclared option is refused")
    func undeclaredTemplateVariable() {
        let text = """
            command: grades
            fetch: /grades?term={{semester}}
            rows: "//tr"
            fields:
              course: { xpath: "td[1]" }
            """
        #expect { try DataRecipe.load(file: "g.yaml", text: text, portal: "x") } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("a date field without a format, or a wrong type name, is refused with a suggestion")
    func fieldTypeChecks() {
        let noFormat = """
            command: grades
            fetch: /grades
            rows: "//tr"
            fields:
              date: { xpath: "td[1]", type: date }
            """
        #expect { try DataRecipe.load(file: "g.yaml", text: noFormat, portal: "x") } throws: {
            ($0 as? UniToolError)?.kind == .recipeInvalid
        }
        let wrongType = noFormat.replacingOccurrences(of: "type: date", with: "type: nubmer")
        do {
            _ = try DataRecipe.load(file: "g.yaml", text: wrongType, portal: "x")
            Issue.record("expected an error")
        } catch let error as UniToolError {
            #expect(error.hint == "did you mean 'number'?")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a page rule needs exactly one action")
    func pageRuleActions() {
        let text = """
            portal: p
            base_url: https://portal.example.edu
            login:
              pages:
                - when: "//form"
                  auto_submit: true
                  fail: wrong_credentials
            """
        #expect { try PortalRecipe.load(file: "portal.yaml", text: text) } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("templates fill placeholders and refuse missing values")
    func templates() throws {
        let template = Template("/grades?term={{term}}&q={{ query }}")
        #expect(template.variables == ["term", "query"])
        #expect(
            try template.render(["term": "2026 fall", "query": "é&"], encode: Template.urlEncode) == "/grades?term=2026%20fall&q=%C3%A9%26")
        #expect { try template.render(["term": "x"]) } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test(
        "\"did you mean\": one rule everywhere (keys, values, settings, options): a candidate close enough to be a typo, the first of equals, none from nothing or from far away"
    )
    func typoSuggestions() {
        #expect(editDistance("portl", "portal") == 1 && editDistance("", "abc") == 3)
        #expect(typoSuggestion(for: "fromat", among: ["portal", "user", "format"]) == "format")
        #expect(typoSuggestion(for: "--jsn", among: ["--json", "--user", "--verbose"]) == "--json")
        // "ab" is one edit from both; the first in the list wins, so a sorted list gives a stable hint.
        #expect(typoSuggestion(for: "ab", among: ["abc", "abd"]) == "abc")
        #expect(typoSuggestion(for: "x", among: []) == nil)
        #expect(typoSuggestion(for: "colour", among: ["fields", "rows"]) == nil, "no hint that is not a typo")
    }
}
