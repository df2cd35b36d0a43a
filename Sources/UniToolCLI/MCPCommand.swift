import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit
import UniToolMCP
import UniToolRPC

/// `unitool mcp`: the portal for an AI assistant, as a Model Context Protocol server on stdio,
/// served by the same JSON-RPC core as `unitool rpc` (`RPCServer` in MCP's dialect).
struct MCPCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: localized("Serve the portal to an AI assistant over the Model Context Protocol (stdio)."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Each command of the portal becomes a tool the assistant can call, with its options as a JSON Schema;
                actions that change something (renewing a loan) are tools of their own, marked destructive. 'today',
                'search' and 'history' are tools too, and the last answers, the terms of use and the recipes are
                resources. The assistant never sees your password: the server logs in only with what you stored
                ('unitool auth login'), never asks for a password, never accepts terms, and when you are needed it
                answers with the command to run in a terminal. Register it with your assistant as the command
                'unitool --portal NAME mcp', with the environment entries docs/MCP.md lists.
                """), examples: "mcp"))
    @OptionGroup var globals: GlobalOptions

    func run(_ environment: CommandEnvironment) async throws {
        let portal = try environment.catalog.portal(try environment.portalID())
        let user = try environment.user(for: portal)
        let host = CommandLineRPCHost(environment: environment)
        let environmentNow = ProcessInfo.processInfo.environment
        // On stderr, for the person who started it: in their language, not the server's English.
        for warning in Translation.$override.withValue(nil, operation: { Self.missingEnvironment(environmentNow, portal: portal) }) {
            FileHandle.standardError.write(Data("unitool mcp: \(warning)\n".utf8))
        }
        // The client's instructions are in English: MCP declares no locale (docs/LANGUAGES.md).
        let warnings = Translation.$override.withValue(.english) { Self.missingEnvironment(environmentNow, portal: portal) }
        // MCP's stdio transport is one JSON text per line.
        let server = UniToolMCPServer(host: host, portal: portal, user: user, warnings: warnings)
        await RPCCommand.serveOnStandardIO(
            "mcp", methods: server.methods, framing: .newline, limits: RPCLimits(), dialect: .mcp, batchRefusal: server.batchRefusal,
            host: host, logger: environment.logger, alongside: { client in await server.followHistory(client: client) })
    }

    /// What a client's launch left out that this server needs, said on stderr (which clients
    /// log) and in the instructions. The official SDKs start a server with only HOME, LOGNAME,
    /// PATH, SHELL, TERM and USER unless told otherwise (docs/MCP.md).
    static func missingEnvironment(_ environment: [String: String], portal: PortalRecipe) -> [String] {
        var warnings: [String] = []
        if !portal.isDemo, environment["DBUS_SESSION_BUS_ADDRESS"] == nil, environment["UNITOOL_PASSWORD_COMMAND"] == nil {
            warnings.append(
                localized(
                    "DBUS_SESSION_BUS_ADDRESS is not set, so the keyring is out of reach and a login cannot find the stored password; add it to the server's env in the client's configuration (docs/MCP.md)."
                ))
        }
        return warnings
    }
}
