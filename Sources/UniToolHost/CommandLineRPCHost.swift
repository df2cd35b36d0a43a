import DemoUniversity
import Foundation
import OneTimeCode
import Synchronization
import UniToolKit
import UniToolRPC

/// The RPC server's view of the machine: recipes, keyring, saved sessions and the demo.
package final class CommandLineRPCHost: RPCHost {
    package let environment: CommandEnvironment
    private let connections = Mutex<[String: Task<PortalConnection, any Error>]>([:])
    private let located = Mutex<[String: Task<(PortalRecipe, DemoUniversity?), any Error>]>([:])
    private let passwords = Mutex<[String: Secret]>([:])
    /// Connections replaced by a newer one, which requests in flight may still be using.
    private let retired = Mutex<[Task<PortalConnection, any Error>]>([])

    /// One history for every request of the server, opened once.
    package let history: HistoryStore?

    package init(environment: CommandEnvironment) {
        self.environment = environment
        self.history = environment.history()
    }

    package var catalog: RecipeCatalog { environment.catalog }
    package var acceptedTerms: AcceptedTermsStore { AcceptedTermsStore() }

    package func defaultPortal() throws -> String { try environment.portalID() }

    package func defaultUser(for portal: PortalRecipe) throws -> String { try environment.user(for: portal) }

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

    package func connection(portal: PortalRecipe, user: String) async throws -> PortalConnection {
        let task = connections.withLock { tasks in
            if let task = tasks[key(portal.id, user)] { return task }
            let task = Task {
                let located = try await self.locate(portal)
                return PortalConnection(
                    portal: located, user: user, credentials: self.credentials(portal: portal, user: user),
                    configuration: self.environment.sessionConfiguration(), history: self.history,
                    userValues: UserValues.provider(portal: portal.id, config: UserConfig.current), logger: self.environment.logger)
            }
            tasks[key(portal.id, user)] = task
            return task
        }
        return try await task.value
    }

    package func freshConnection(portal: PortalRecipe, user: String, password: Secret) async throws -> PortalConnection {
        let located = try await locate(portal)
        let oneTimeCode = Self.oneTimeCodes(Account(portal: portal, user: user))
        return PortalConnection(
            portal: located, user: user,
            credentials: {
                Credentials(
                    username: user, password: password, givenAs: .given("the password passed to auth.login"), oneTimeCode: oneTimeCode)
            },
            configuration: environment.sessionConfiguration(), startEmpty: true, logger: environment.logger)
    }

    package func usePassword(_ password: Secret, portal: String, user: String) {
        passwords.withLock { $0[key(portal, user)] = password }
    }

    /// Forgets the connection, so that the next request makes a new one (after a login or a
    /// logout). It is not closed here: requests in flight on it finish on it, and it is closed
    /// with the others at the end.
    package func dropConnection(portal: String, user: String) async {
        let task = connections.withLock { $0.removeValue(forKey: key(portal, user)) }
        if let task { retired.withLock { $0.append(task) } }
    }

    package func closeAll() async {
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
                given: self.passwords.withLock { $0[passwordKey] }, givenAs: .given("the password passed to auth.login"),
                command: command.map { command in
                    (PasswordCommand.environmentVariable, { try PasswordCommand.run(command, portal: portal.id, user: user) })
                },
                known: known, oneTimeCode: Self.oneTimeCodes(account), missingHint: "pass 'password' to auth.login")
        }
    }

    /// The stored TOTP secret or `UNITOOL_TOTP_COMMAND`, never the same code twice; never a
    /// prompt, since stdin is the protocol.
    package static func oneTimeCodes(_ account: Account) -> @Sendable () throws -> Secret {
        account.oneTimeCodes(command: CommandEnvironment.oneTimeCodeCommand(portal: account.portal.id, user: account.user))
    }
}
