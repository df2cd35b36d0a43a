import Foundation
import UniToolKit

/// What the JSON-RPC methods need from the program that hosts them: the recipes, and one shared
/// connection per portal and user (the CLI starts the demo university behind it when needed).
public protocol RPCHost: Sendable {
    var catalog: RecipeCatalog { get }
    /// The portal to use when a call names none: the only real portal, or the demo.
    func defaultPortal() throws -> String
    /// The user to log in as when a call names none.
    func defaultUser(for portal: PortalRecipe) throws -> String
    /// The connection for this portal and user, made once and shared by every request, so that
    /// concurrent requests log in once.
    func connection(portal: PortalRecipe, user: String) async throws -> PortalConnection
    /// A connection that does not use or keep the shared session, for checking a password.
    func freshConnection(portal: PortalRecipe, user: String, password: Secret) async throws -> PortalConnection
    /// Remembers a password for this server's later logins (from `auth.login` with `remember: false`).
    func usePassword(_ password: Secret, portal: String, user: String)
    /// Closes and forgets the shared connection, as after a logout.
    func dropConnection(portal: String, user: String) async
    /// The connection of a public command (`login: false`): no user, no saved session, its terms
    /// read through the saved session of `namedUser` (`Workspace.publicConnection`). Shared.
    func publicConnection(portal: PortalRecipe, namedUser: String?) async throws -> PortalConnection
    /// The composition root the connections are made from: the stores, the history, the HTTP
    /// settings (`Workspace`).
    var workspace: Workspace { get }
}

extension RPCHost {
    /// How the day's views (`today`, `calendar`) run recipes on the portal: through the shared
    /// connection, its session saved after each run, and its terms gate, asked first.
    public func liveRuns(portal: PortalRecipe, user: String, interaction: any Interaction) -> (
        run: LiveRecipeRun, checkTerms: @Sendable () async throws -> Void
    ) {
        let service = service(portal: portal, user: user)
        return (
            { recipe, options in
                interaction.progress("running \(recipe.command)")
                return try await service.run(recipe, options: options, interaction: interaction)
            },
            { try await service.session(interaction: interaction) { try await $0.ensureTermsAccepted() } }
        )
    }

    /// The portal service every method calls: the shared connection, made when a call needs the
    /// portal, and the host's history.
    public func service(portal: PortalRecipe, user: String) -> PortalService {
        PortalService(portal: portal, user: user, history: history) { try await connection(portal: portal, user: user) }
    }

    /// The service a call of `recipe` runs on: for a public command (`login: false`) the public
    /// connection, whoever the user is, as on the command line; otherwise `service(portal:user:)`.
    public func service(portal: PortalRecipe, user: String, for recipe: DataRecipe) -> PortalService {
        guard !recipe.login else { return service(portal: portal, user: user) }
        return PortalService(portal: portal, user: "", history: history) {
            try await publicConnection(portal: portal, namedUser: user.isEmpty ? nil : user)
        }
    }

    /// The history of recipe runs, for `history.query` and `recipes.run` with `offline`.
    public var history: HistoryStore? { workspace.history }

    /// The versions of the terms the user accepted.
    public var acceptedTerms: AcceptedTermsStore { workspace.acceptedTerms }

    /// The user's account on a portal (`Account`): the keyring, and the workspace's sessions.
    public func account(portal: PortalRecipe, user: String) -> Account { workspace.account(portal, user: user) }
}

/// Every method of `unitool rpc`, documented in docs/RPC.md.
public struct RPCMethods: Sendable {
    public let host: any RPCHost
    public let serverVersion: String
    /// Methods this server does not offer.
    public let excluded: Set<String>
    /// The limits the server enforces, which `initialize` reports: the host passes what its flags set.
    public let limits: RPCLimits

    public init(
        host: any RPCHost, serverVersion: String = UniToolVersion.current, excluding excluded: Set<String> = [],
        limits: RPCLimits = RPCLimits()
    ) {
        self.host = host
        self.serverVersion = serverVersion
        self.excluded = excluded
        self.limits = limits
    }

    /// What a plugin's channel (fd 3) leaves out: a plugin works with the user's session, but
    /// never handles the password or accepts the terms of use on the user's behalf.
    public static let withheldFromPlugins: Set<String> = ["auth.login", "terms.accept"]

    public static let names = [
        "initialize", "portals.list", "auth.status", "auth.login", "auth.logout", "terms.status", "terms.accept", "recipes.list",
        "recipes.describe", "recipes.run", "recipes.perform", "session.fetch", "history.query", "search", "today", "calendar", "shutdown",
        "exit",
    ]

    /// Each method's parameters, described once: the check `Params` runs before the method does
    /// anything (an unknown parameter, a wrong type, a missing required one is -32602 naming it)
    /// and the schema `initialize` publishes. What depends on a recipe (its options, its action's
    /// values) is checked after, against the recipe, with the same error.
    public static let schemas: [String: ArgumentSchema] = {
        let portal = ArgumentSchema.Property("portal", .string, description: "The portal's id; the default portal when left out")
        let user = ArgumentSchema.Property("user", .string, description: "The user to act as; the portal's default user when left out")
        let recipe = ArgumentSchema.Property("recipe", .string, description: "The command, as recipes.list names it")
        let offline = ArgumentSchema.Property("offline", .boolean, description: "Answer from the history; nothing is asked of the portal")
        var schemas: [String: ArgumentSchema] = [
            "initialize": ArgumentSchema(properties: [
                .init("clientInfo", .object), .init("capabilities", .object), .init("locale", .string),
            ]),
            "portals.list": ArgumentSchema(properties: []),
            "auth.status": ArgumentSchema(properties: [portal, user]),
            "auth.login": ArgumentSchema(properties: [
                portal, user, .init("password", .string, description: "Used for this login; stored in the keyring with remember"),
                .init("remember", .boolean, defaultValue: "true"),
            ]),
            "auth.logout": ArgumentSchema(properties: [portal, user, .init("forgetPassword", .boolean, defaultValue: "true")]),
            "terms.status": ArgumentSchema(properties: [portal, user]),
            "terms.accept": ArgumentSchema(properties: [
                portal, user, .init("version", .string, description: "The version the user was shown; the current one when left out"),
            ]),
            "recipes.list": ArgumentSchema(properties: [portal]),
            "recipes.describe": ArgumentSchema(properties: [portal, recipe], required: ["recipe"]),
            "recipes.run": ArgumentSchema(
                properties: [
                    portal, user, recipe,
                    .init("options", .object, description: "The recipe's options, as recipes.describe's optionsSchema"),
                    .init("source", .string), .init("summary", .boolean), .init("fields", .strings), .init("sort", .strings), offline,
                ], required: ["recipe"]),
            "recipes.perform": ArgumentSchema(
                properties: [
                    portal, user, recipe, .init("action", .string), .init("argument", .string),
                    .init("parameters", .object, description: "The action's named values, each a string"),
                    .init("confirm", .boolean, description: "true once the person agreed, for an action that asks first"),
                ], required: ["recipe", "action"]),
            "session.fetch": ArgumentSchema(properties: [portal, user, .init("url", .string)], required: ["url"]),
            "history.query": ArgumentSchema(
                properties: [portal, user, recipe, .historySince],
                required: ["recipe"]),
            "search": ArgumentSchema(
                properties: [portal, user, .init("query", .string), .searchLimit], required: ["query"]),
            "today": ArgumentSchema(properties: [
                portal, user, offline, .init("refresh", .boolean), .init("mark_seen", .boolean, defaultValue: "false"),
            ]),
            "calendar": ArgumentSchema(properties: [portal, user, offline, .init("include", .strings)]),
            "shutdown": ArgumentSchema(properties: []),
        ]
        // Every request may ask for progress (docs/RPC.md).
        for name in schemas.keys {
            schemas[name]?.properties.append(.init(Params.progressToken, .stringOrNumber, description: "Asks for $/progress"))
        }
        return schemas
    }()

    public var table: [String: RPCMethod] {
        [
            "initialize": initialize, "portals.list": portalsList, "auth.status": authStatus, "auth.login": authLogin,
            "auth.logout": authLogout, "terms.status": termsStatus, "terms.accept": termsAccept, "recipes.list": recipesList,
            "recipes.describe": recipesDescribe, "recipes.run": recipesRun, "recipes.perform": recipesPerform,
            "session.fetch": sessionFetch, "history.query": historyQuery, "search": search,
            "today": today, "calendar": calendar,
        ].filter { !excluded.contains($0.key) }
    }

    // MARK: Methods

    func initialize(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        // Checked although unused, so that a client's mistake shows at once, not later.
        _ = try params.object("clientInfo")
        _ = try params.object("capabilities")
        var capabilities: [(key: String, value: JSONValue)] = [
            ("methods", .array(Self.names.filter { !excluded.contains($0) }.map(JSONValue.string))), ("batches", .bool(true)),
            ("cancellation", .bool(true)), ("progress", .bool(true)),
        ]
        // The limits in force, so that a client can stay within them instead of finding them by failing.
        capabilities += limits.capabilities
        // Each method's parameters as JSON Schema: the check every call goes through.
        capabilities.append(
            (
                "params",
                .object(
                    Self.names.filter { !excluded.contains($0) }.compactMap { name in
                        Self.schemas[name].map { (name, JSONValue($0.json)) }
                    })
            ))
        return .object([
            ("serverInfo", .object([("name", .string("unitool")), ("version", .string(serverVersion))])),
            ("protocolVersion", .string("1")),
            ("capabilities", .object(capabilities)),
            ("portals", try portalList()),
        ])
    }

    func portalsList(_ request: RPCRequest) async throws -> JSONValue {
        _ = try Params(request, checking: Self.schemas)
        return try portalList()
    }

    private func portalList() throws -> JSONValue {
        .array(
            host.catalog.portals.values.sorted { $0.id < $1.id }.map { portal in
                .object([
                    ("id", .string(portal.id)), ("name", .string(portal.name)), ("demo", .bool(portal.isDemo)),
                    ("commands", .array((host.catalog.dataRecipes[portal.id] ?? [:]).keys.sorted().map(JSONValue.string))),
                ])
            })
    }

    func authStatus(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        let account = host.account(portal: portal, user: user)
        var session = "none"
        if account.hasSavedSession {
            request.progress?("checking the saved session with \(portal.name)")
            let valid = try await host.service(portal: portal, user: user).session(interaction: request.interaction) {
                try await $0.isSessionValid()
            }
            session = valid ? "valid" : "expired"
        }
        return .object([
            ("portal", .string(portal.id)), ("user", .string(user)), ("password", .string(account.password.description)),
            ("totp", .string(account.oneTimeCodeSecret.description)), ("session", .string(session)),
        ])
    }

    func authLogin(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        let account = host.account(portal: portal, user: user)
        let remember = try params.bool("remember") ?? true
        let given = try params.string("password").map { Secret($0) }
        // The one credential policy (given, then the keyring), so that a missing password reads
        // the same here as from the command line.
        let password = try account.credentials(
            given: given, givenAs: .given("the password passed to auth.login"), oneTimeCode: nil,
            missingHint: "pass 'password' in the params"
        ).password()
        request.progress?("logging in to \(portal.name) as \(user)")
        let connection = try await host.freshConnection(portal: portal, user: user, password: password)
        // The session is saved only once the login finished (the connection started empty).
        let result = await Result {
            try await PortalService(connection: connection).session(interaction: request.interaction) { try await $0.provePassword() }
        }
        await connection.close()
        try result.get()
        var stored = false
        if given != nil {
            if remember {
                try account.storePassword(password)
                stored = true
            } else {
                host.usePassword(password, portal: portal.id, user: user)
            }
        }
        // The shared connection reloads the new session on its next use.
        await host.dropConnection(portal: portal.id, user: user)
        return .object([
            ("portal", .string(portal.id)), ("user", .string(user)), ("loggedIn", .bool(true)), ("passwordStored", .bool(stored)),
        ])
    }

    /// The same logout as the CLI's (`Account.logOut`): the session, and unless
    /// `forgetPassword` is false, the password and the TOTP secret.
    func authLogout(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        await host.dropConnection(portal: portal.id, user: user)
        let removed = try host.account(portal: portal, user: user).logOut(keepingSecrets: !(try params.bool("forgetPassword") ?? true))
        return .object([
            ("portal", .string(portal.id)), ("user", .string(user)), ("sessionRemoved", .bool(removed.session)),
            ("passwordRemoved", .bool(removed.password)), ("totpRemoved", .bool(removed.oneTimeCodeSecret)),
        ])
    }

    func termsStatus(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        request.progress?("asking \(portal.name) for its terms of use")
        let status = try await host.service(portal: portal, user: user).session(interaction: request.interaction) {
            try await $0.termsStatus(host.acceptedTerms)
        }
        return .object([
            ("portal", .string(portal.id)), ("current", status.current.map { .string($0.version) } ?? .null),
            ("url", status.current?.url.map { .string($0.absoluteString) } ?? .null),
            ("accepted", status.accepted.map { .string($0.version) } ?? .null), ("upToDate", .bool(status.isUpToDate)),
        ])
    }

    func termsAccept(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        request.progress?("asking \(portal.name) for its terms of use")
        let version = try params.string("version")
        let accepted = try await host.service(portal: portal, user: user).session(interaction: request.interaction) {
            try await $0.acceptTerms(
                version: version, store: host.acceptedTerms, staleHint: { "show the current terms to the user, then accept version \($0)" })
        }
        return .object([("portal", .string(portal.id)), ("accepted", accepted.map(JSONValue.string) ?? .null)])
    }

    func recipesList(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let only = try params.string("portal")
        var items: [JSONValue] = []
        for (portal, recipes) in host.catalog.dataRecipes.sorted(by: { $0.key < $1.key }) where only == nil || only == portal {
            for recipe in recipes.values.sorted(by: { $0.command < $1.command }) {
                items.append(
                    .object([
                        ("portal", .string(portal)), ("recipe", .string(recipe.command)), ("summary", .string(recipe.summary)),
                        ("file", .string(recipe.file)),
                    ]))
            }
        }
        return .array(items)
    }

    func recipesDescribe(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let recipe = try self.recipe(params)
        return RecipeDescription.json(recipe)
    }

    func recipesRun(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let recipe = try self.recipe(params)
        // Everything the recipe can check is checked before any request, in protocol terms.
        let run = try RecipeRunParameters(params, recipe: recipe)
        // A public command (login: false) needs no user; one named still lends it a saved
        // session to read the terms through.
        let (portal, user) = recipe.login ? try portalAndUser(params) : try publicPortalAndUser(params)
        let offline = try params.bool("offline") == true
        if !offline { request.progress?("running \(recipe.command)") }
        // run() checks the terms first, and names a mistyped option value; offline, the last
        // answer from the history: no connection, no request, no password.
        let outcome: PortalService.RecipeOutcome
        do {
            outcome = try await host.service(portal: portal, user: user, for: recipe).execute(
                run.request, of: recipe, offline: offline, interaction: request.interaction)
        } catch let problem as ArgumentProblem {
            // Found only at the portal (a term it does not offer), and still the caller's argument.
            throw RPCError.invalidParams(problem.message, hint: problem.hint)
        }
        if let asOf = outcome.asOf {
            return Self.result(outcome.records, adding: [("asOf", .string(ISO8601DateFormatter().string(from: asOf)))])
        }
        request.progress?(Plural.count(outcome.records.records.count, "record"))
        return Self.result(outcome.records)
    }

    /// Records as every method returns them: `{columns, records}`, and anything `adding` names.
    static func result(_ set: RecordSet, adding extra: [(String, JSONValue)] = []) -> JSONValue {
        .object([("columns", .array(set.columns.map(JSONValue.string))), ("records", .array(set.records.map(JSONValue.init)))] + extra)
    }

    /// `unitool search` over JSON-RPC: typo-tolerant, over the history and the command names.
    func search(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        let query = try params.requiredString("query")
        // The schema bounds it (InputBounds.searchResults).
        let limit = try params.int("limit") ?? Search.defaultLimit
        let items = try Search.items(catalog: host.catalog, portal: portal.id, user: user, history: host.history)
        let hits = Search.recordSet(Search.search(query, in: items, limit: limit))
        return Self.result(hits)
    }

    /// The day's service for a call's portal and user, and the way it runs recipes: the shared
    /// connection, or none for `offline` (and for `today` when the history has every answer).
    private func day(_ params: Params, request: RPCRequest, needsPortal: (DayService) -> Bool) async throws
        -> (DayService, LiveRecipeRun?, (@Sendable () async throws -> Void)?)
    {
        let (portal, user) = try portalAndUser(params)
        let recipes = host.catalog.recipes(of: portal.id)
        let service = DayService(portal: portal, user: user, recipes: recipes, history: host.history, now: try FixedClock.now())
        guard try params.bool("offline") != true, needsPortal(service) else { return (service, nil, nil) }
        let (live, checkTerms) = host.liveRuns(portal: portal, user: user, interaction: request.interaction)
        return (service, live, checkTerms)
    }

    /// `unitool today` over JSON-RPC: the same object as `today --json`. A part that failed has
    /// its error inside; the call fails only when it cannot start.
    func today(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let refresh = try params.bool("refresh") ?? false
        let markSeen = try params.bool("mark_seen") ?? false
        let (service, live, checkTerms) = try await day(params, request: request) { $0.todayNeedsPortal(refresh: refresh) }
        try service.requireToday()
        let report = await service.today(live: live, checkTerms: checkTerms, refresh: refresh, markSeen: markSeen)
        return try JSONParser.parse(service.json(report))
    }

    /// `unitool calendar` over JSON-RPC: the iCalendar text, and the events as records.
    func calendar(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let including = try params.stringList("include") ?? []
        let (service, live, _) = try await day(params, request: request) { _ in true }
        if let name = service.unknownIncludes(including).first {
            let optional = service.askedCalendarCommands
            throw RPCError.invalidParams(
                "'include' names '\(name)', which is not a command of '\(service.portal.id)' with a calendar"
                    + (optional.isEmpty ? "" : " (included when asked: \(optional.joined(separator: ", ")))"))
        }
        let calendar = try await service.calendar(live: live, including: including)
        return Self.result(CalendarEvent.records(calendar.events), adding: [("ics", .string(calendar.text))])
    }

    /// What changed in a recipe's answers, run by run: `unitool history` over JSON-RPC.
    func historyQuery(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let recipe = try self.recipe(params)
        let (portal, user) = try portalAndUser(params)
        guard let history = host.history else {
            throw UniToolError(.stateCorrupt, "this server keeps no history", hint: "the history is kept by 'unitool rpc'")
        }
        let since: Date
        do {
            since = try HistoryReport.start(of: try params.string("since") ?? HistoryReport.defaultSince)
        } catch let error as UniToolError {
            throw RPCError.invalidParams("'since': \(error.message); \(error.hint ?? "")")
        }
        let changes = try HistoryReport.changes(
            in: history, recipe: recipe, portal: portal.id, user: recipe.historyUser(user), since: since)
        return Self.result(changes)
    }

    func recipesPerform(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let recipe = try self.recipe(params)
        let (portal, user) = try portalAndUser(params)
        // The one check of an action's call (ActionRequest), in this protocol's names. The call
        // that names the action is its confirmation, the front end having asked its person
        // first; an action that asks first (`ask: true`, a preview) needs `confirm: true` besides.
        let action: ActionRequest
        do {
            action = try ActionRequest(
                recipe: recipe, action: try params.requiredString("action"), argument: params.value("argument")?.argument,
                parameters: (try params.object("parameters") ?? []).map { ($0.key, $0.value.argument) }, naming: .rpc)
        } catch let problem as ArgumentProblem {
            throw RPCError.invalidParams(problem.message, hint: problem.hint)
        }
        let confirmed = try params.bool("confirm") ?? false
        request.progress?("performing \(action.action.name) of \(recipe.command), the terms of use checked first")
        let result = try await host.service(portal: portal, user: user).perform(
            action, of: recipe, confirmed: confirmed, interaction: request.interaction)
        return Self.result(result)
    }

    func sessionFetch(_ request: RPCRequest) async throws -> JSONValue {
        let params = try Params(request, checking: Self.schemas)
        let (portal, user) = try portalAndUser(params)
        let address = try params.requiredString("url")
        request.progress?("fetching \(address) from \(portal.name), its terms of use checked first")
        let fetched = try await host.service(portal: portal, user: user).fetch(address, interaction: request.interaction)
        let page = fetched.page
        return .object([
            ("url", .string(page.url.absoluteString)), ("status", .number(Double(page.status))),
            ("contentType", page.contentType.map(JSONValue.string) ?? .null), ("body", .string(fetched.text)),
        ])
    }

    // MARK: Helpers

    /// `portalAndUser` for a public command: the user when one is named or can be chosen, else "".
    private func publicPortalAndUser(_ params: Params) throws -> (PortalRecipe, String) {
        let portal = try host.catalog.portal(try params.string("portal") ?? host.defaultPortal())
        return (portal, try params.string("user") ?? (try? host.defaultUser(for: portal)) ?? "")
    }

    private func portalAndUser(_ params: Params) throws -> (PortalRecipe, String) {
        let portal = try host.catalog.portal(try params.string("portal") ?? host.defaultPortal())
        return (portal, try params.string("user") ?? host.defaultUser(for: portal))
    }

    private func recipe(_ params: Params) throws -> DataRecipe {
        let portal = try params.string("portal") ?? host.defaultPortal()
        return try host.catalog.recipe(portal: portal, command: try params.requiredString("recipe"))
    }
}

/// Named parameters with type checks that answer -32602 with what was wrong.
struct Params {
    let members: [(key: String, value: JSONValue)]

    init(_ request: RPCRequest) throws {
        switch request.params {
        case nil: members = []
        case .object(let members)?: self.members = members
        case let other?: throw RPCError.invalidParams("'\(request.method)' takes named parameters (an object), not \(other.typeName)")
        }
    }

    /// The request's params, checked against its method's schema before the method reads them:
    /// the one place a JSON-RPC parameter is refused for its name, type or absence (-32602).
    init(_ request: RPCRequest, checking schemas: [String: ArgumentSchema]) throws {
        try self.init(request)
        guard let schema = schemas[request.method] else { return }
        do {
            _ = try schema.check(members.map { ($0.key, $0.value.argument) }, path: { $0 })
        } catch {
            throw RPCError.invalidParams(error.message, hint: error.hint)
        }
    }

    static let progressToken = "progressToken"

    func object(_ name: String) throws -> [(key: String, value: JSONValue)]? {
        guard let value = value(name) else { return nil }
        guard case .object(let members) = value else { throw RPCError.invalidParams("'\(name)' must be an object, not \(value.typeName)") }
        return members
    }

    func value(_ name: String) -> JSONValue? {
        guard let value = members.last(where: { $0.key == name })?.value, value != .null else { return nil }
        return value
    }

    func string(_ name: String) throws -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let text) = value else { throw RPCError.invalidParams("'\(name)' must be a string, not \(value.typeName)") }
        return text
    }

    func requiredString(_ name: String) throws -> String {
        guard let text = try string(name), !text.isEmpty else { throw RPCError.invalidParams("'\(name)' is required") }
        return text
    }

    func bool(_ name: String) throws -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw RPCError.invalidParams("'\(name)' must be true or false, not \(value.typeName)") }
        return flag
    }

    func int(_ name: String) throws -> Int? {
        guard let value = value(name) else { return nil }
        guard let number = value.doubleValue, number.rounded() == number, abs(number) < 1e9 else {
            throw RPCError.invalidParams("'\(name)' must be a whole number, not \(value.typeName)")
        }
        return Int(number)
    }

    func stringList(_ name: String) throws -> [String]? {
        guard let value = value(name) else { return nil }
        guard case .array(let items) = value else {
            throw RPCError.invalidParams("'\(name)' must be an array of strings, not \(value.typeName)")
        }
        return try items.map { item in
            guard case .string(let text) = item else { throw RPCError.invalidParams("'\(name)' must hold strings, not \(item.typeName)") }
            return text
        }
    }

}

/// A recipe as `recipes.describe` shows it: enough for a front end to build a form.
enum RecipeDescription {
    static func json(_ recipe: DataRecipe) -> JSONValue {
        func fields(_ specs: [FieldSpec]) -> JSONValue {
            .array(
                specs.map { field in
                    var members: [(key: String, value: JSONValue)] = [
                        ("name", .string(field.name)), ("type", .string(field.list == nil ? field.type.rawValue : "list")),
                        ("required", .bool(field.required)),
                    ]
                    if let list = field.list { members.append(("fields", fields(list.fields))) }
                    return .object(members)
                })
        }
        return .object([
            ("portal", .string(recipe.portal)), ("recipe", .string(recipe.command)), ("summary", .string(recipe.summary)),
            ("description", recipe.discussion.map(JSONValue.string) ?? .null),
            // The schema the one check enforces (RecipeRequest): the same for MCP's tools.
            ("optionsSchema", JSONValue(RecipeRequest.optionsSchema(for: recipe).json)),
            ("sources", .array(recipe.sources.compactMap(\.name).map(JSONValue.string))),
            ("fields", fields(recipe.primary.fields)),
            ("summaryFields", recipe.totals.map { .array(($0.groupBy + $0.fields.map(\.name)).map(JSONValue.string)) } ?? .null),
            (
                "actions",
                .array(
                    recipe.actions.map {
                        .object([
                            ("name", .string($0.name)), ("summary", .string($0.summary)),
                            ("argument", $0.takesArgument ? .string($0.argument) : .null),
                            (
                                "parameters",
                                .array(
                                    $0.parameters.map { parameter in
                                        .object([
                                            ("name", .string(parameter.name)), ("required", .bool(parameter.required)),
                                            ("help", parameter.help.map(JSONValue.string) ?? .null),
                                        ])
                                    })
                            ),
                            ("asks", .bool($0.asks)),
                        ])
                    })
            ),
            ("file", .string(recipe.file)),
        ])
    }
}
