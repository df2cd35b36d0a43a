import ArgumentParser
import UniToolHost
import UniToolKit

/// The opening every built-in command shares, in the style of SwiftPM's `AsyncSwiftCommand`:
/// the environment is made once from the global options, and errors are reported in one place
/// (`Dispatcher.runBuiltin`). A command implements `run(_:)` and nothing of the opening.
protocol UniToolCommand: AsyncParsableCommand {
    var globals: GlobalOptions { get }
    func run(_ environment: CommandEnvironment) async throws
}

extension UniToolCommand {
    func run() async throws {
        try await run(try CommandEnvironment.open(globals))
    }
}

/// A command about one portal: the one `--portal` names, `UNITOOL_PORTAL`, the settings', or the
/// only one there is.
protocol PortalCommand: UniToolCommand {
    func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws
}

extension PortalCommand {
    func run(_ environment: CommandEnvironment) async throws {
        try await run(environment, portal: try environment.catalog.portal(try environment.portalID()))
    }
}
