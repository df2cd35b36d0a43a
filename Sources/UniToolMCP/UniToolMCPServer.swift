import Foundation
import Synchronization
import UniToolKit
import UniToolRPC

/// `unitool mcp`: the portal as a Model Context Protocol server for an AI assistant, over the
/// same service as the command line and `unitool rpc`, and served by the same JSON-RPC 2.0 core
/// (`RPCServer` in MCP's dialect): every request answered, also when the input ends right after
/// it; a parse error answered with id null; a cancelled call stopped and not answered.
///
/// The assistant never handles the password, the one-time code or the terms: a tool logs in
/// only with what the user already stored (`unitool auth login`), never asks for a password (no
/// tool has such an argument, and stdin is the protocol), never accepts terms, and stores
/// nothing. When the user is needed, the tool's answer names the command to run in a terminal.
///
/// A tool that fails answers with `isError: true` and text the model can act on; a protocol
/// error is only for what is wrong with the message itself (an unknown tool, no `name`).
public struct UniToolMCPServer: Sendable {
    public let host: any RPCHost
    public let portal: PortalRecipe
    public let user: String
    /// What the server tells the client when it starts (the environment it was given lacks
    /// something unitool needs), also in the instructions.
    public let warnings: [String]
    /// The version agreed at `initialize`; the latest until then.
    private let version = AgreedVersion()
    /// What the client was last told of the kept answers, and what it subscribed to.
    let resourceWatch = ResourceWatch()
    /// The level of `notifications/message` the client asked for.
    let log = MCPLog()

    final class AgreedVersion: Sendable {
        let value = Mutex(MCPVersion.latest)
        /// Whether `initialize` was answered: a second one is refused, not a new negotiation.
        let initialized = Mutex(false)
        /// Whether the client declared `elicitation` (2025-06-18 on): the server may ask the user.
        let clientElicits = Mutex(false)
    }

    /// The kept answers the client knows of (each command's newest run), and the resources it
    /// asked to hear about: what `notifications/resources/list_changed` and `…/updated` compare.
    final class ResourceWatch: Sendable {
        /// Each command's newest run as last announced, and the history's last run id then;
        /// nil until `initialize` looks first.
        let announced = Mutex<HistoryStore.NewestRuns?>(nil)
        let subscribed = Mutex<Set<String>>([])
    }

    public init(host: any RPCHost, portal: PortalRecipe, user: String, warnings: [String] = []) {
        self.host = host
        self.portal = portal
        self.user = user
        self.warnings = warnings
        recipes = host.catalog.recipes(of: portal.id)
        catalog = MCPToolCatalog(portal: portal, recipes: recipes)
    }

    /// The portal's recipes and tools, made once: the catalog does not change while the server runs.
    let recipes: [DataRecipe]
    let catalog: MCPToolCatalog
    var agreed: MCPVersion { version.value.withLock { $0 } }
    var clientElicits: Bool { version.clientElicits.withLock { $0 } }

    /// MCP's methods, for an `RPCServer` in the `.mcp` dialect.
    public var methods: [String: RPCMethod] {
        [
            "initialize": { request in try self.initialize(request) },
            // The warnings the command line printed at start are the client's to log too.
            "notifications/initialized": { request in
                for warning in self.warnings { self.log.send(.warning, warning, to: request.client) }
                return .null
            },
            "logging/setLevel": { request in try self.log.setLevel(request) },
            "ping": { _ in .object([]) },
            "tools/list": { _ in .object([("tools", .array(self.catalog.tools(for: self.agreed, clientAsks: self.clientElicits)))]) },
            "tools/call": { request in try await self.call(request) },
            "resources/list": { _ in .object([("resources", .array(self.resources()))]) },
            "resources/templates/list": { _ in .object([("resourceTemplates", .array(self.resourceTemplates()))]) },
            "resources/read": { request in try self.read(request) },
            "resources/subscribe": { request in try self.subscribe(request, true) },
            "resources/unsubscribe": { request in try self.subscribe(request, false) },
        ]
    }

    // MARK: Lifecycle

    /// Why a batch is refused: MCP 2025-06-18 removed JSON-RPC batches, which 2025-03-26 had
    /// added; before `initialize` the latest version's rule holds. Nil where batches are taken.
    public var batchRefusal: @Sendable () -> String? {
        { [version] in
            let agreed = version.value.withLock { $0 }
            return agreed >= .v2025_06_18
                ? "MCP \(agreed.rawValue) has no batches (2025-06-18 removed them): send each message as a line of its own" : nil
        }
    }

    /// The handshake, once: `protocolVersion` is required (MCP's lifecycle), and a second
    /// `initialize` is refused rather than allowed to change the protocol mid-session.
    func initialize(_ request: RPCRequest) throws -> JSONValue {
        guard let asked = request.params?["protocolVersion"]?.stringValue else {
            throw RPCError.invalidParams(
                "'protocolVersion' is required: the MCP version the client speaks, such as \(MCPVersion.latest.rawValue)")
        }
        let first = version.initialized.withLock { initialized in
            defer { initialized = true }
            return !initialized
        }
        guard first else {
            throw RPCError.invalidRequest(
                "the session is initialized already (MCP \(agreed.rawValue)); a second 'initialize' cannot change the protocol mid-session")
        }
        let agreed = MCPVersion.negotiated(asked)
        version.value.withLock { $0 = agreed }
        // What the resource list holds now: later changes are announced against it.
        announceChanges(to: nil)
        // An empty object declares form elicitation; 2025-11-25 added `form` and `url` inside
        // it, and a client with `url` alone cannot show a form.
        if agreed >= .v2025_06_18, case .object(let modes)? = request.params?["capabilities"]?["elicitation"],
            modes.isEmpty || modes.contains(where: { $0.key == "form" })
        {
            version.clientElicits.withLock { $0 = true }
        }
        var serverInfo: [(key: String, value: JSONValue)] = [("name", .string("unitool")), ("version", .string(UniToolVersion.current))]
        if agreed >= .v2025_06_18 { serverInfo.append(("title", .string("unitool: \(portal.name)"))) }
        var instructions =
            "Tools read the user's university portal (\(portal.name)) as \(user) through the session they saved with unitool. Tools marked destructive change something on the portal: ask the user first. An action that asks first (its schema has 'confirm') sends nothing on your word alone: the server asks the user itself when the client supports elicitation, and otherwise answers with what it would send; call it again with confirm: true only once the user agreed. A tool that answers [declined] sent nothing. If a tool says a login or the terms of use need the user, tell them the command it names; never ask the user for their password."
        if !warnings.isEmpty { instructions += " Note: " + warnings.joined(separator: " ") }
        return .object([
            ("protocolVersion", .string(agreed.rawValue)),
            (
                "capabilities",
                .object([
                    ("tools", .object([("listChanged", .bool(false))])),
                    ("logging", .object([])),
                    ("resources", .object([("subscribe", .bool(true)), ("listChanged", .bool(true))])),
                ])
            ),
            ("serverInfo", .object(serverInfo)),
            ("instructions", .string(instructions)),
        ])
    }

    // MARK: Tools

    func call(_ request: RPCRequest) async throws -> JSONValue {
        guard let name = request.params?["name"]?.stringValue else {
            throw RPCError.invalidParams("'name' must name a tool (tools/list lists them)")
        }
        guard let call = catalog.call(named: name) else {
            throw RPCError.invalidParams("there is no tool '\(name)'; tools/list names them")
        }
        // `arguments` is an object or absent: anything else is a malformed call, refused before
        // the tool runs. Read as "no arguments", `["x"]` once ran loans_renew-all and renewed
        // three loans.
        let arguments = request.params?["arguments"]
        switch arguments {
        case nil, .null?, .object?: break
        case let other?:
            throw RPCError.invalidParams(
                "'arguments' must be an object of the tool's named arguments, not \(other.typeName); nothing was run")
        }
        do {
            let interaction = MCPInteraction(
                report: request.progress, elicitation: clientElicits ? request.client : nil,
                log: { level, message in self.log.send(level, message, to: request.client) })
            let answer = try await perform(call, named: name, arguments: arguments, interaction: interaction)
            // A command's run is kept in the history: a resource may have appeared or changed.
            switch call {
            case .run, .today: announceChanges(to: request.client)
            default: break
            }
            return answer
        } catch let problem as ArgumentProblem {
            return toolError(problem.message + "; " + (problem.hint ?? "the tool's inputSchema says what it takes"))
        } catch let error as UniToolError {
            // A failure that the client's cancel caused is no answer: MCP answers a cancelled
            // call with silence, unless the call had already sent what cannot be taken back.
            if PointOfNoReturn.cancelledBeforeIt { throw CancellationError() }
            return toolError(Self.explanation(of: error, portal: portal.id, user: user))
        }
    }

    func perform(_ call: MCPToolCatalog.Call, named name: String, arguments: JSONValue?, interaction: MCPInteraction) async throws
        -> JSONValue
    {
        let service = host.service(portal: portal, user: user)
        switch call {
        case .run(let recipe):
            let request = try MCPToolCatalog.request(arguments, for: recipe)
            interaction.progress("reading \(recipe.command) from \(portal.name)")
            return result(
                try await host.service(portal: portal, user: user, for: recipe).execute(request, of: recipe, interaction: interaction)
                    .records)
        case .perform(let recipe, let action):
            // A client that can ask the user gets no `confirm`: the server always asks through it.
            let given = try MCPToolCatalog.checked(
                arguments, against: MCPToolCatalog.schema(for: action, of: recipe, offeringConfirm: !interaction.canElicit))
            // The tool's flat arguments as the one action request: the argument under its own
            // name (`barcode`), the named values beside it.
            let request = try ActionRequest(
                recipe: recipe, action: action.name, argument: action.takesArgument ? given[action.argument] : nil,
                parameters: action.parameters.compactMap { parameter in given[parameter.name].map { (parameter.name, $0) } },
                naming: .mcp)
            let (argument, parameters) = (request.argument, request.parameters)
            // An action that asks first is sent only with `confirm: true`, which the host gives
            // after asking its person, or once the user accepts the server's own question. Any
            // other action's tool is marked destructive, and the host asks before calling it.
            let confirmedInCall = given["confirm"] == .bool(true)
            var listed: RecordSet?
            if action.preview != nil, !confirmedInCall {
                let preview = try await service.preview(request, of: recipe, interaction: interaction)
                if preview.records.isEmpty {
                    return result(preview, note: "Nothing to \(action.name): nothing was sent.")
                }
                listed = preview
            }
            var asking = interaction
            asking.confirmation = MCPConfirmation(
                tool: name, portal: portal.name, action: action, argument: argument, parameters: parameters, listed: listed)
            return result(
                try await service.perform(request, of: recipe, confirmed: confirmedInCall, listed: listed, interaction: asking))
        case .today:
            let given = try MCPToolCatalog.checked(arguments, against: MCPToolCatalog.todaySchema)
            let refresh = given["refresh"] == .bool(true)
            let day = DayService(portal: portal, user: user, recipes: recipes, history: host.history, now: try FixedClock.now())
            try day.requireToday()
            let live = day.todayNeedsPortal(refresh: refresh) ? host.liveRuns(portal: portal, user: user, interaction: interaction) : nil
            let report = await day.today(live: live?.run, checkTerms: live?.checkTerms, refresh: refresh)
            let text = day.json(report)
            return result(text: text, structured: try? JSONParser.parse(text))
        case .search:
            let given = try MCPToolCatalog.checked(arguments, against: MCPToolCatalog.searchSchema)
            guard case .string(let query)? = given["query"], !query.isEmpty else {
                throw ArgumentProblem(path: "query", message: "'query' is empty: give one or more words")
            }
            var limit = Search.defaultLimit
            if case .integer(let number)? = given["limit"] { limit = number }
            let items = try Search.items(catalog: host.catalog, portal: portal.id, user: user, history: host.history)
            return result(Search.recordSet(Search.search(query, in: items, limit: limit)))
        case .history:
            let given = try MCPToolCatalog.checked(arguments, against: catalog.historySchema)
            guard case .string(let name)? = given["command"], let recipe = recipes.first(where: { $0.command == name }) else {
                throw ArgumentProblem(
                    path: "command", message: "'command' must be one of: \(recipes.map(\.command).joined(separator: ", "))")
            }
            guard let history = host.history else {
                throw UniToolError(.stateCorrupt, "the history cannot be opened", hint: "run unitool with -v to see why")
            }
            var since = HistoryReport.defaultSince
            if case .string(let text)? = given["since"] { since = text }
            let start: Date
            do {
                start = try HistoryReport.start(of: since)
            } catch let error as UniToolError {
                throw ArgumentProblem(path: "since", message: "'since': \(error.message)")
            }
            return result(
                try HistoryReport.changes(in: history, recipe: recipe, portal: portal.id, user: recipe.historyUser(user), since: start))
        }
    }

    /// Records as the tool's answer: JSON text for the model and, from 2025-06-18, the same as
    /// structured content.
    func result(_ records: RecordSet, note: String? = nil) -> JSONValue {
        let structured = JSONValue.object([
            ("columns", .array(records.columns.map(JSONValue.string))), ("records", .array(records.records.map(JSONValue.init))),
        ])
        return result(text: (note.map { $0 + " " } ?? "") + structured.serialized, structured: structured)
    }

    func result(text: String, structured: JSONValue?) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("content", .array([.object([("type", .string("text")), ("text", .string(text))])]))
        ]
        if agreed >= .v2025_06_18, let structured { members.append(("structuredContent", structured)) }
        members.append(("isError", .bool(false)))
        return .object(members)
    }

    /// A tool's failure, as the model reads it.
    func toolError(_ text: String) -> JSONValue {
        .object([("content", .array([.object([("type", .string("text")), ("text", .string(text))])])), ("isError", .bool(true))])
    }

    /// unitool's error as a sentence for the model: its message, its hint, and for what needs
    /// the user (a login, the terms), the command to run in a terminal.
    static func explanation(of error: UniToolError, portal: String, user: String) -> String {
        var hint = error.hint
        switch error.kind {
        case .credentialsMissing, .wrongCredentials, .mfaRequired, .wrongCode, .loginFailed, .consentRequired, .keyringUnavailable,
            .keyringLocked, .keyringNoService, .keyringPromptCancelled, .keyringFailed:
            hint =
                "the user must log in in a terminal of their desktop session: unitool --portal \(portal) auth login --user \(user); this server never asks for a password"
        case .loginInBrowserNeeded:
            hint =
                "the user must sign in in a browser from a terminal of their desktop session: unitool --portal \(portal) auth login --browser --user \(user)"
        case .termsNotAccepted, .termsVersionStale:
            hint =
                "the user must read and accept the terms in a terminal: unitool --portal \(portal) terms show, then unitool --portal \(portal) terms accept"
        case .portalUnreachable, .portalTimeout:
            hint = "the portal could not be reached; try again later (the 'history' and 'search' tools answer from what was kept)"
        default: break
        }
        return "\(error.message) [\(error.kind.rawValue)]" + (hint.map { ". What to do: \($0)" } ?? "")
    }

    // MARK: Resources

    /// The newest kept answer of each command (whatever options it was asked with): what
    /// `resources/list` offers and `resources/read` gives back, from one query, so that a listed
    /// resource can always be read.
    func lastAnswers() -> [String: HistoryStore.Run] {
        let answers = (try? host.history?.latestAnswers(portal: portal.id, users: [user, ""])) ?? []
        var newest: [String: HistoryStore.Run] = [:]
        for answer in answers where newest[answer.recipe].map({ answer.run.ranAt > $0.ranAt }) ?? true {
            newest[answer.recipe] = answer.run
        }
        return newest
    }

    func resources() -> [JSONValue] {
        func resource(_ uri: String, name: String, title: String, description: String, mimeType: String) -> JSONValue {
            var members: [(key: String, value: JSONValue)] = [("uri", .string(uri)), ("name", .string(name))]
            if agreed >= .v2025_06_18 { members.append(("title", .string(title))) }
            members += [("description", .string(description)), ("mimeType", .string(mimeType))]
            return .object(members)
        }
        var resources = [
            resource(
                "unitool://\(portal.id)/terms", name: "terms", title: "Terms of use",
                description: "The version of the portal's terms of use the user accepted, if any", mimeType: "application/json")
        ]
        let answers = lastAnswers()
        for recipe in recipes {
            if let run = answers[recipe.command] {
                resources.append(
                    resource(
                        "unitool://\(portal.id)/records/\(recipe.command)", name: "\(recipe.command) (last answer)",
                        title: "\(recipe.summary): the last answer",
                        description: "As of \(HistoryStore.age(of: run.ranAt)) (\(HistoryStore.iso8601(run.ranAt))), from the history",
                        mimeType: "application/json"))
            }
            resources.append(
                resource(
                    "unitool://\(portal.id)/recipes/\(recipe.command)", name: "\(recipe.command) (recipe)",
                    title: "How '\(recipe.command)' reads the portal", description: recipe.summary, mimeType: "application/yaml"))
        }
        return resources
    }

    /// Tells the client what changed in the kept answers since it was last told: a command with
    /// its first answer changes the list (`notifications/resources/list_changed`); a newer answer
    /// of a resource the client subscribed to is `notifications/resources/updated`. With no
    /// client (at `initialize`), only notes what there is.
    ///
    /// After a tool call only the runs kept since the last look are read (`thorough: false`):
    /// that look must not cost more as the history grows. The timer's look (`followHistory`)
    /// reads the whole history, so that a command whose runs were all forgotten (retention,
    /// `history` clearing) leaves the list too.
    func announceChanges(to client: RPCClientLink?, thorough: Bool = false) {
        // Read and swapped under one lock: a look at the history that started before a tool
        // call's may not store an older picture after it.
        let (previous, now) = resourceWatch.announced.withLock { announced -> ([String: Date]?, [String: Date]) in
            guard let history = host.history else { return (announced?.ranAt, [:]) }
            let users = [user, ""]
            var now: HistoryStore.NewestRuns?
            if !thorough, let known = announced,
                let new = try? history.newestRuns(portal: portal.id, users: users, after: known.lastRunID)
            {
                now = HistoryStore.NewestRuns(ranAt: known.ranAt.merging(new.ranAt, uniquingKeysWith: max), lastRunID: new.lastRunID)
            } else {
                now = try? history.newestRuns(portal: portal.id, users: users)
            }
            let previous = announced?.ranAt
            if let now { announced = now }
            return (previous, now?.ranAt ?? previous ?? [:])
        }
        guard let client, let previous else { return }
        if Set(previous.keys) != Set(now.keys) { client.notify("notifications/resources/list_changed", params: .object([])) }
        let subscribed = resourceWatch.subscribed.withLock { $0 }
        for (command, ranAt) in now.sorted(by: { $0.key < $1.key }) where previous[command] != ranAt {
            let uri = "unitool://\(portal.id)/records/\(command)"
            if subscribed.contains(uri) { client.notify("notifications/resources/updated", params: .object([("uri", .string(uri))])) }
        }
    }

    /// How often the history is looked at for answers kept by another process (a `unitool watch`
    /// timer, the command line).
    public static let historyCheckInterval: Duration = .seconds(15)

    /// Runs beside the requests for as long as the server serves: answers that another unitool
    /// process keeps (a watch) are announced as a tool call's are.
    public func followHistory(client: RPCClientLink, every interval: Duration = historyCheckInterval) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            guard version.initialized.withLock({ $0 }) else { continue }
            announceChanges(to: client, thorough: true)
        }
    }

    /// `resources/subscribe` and `resources/unsubscribe`: a resource this server lists or can list.
    func subscribe(_ request: RPCRequest, _ subscribing: Bool) throws -> JSONValue {
        guard let uri = request.params?["uri"]?.stringValue else { throw RPCError.invalidParams("'uri' must be a string") }
        guard resource(at: uri) != nil else { throw Self.notFound(uri) }
        resourceWatch.subscribed.withLock { subscribed in
            if subscribing { subscribed.insert(uri) } else { subscribed.remove(uri) }
        }
        return .object([])
    }

    func resourceTemplates() -> [JSONValue] {
        [
            .object([
                ("uriTemplate", .string("unitool://\(portal.id)/records/{command}")), ("name", .string("last answer")),
                ("description", .string("The last answer unitool kept of a command (resources/list names those it has)")),
                ("mimeType", .string("application/json")),
            ]),
            .object([
                ("uriTemplate", .string("unitool://\(portal.id)/recipes/{command}")), ("name", .string("recipe")),
                ("description", .string("How a command reads the portal: its recipe")), ("mimeType", .string("application/yaml")),
            ]),
        ]
    }

    /// MCP's "resource not found" (-32002), with the address in `data`.
    static func notFound(_ uri: String) -> RPCError {
        RPCError(code: -32002, message: "Resource not found: \(uri)", data: .object([("uri", .string(uri))]))
    }

    /// What a resource address of this server names: `unitool://<portal>/terms`, or a command's
    /// `records/<command>` or `recipes/<command>`; nil for anything else. What `resources/read`
    /// and `resources/subscribe` both take.
    enum Resource {
        case terms
        case records(DataRecipe)
        case recipe(DataRecipe)
    }

    func resource(at uri: String) -> Resource? {
        let prefix = "unitool://\(portal.id)/"
        guard uri.hasPrefix(prefix) else { return nil }
        let path = String(uri.dropFirst(prefix.count))
        if path == "terms" { return .terms }
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let recipe = recipes.first(where: { $0.command == parts[1] }) else { return nil }
        switch parts[0] {
        case "records": return .records(recipe)
        case "recipes": return .recipe(recipe)
        default: return nil
        }
    }

    func read(_ request: RPCRequest) throws -> JSONValue {
        guard let uri = request.params?["uri"]?.stringValue else { throw RPCError.invalidParams("'uri' must be a string") }
        func contents(_ text: String, mimeType: String) -> JSONValue {
            .object([("contents", .array([.object([("uri", .string(uri)), ("mimeType", .string(mimeType)), ("text", .string(text))])]))])
        }
        switch resource(at: uri) {
        case .terms?:
            let accepted = (try? host.acceptedTerms.load(portal: portal.id)) ?? nil
            let text =
                "{\"portal\": \(JSONString.quoted(portal.id)), \"accepted\": \(accepted.map { JSONString.quoted($0.version) } ?? "null"), \"check\": \(JSONString.quoted("unitool --portal \(portal.id) terms status"))}"
            return contents(text, mimeType: "application/json")
        case .records(let recipe)?:
            guard let run = lastAnswers()[recipe.command],
                let records = try? HistoryCodec.records(run.recordsJSON, columns: run.columns, fields: recipe.primary.fields)
            else { throw Self.notFound(uri) }
            let text =
                "{\"as_of\": \(JSONString.quoted(HistoryStore.iso8601(run.ranAt))), \"records\": \(JSONRenderer.array(records).trimmingWhitespaceAndNewlines())}"
            return contents(text, mimeType: "application/json")
        case .recipe(let recipe)?:
            let text = (try? String(contentsOfFile: recipe.file, encoding: .utf8)) ?? recipe.summary
            return contents(text, mimeType: "application/yaml")
        case nil:
            throw Self.notFound(uri)
        }
    }
}

/// MCP's answers to what the service asks on the way (`Interaction`). A tool call never prompts:
/// stdin is the protocol. Progress goes out as `notifications/progress` when the call asked for it;
/// terms not yet accepted are refused with the CLI's hint, which the assistant passes on (the
/// server's instructions say so). An action that asks first is put to the user through the
/// client's elicitation when it has it (`MCPConfirmation`), and refused, saying what it would
/// send, when it has not; any other action is confirmed by the call, since its tool is marked
/// destructive and the host asks before calling one.
struct MCPInteraction: Interaction {
    let report: (@Sendable (String) -> Void)?
    /// The client, when it declared elicitation: the server may ask the user through it.
    let elicitation: RPCClientLink?
    var canElicit: Bool { elicitation != nil }
    /// `notifications/message`, at the client's level: what the command line shows on stderr.
    let log: @Sendable (MCPLog.Level, String) -> Void
    /// The question for the action this call performs, if it performs one.
    var confirmation: MCPConfirmation?

    init(
        report: (@Sendable (String) -> Void)?, elicitation: RPCClientLink?,
        log: @escaping @Sendable (MCPLog.Level, String) -> Void = { _, _ in }
    ) {
        self.report = report
        self.elicitation = elicitation
        self.log = log
    }

    /// The status line's words: progress for the call that asked for it, and the log at `info`.
    func progress(_ message: String) {
        report?(message)
        log(.info, message)
    }

    /// A wait the person should hear about ("waiting 12 s for the next one-time code").
    func explainWait(_ message: String) {
        report?(message)
        log(.notice, message)
    }

    /// Something done on the user's behalf that they should know of after the call.
    func tell(_ message: String) {
        report?(message)
        log(.notice, message)
    }

    func confirm(_ action: ActionSpec, argument: String, parameters: [String: String], on portal: PortalRecipe) async throws -> Bool {
        guard action.asks else { return true }
        guard let confirmation else { return false }
        guard let elicitation else {
            throw confirmation.unasked(because: "this client cannot ask the user for the server (no elicitation)")
        }
        let answer: JSONValue
        do {
            answer = try await elicitation.request("elicitation/create", params: confirmation.request)
        } catch let failure as RPCClientLink.Failure {
            switch failure {
            case .answered(let code, let message):
                throw confirmation.unasked(because: "the client could not ask the user (its answer: \(message) [\(code)])")
            case .clientGone:
                throw confirmation.unasked(because: "the client went away before the user answered")
            }
        }
        return try confirmation.decision(answer)
    }
}
