import Foundation
import UniToolKit
import UniToolRPC

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

    /// One tool as `tools/list` describes it, for the negotiated protocol version: `title` and
    /// `outputSchema` (the shape of its `structuredContent`) from 2025-06-18, `annotations` from
    /// 2025-03-26.
    static func tool(
        _ name: String, title: String, description: String, schema: ArgumentSchema, output: SchemaJSON? = nil,
        annotations: MCPToolEffect.Annotations, version: MCPVersion
    ) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("name", .string(name))]
        if version >= .v2025_06_18 { members.append(("title", .string(title))) }
        members.append(("description", .string(description)))
        members.append(("inputSchema", JSONValue(schema.json)))
        if version >= .v2025_06_18, let output { members.append(("outputSchema", JSONValue(output))) }
        if version >= .v2025_03_26 { members.append(("annotations", annotations.json)) }
        return .object(members)
    }

    /// Every tool, as `tools/list` answers for `version`. `clientAsks`: the client declared
    /// elicitation, so an action that asks first is always put to the user by the server, and
    /// offers no `confirm` a model could set instead.
    public func tools(for version: MCPVersion = .latest, clientAsks: Bool = false) -> [JSONValue] {
        var tools: [JSONValue] = []
        for recipe in recipes {
            let schema = RecipeRequest.schema(for: recipe)
            // The recipe's words for the command line, with its flags named as the tool's arguments.
            let words = MCPDescription(arguments: Set(schema.properties.map(\.name)), commands: Set(recipes.map(\.command)))
            let description = [recipe.summary, recipe.discussion.map(words.text)]
                .compactMap { $0?.trimmingWhitespaceAndNewlines() }.filter { !$0.isEmpty }.joined(separator: "\n\n")
            let effect = MCPToolEffect.of(recipe, portal: portal)
            tools.append(
                Self.tool(
                    recipe.command, title: recipe.summary,
                    description: description + "\n\n" + effect.explanation(portal: portal.name)
                        + " Fields: \(recipe.columns.joined(separator: ", ")).",
                    schema: schema, output: RecordSchema.answer(of: recipe), annotations: effect.annotations(title: recipe.summary),
                    version: version))
            for action in recipe.actions {
                tools.append(
                    Self.tool(
                        Self.toolName(recipe, action), title: action.summary,
                        description:
                            "\(action.summary).\n\nThis CHANGES something on the portal on the user's behalf (it submits the portal's own form); ask the user before calling it. The portal may refuse, and then says why."
                            + (!action.asks
                                ? ""
                                : clientAsks
                                    ? " The server asks the user itself, through the client, before anything is sent."
                                    : " It asks the user first: it sends nothing and says what it would send, and 'confirm': true, once the user has agreed, sends it."),
                        schema: Self.schema(for: action, of: recipe, offeringConfirm: !clientAsks),
                        annotations: MCPToolEffect.changes.annotations(title: action.summary),
                        version: version))
            }
        }
        if !portal.today.isEmpty {
            // The day's view runs the recipes it lists: it is only as read-only as they are.
            let todayEffect = MCPToolEffect.combined(
                portal.today.compactMap { item in recipes.first { $0.command == item.command } }.map {
                    MCPToolEffect.of($0, portal: portal)
                })
            tools.append(
                Self.tool(
                    "today", title: "The user's day",
                    description:
                        "The user's day on one page: \(portal.today.map(\.title).joined(separator: "; ")). Answers from the history when it is fresh; 'refresh' asks the portal anyway.",
                    schema: Self.todaySchema, annotations: todayEffect.annotations(title: "Today"), version: version))
        }
        tools.append(
            Self.tool(
                "search", title: "Search what the user has seen",
                description:
                    "Finds courses, grades, loans and news in the answers unitool has kept, typos, accents and full-width forms forgiven. No request to the portal.",
                schema: Self.searchSchema, output: RecordSchema.anyAnswer,
                annotations: .init(title: "Search", readOnly: true, destructive: false, openWorld: false),
                version: version))
        tools.append(
            Self.tool(
                "history", title: "What changed in a command's answers",
                description:
                    "What changed in a command's answers, run by run and field by field (a grade that came in, a due date that moved). No request to the portal.",
                schema: historySchema, output: RecordSchema.anyAnswer,
                annotations: .init(title: "History", readOnly: true, destructive: false, openWorld: false),
                version: version))
        return tools
    }

    /// An action's argument (the barcode of `loans_renew`) and its named values (the title and
    /// ISBN of `library_request`), each a string.
    static func schema(for action: ActionSpec, of recipe: DataRecipe, offeringConfirm: Bool = true) -> ArgumentSchema {
        var properties: [ArgumentSchema.Property] = []
        var required: [String] = []
        if action.takesArgument {
            properties.append(
                .init(action.argument, .string, description: "The \(action.argument) to \(action.name), as '\(recipe.command)' lists it"))
            required.append(action.argument)
        }
        for parameter in action.parameters {
            properties.append(.init(parameter.name, .string, description: parameter.help))
            if parameter.required { required.append(parameter.name) }
        }
        if action.asks, offeringConfirm {
            properties.append(
                .init(
                    "confirm", .boolean,
                    description:
                        "true only once the user has agreed to exactly what this sends; without it nothing is sent, and the answer says what would be",
                    defaultValue: "false"))
        }
        return ArgumentSchema(properties: properties, required: required)
    }

    static let todaySchema = ArgumentSchema(properties: [
        .init("refresh", .boolean, description: "Ask the portal even when the history has a fresh answer")
    ])

    static let searchSchema = ArgumentSchema(
        properties: [
            .init("query", .string, description: "One or more words"), .searchLimit,
        ], required: ["query"])

    var historySchema: ArgumentSchema {
        ArgumentSchema(
            properties: [
                .init("command", .string, allowed: recipes.map(\.command)),
                .historySince,
            ], required: ["command"])
    }

    /// A tool's arguments checked against its schema, as the schema says: an unknown argument
    /// (a `password` among them), a value of the wrong type or outside its list, or a missing
    /// required one is refused before anything is asked of the portal. The refusal is the tool's
    /// answer (`isError`), worded in the tool's own argument names, so the model can correct it.
    static func checked(_ arguments: JSONValue?, against schema: ArgumentSchema) throws(ArgumentProblem) -> [String: ArgumentValue] {
        try schema.check(members(arguments).map { ($0.key, $0.value.argument) }, path: { $0 })
    }

    /// A data tool's arguments as a checked `RecipeRequest`: the one check JSON-RPC and the
    /// command line run too.
    static func request(_ arguments: JSONValue?, for recipe: DataRecipe) throws(ArgumentProblem) -> RecipeRequest {
        let all = try checked(arguments, against: RecipeRequest.schema(for: recipe))
        let options = Set(recipe.options.map(\.name))
        return try RecipeRequest(
            recipe: recipe, options: all.filter { options.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            shape: all.filter { !options.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, naming: .mcp)
    }

    /// The members of a tool's `arguments` (none when it is absent or null). Anything but an
    /// object is refused, never read as "no arguments": a tool whose arguments are all optional
    /// would otherwise run on a string or an array (`tools/call` refuses it earlier, as -32602).
    static func members(_ arguments: JSONValue?) throws(ArgumentProblem) -> [(key: String, value: JSONValue)] {
        switch arguments {
        case nil, .null?: return []
        case .object(let members)?: return members
        case let other?:
            throw ArgumentProblem(path: "arguments", message: "'arguments' must be an object, not \(other.typeName)")
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
    /// The recipe's GETs carry a header that tells the server to take them as another method
    /// (`X-HTTP-Method-Override: POST`), which frameworks such as Rails, Laravel and Express's
    /// method-override honour: the request is a POST in all but name.
    case overridesMethod(header: String, method: String)
    /// An action: the portal's own form submitted on the user's behalf.
    case changes

    /// A data command's effect: a POST in any of its sources or their `read:` values counts,
    /// since the tool's `source` argument may choose any of them, unless the recipe is bundled
    /// and says the POST only reads (`safe: true`, the catalogue's search form); so does a
    /// method-override header among the headers its requests carry (its own, and the portal's
    /// or a service's, which `portal` has).
    public static func of(_ recipe: DataRecipe, portal: PortalRecipe? = nil) -> MCPToolEffect {
        let believed = { (safe: Bool) in safe && recipe.bundled }
        let posting = recipe.sources.filter { source in
            (source.post && !believed(source.postIsSafe)) || source.reads.contains { $0.post && !believed($0.postIsSafe) }
        }
        if !posting.isEmpty { return .posts(sources: posting.map { $0.name ?? recipe.command }) }
        let headers = (portal.map { [$0.headers] + $0.serviceHeaders.values.map { $0 } } ?? []) + [recipe.headers]
        if let override = methodOverride(in: headers.flatMap { $0 }) {
            return .overridesMethod(header: override.header, method: override.method)
        }
        return .readsOnly
    }

    /// The headers by which a client asks a server to take a request as another method.
    static let methodOverrideHeaders: Set<String> = ["x-http-method-override", "x-http-method", "x-method-override"]

    /// The first method-override header that names a method other than GET or HEAD (pure).
    static func methodOverride(in headers: [RecipeHeaders.Header]) -> (header: String, method: String)? {
        for header in headers where methodOverrideHeaders.contains(header.name.lowercased()) {
            let method = header.value.trimmingWhitespace().uppercased()
            if method != "GET" && method != "HEAD" { return (header.name, method) }
        }
        return nil
    }

    /// The effect of a tool that runs several recipes: the strongest of theirs.
    public static func combined(_ effects: [MCPToolEffect]) -> MCPToolEffect {
        if effects.contains(.changes) { return .changes }
        let posting = effects.flatMap { effect -> [String] in
            if case .posts(let sources) = effect { return sources }
            return []
        }
        if !posting.isEmpty { return .posts(sources: posting) }
        return effects.first { !$0.isReadOnly } ?? .readsOnly
    }

    public var isReadOnly: Bool { self == .readsOnly }

    /// MCP's tool annotations: hints a host decides by (ask the user first, or not).
    public struct Annotations: Sendable, Equatable {
        public var title: String
        public var readOnly: Bool
        public var destructive: Bool
        public var idempotent: Bool?
        public var openWorld: Bool

        public init(title: String, readOnly: Bool, destructive: Bool, idempotent: Bool? = nil, openWorld: Bool) {
            self.title = title
            self.readOnly = readOnly
            self.destructive = destructive
            self.idempotent = idempotent
            self.openWorld = openWorld
        }

        var json: JSONValue {
            var members: [(key: String, value: JSONValue)] = [
                ("title", .string(title)), ("readOnlyHint", .bool(readOnly)), ("destructiveHint", .bool(destructive)),
            ]
            if let idempotent { members.append(("idempotentHint", .bool(idempotent))) }
            members.append(("openWorldHint", .bool(openWorld)))
            return .object(members)
        }
    }

    /// The MCP annotations: read-only only for GETs; anything else may be destructive and may
    /// not be repeated safely, which is what the protocol assumes of a tool that says nothing.
    public func annotations(title: String) -> Annotations {
        isReadOnly
            ? .init(title: title, readOnly: true, destructive: false, openWorld: true)
            : .init(title: title, readOnly: false, destructive: true, idempotent: false, openWorld: true)
    }

    /// The sentence the tool's description ends with, for the model.
    func explanation(portal: String) -> String {
        switch self {
        case .readsOnly:
            return "Reads the user's own portal (\(portal)) through their saved session; nothing is changed."
        case .posts:
            return
                "Reads the user's own portal (\(portal)) through their saved session, but asks for its page with a POST (method: post in its recipe), which the portal may take as a change: ask the user before calling it."
        case .overridesMethod(let header, let method):
            return
                "Reads the user's own portal (\(portal)) through their saved session, but its requests carry '\(header): \(method)', which asks the portal to take them as a \(method) and so maybe as a change: ask the user before calling it."
        case .changes:
            return "This CHANGES something on the portal on the user's behalf; ask the user before calling it."
        }
    }
}
