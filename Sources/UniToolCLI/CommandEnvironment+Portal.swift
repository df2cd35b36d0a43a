import DemoUniversity
import Foundation
import Synchronization
import UniToolHost
import UniToolKit

extension CommandEnvironment {
    /// What the service asks of the person at the command line (`TerminalInteraction`).
    var interaction: any Interaction { TerminalInteraction(quiet: options.quiet) }

    /// Runs `body` with a connection to `portal` (the demo started first if needed), the terminal
    /// asked meanwhile, and the session saved as the portal left it (`PortalService.session`).
    /// Everything is closed afterwards, also on failure (`withService`).
    func withPortal<T: Sendable>(
        _ portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, savedSession: Bool = true,
        freshLogin: Bool = false, termsThroughSavedSession: Bool = false, _ body: (PortalConnection) async throws -> T
    ) async throws -> T {
        try await withService(
            portal, user: user, credentials: credentials, savedSession: savedSession, freshLogin: freshLogin,
            termsThroughSavedSession: termsThroughSavedSession
        ) { service in try await service.session(interaction: interaction, body) }
    }

    /// Runs `body` with the service of one connection to `portal` (the demo started first if
    /// needed), and closes everything afterwards, also on failure.
    ///
    /// With `savedSession: false` the connection starts from an empty cookie jar and never
    /// writes the session store, so a diagnosis leaves the user's saved session as it was.
    ///
    /// `termsThroughSavedSession`: for a public command, read the terms version through the
    /// saved session of the user named for this portal, if there is one (`PortalConnection.termsThrough`).
    func withService<T: Sendable>(
        _ portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, savedSession: Bool = true,
        freshLogin: Bool = false, termsThroughSavedSession: Bool = false, _ body: (PortalService) async throws -> T
    ) async throws -> T {
        let (located, demo) = try await locate(portal)
        var configuration = sessionConfiguration()
        configuration.trace = trace
        var termsConnection: PortalConnection?
        if termsThroughSavedSession, located.terms != nil, let named = try? self.user(for: located),
            SessionStore().stamp(portal: located.id, user: named) != nil
        {
            termsConnection = PortalConnection(
                portal: located, user: named,
                credentials: {
                    throw UniToolError(
                        .credentialsMissing,
                        "cannot check the terms of use of \(located.name): its terms-of-use version is behind the login, and the saved session of \(named) it was asked through has ended",
                        hint:
                            "log in again with 'unitool auth login --portal \(located.id)'; public commands then read the terms through that session"
                    )
                },
                configuration: configuration, logger: logger)
        }
        let connection = PortalConnection(
            portal: located, user: user, credentials: credentials, keepsSession: savedSession,
            configuration: configuration, startEmpty: freshLogin, history: history(),
            termsThrough: termsConnection, userValues: UserValues.provider(portal: located.id, config: config),
            logger: logger)
        StatusLine.shared.begin("connecting to \(portal.name)", quiet: options.quiet)
        let result: Result<T, any Error>
        do {
            let now = self.now
            result = .success(try await body(PortalService(connection: connection, clock: { now })))
        } catch {
            result = .failure(error)
        }
        StatusLine.shared.end()
        await connection.close()
        await demo?.stop()
        // The trace is written on failure too: that is when it is needed.
        if let trace, let path = options.trace {
            try trace.write(to: URL(fileURLWithPath: path))
            logger.info("wrote \(trace.entryCount) requests to \(path)")
        }
        if case .success = result, Self.standardInputPasswordUnused.load(ordering: .relaxed) {
            Progress.note(
                "--password-stdin was not needed: the saved session of \(user) is still valid, so the password was neither sent nor checked ('unitool auth login --password-stdin' checks it)",
                quiet: options.quiet)
        }
        return try result.get()
    }
}
