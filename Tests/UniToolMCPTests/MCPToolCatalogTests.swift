import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

@testable import UniToolMCP

@Suite("The MCP tools made from the recipes")
struct MCPToolCatalogTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
    var tools: MCPToolCatalog {
        MCPToolCatalog(portal: try! Self.catalog.portal("demo"), recipes: Array(Self.catalog.dataRecipes["demo"]!.values))
    }

    func tool(_ name: String) -> ToolView? { tools.tools().map(ToolView.init).first { $0.name == name } }

    @Test("each command is a read-only tool whose options are its schema: enums from values and resolved symbols, defaults, help")
    func commands() throws {
        let grades = try #require(tool("grades"))
        #expect(grades.annotations.readOnlyHint == true && grades.annotations.destructiveHint == false)
        let term = grades.inputSchema.objectValue?["properties"]?.objectValue?["term"]?.objectValue
        #expect(term?["default"] == .string("current"))
        #expect(term?["description"]?.stringValue?.isEmpty == false)
        let summary = grades.inputSchema.objectValue?["properties"]?.objectValue?["summary"]?.objectValue
        #expect(summary?["type"] == .string("boolean"))
        let lms = try #require(tool("lms-courses")).inputSchema.objectValue?["properties"]?.objectValue?["show"]?.objectValue
        #expect(lms?["enum"] == .array(["inprogress", "future", "past", "all"].map(JSONValue.string)))
        // A tool whose sources each need their own argument says that one of them is required.
        let syllabus = try #require(tool("syllabus")).inputSchema.objectValue
        #expect(
            syllabus?["anyOf"]
                == .array([.object([("required", .array([.string("code")]))]), .object([("required", .array([.string("search")]))])]),
            "\(String(describing: syllabus))")
        #expect(grades.inputSchema.objectValue?["anyOf"] == nil)
        // A yes/no filter is a boolean, not a string whose only value is "true".
        let warning = try #require(tool("attendance")).inputSchema.objectValue?["properties"]?.objectValue?["warning"]?.objectValue
        #expect(warning?["type"] == .string("boolean") && warning?["enum"] == nil, "\(String(describing: warning))")
        let news = try #require(tool("news")).inputSchema.objectValue?["properties"]?.objectValue?["source"]?.objectValue
        #expect(news?["enum"] == .array(["rss", "atom", "page"].map(JSONValue.string)))
        #expect(
            Set(tools.tools().map(ToolView.init).map(\.name)).isSuperset(of: ["courses", "exams", "loans", "today", "search", "history"]))
    }

    @Test("an action is a tool of its own, marked destructive and described as a change")
    func actions() throws {
        let renew = try #require(tool("loans_renew"))
        #expect(renew.annotations.destructiveHint == true && renew.annotations.readOnlyHint == false)
        #expect(renew.description?.contains("CHANGES something") == true)
        #expect(renew.inputSchema.objectValue?["required"] == .array([.string("barcode")]))
        let all = try #require(tool("loans_renew-all"))
        // renew-all asks first (it has a preview): its only argument is the user's confirmation.
        #expect(all.inputSchema.objectValue?["required"] == nil)
        #expect(all.inputSchema["properties"]?["confirm"]?["type"] == .string("boolean"), "\(all.inputSchema)")
        #expect(all.inputSchema["properties"]?["confirm"]?["default"] == .bool(false))
        #expect(renew.inputSchema["properties"]?["confirm"] == nil, "a single renewal does not ask first")
        if case .perform(_, let action)? = tools.call(named: "loans_renew-all") {
            #expect(!action.takesArgument)
        } else {
            Issue.record("not an action")
        }
    }

    @Test("no tool takes a password, and an unknown argument is refused before anything is asked")
    func noPasswords() throws {
        for tool in tools.tools().map(ToolView.init) {
            let properties = tool.inputSchema.objectValue?["properties"]?.objectValue ?? [:]
            #expect(!properties.keys.contains { $0.lowercased().contains("password") || $0.lowercased().contains("totp") }, "\(tool.name)")
            #expect(tool.inputSchema.objectValue?["additionalProperties"] == .bool(false), "\(tool.name)")
        }
        let grades = try Self.catalog.recipe(portal: "demo", command: "grades")
        #expect(throws: ArgumentProblem.self) { try MCPToolCatalog.request(.arguments(["password": .string("hunter2")]), for: grades) }
        let parsed = try MCPToolCatalog.request(.arguments(["term": .string("2026-fall"), "summary": .bool(true)]), for: grades)
        #expect(parsed.options == ["term": "2026-fall"] && parsed.summary)
    }

    @Test("what each tool's schema says is what is enforced: unknown arguments, types, lists and required ones")
    func schemasEnforced() throws {
        func refused(_ arguments: [String: JSONValue], _ schema: ArgumentSchema) -> String? {
            do {
                _ = try MCPToolCatalog.checked(.arguments(arguments), against: schema)
                return nil
            } catch {
                return "\(error)"
            }
        }
        // today, search and history once took anything; a password among it.
        #expect(refused(["password": .string("hunter2")], MCPToolCatalog.todaySchema)?.contains("'password' is not an argument") == true)
        #expect(refused(["refresh": .string("yes")], MCPToolCatalog.todaySchema)?.contains("true or false") == true)
        #expect(refused(["query": .string("x"), "password": .string("p")], MCPToolCatalog.searchSchema) != nil)
        #expect(refused(["query": .number(3)], MCPToolCatalog.searchSchema)?.contains("must be a string") == true)
        #expect(refused(["query": .string("x"), "limit": .number(0)], MCPToolCatalog.searchSchema)?.contains("at least 1") == true)
        #expect(refused([:], MCPToolCatalog.searchSchema)?.contains("'query' is required") == true)
        #expect(refused(["command": .string("nosuch")], tools.historySchema)?.contains("must be one of") == true)
        #expect(refused(["command": .string("grades")], tools.historySchema) == nil)
        // A data tool: a number is no term, and catalogue's query is required, in the schema and the check.
        let grades = try Self.catalog.recipe(portal: "demo", command: "grades")
        #expect(throws: ArgumentProblem.self) { try MCPToolCatalog.request(.arguments(["term": .number(2026)]), for: grades) }
        let catalogue = try Self.catalog.recipe(portal: "demo", command: "catalogue")
        let schema = JSONValue(RecipeRequest.schema(for: catalogue).json)
        #expect(schema.objectValue?["required"] == .array([.string("query")]), "\(schema)")
        #expect(throws: ArgumentProblem.self) { try MCPToolCatalog.request(.arguments([:]), for: catalogue) }
        // An action's one argument, and nothing else.
        let loans = try Self.catalog.recipe(portal: "demo", command: "loans")
        let renew = try #require(loans.actions.first { $0.name == "renew" })
        let renewSchema = MCPToolCatalog.schema(for: renew, of: loans)
        #expect(refused(["barcode": .string("31000103")], renewSchema) == nil)
        #expect(refused(["barcode": .string("31000103"), "all": .bool(true)], renewSchema) != nil)
        #expect(refused([:], renewSchema)?.contains("required") == true)
    }

    @Test("a refusal that needs the user names the command to run in a terminal, and the kind of failure")
    func errors() {
        let login = UniToolMCPServer.explanation(
            of: UniToolError(.credentialsMissing, "no password is stored"), portal: "demo", user: "bence")
        #expect(login.contains("unitool --portal demo auth login --user bence") && login.contains("[credentials_missing]"), "\(login)")
        let terms = UniToolMCPServer.explanation(of: UniToolError(.termsNotAccepted, "the terms changed"), portal: "demo", user: "bence")
        #expect(terms.contains("unitool --portal demo terms accept") && terms.contains("[terms_not_accepted]"), "\(terms)")
    }
}

@Suite("Tool descriptions for a model: arguments, never command-line flags")
struct MCPDescriptionTests {
    let words = MCPDescription(arguments: ["day", "cafeteria", "search"], commands: ["menu", "exams"])

    @Test("a flag the tool has is named as its argument; a sentence with another flag or a unitool command is left out")
    func rewriting() {
        let text = """
            Reads the menu. --day keeps one day (today, mon..fri,
            or a date); --cafeteria keeps one cafeteria. --yes sends without asking.

            Export them with: unitool menu --format ics. Prices are in yen.
            """
        #expect(
            words.text(text)
                == "Reads the menu. 'day' keeps one day (today, mon..fri, or a date); 'cafeteria' keeps one cafeteria.\n\nPrices are in yen."
        )
        #expect(words.rewritten("Give a code, or --search WORDS.") == "Give a code, or 'search' WORDS.")
        #expect(words.rewritten("--format csv for a spreadsheet.") == nil)
        #expect(MCPDescription.sentences("A 2.5 credit course. Then more! Ok?") == ["A 2.5 credit course.", "Then more!", "Ok?"])
        // A command line goes, prose about unitool stays.
        #expect(words.rewritten("Export them with: unitool exams as a calendar.") == nil)
        #expect(words.rewritten("Its days go into 'unitool calendar' when asked.") == nil)
        #expect(words.rewritten("The answers unitool has kept.") == "The answers unitool has kept.")
    }

    @Test("no tool of any bundled portal describes itself or an argument with command-line syntax")
    func everyBundledTool() throws {
        for portal in MCPToolCatalogTests.catalog.portals.keys.sorted() {
            let recipes = Array(MCPToolCatalogTests.catalog.dataRecipes[portal]?.values ?? [:].values)
            let catalog = MCPToolCatalog(portal: try MCPToolCatalogTests.catalog.portal(portal), recipes: recipes)
            let lines = MCPDescription(arguments: [], commands: Set(recipes.map(\.command)))
            for tool in catalog.tools().map(ToolView.init) {
                #expect(tool.description?.contains("--") == false, "\(portal) \(tool.name): \(tool.description ?? "")")
                let sentences = MCPDescription.sentences(tool.description ?? "")
                #expect(!sentences.contains(where: lines.namesCommandLine), "\(portal) \(tool.name): \(tool.description ?? "")")
                for (name, property) in tool.inputSchema.objectValue?["properties"]?.objectValue ?? [:] {
                    let text = property.objectValue?["description"]?.stringValue ?? ""
                    #expect(!text.contains("--"), "\(portal) \(tool.name).\(name): \(text)")
                }
            }
        }
    }
}
