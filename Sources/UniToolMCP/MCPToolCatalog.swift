import Foundation
import MCP
import UniToolKit

/// The tools `unitool mcp` offers, made from the portal's recipes: each command a tool whose
/// options are its JSON Schema, each action a tool of its own marked destructive, and the day's
/// views. Whether a tool is read-only is told from what its recipe sends (`MCPToolEffect`): a
/// command whose page is a POST is marked as an action is. A pure value, tested without a client.
public struct MCPToolCatalog: Sendable {
    public let portal: PortalRecipe
    public let recipes: [DataRecipe]

    public init(portal: PortalRecipe, recipes: [DataRecipe]) {
        self.portal = portal
        self.recipes = recipes.sorted { $0.command < $1.command }
    }

    /// What a tool name stands for.
    public enum Call: Sendable {
        case run(DataRecipe)
        case perform(DataRecipe, ActionSpec)
        case today
        case search
        case history
    }

    /// `loans_renew`: an action's tool, named by its command and its own name.
    static func toolName(_ recipe: DataRecipe, _ action: ActionSpec) -> String { "\(recipe.command)_\(action.name)" }

    public func call(named name: String) -> Call? {
        if let recipe = recipes.first(where: { $0.command == name }) { return .run(recipe) }
        for recipe in recipes {
            if let action = recipe.actions.first(where: { Self.toolName(recipe, $0) == name }) { return .perform(recipe, action) }
        }
        switch name {
        case "today" where !portal.today.isEmpty: return .today
        case "search": return .search
        case "history": return .history
        default: return nil
        }
    }

    public var tools: [Tool] {
        var tools: [Tool] = []
        for recipe in recipes {
            let description = [recipe.summary, recipe.discussion?.trimmingCharacters(in: .whitespacesAndNewlines)]
                .compactMap { $0 }.joined(separator: "\n\n")
            let effect = MCPToolEffect.of(recipe)
            tools.append(
                Tool(
                    name: recipe.command, title: recipe.summary,
                    description: description + "\n\n" + effect.explanation(portal: portal.name)
                        + " Fields: \(recipe.columns.joined(separator: ", ")).",
                    inputSchema: Self.schema(for: recipe), annotations: effect.annotations(title: recipe.summary)))
            for action in recipe.actions {
                tools.append(
                    Tool(
                        name: Self.toolName(recipe, action), title: action.summary,
                        description:
                            "\(action.summary).\n\nThis CHANGES something on the portal on the user's behalf (it submits the portal's own form); ask the user before calling it. The portal may refuse, and then says why.",
                        inputSchema: Self.value(Self.schema(for: action, of: recipe).json),
                        annotations: MCPToolEffect.changes.annotations(title: action.summary)))
            }
        }
        if !portal.today.isEmpty {
            // The day's view runs the recipes it lists: it is only as read-only as they are.
            let todayEffect = MCPToolEffect.combined(
                portal.today.compactMap { item in recipes.first { $0.command == item.command } }.map(MCPToolEffect.of))
            tools.append(
                Tool(
                    name: "today", title: "The user's day",
                    description:
                        "The user's day on one page: \(portal.today.map(\.title).joined(separator: "; ")). Answers from the history when it is fresh; 'refresh' asks the portal anyway.",
                    inputSchema: Self.value(Self.todaySchema.json), annotations: todayEffect.annotations(title: "Today")))
        }
        tools.append(
            Tool(
                name: "search", title: "Search what the user has seen",
                description:
                    "Finds courses, grades, loans and news in the answers unitool has kept, typos, accents and full-width forms forgiven. No request to the portal.",
                inputSchema: Self.value(Self.searchSchema.json),
                annotations: .init(title: "Search", readOnlyHint: true, destructiveHint: false, openWorldHint: false)))
        tools.append(
            Tool(
                name: "history", title: "What changed in a command's answers",
                description:
                    "What changed in a command's answers, run by run and field by field (a grade that came in, a due date that moved). No request to the portal.",
                inputSchema: Self.value(historySchema.json),
                annotations: .init(title: "History", readOnlyHint: true, destructiveHint: false, openWorldHint: false)))
        return tools
    }

    /// A recipe's tool schema: the request model's (`RecipeRequest.schema`), which is also
    /// what ``request(_:for:)`` enforces.
    static func schema(for recipe: DataRecipe) -> Value { value(RecipeRequest.schema(for: recipe).json) }

    /// An action's one argument (the barcode of `loans_renew`), or none.
    static func schema(for action: ActionSpec, of recipe: DataRecipe) -> ArgumentSchema {
        guard action.takesArgument else { return ArgumentSchema(properties: []) }
        return ArgumentSchema(
            properties: [
                .init(action.argument, .string, description: "The \(action.argument) to \(action.name), as '\(recipe.command)' lists it")
            ],
            required: [action.argument])
    }

    static let todaySchema = ArgumentSchema(properties: [
        .init("refresh", .boolean, description: "Ask the portal even when the history has a fresh answer")
    ])

    static let searchSchema = ArgumentSchema(
        properties: [
            .init("query", .string, description: "One or more words"),
            .init(
                "limit", .integer, defaultValue: "20", minimum: InputBounds.searchResults.lowerBound,
                maximum: InputBounds.searchResults.upperBound),
        ], required: ["query"])

    var historySchema: ArgumentSchema {
        ArgumentSchema(
            properties: [
                .init("command", .string, allowed: recipes.map(\.command)),
                .init("since", .string, description: "30d (default), 12h, today or a date such as 2026-11-01"),
            ], required: ["command"])
    }

    /// A tool's arguments checked against its schema, as the schema says: an unknown argument
    /// (a `password` among them), a value of the wrong type or outside its list, or a missing
    /// required one is refused before anything is asked of the portal.
    static func checked(_ arguments: [String: Value]?, against schema: ArgumentSchema) throws -> [String: ArgumentValue] {
        do {
            return try schema.check((arguments ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, argument($0.value)) }, path: { $0 })
        } catch {
            throw MCPError.invalidParams(error.message)
        }
    }

    /// A data tool's arguments as a checked `RecipeRequest`: the one check JSON-RPC and the
    /// command line run too.
    static func request(_ arguments: [String: Value]?, for recipe: DataRecipe) throws -> RecipeRequest {
        let all = try checked(arguments, against: RecipeRequest.schema(for: recipe))
        let options = Set(recipe.options.map(\.name))
        do {
            return try RecipeRequest(
                recipe: recipe, options: all.filter { options.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                shape: all.filter { !options.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, naming: .mcp)
        } catch {
            throw MCPError.invalidParams(error.message)
        }
    }

    static func argument(_ value: Value) -> ArgumentValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .integer(number)
        case .double(let number): return .number(number)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(argument))
        case .data: return .other(typeName: "data")
        case .object: return .other(typeName: "an object")
        }
    }

    /// A schema as the MCP SDK's JSON value.
    static func value(_ schema: SchemaJSON) -> Value {
        switch schema {
        case .string(let text): return .string(text)
        case .integer(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .array(let items): return .array(items.map(value))
        case .object(let members): return .object(Dictionary(members.map { ($0.0, value($0.1)) }, uniquingKeysWith: { $1 }))
        }
    }
}

/// What calling a tool may do on the portal, told from what its recipe sends, never from the
/// kind of tool alone: a data command whose source is a POST is as able to change something as
/// an action (a pack's "loan-status" that POSTed to the renewal form renewed three loans while
/// announced as read-only). The MCP annotations an assistant decides by come from here.
public enum MCPToolEffect: Sendable, Equatable {
    /// Only GETs: the recipe's pages, `read:` values, `next` links and option values.
    case readsOnly
    /// The recipe asks for a page with a POST (`method: post` in these sources): the portal
    /// may take it as a change, which unitool cannot tell from the recipe.
    case posts(sources: [String])
    /// An action: the portal's own form submitted on the user's behalf.
    case changes

    /// A data command's effect: a POST in any of its sources counts, since the tool's `source`
    /// argument may choose any of them.
    public static func of(_ recipe: DataRecipe) -> MCPToolEffect {
        let posting = recipe.sources.filter(\.post)
        return posting.isEmpty ? .readsOnly : .posts(sources: posting.map { $0.name ?? recipe.command })
    }

    /// The effect of a tool that runs several recipes: the strongest of theirs.
    public static func combined(_ effects: [MCPToolEffect]) -> MCPToolEffect {
        if effects.contains(.changes) { return .changes }
        let posting = effects.flatMap { effect -> [String] in
            if case .posts(let sources) = effect { return sources }
            return []
        }
        return posting.isEmpty ? .readsOnly : .posts(sources: posting)
    }

    public var isReadOnly: Bool { self == .readsOnly }

    /// The MCP annotations: read-only only for GETs; anything else may be destructive and may
    /// not be repeated safely, which is what the protocol assumes of a tool that says nothing.
    public func annotations(title: String) -> Tool.Annotations {
        isReadOnly
            ? .init(title: title, readOnlyHint: true, destructiveHint: false, openWorldHint: true)
            : .init(title: title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true)
    }

    /// The sentence the tool's description ends with, for the model.
    func explanation(portal: String) -> String {
        switch self {
        case .readsOnly:
            return "Reads the user's own portal (\(portal)) through their saved session; nothing is changed."
        case .posts:
            return
                "Reads the user's own portal (\(portal)) through their saved session, but asks for its page with a POST (method: post in its recipe), which the portal may take as a change: ask the user before calling it."
        case .changes:
            return "This CHANGES something on the portal on the user's behalf; ask the user before calling it."
        }
    }
}
