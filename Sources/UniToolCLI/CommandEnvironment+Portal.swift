import DemoUniversity
import Foundation
import UniToolHost
import UniToolKit

extension CommandEnvironment {
    /// Runs `body` with a connection to `portal` (the demo started first if needed), saves the
    /// session as the portal left it (`settlingSession`), and closes everything afterwards, also
    /// on failure.
    ///
    /// With `savedSession: false` the connection starts from an empty cookie jar and never
    /// writes the session store, so a diagnosis leaves the user's saved session as it was.
    func withPortal<T: Sendable>(
        _ portal: PortalRecipe, user: String, credentials: @escaping CredentialProvider, savedSession: Bool = true,
        freshLogin: Bool = false, _ body: (PortalConnection) async throws -> T
    ) async throws -> T {
        let (located, demo) = try await locate(portal)
        var configuration = sessionConfiguration()
        configuration.trace = trace
        let connection = PortalConnection(
            portal: located, user: user, credentials: credentials, keepsSession: savedSession,
            configuration: configuration, startEmpty: freshLogin, terms: TermsGate.policy, history: history(),
            logger: logger)
        StatusLine.shared.begin("connecting to \(portal.name)", quiet: options.quiet)
        let result: Result<T, any Error>
        do {
            result = .success(try await Self.reportingProgress { try await connection.settlingSession(body) })
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
        return try result.get()
    }
}
