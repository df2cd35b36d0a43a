import DemoUniversity
import Foundation
import OneTimeCode
import Synchronization
import UniToolKit
import UniToolRPC

/// The `RPCHost` of `unitool rpc`, `mcp` and plugins, and of the tests of its methods: one shared
/// connection per portal and user, made by the `Workspace` (which finds the portal, the demo
/// started once per portal), and the passwords given to `auth.login`.
package final class CommandLineRPCHost: RPCHost {
    package let workspace: Workspace
    package let catalog: RecipeCatalog
    private let portalChoice: @Sendable () throws -> String
    private let userChoice: @Sendable (PortalRecipe) throws -> String
    private let connections = SharedValues<PortalConnection>()
    private let located = SharedValues<(portal: PortalRecipe, stop: (@Sendable () async -> Void)?)>()
    private let passwords = Mutex<[String: Secret]>([:])
    /// Connections replaced by a newer one, which requests in flight may still be using.
    private let retired = Mutex<[PortalConnection]>([])

    /// - Parameters:
    ///   - defaultPortal: the portal of a call that names none.
    ///   - defaultUser: the user of a call that names none.
    package init(
        workspace: Workspace, catalog: RecipeCatalog, defaultPortal: @escaping @Sendable () throws -> String,
        defaultUser: @escaping @Sendable (PortalRecipe) throws -> String
    ) {
        self.workspace = workspace
        self.catalog = catalog
        self.portalChoice = defaultPortal
        self.userChoice = defaultUser
    }

    package convenience init(environment: CommandEnvironment) {
        self.init(
            workspace: environment.serverWorkspace, catalog: environment.catalog, defaultPortal: { try environment.portalID() },
            defaultUser: { try environment.user(for: $0) })
    }

    package func defaultPortal() throws -> String { try portalChoice() }

    package func defaultUser(for portal: PortalRecipe) throws -> String { try userChoice(portal) }

    private func key(_ portal: String, _ user: String) -> String { "\(portal)\u{0}\(user)" }

    /// The portal at its real address: one demo university per portal, started once.
    private func locate(_ portal: PortalRecipe) async throws -> PortalRecipe {
        try await located.value(for: portal.id) { try await self.workspace.locate(portal) }.portal
    }

    package func connection(portal: PortalRecipe, user: String) async throws -> PortalConnection {
        try await connections.value(for: key(portal.id, user)) {
            self.workspace.connection(
                to: try await self.locate(portal), as: user, credentials: self.credentials(portal: portal, user: user))
        }
    }

    /// The key of the public connection whose terms are read through `namedUser`'s session.
    private func publicKey(_ portal: String, _ namedUser: String?) -> String { key(portal, "\u{0}public\u{0}\(namedUser ?? "")") }

    package func publicConnection(portal: PortalRecipe, namedUser: String?) async throws -> PortalConnection {
        try await connections.value(for: publicKey(portal.id, namedUser)) {
            self.workspace.publicConnection(
                to: try await self.locate(portal), namedUser: namedUser, reason: localized("a public command (login: false) was asked for"))
        }
    }

    package func freshConnection(portal: PortalRecipe, user: String, password: Secret) async throws -> PortalConnection {
        let oneTimeCode = Self.oneTimeCodes(workspace.account(portal, user: user))
        return workspace.connection(
            to: try await locate(portal), as: user,
            credentials: {
                Credentials(
                    username: user, password: password, givenAs: .given(localized("the password passed to auth.login")),
                    oneTimeCode: oneTimeCode)
            }, use: .fresh)
    }

    package func usePassword(_ password: Secret, portal: String, user: String) {
        passwords.withLock { $0[key(portal, user)] = password }
    }

    /// Forgets the connection, so that the next request makes a new one (after a login or a
    /// logout). It is not closed here: requests in flight on it finish on it, and it is closed
    /// with the others at the end.
    /// The public connection that reads the terms through this user's session goes too: it was
    /// made with the session as it was (or without one), and a login or a logout changed that.
    package func dropConnection(portal: String, user: String) async {
        for key in [key(portal, user), publicKey(portal, user)] {
            if let connection = try? await connections.remove(key) { retired.withLock { $0.append(connection) } }
        }
    }

    package func closeAll() async {
        let retired = self.retired.withLock { retired in
            defer { retired.removeAll() }
            return retired
        }
        for connection in await connections.removeAll() + retired { await connection.close() }
        for place in await located.removeAll() { await place.stop?() }
    }

    /// Where a login's password comes from (`Account.credentials`): one given to `auth.login` for
    /// this server, `UNITOOL_PASSWORD_COMMAND`, the keyring, then a demo user's known password.
    /// Never a prompt: stdin is the protocol.
    private func credentials(portal: PortalRecipe, user: String) -> CredentialProvider {
        let passwordKey = key(portal.id, user)
        let account = workspace.account(portal, user: user)
        let known = portal.isDemo ? DemoData.users.first(where: { $0.username == user }).map { Secret($0.password) } : nil
        let command = ProcessInfo.processInfo.environment[PasswordCommand.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        return { [self] in
            account.credentials(
                given: self.passwords.withLock { $0[passwordKey] }, givenAs: .given(localized("the password passed to auth.login")),
                command: command.map { command in
                    (PasswordCommand.environmentVariable, { try PasswordCommand.run(command, portal: portal.id, user: user) })
                },
                known: known, oneTimeCode: Self.oneTimeCodes(account), missingHint: localized("pass 'password' to auth.login"))
        }
    }

    /// The stored TOTP secret or `UNITOOL_TOTP_COMMAND`, never the same code twice; never a
    /// prompt, since stdin is the protocol.
    package static func oneTimeCodes(_ account: Account) -> @Sendable () throws -> Secret {
        account.oneTimeCodes(command: CommandEnvironment.oneTimeCodeCommand(portal: account.portal.id, user: account.user))
    }
}

/// Values made once per key and shared by every caller, also by those that ask while it is
/// being made: a connection per portal and user, a demo per portal. Made by the first caller's
/// `make`; one that failed is forgotten, so that the next caller tries again.
package final class SharedValues<Value: Sendable>: Sendable {
    private let made = Mutex<[String: Task<Value, any Error>]>([:])

    package init() {}

    package func value(for key: String, make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        // Unstructured by necessity: the value outlives the call that asked first, and every
        // caller awaits the same making.
        let task = made.withLock { made in
            if let task = made[key] { return task }
            let task = Task { try await make() }
            made[key] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            made.withLock { made in
                if made[key] == task { made[key] = nil }
            }
            throw error
        }
    }

    /// Forgets the value of `key`, returning it if it was made.
    package func remove(_ key: String) async throws -> Value? {
        guard let task = made.withLock({ $0.removeValue(forKey: key) }) else { return nil }
        return try await task.value
    }

    /// Forgets every value, returning those that were made.
    package func removeAll() async -> [Value] {
        var values: [Value] = []
        for task in made.withLock({ made in
            defer { made.removeAll() }
            return Array(made.values)
        }) {
            if let value = try? await task.value { values.append(value) }
        }
        return values
    }
}
