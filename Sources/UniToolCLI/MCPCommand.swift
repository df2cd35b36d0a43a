import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

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

    /// Replaces this process with `unitool-mcp`, installed beside it, with the same global
    /// options: the MCP SDK and the libraries it brings are loaded only by the server, never by
    /// every other command (see Package.swift).
    func run() async throws {
        let directory = URL(fileURLWithPath: RecipeCatalog.runningExecutable).deletingLastPathComponent()
        let server = directory.appendingPathComponent("unitool-mcp").path
        guard FileManager.default.isExecutableFile(atPath: server) else {
            throw UniToolError(
                .internal, "the MCP server unitool-mcp is not installed beside unitool (looked for \(server))",
                hint: "install it with unitool (Scripts/install.sh and the .deb do); from source: swift build --product unitool-mcp")
        }
        let arguments = [server] + globals.commandLine
        let pointers = arguments.map { strdup($0) } + [nil]
        execv(server, pointers)
        // execv returns only when it failed.
        throw UniToolError(
            .internal, "cannot start \(server): \(String(cString: strerror(errno)))", hint: "check that the file is a working executable")
    }
}
