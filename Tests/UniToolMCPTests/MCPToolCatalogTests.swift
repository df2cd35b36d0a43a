import Foundation
import MCP
import Testing
import UniToolKit
import UniToolTestSupport

@testable import UniToolMCP

@Suite("The MCP tools made from the recipes")
struct MCPToolCatalogTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
    var tools: MCPToolCatalog {
        MCPToolCatalog(portal: try! Self.catalog.portal("demo"), recipes: Array(Self.catalog.dataRecipes["demo"]!.values))
    }

    func tool(_ name: String) -> Tool? { tools.tools.first { $0.name == name } }

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
        #expect(lms?["enum"] == .array(["inprogress", "future", "past", "all"].map(Value.string)))
        let news = try #require(tool("news")).inputSchema.objectValue?["properties"]?.objectValue?["source"]?.objectValue
        #expect(news?["enum"] == .array(["rss", "atom", "page"].map(Value.string)))
        #expect(Set(tools.tools.map(\.name)).isSuperset(of: ["courses", "exams", "loans", "today", "search", "history"]))
    }

    @Test("an action is a tool of its own, marked destructive and described as a change")
    func actions() throws {
        let renew = try #require(tool("loans_renew"))
        #expect(renew.annotations.destructiveHint == true && renew.annotations.readOnlyHint == false)
        #expect(renew.description?.contains("CHANGES something") == true)
        #expect(renew.inputSchema.objectValue?["required"] == .array([.string("barcode")]))
        let all = try #require(tool("loans_renew-all"))
        #expect(all.inputSchema.objectValue?["required"] == .array([]))
        if case .perform(_, let action)? = tools.call(named: "loans_renew-all") {
            #expect(!action.takesArgument)
        } else {
            Issue.record("not an action")
        }
    }

    @Test("no tool takes a password, and an unknown argument is refused before anything is asked")
    func noPasswords() throws {
        for tool in tools.tools {
            let properties = tool.inputSchema.objectValue?["properties"]?.objectValue ?? [:]
            #expect(!properties.keys.contains { $0.lowercased().contains("password") || $0.lowercased().contains("totp") }, "\(tool.name)")
            #expect(tool.inputSchema.objectValue?["additionalProperties"] == .bool(false), "\(tool.name)")
        }
        let grades = try Self.catalog.recipe(portal: "demo", command: "grades")
        #expect(throws: MCPError.self) { try MCPToolCatalog.options(["password": .string("hunter2")], for: grades) }
        let parsed = try MCPToolCatalog.options(["term": .string("2026-fall"), "summary": .bool(true)], for: grades)
        #expect(parsed.options == ["term": "2026-fall"] && parsed.summary)
    }

    @Test("a refusal that needs the user names the command to run in a terminal")
    func errors() {
        let login = UniToolMCPServer.protocolError(
            UniToolError(.credentialsMissing, "no password is stored"), portal: "demo", user: "bence")
        #expect("\(login)".contains("unitool --portal demo auth login --user bence"))
        let terms = UniToolMCPServer.protocolError(UniToolError(.termsNotAccepted, "the terms changed"), portal: "demo", user: "bence")
        if case .serverError(let code, let message) = terms {
            #expect(code == UniToolError.Kind.termsNotAccepted.rpcCode && message.contains("unitool --portal demo terms accept"))
        } else {
            Issue.record("\(terms)")
        }
    }
}
