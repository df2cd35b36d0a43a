import Testing
import UniToolKit
import UniToolTestSupport

/// The one check of a recipe request, and the schema made from the same description: the same
/// mistake named in each front end's words.
@Suite("Recipe requests: one check and one schema for the command line, JSON-RPC and MCP")
struct RecipeRequestTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
    static func recipe(_ command: String) throws -> DataRecipe { try catalog.recipe(portal: "demo", command: command) }

    func problem(_ command: String, _ options: [(String, ArgumentValue)], shape: [(String, ArgumentValue)] = [], _ naming: ArgumentNaming)
        throws -> ArgumentProblem?
    {
        do {
            _ = try RecipeRequest(recipe: try Self.recipe(command), options: options, shape: shape, naming: naming)
            return nil
        } catch let problem as ArgumentProblem {
            return problem
        }
    }

    @Test("an unknown option is named with the recipe's options, in each front end's words")
    func unknownOption() throws {
        let rpc = try problem("grades", [("trem", .string("all"))], .rpc)
        #expect(rpc?.path == "options.trem" && rpc?.message.contains("'options.trem' is not an option of 'grades'") == true)
        let mcp = try problem("grades", [("trem", .string("all"))], .mcp)
        #expect(mcp?.message.contains("'trem' is not an option of 'grades' (its options: term)") == true, "\(String(describing: mcp))")
        let cli = try problem("grades", [("trem", .string("all"))], .commandLine)
        #expect(cli?.message.contains("'--trem'") == true && cli?.message.contains("--term") == true)
    }

    @Test("types, lists, filters and required options are checked; a valid request passes unchanged")
    func checks() throws {
        #expect(try problem("grades", [("term", .integer(5))], .rpc)?.message == "'options.term' must be a string, not a number")
        #expect(try problem("catalogue", [], .mcp)?.message == "'query' is required")
        let day = try problem("courses", [("day", .string("funday"))], .commandLine)
        #expect(day?.message.hasPrefix("'funday' is not a day for --day") == true, "\(String(describing: day))")
        #expect(try problem("news", [], shape: [("source", .string("xml"))], .rpc)?.message.contains("is not a source of 'news'") == true)
        #expect(
            try problem("grades", [], shape: [("summary", .string("yes"))], .rpc)?.message
                == "'summary' must be true or false, not a string")
        #expect(
            try problem("grades", [], shape: [("fields", .array([.string("gpa")]))], .rpc)?.message.contains("'fields' names 'gpa'") == true
        )
        let request = try RecipeRequest(
            recipe: try Self.recipe("grades"), options: [("term", .string("all"))],
            shape: [("summary", .bool(true)), ("sort", .array([.string("-gpa")])), ("fields", .array([.string("term"), .string("gpa")]))],
            naming: .rpc)
        #expect(request.options == ["term": "all"] && request.summary && request.fields == ["term", "gpa"])
        #expect(request.sort == [SortKey(field: "gpa", descending: true)])
    }

    @Test("the schema says what the check holds: closed lists, examples, defaults, required, no other properties")
    func schema() throws {
        let catalogue = RecipeRequest.schema(for: try Self.recipe("catalogue"))
        #expect(catalogue.required == ["query"])
        guard case .object(let members) = catalogue.json else {
            Issue.record("not an object")
            return
        }
        #expect(members.contains { $0.0 == "additionalProperties" && $0.1 == .bool(false) })
        let grades = RecipeRequest.schema(for: try Self.recipe("grades"))
        let term = try #require(grades.properties.first { $0.name == "term" })
        #expect(term.defaultValue == "current" && term.examples == ["all", "current"] && term.allowed == nil)
        #expect(grades.properties.contains { $0.name == "summary" && $0.kind == .boolean })
        #expect(grades.required.isEmpty)
        let news = RecipeRequest.schema(for: try Self.recipe("news"))
        #expect(news.properties.first { $0.name == "source" }?.allowed == ["rss", "atom", "page"])
    }
}
