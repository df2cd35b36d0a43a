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
                var properties: [String: Value] = [:]
                var required: [Value] = []
                if action.takesArgument {
                    properties[action.argument] = .object([
                        "type": .string("string"),
                        "description": .string("The \(action.argument) to \(action.name), as '\(recipe.command)' lists it"),
                    ])
                    required.append(.string(action.argument))
                }
                tools.append(
                    Tool(
                        name: Self.toolName(recipe, action), title: action.summary,
                        description:
                            "\(action.summary).\n\nThis CHANGES something on the portal on the user's behalf (it submits the portal's own form); ask the user before calling it. The portal may refuse, and then says why.",
                        inputSchema: .object([
                            "type": .string("object"), "properties": .object(properties), "required": .array(required),
                            "additionalProperties": .bool(false),
                        ]),
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
                    inputSchema: .object([
                        "type": .string("object"),
                        "properties": .object([
                            "refresh": .object([
                                "type": .string("boolean"),
                                "description": .string("Ask the portal even when the history has a fresh answer"),
                            ])
                        ]), "additionalProperties": .bool(false),
                    ]), annotations: todayEffect.annotations(title: "Today")))
        }
        tools.append(
            Tool(
                name: "search", title: "Search what the user has seen",
                description:
                    "Finds courses, grades, loans and news in the answers unitool has kept, typos, accents and full-width forms forgiven. No request to the portal.",
                inputSchema: .object([
                    "type": .string("object"),
                    "properties": .object([
                        "query": .object(["type": .string("string"), "description": .string("One or more words")]),
                        "limit": .object(["type": .string("integer"), "minimum": .int(1), "default": .int(20)]),
                    ]), "required": .array([.string("query")]), "additionalProperties": .bool(false),
                ]), annotations: .init(title: "Search", readOnlyHint: true, destructiveHint: false, openWorldHint: false)))
        tools.append(
            Tool(
                name: "history", title: "What changed in a command's answers",
                description:
                    "What changed in a command's answers, run by run and field by field (a grade that came in, a due date that moved). No request to the portal.",
                inputSchema: .object([
                    "type": .string("object"),
                    "properties": .object([
                        "command": .object(["type": .string("string"), "enum": .array(recipes.map { .string($0.command) })]),
                        "since": .object([
                            "type": .string("string"), "description": .string("30d (default), 12h, today or a date such as 2026-11-01"),
                        ]),
                    ]), "required": .array([.string("command")]), "additionalProperties": .bool(false),
                ]), annotations: .init(title: "History", readOnlyHint: true, destructiveHint: false, openWorldHint: false)))
        return tools
    }

    /// A recipe's options as a JSON Schema: enums from `values` and the symbolic values the
    /// portal resolves (`current`), descriptions from the recipe's help, defaults.
    static func schema(for recipe: DataRecipe) -> Value {
        var properties: [String: Value] = [:]
        for option in recipe.options {
            var property: [String: Value] = ["type": .string("string")]
            if let help = option.help { property["description"] = .string(help) }
            let values = option.allowedValues + option.resolve.keys.sorted()
            if !option.allowedValues.isEmpty { property["enum"] = .array(values.map(Value.string)) }
            if let defaultValue = option.defaultValue { property["default"] = .string(defaultValue) }
            properties[option.name] = .object(property)
        }
        if recipe.sources.count > 1 {
            properties["source"] = .object([
                "type": .string("string"), "enum": .array(recipe.sources.compactMap(\.name).map(Value.string)),
                "description": .string("Where to read from"),
            ])
        }
        if let totals = recipe.totals {
            properties["summary"] = .object([
                "type": .string("boolean"),
                "description": .string("Totals instead of the records: \(totals.fields.map(\.name).joined(separator: ", "))"),
            ])
        }
        return .object(["type": .string("object"), "properties": .object(properties), "additionalProperties": .bool(false)])
    }

    /// A tool's arguments as a recipe's options, checked: an unknown argument (a `password`
    /// among them) or a value of the wrong kind is refused before anything is asked of the portal.
    static func options(_ arguments: [String: Value]?, for recipe: DataRecipe) throws -> (
        options: [String: String], source: String?, summary: Bool
    ) {
        var options: [String: String] = [:]
        var source: String?
        var summary = false
        for (name, value) in arguments ?? [:] {
            if name == "source", recipe.sources.count > 1, let text = value.stringValue {
                source = text
            } else if name == "summary", recipe.totals != nil, let flag = value.boolValue {
                summary = flag
            } else if recipe.options.contains(where: { $0.name == name }) {
                guard let text = value.stringValue ?? value.intValue.map(String.init) else {
                    throw MCPError.invalidParams("'\(name)' must be a string")
                }
                options[name] = text
            } else {
                throw MCPError.invalidParams(
                    "'\(recipe.command)' has no argument '\(name)'; its arguments are: \(recipe.options.map(\.name).joined(separator: ", "))"
                )
            }
        }
        return (options, source, summary)
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
