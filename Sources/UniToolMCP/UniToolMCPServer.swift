import Foundation
import MCP
import Synchronization
import UniToolKit
import UniToolRPC

/// `unitool mcp`: the portal as a Model Context Protocol server for an AI assistant, over the
/// same service as the command line and `unitool rpc`.
///
/// The assistant never handles the password, the one-time code or the terms: a tool logs in
/// only with what the user already stored (`unitool auth login`), never asks for a password (no
/// tool has such an argument, and stdin is the protocol), never accepts terms, and stores
/// nothing. When the user is needed, the error names the command to run in a terminal.
public struct UniToolMCPServer: Sendable {
    public let host: any RPCHost
    public let portal: PortalRecipe
    public let user: String

    public init(host: any RPCHost, portal: PortalRecipe, user: String) {
        self.host = host
        self.portal = portal
        self.user = user
    }

    var recipes: [DataRecipe] { host.catalog.recipes(of: portal.id) }
    var catalog: MCPToolCatalog { MCPToolCatalog(portal: portal, recipes: recipes) }

    /// Serves until the client goes away.
    public func serve(transport: any Transport) async throws {
        let server = Server(
            name: "unitool", version: UniToolVersion.current, title: "unitool: \(portal.name)",
            instructions:
                "Tools read the user's university portal (\(portal.name)) as \(user) through the session they saved with unitool. Tools marked destructive change something on the portal: ask the user first. If a tool says a login or the terms of use need the user, tell them the command it names; never ask the user for their password.",
            capabilities: .init(resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false)))
        let catalog = self.catalog
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: catalog.tools) }
        await server.withMethodHandler(CallTool.self) { params in try await self.call(params, catalog: catalog, server: server) }
        await server.withMethodHandler(ListResources.self) { _ in ListResources.Result(resources: self.resources()) }
        await server.withMethodHandler(ReadResource.self) { params in try self.read(params.uri) }
        try await server.start(transport: transport)
        await server.waitUntilCompleted()
    }

    // MARK: Tools

    func call(_ params: CallTool.Parameters, catalog: MCPToolCatalog, server: Server) async throws -> CallTool.Result {
        guard let call = catalog.call(named: params.name) else {
            throw MCPError.invalidParams("there is no tool '\(params.name)'; tools/list names them")
        }
        // Progress notifications, when the client asked for them with a token.
        let token = params._meta?.progressToken
        let step = Atomic<Int>(0)
        let report: @Sendable (String) -> Void = { message in
            guard let token else { return }
            let progress = Double(step.add(1, ordering: .relaxed).newValue)
            Task {
                try? await server.notify(ProgressNotification.message(.init(progressToken: token, progress: progress, message: message)))
            }
        }
        do {
            return try await perform(call, arguments: params.arguments ?? [:], interaction: MCPInteraction(report: report))
        } catch let error as UniToolError {
            throw Self.protocolError(error, portal: portal.id, user: user)
        }
    }

    func perform(_ call: MCPToolCatalog.Call, arguments: [String: Value], interaction: any Interaction) async throws -> CallTool.Result {
        switch call {
        case .run(let recipe):
            let request = try MCPToolCatalog.request(arguments, for: recipe)
            return try Self.result(
                try await host.service(portal: portal, user: user).execute(request, of: recipe, interaction: interaction).records)
        case .perform(let recipe, let action):
            let given = try MCPToolCatalog.checked(arguments, against: MCPToolCatalog.schema(for: action, of: recipe))
            var argument = ""
            if action.takesArgument, case .string(let text)? = given[action.argument] { argument = text }
            return try Self.result(
                try await host.service(portal: portal, user: user).perform(
                    action, of: recipe, argument: argument, interaction: interaction))
        case .today:
            let given = try MCPToolCatalog.checked(arguments, against: MCPToolCatalog.todaySchema)
            let refresh = given["refresh"] == .bool(true)
            let service = DayService(portal: portal, user: user, recipes: recipes, history: host.history, now: try FixedClock.now())
            let live =
                service.todayNeedsPortal(refresh: refresh) ? host.liveRuns(portal: portal, user: user, interaction: interaction) : nil
            let report = await service.today(live: live?.run, checkTerms: live?.checkTerms, refresh: refresh)
            let text = service.json(report)
            let structured: Value? = try Self.value(ofJSON: text)
            return CallTool.Result(content: [.text(text)], structuredContent: structured)
        case .search:
            let given = try MCPToolCatalog.checked(arguments, against: MCPToolCatalog.searchSchema)
            guard case .string(let query)? = given["query"], !query.isEmpty else { throw MCPError.invalidParams("'query' is empty") }
            var limit = 20
            if case .integer(let number)? = given["limit"] { limit = number }
            let items = try Search.items(catalog: host.catalog, portal: portal.id, user: user, history: host.history)
            return try Self.result(Search.recordSet(Search.search(query, in: items, limit: limit)))
        case .history:
            let given = try MCPToolCatalog.checked(arguments, against: catalog.historySchema)
            guard case .string(let name)? = given["command"], let recipe = recipes.first(where: { $0.command == name }) else {
                throw MCPError.invalidParams("'command' must be one of: \(recipes.map(\.command).joined(separator: ", "))")
            }
            guard let history = host.history else {
                throw UniToolError(.stateCorrupt, "the history cannot be opened", hint: "run unitool with -v to see why")
            }
            var since = "30d"
            if case .string(let text)? = given["since"] { since = text }
            return try Self.result(
                HistoryReport.changes(
                    in: history, recipe: recipe, portal: portal.id, user: recipe.historyUser(user),
                    since: try HistoryReport.start(of: since)))
        }
    }

    /// Records as the tool's answer: JSON text for the model, and the same as structured content.
    static func result(_ records: RecordSet) throws -> CallTool.Result {
        let columns = "[" + records.columns.map(JSONString.quoted).joined(separator: ", ") + "]"
        let text = "{\"columns\": \(columns), \"records\": \(JSONRenderer.array(records).trimmingCharacters(in: .whitespacesAndNewlines))}"
        let structured: Value? = try value(ofJSON: text)
        return CallTool.Result(content: [.text(text)], structuredContent: structured)
    }

    static func value(ofJSON text: String) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }

    /// unitool's error as a protocol error: its message, its hint, and for what needs the user
    /// (a login, the terms), the command to run in a terminal.
    static func protocolError(_ error: UniToolError, portal: String, user: String) -> MCPError {
        var hint = error.hint
        switch error.kind {
        case .credentialsMissing, .wrongCredentials, .mfaRequired, .wrongCode, .loginFailed, .consentRequired, .keyringUnavailable,
            .keyringLocked, .keyringNoService, .keyringPromptCancelled, .keyringFailed:
            hint =
                "the user must log in in a terminal of their desktop session: unitool --portal \(portal) auth login --user \(user); this server never asks for a password"
        case .termsNotAccepted, .termsVersionStale:
            hint =
                "the user must read and accept the terms in a terminal: unitool --portal \(portal) terms show, then unitool --portal \(portal) terms accept"
        default: break
        }
        return MCPError.serverError(code: error.kind.rpcCode, message: error.message + (hint.map { " (\($0))" } ?? ""))
    }

    // MARK: Resources

    func resources() -> [Resource] {
        var resources = [
            Resource(
                name: "terms", uri: "unitool://\(portal.id)/terms", title: "Terms of use",
                description: "The version of the portal's terms of use the user accepted, if any", mimeType: "application/json")
        ]
        let answers = (try? host.history?.latestAnswers(portal: portal.id, users: [user, ""])) ?? []
        for recipe in recipes {
            if let answer = answers.first(where: { $0.recipe == recipe.command }) {
                resources.append(
                    Resource(
                        name: "\(recipe.command) (last answer)", uri: "unitool://\(portal.id)/records/\(recipe.command)",
                        title: "\(recipe.summary): the last answer",
                        description:
                            "As of \(HistoryStore.age(of: answer.run.ranAt)) (\(HistoryStore.iso8601(answer.run.ranAt))), from the history",
                        mimeType: "application/json"))
            }
            resources.append(
                Resource(
                    name: "\(recipe.command) (recipe)", uri: "unitool://\(portal.id)/recipes/\(recipe.command)",
                    title: "How '\(recipe.command)' reads the portal", description: recipe.summary, mimeType: "application/yaml"))
        }
        return resources
    }

    func read(_ uri: String) throws -> ReadResource.Result {
        let prefix = "unitool://\(portal.id)/"
        guard uri.hasPrefix(prefix) else { throw MCPError.invalidParams("no resource '\(uri)'") }
        let path = String(uri.dropFirst(prefix.count))
        if path == "terms" {
            let accepted = (try? host.acceptedTerms.load(portal: portal.id)) ?? nil
            let text =
                "{\"portal\": \(JSONString.quoted(portal.id)), \"accepted\": \(accepted.map { JSONString.quoted($0.version) } ?? "null"), \"check\": \(JSONString.quoted("unitool --portal \(portal.id) terms status"))}"
            return ReadResource.Result(contents: [.text(text, uri: uri, mimeType: "application/json")])
        }
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let recipe = recipes.first(where: { $0.command == parts[1] }) else {
            throw MCPError.invalidParams("no resource '\(uri)'")
        }
        switch parts[0] {
        case "records":
            guard let history = host.history else { throw MCPError.invalidParams("no history is kept") }
            do {
                let answer = try history.offlineAnswer(
                    recipe: recipe, portal: portal.id, user: recipe.historyUser(user), options: [:], source: nil)
                let text =
                    "{\"as_of\": \(JSONString.quoted(HistoryStore.iso8601(answer.ranAt))), \"records\": \(JSONRenderer.array(answer.records).trimmingCharacters(in: .whitespacesAndNewlines))}"
                return ReadResource.Result(contents: [.text(text, uri: uri, mimeType: "application/json")])
            } catch let error as UniToolError {
                throw Self.protocolError(error, portal: portal.id, user: user)
            }
        case "recipes":
            let text = (try? String(contentsOfFile: recipe.file, encoding: .utf8)) ?? recipe.summary
            return ReadResource.Result(contents: [.text(text, uri: uri, mimeType: "application/yaml")])
        default:
            throw MCPError.invalidParams("no resource '\(uri)'")
        }
    }
}

/// MCP's answers to what the service asks on the way (`Interaction`). A tool call never prompts:
/// stdin is the protocol. Progress goes out as `notifications/progress` when the call asked for it;
/// terms not yet accepted are refused with the CLI's hint, which the assistant passes on (the
/// server's instructions say so); an action is confirmed by the call itself, since its tool is
/// marked destructive and the host asks the user before it calls one.
struct MCPInteraction: Interaction {
    let report: @Sendable (String) -> Void

    func progress(_ message: String) { report(message) }
}
