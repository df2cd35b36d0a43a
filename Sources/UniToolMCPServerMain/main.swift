import ArgumentParser
import Foundation
import MCP
import UniToolHost
import UniToolKit
import UniToolMCP

// `unitool-mcp`, which `unitool mcp` runs in its place: the Model Context Protocol server on
// stdio, over the same host as `unitool rpc` (recipes, keyring, saved sessions, the demo). Its
// options are unitool's global options; `unitool mcp --help` documents them. Failures before
// the protocol starts are reported as every unitool command reports them: two lines on stderr
// and the error's own exit code.
ProcessHardening.apply()
// A client that goes away must end the server, not kill it with SIGPIPE mid-write.
signal(SIGPIPE, SIG_IGN)
let arguments = GlobalOptions.joiningDashedValues(Array(CommandLine.arguments.dropFirst()))
let json = arguments.contains("--json") || arguments.contains("--format=json")
do {
    let globals = try GlobalOptions.parse(arguments)
    let environment = try CommandEnvironment(options: globals)
    let portal = try environment.catalog.portal(try environment.portalID())
    let user = try environment.user(for: portal)
    let host = CommandLineRPCHost(environment: environment)
    let server = UniToolMCPServer(host: host, portal: portal, user: user)
    // unitool's own transport, not the SDK's StdioTransport: linear reading and a 4 MiB limit
    // per message (MCPLineReader says why).
    let transport = MCPStdioTransport()
    do {
        try await server.serve(transport: transport)
    } catch {
        await transport.flush()
        await host.closeAll()
        throw error
    }
    await transport.flush()
    await host.closeAll()
    exit(0)
} catch let error as UniToolError {
    exit(ErrorReporter.report(error, json: json))
} catch {
    exit(ErrorReporter.report(UniToolError(.usage, GlobalOptions.message(for: error), hint: "see 'unitool mcp --help'"), json: json))
}
