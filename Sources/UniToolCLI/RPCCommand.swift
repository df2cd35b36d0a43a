import ArgumentParser
import DemoUniversity
import Foundation
import OneTimeCode
import Synchronization
import UniToolKit
import UniToolRPC

/// `unitool rpc`: JSON-RPC 2.0 over stdin and stdout, for GUIs, editors and plugins.
struct RPCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc", abstract: "Serve JSON-RPC 2.0 on stdin and stdout, for front ends and plugins.",
        discussion: HelpExamples.discussion(
            """
            One JSON message per line by default; --framing content-length uses LSP-style headers. stdout
            carries protocol messages only; logs go to stderr (-v for more). Every method, parameter, result
            and error code is in docs/RPC.md. Try it:
              echo '{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades"}}' | unitool rpc
            """, examples: "rpc"))
    @OptionGroup var globals: GlobalOptions
    @Option(help: "newline (one JSON text per line) or content-length (LSP-style headers).") var framing: FramingOption = .init(.newline)
    @Option(help: "The largest message accepted, in bytes; larger ones are answered with an error and skipped.")
    var maxMessageBytes = RPCServer.defaultMaxMessageBytes
    @Option(help: "If the client leaves this many bytes of responses unread, the server gives up and exits with 75.")
    var maxUnreadBytes = RPCLimits.defaultMaxUnreadBytes

    struct FramingOption: ExpressibleByArgument {
        let value: RPCFraming
        init(_ value: RPCFraming) { self.value = value }
        init?(argument: String) {
            guard let value = RPCFraming(rawValue: argument) else { return nil }
            self.value = value
        }
        static var allValueStrings: [String] { RPCFraming.allCases.map(\.rawValue) }
    }

    func run() async throws {
        // A client that goes away must end the server, not kill it with SIGPIPE mid-write.
        signal(SIGPIPE, SIG_IGN)
        let environment = try CommandEnvironment(options: globals)
        let host = CommandLineRPCHost(environment: environment)
        let logger = environment.logger
        let output = FileDescriptorOutput(descriptor: STDOUT_FILENO, maxBacklog: maxUnreadBytes) { reason in
            logger.error("stopping: \(reason)")
            FileHandle.standardError.write(Data("unitool rpc: stopping: \(reason)\n".utf8))
            Foundation.exit(75)
        }
        // One value for what the server enforces and what `initialize` tells the client.
        let limits = RPCLimits(maxMessageBytes: maxMessageBytes, maxUnreadBytes: maxUnreadBytes)
        let server = RPCServer(
            methods: RPCMethods(host: host, limits: limits).table, output: output, framing: framing.value,
            maxMessageBytes: limits.maxMessageBytes, logger: logger)
        // serve returns once every accepted request and notification has finished and every
        // answer is written (it flushes the output itself), so exiting below loses nothing.
        let code = await server.serve(StandardInputStream.make())
        // Sessions are saved after every call, so closing is only tidiness: it may not hold up
        // the exit a client asked for.
        Task.detached {
            await host.closeAll()
            Foundation.exit(code)
        }
        try? await Task.sleep(for: .seconds(3))
        logger.warning("rpc: closing the connections took more than 3 s; exiting anyway")
        Foundation.exit(code)
    }
}

/// The RPC server's view of the machine: recipes, keyring, saved sessions and the demo.
final class CommandLineRPCHost: RPCHost {
    let environment: CommandEnvironment
    private let connections = Mutex<[String: Task<PortalConnection, any Error>]>([:])
    private let located = Mutex<[String: Task<(PortalRecipe, DemoUniversity?), any Error>]>([:])
    private let passwords = Mutex<[String: Secret]>([:])
    /// Connections replaced by a newer one, which requests in flight may still be using.
    private let retired = Mutex<[Task<PortalConnection, any Error>]>([])

    /// One history for every request of the server, opened once.
    let history: HistoryStore?

    init(environment: CommandEnvironment) {
        self.environment = environment
        self.history = environment.history()
    }

    var catalog: RecipeCatalog { environment.catalog }
    var acceptedTerms: AcceptedTermsStore { AcceptedTermsStore() }

    func defaultPortal() throws -> String { try environment.portalID() }

    func defaultUser(for portal: PortalRecipe) throws -> String { try environment.user(for: portal) }

    private func key(_ portal: String, _ user: String) -> String { "\(portal)\u{0}\(user)" }

    /// The portal at its real address: one demo university per portal, started once.
    private func locate(_ portal: PortalRecipe) async throws -> PortalRecipe {
        let task = located.withLock { tasks in
            if let task = tasks[portal.id] { return task }
            let task = Task { try await self.environment.locate(portal) }
            tasks[portal.id] = task
            return task
        }
        return try await task.value.0
    }

    func connection(portal: PortalRecipe, user: String) async throws -> PortalConnection {
        let task = connections.withLock { tasks in
            if let task = tasks[key(portal.id, user)] { return task }
            let task = Task {
                let located = try await self.locate(portal)
                return PortalConnection(
                    portal: located, user: user, credentials: self.credentials(portal: portal, user: user),
                    configuration: self.environment.sessionConfiguration(), terms: Self.termsPolicy, history: self.history,
                    logger: self.environment.logger)
            }
            tasks[key(portal.id, user)] = task
            return task
        }
        return try await task.value
    }

    func freshConnection(portal: PortalRecipe, user: String, password: Secret) async throws -> PortalConnection {
        let located = try await locate(portal)
        let oneTimeCode = Self.oneTimeCodes(Account(portal: portal, user: user))
        return PortalConnection(
            portal: located, user: user, credentials: { Credentials(username: user, password: password, oneTimeCode: oneTimeCode) },
            configuration: environment.sessionConfiguration(), startEmpty: true, terms: Self.termsPolicy, logger: environment.logger)
    }

    func usePassword(_ password: Secret, portal: String, user: String) {
        passwords.withLock { $0[key(portal, user)] = password }
    }

    /// Forgets the connection, so that the next request makes a new one (after a login or a
    /// logout). It is not closed here: requests in flight on it finish on it, and it is closed
    /// with the others at the end.
    func dropConnection(portal: String, user: String) async {
        let task = connections.withLock { $0.removeValue(forKey: key(portal, user)) }
        if let task { retired.withLock { $0.append(task) } }
    }

    func closeAll() async {
        let tasks =
            connections.withLock { tasks in
                defer { tasks.removeAll() }
                return Array(tasks.values)
            }
            + retired.withLock { tasks in
                defer { tasks.removeAll() }
                return tasks
            }
        for task in tasks { if let connection = try? await task.value { await connection.close() } }
        let demos = located.withLock { Array($0.values) }
        for task in demos { if let demo = try? await task.value.1 { await demo.stop() } }
    }

    /// Data calls refuse terms that are not accepted, with a hint in the protocol's own words.
    static let termsPolicy = TermsPolicy(
        refusalHint: "show the terms to the user (terms.status gives their URL), then call terms.accept")

    /// Where a login's password comes from (`Account.credentials`): one given to `auth.login` for
    /// this server, `UNITOOL_PASSWORD_COMMAND`, the keyring, then a demo user's known password.
    /// Never a prompt: stdin is the protocol.
    private func credentials(portal: PortalRecipe, user: String) -> CredentialProvider {
        let passwordKey = key(portal.id, user)
        let account = Account(portal: portal, user: user)
        let known = portal.isDemo ? DemoData.users.first(where: { $0.username == user }).map { Secret($0.password) } : nil
        let command = ProcessInfo.processInfo.environment[PasswordCommand.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        return { [self] in
            account.credentials(
                given: self.passwords.withLock { $0[passwordKey] },
                command: command.map { command in
                    (PasswordCommand.environmentVariable, { try PasswordCommand.run(command, portal: portal.id, user: user) })
                },
                known: known, oneTimeCode: Self.oneTimeCodes(account), missingHint: "pass 'password' to auth.login")
        }
    }

    /// The stored TOTP secret or `UNITOOL_TOTP_COMMAND`, never the same code twice; never a
    /// prompt, since stdin is the protocol.
    static func oneTimeCodes(_ account: Account) -> @Sendable () throws -> Secret {
        account.oneTimeCodes(command: CommandEnvironment.oneTimeCodeCommand(portal: account.portal.id, user: account.user))
    }
}
