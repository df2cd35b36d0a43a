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
        _ portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, use: SessionUse = .saved,
        _ body: (PortalConnection) async throws -> T
    ) async throws -> T {
        try await withService(portal, user: user, credentials: credentials, use: use) { service in
            try await service.session(interaction: interaction, body)
        }
    }

    /// `withPortal` for a run of `recipe` (`withService(_:running:_:)`).
    func withPortal<T: Sendable>(
        _ portal: PortalRecipe, running recipe: DataRecipe, _ body: (PortalConnection) async throws -> T
    ) async throws -> T {
        try await withService(portal, running: recipe) { service in try await service.session(interaction: interaction, body) }
    }

    /// Runs `body` with the service of one connection to `portal` as `user` (the demo started
    /// first if needed), and closes everything afterwards, also on failure. With `use:
    /// .untouched` the connection neither loads nor saves the session, so a diagnosis leaves the
    /// user's saved session as it was; `.fresh` starts without it, to prove a password.
    func withService<T: Sendable>(
        _ portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, use: SessionUse = .saved,
        _ body: (PortalService) async throws -> T
    ) async throws -> T {
        try await withService(
            portal, user: user,
            connecting: { workspace, located in
                workspace.connection(to: located, as: user, credentials: credentials, use: use)
            }, body)
    }

    /// The same for a run of `recipe`: a public command (`login: false`) connects as nobody and
    /// reads the terms through the named user's saved session (`Workspace.connection(for:)`); any
    /// other as the user, with the password from where the settings say.
    func withService<T: Sendable>(
        _ portal: PortalRecipe, running recipe: DataRecipe, _ body: (PortalService) async throws -> T
    ) async throws -> T {
        let (user, credentials): (String, CredentialProvider) =
            recipe.login
            ? try credentialProvider(for: portal)
            : ((try? self.user(for: portal)) ?? "", PortalConnection.noLogin(because: localized("'\(recipe.command)' is a public command")))
        return try await withService(
            portal, user: recipe.login ? user : "",
            connecting: { workspace, located in
                workspace.connection(for: recipe, on: located, as: user, credentials: credentials)
            }, body)
    }

    /// The one opening of a command's connection: the portal located, the connection made by
    /// the workspace, the status line shown meanwhile; then the connection closed, the demo
    /// stopped and the trace written (on failure too: that is when it is needed).
    private func withService<T: Sendable>(
        _ portal: PortalRecipe, user: String, connecting: (Workspace, PortalRecipe) -> PortalConnection,
        _ body: (PortalService) async throws -> T
    ) async throws -> T {
        let workspace = self.workspace
        let (located, stop) = try await workspace.locate(portal)
        let result = await Result {
            try await StatusLine.shared.showing(localized("connecting to \(portal.name)"), quiet: options.quiet) {
                try await workspace.withService(over: connecting(workspace, located), body)
            }
        }
        await stop?()
        if let trace, let path = options.trace {
            try trace.write(to: URL(fileURLWithPath: path))
            logger.info("wrote \(trace.entryCount) requests to \(path)")
        }
        if case .success = result, Self.standardInputPasswordUnused.load(ordering: .relaxed) {
            Progress.note(
                localized(
                    "--password-stdin was not needed: the saved session of \(user) is still valid, so the password was neither sent nor checked ('unitool auth login --password-stdin' checks it)"
                ),
                quiet: options.quiet)
        }
        return try result.get()
    }
}
