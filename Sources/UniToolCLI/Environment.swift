import DemoUniversity
import Foundation
import Logging
import UniToolKit

/// What a command needs from the outside world, assembled once from the global options:
/// the recipe catalog, the portal (with the demo started if that is the portal), the
/// credentials and the logger.
final class CommandEnvironment: Sendable {
    let options: GlobalOptions
    let catalog: RecipeCatalog
    let logger: Logger

    init(options: GlobalOptions) throws {
        self.options = options
        var directories = [RecipeCatalog.bundledDirectory(), RecipeCatalog.userDirectory]
        directories += options.recipes.map { URL(fileURLWithPath: $0) }
        self.catalog = try RecipeCatalog(directories: directories)
        self.logger = Self.makeLogger(verbose: options.verbose)
    }

    static func makeLogger(verbose: Bool) -> Logger {
        var logger = Logger(label: "unitool") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }

    /// The portal the user chose, or the only one there is.
    func portalID() throws -> String {
        if let portal = options.portal ?? ProcessInfo.processInfo.environment["UNITOOL_PORTAL"], !portal.isEmpty {
            return portal
        }
        let ids = catalog.portals.keys.sorted()
        let real = ids.filter { catalog.portals[$0]?.isDemo == false }
        if real.count == 1 { return real[0] }
        if real.isEmpty, ids.count == 1 { return ids[0] }
        throw UniToolError(
            .usage, "several portals are installed; choose one with --portal",
            hint: "installed portals: \(ids.joined(separator: ", ")); or set UNITOOL_PORTAL")
    }

    /// Opens a connection to the chosen portal. For the demo, starts the demo university first
    /// (or uses the one `UNITOOL_DEMO_URL` points at) and returns it so it can be stopped.
    func openPortal() async throws -> (PortalConnection, DemoUniversity?) {
        var portal = try catalog.portal(try portalID())
        var demo: DemoUniversity?
        if portal.isDemo {
            let environment = ProcessInfo.processInfo.environment
            if let external = environment["UNITOOL_DEMO_URL"], let url = URL(string: external) {
                portal = portal.relocated(to: url)
            } else {
                let faults: DemoFaults
                do {
                    faults = try DemoFaults(parsing: environment[DemoFaults.environmentVariable] ?? "")
                } catch {
                    throw UniToolError(.usage, "\(DemoFaults.environmentVariable): \(error)")
                }
                do {
                    demo = try await DemoUniversity.start(faults: faults)
                } catch {
                    throw UniToolError(.internal, "\(error)")
                }
                portal = portal.relocated(to: demo!.baseURL)
                logger.debug("demo university running at \(demo!.baseURL.absoluteString)")
            }
        }
        let credentials = try credentialProvider(for: portal)
        let connection = PortalConnection(
            portal: portal, user: credentials.user, credentials: credentials.provide, store: SessionStore(),
            logger: logger)
        return (connection, demo)
    }

    /// Where the password will come from, decided before any request so that a missing
    /// password is reported at once. The password itself is read only when a login needs it.
    func credentialProvider(for portal: PortalRecipe) throws -> (user: String, provide: CredentialProvider) {
        let environment = ProcessInfo.processInfo.environment
        let explicitUser = options.user ?? environment["UNITOOL_USER"].flatMap { $0.isEmpty ? nil : $0 }
        if options.passwordStdin {
            guard let user = explicitUser ?? (portal.isDemo ? DemoData.defaultUser.username : nil) else {
                throw UniToolError(.usage, "--password-stdin needs --user", hint: "for example: --user jdoe")
            }
            let password = try PasswordInput.readStandardInput()
            return (user, { Credentials(username: user, password: password) })
        }
        if portal.isDemo, explicitUser == nil {
            let demoUser = DemoData.defaultUser
            return (demoUser.username, { Credentials(username: demoUser.username, password: Secret(demoUser.password)) })
        }
        guard let user = explicitUser else {
            throw UniToolError(
                .usage, "no user given for portal '\(portal.id)'", hint: "use --user NAME, or set UNITOOL_USER")
        }
        return (
            user,
            {
                throw UniToolError(
                    .credentialsMissing, "no password for \(user) on portal '\(portal.id)'",
                    hint: "pipe it in with --password-stdin")
            }
        )
    }
}

enum PasswordInput {
    /// Reads the whole of standard input as the password, dropping one trailing newline.
    static func readStandardInput() throws -> Secret {
        var bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw UniToolError(
                .credentialsMissing, "--password-stdin was given, but standard input was empty",
                hint: "pipe the password in, for example: pass show uni | unitool ... --password-stdin")
        }
        return Secret(bytes: bytes)
    }
}
