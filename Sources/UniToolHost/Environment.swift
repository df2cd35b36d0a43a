import DemoUniversity
import Foundation
import LibXML
import Logging
import OneTimeCode
import Synchronization
import UniToolKit

/// What a command needs from the outside world, assembled once from the global options:
/// the recipe catalog, the portal (with the demo started if that is the portal), the
/// credentials and the logger.
package final class CommandEnvironment: Sendable {
    package let options: GlobalOptions
    package let catalog: RecipeCatalog
    package let logger: Logger

    /// Every name a recipe or a plugin may not take: unitool's built-in commands, and `help`,
    /// `version` and `watch`, which its dispatcher answers itself. Every front end checks recipes
    /// against the same list (a test holds the CLI's command table to it).
    package static let reservedCommands: Set<String> = [
        "auth", "recipes", "terms", "demo", "doctor", "page", "rpc", "config", "plugins", "completions", "history", "search",
        "calendar", "today", "pin", "mcp", "help", "version", "watch",
    ]

    /// The one place a command's environment is made, whichever way the command came in (a
    /// built-in's `UniToolCommand.run`, a recipe's or a watch's runner, a plugin, the overview,
    /// completion): the catalog, the settings and the clock are read here, and the connections
    /// are wired by its `workspace`.
    ///
    /// - Parameter command: the one recipe command this run needs, when that is all it needs:
    ///   the catalog then reads only the recipes that may define it (`RecipeCatalog`'s `command`).
    /// - Parameter portalsOnly: only the portals are needed (the overview, which lists the
    ///   commands from `commandListings()`).
    package static func open(_ options: GlobalOptions, command: String? = nil, portalsOnly: Bool = false) throws -> CommandEnvironment {
        try CommandEnvironment(options: options, command: command, portalsOnly: portalsOnly)
    }

    private init(options: GlobalOptions, command: String?, portalsOnly: Bool) throws {
        self.options = options
        self.catalog = try Self.catalog(options: options, command: command, portalsOnly: portalsOnly)
        self.logger = Self.makeLogger(verbose: options.verbose)
        self.config = try UserConfig.load(from: Locations.current.configFile)
        self.settings = Settings(
            portalFlag: options.portal, userFlag: options.user, environment: ProcessInfo.processInfo.environment, config: config,
            configPath: Locations.current.configFile.path)
        self.trace = options.trace.map { _ in HTTPTrace(includeBodies: options.traceBodies) }
        self.now = try FixedClock.now()
    }

    /// The recipes the options name: the bundled and the user's folders, then `--recipes` packs
    /// as far as the user trusts them; with `command`, only the recipes that may define it.
    package static func catalog(options: GlobalOptions, command: String? = nil, portalsOnly: Bool = false) throws -> RecipeCatalog {
        try RecipeCatalog(
            directories: ownRecipeDirectories, packs: options.recipes.map { URL(fileURLWithPath: $0) },
            trust: try RecipeTrust.load(from: Locations.current.trustFile),
            reservedCommands: reservedCommands, command: command, portalsOnly: portalsOnly)
    }

    /// Each portal's commands as lists show them: from the `RecipeIndex` while no recipe changed
    /// since it was written, else from every recipe read and checked (and the index written
    /// anew). With `--recipes` packs, whose trust can change, always from the recipes.
    package func commandListings() throws -> [String: [RecipeIndex.Listing]] {
        guard options.recipes.isEmpty else { return RecipeIndex.listings(of: try Self.catalog(options: options)) }
        // Stamped before the recipes are read: a file changed while they are read leaves the
        // index stale, to be read again next time, never wrong.
        let stamps = RecipeIndex.stamps(of: Self.ownRecipeDirectories)
        // Summaries may be given per language (RecipeText): one index per language list, so
        // that a Japanese run never lists an English one's summaries. The names are checked
        // locale names (letters, digits, `_`, `@`), safe in a file name.
        let locales = Translation.current.locales
        let file =
            locales.isEmpty
            ? Locations.current.recipeIndex : Locations.current.recipeIndex.appendingPathExtension(locales.joined(separator: "+"))
        if let index = RecipeIndex.load(from: file, expecting: stamps) { return index.listings }
        let index = RecipeIndex(stamps: stamps, listings: RecipeIndex.listings(of: try Self.catalog(options: options)))
        // Written only if nothing changed while the recipes were read, and nothing so lately that
        // a change could hide in the same clock tick (`RecipeIndex.maySave`). A cache: a folder
        // that cannot be written costs the next list a parse, nothing else.
        if RecipeIndex.maySave(stamps), RecipeIndex.stamps(of: Self.ownRecipeDirectories) == stamps {
            try? index.save(to: file)
        }
        return index.listings
    }

    /// Now, for `today` and the demo: the clock, or `UNITOOL_NOW`.
    package let now: Date
    /// Whether `UNITOOL_NOW` fixes the clock.
    package var clockIsFixed: Bool { !(ProcessInfo.processInfo.environment[FixedClock.environmentVariable] ?? "").isEmpty }

    /// The user's own recipe folders: the bundled recipes, then the user's.
    package static var ownRecipeDirectories: [URL] { [RecipeCatalog.bundledDirectory(), Locations.current.userRecipes] }

    /// The run's HAR trace (`--trace`), made before any credential is read so that every secret
    /// unitool reads, the TOTP secret included, is registered with it and scrubbed from it.
    package let trace: HTTPTrace?

    /// `config.yaml`: the defaults below flags and environment variables.
    package let config: UserConfig

    /// The flags, the environment and config.yaml, weighed in that order (`Settings`). Read once:
    /// a JSON-RPC server asks for every request, and reading the environment and the file's path
    /// each time was a twentieth of a `recipes.run`.
    package let settings: Settings

    /// The user named for this portal by --user, $UNITOOL_USER or config.yaml, with its origin.
    package func namedUser(for portal: PortalRecipe) -> Setting? {
        settings.user(forPortal: portal.id, isDemo: portal.isDemo)
    }

    package static func makeLogger(verbose: Bool) -> Logger {
        var logger = Logger(label: "unitool") { label in
            TerminalSafeLogHandler(wrapped: StreamLogHandler.standardError(label: label))
        }
        logger.logLevel = verbose ? .debug : .warning
        // libxml2's own messages (and pages with undecodable bytes) are for -v, never stderr;
        // without -v they are not even made.
        let libxmlLogger = logger
        if verbose {
            LibXMLDiagnostics.setHandler { libxmlLogger.debug("\($0)") }
        } else {
            LibXMLDiagnostics.setHandler(nil)
        }
        return logger
    }

    /// The portal the user chose, or the only one there is.
    package func portalID() throws -> String {
        if let setting = settings.portal {
            let portal = setting.value
            try PortalID.validate(portal)
            guard catalog.portals[portal] != nil else { throw catalog.unknownPortal(portal, origin: "\(setting.origin)") }
            return portal
        }
        let ids = catalog.portals.keys.sorted()
        let real = ids.filter { catalog.portals[$0]?.isDemo == false }
        if real.count == 1 { return real[0] }
        if real.isEmpty, ids.count == 1 { return ids[0] }
        let installed = ids.joined(separator: ", ")
        throw UniToolError(
            .usage, localized("several portals are installed; choose one with --portal"),
            hint: localized("installed portals: \(installed); or set UNITOOL_PORTAL, or 'unitool config set portal NAME'"))
    }

    /// The history of recipe runs; without it (a read-only home) commands still work, and the
    /// log says why nothing is recorded.
    package func history() -> HistoryStore? { workspace.history }

    /// The composition root every connection of this process is made from: the user's folders
    /// (`Locations.current`), the HTTP settings of the global options, the history, the user's
    /// values, the clock and where the portal is (the demo started when it is the portal).
    /// Made the first time a command needs it, so that `--insecure` warns only when it matters.
    package var workspace: Workspace { made(madeWorkspace, tracing: true) }

    /// The workspace of a server (`rpc`, `mcp`, a plugin's channel): the same, but keeping no
    /// `--trace`, which a long-running server would grow without end and never write.
    package var serverWorkspace: Workspace { made(madeServerWorkspace, tracing: false) }

    private func made(_ memo: borrowing Mutex<Workspace?>, tracing: Bool) -> Workspace {
        memo.withLock { made in
            if let made { return made }
            var http = sessionConfiguration()
            http.trace = tracing ? trace : nil
            let (logger, now, config) = (self.logger, self.now, self.config)
            let fixed = clockIsFixed
            let workspace = Workspace(
                locations: .current, http: http, history: .kept(retentionDays: config.historyDays),
                userValues: { UserValues.provider(portal: $0, config: config) }, clock: { now },
                locate: { try await Self.locate($0, logger: logger, now: now, clockIsFixed: fixed) }, logger: logger)
            made = workspace
            return workspace
        }
    }
    private let madeWorkspace = Mutex<Workspace?>(nil)
    private let madeServerWorkspace = Mutex<Workspace?>(nil)

    /// The HTTP settings the global options ask for; the same for commands and `unitool rpc`.
    package func sessionConfiguration() -> HTTPSession.Configuration {
        var configuration = HTTPSession.Configuration()
        if let seconds = options.timeout { configuration.requestTimeout = .milliseconds(Int64(seconds * 1000)) }
        if let seconds = options.connectTimeout { configuration.connectTimeout = .milliseconds(Int64(seconds * 1000)) }
        if options.insecure {
            configuration.skipTLSVerification = true
            if !Self.warnedAboutTLS.exchange(true, ordering: .relaxed) {
                let warning = localized(
                    "--insecure: TLS certificates are NOT checked. Anyone on the network path can pose as the portal and read your password and session. Use it only for a test portal you control."
                )
                FileHandle.standardError.write(Data((localized("unitool: warning: \(warning)") + "\n").utf8))
            }
        }
        return configuration
    }

    private static let warnedAboutTLS = Atomic<Bool>(false)
    /// True while a password given with --password-stdin has not been asked for.
    package static let standardInputPasswordUnused = Atomic<Bool>(false)

    /// The recipe pointed at where the portal really is (`Workspace.locate`): for the demo, a
    /// demo started here (with how to stop it) or the one `UNITOOL_DEMO_URL` names.
    static func locate(_ portal: PortalRecipe, logger: Logger, now: Date, clockIsFixed: Bool) async throws -> (
        portal: PortalRecipe, stop: (@Sendable () async -> Void)?
    ) {
        guard portal.isDemo else { return (portal, nil) }
        let environment = ProcessInfo.processInfo.environment
        if let external = environment["UNITOOL_DEMO_URL"], let url = URL(string: external) {
            // UNITOOL_DEMO_SERVICES: the addresses of a demo's service hosts, space-separated.
            var hosts: [String: URL] = [:]
            for address in (environment["UNITOOL_DEMO_SERVICES"] ?? "").split(separator: " ") {
                if let service = URL(string: String(address)), let host = service.host { hosts[host] = service }
            }
            return (portal.relocated(to: url, hosts: hosts), nil)
        }
        let faults: DemoFaults
        do {
            faults = try DemoFaults(parsing: environment[DemoFaults.environmentVariable] ?? "")
        } catch {
            throw UniToolError(.usage, "\(DemoFaults.environmentVariable): \(error)")
        }
        // A portal whose services are on other loopback hosts gets the demo there too.
        let serviceHosts = Set(portal.services.values.compactMap(\.host)).subtracting([portal.baseURL.host ?? ""])
        // The user's own `unitool demo serve` for this state directory, found by its rendezvous
        // file, is the demo, as UNITOOL_DEMO_URL would name it: its state and the links a command
        // prints outlive the command. Not for a demo with faults, a fixed clock or service hosts,
        // which only a demo of the command's own has.
        if faults == DemoFaults(), !clockIsFixed, serviceHosts.isEmpty,
            let shared = SharedDemo.running(note: { logger.debug("\($0)") })
        {
            logger.debug("using the demo university that 'unitool demo serve' runs at \(shared.absoluteString)")
            return (portal.relocated(to: shared, hosts: [:]), nil)
        }
        let demo: DemoUniversity
        do {
            let fixed = clockIsFixed ? now : nil
            // Renewals and posted grades are remembered across commands, as a real portal does.
            demo = try await DemoUniversity.start(
                faults: faults, now: { fixed ?? Date() }, serviceHosts: serviceHosts.sorted(),
                stateFile: SharedDemo.stateFile)
        } catch {
            throw UniToolError(.internal, "\(error)")
        }
        logger.debug("demo university running at \(demo.baseURL.absoluteString)")
        var located = portal.relocated(to: demo.baseURL, hosts: demo.serviceHosts)
        located.isTransientDemo = true
        return (located, { await demo.stop() })
    }

    /// Where the password will come from, decided before any request so that a missing
    /// password is reported at once. The password itself is read only when a login needs it.
    package func credentialProvider(for portal: PortalRecipe) throws -> (user: String, provide: CredentialProvider) {
        let named = namedUser(for: portal)
        let explicitUser = named?.value
        let trace = self.trace
        var given: Secret?
        let user: String
        if options.passwordStdin {
            guard let named = explicitUser ?? (portal.isDemo ? DemoData.defaultUser.username : nil) else {
                throw UniToolError(.usage, localized("--password-stdin needs --user"), hint: localized("for example: --user jdoe"))
            }
            user = named
            given = try PasswordInput.readStandardInput()
        } else if portal.isDemo, explicitUser == nil {
            // The quick start: the demo's default user, with its known password, no keyring.
            user = DemoData.defaultUser.username
            given = Secret(DemoData.defaultUser.password)
        } else if let named = explicitUser {
            user = named
        } else {
            throw UniToolError(
                .usage, localized("no user given for portal '\(portal.id)'"), hint: localized("use --user NAME, or set UNITOOL_USER"))
        }
        var credentials = Self.credentials(
            for: workspace.account(portal, user: user), given: given,
            givenAs: options.passwordStdin ? .given("--password-stdin") : .known,
            trace: trace)
        if let named, !options.passwordStdin {
            // A missing or wrong password for a user from a setting says where that user came from.
            let password = credentials.password
            credentials.password = {
                do {
                    return try password()
                } catch let error as UniToolError {
                    throw error.adding(note: localized("the user '\(named.value)' comes from \(named.origin)"))
                }
            }
        }
        if options.passwordStdin {
            // Whether the password read from stdin was ever asked for: a saved session that is
            // still valid needs none, and the user should know it was not checked.
            Self.standardInputPasswordUnused.store(true, ordering: .relaxed)
            let password = credentials.password
            credentials.password = {
                Self.standardInputPasswordUnused.store(false, ordering: .relaxed)
                return try password()
            }
        }
        let provided = credentials
        return (user, { provided })
    }

    /// The CLI's sources for `Account.credentials`: `UNITOOL_PASSWORD_COMMAND`, and one-time
    /// codes from the keyring, `UNITOOL_TOTP_COMMAND` or the terminal.
    package static func credentials(
        for account: Account, given: Secret?, givenAs: PasswordOrigin = .given("--password-stdin"), trace: HTTPTrace?
    ) -> Credentials {
        let portalID = account.portal.id
        let user = account.user
        let command = ProcessInfo.processInfo.environment[PasswordCommand.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        return account.credentials(
            given: given, givenAs: givenAs,
            command: command.map { command in
                (PasswordCommand.environmentVariable, { try PasswordCommand.run(command, portal: portalID, user: user) })
            },
            oneTimeCode: oneTimeCode(for: account, trace: trace),
            missingHint: localized(
                "run 'unitool auth login --portal \(portalID) --user \(user)' once, or use --password-stdin or \(PasswordCommand.environmentVariable)"
            )
        )
    }

    /// Where a one-time code comes from when the portal asks for one: the account's sources
    /// (`OneTimeCodeSource`), each code registered with the trace; the terminal, last, is the
    /// call's `Interaction`.
    package static func oneTimeCode(for account: Account, trace: HTTPTrace?) -> @Sendable () throws -> Secret {
        account.oneTimeCodes(
            command: oneTimeCodeCommand(portal: account.portal.id, user: account.user),
            registerSecret: { secret in trace?.register(secret: secret) })
    }

    /// `UNITOOL_TOTP_COMMAND`, if it is set, as a code source.
    package static func oneTimeCodeCommand(portal: String, user: String) -> (@Sendable () throws -> Secret)? {
        guard let command = ProcessInfo.processInfo.environment[PasswordCommand.oneTimeCodeVariable], !command.isEmpty else { return nil }
        return {
            try PasswordCommand.run(
                command, portal: portal, user: user, variable: PasswordCommand.oneTimeCodeVariable, what: localized("a one-time code"),
                failureKind: .mfaRequired)
        }
    }

    /// The user a command is about: --user, $UNITOOL_USER, or the demo's default user.
    package func user(for portal: PortalRecipe) throws -> String {
        if let user = namedUser(for: portal)?.value { return user }
        if portal.isDemo { return DemoData.defaultUser.username }
        throw UniToolError(
            .usage, localized("no user given for portal '\(portal.id)'"), hint: localized("use --user NAME, or set UNITOOL_USER"))
    }
}

package enum PasswordInput {
    /// Reads the whole of standard input as the password, dropping one trailing newline.
    package static func readStandardInput() throws -> Secret {
        var bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw UniToolError(
                .credentialsMissing, localized("--password-stdin was given, but standard input was empty"),
                hint: localized("pipe the password in, for example: pass show uni | unitool ... --password-stdin"))
        }
        return Secret(bytes: bytes)
    }
}

/// Log lines go to standard error, often a terminal, and quote portals (addresses, versions,
/// page titles): their control characters are shown escaped (`TerminalText`), as everywhere else.
package struct TerminalSafeLogHandler: LogHandler {
    package var wrapped: StreamLogHandler

    package func log(event: LogEvent) {
        var event = event
        event.message = "\(TerminalText.escaped(event.message.description))"
        wrapped.log(event: event)
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }
}
