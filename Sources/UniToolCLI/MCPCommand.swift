import ArgumentParser
import Foundation
import MCP
import UniToolKit
import UniToolMCP

/// `unitool mcp`: the portal for an AI assistant, as a Model Context Protocol server on stdio.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp", abstract: "Serve the portal to an AI assistant over the Model Context Protocol (stdio).",
        discussion: HelpExamples.discussion(
            """
            Each command of the portal becomes a tool the assistant can call, with its options as a JSON Schema;
            actions that change something (renewing a loan) are tools of their own, marked destructive. 'today',
            'search' and 'history' are tools too, and the last answers, the terms of use and the recipes are
            resources. The assistant never sees your password: the server logs in only with what you stored
            ('unitool auth login'), never asks for a password, never accepts terms, and when you are needed it
            answers with the command to run in a terminal. Register it with your assistant as the command
            'unitool --portal NAME mcp' (docs/MCP.md).
            """, examples: "mcp"))
    @OptionGroup var globals: GlobalOptions

    func run() async throws {
        // A client that goes away must end the server, not kill it with SIGPIPE mid-write.
        signal(SIGPIPE, SIG_IGN)
        let environment = try CommandEnvironment(options: globals)
        let portal = try environment.catalog.portal(try environment.portalID())
        let user = try environment.user(for: portal)
        let host = CommandLineRPCHost(environment: environment)
        let server = UniToolMCPServer(host: host, portal: portal, user: user)
        try await server.serve(transport: StdioTransport())
        await host.closeAll()
    }
}
