import ArgumentParser
import DemoUniversity
import Foundation
import Logging
import OneTimeCode
import Synchronization
import UniToolHost
import UniToolKit
import UniToolRPC

/// `unitool rpc`: JSON-RPC 2.0 over stdin and stdout, for GUIs, editors and plugins.
struct RPCCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "rpc", abstract: localized("Serve JSON-RPC 2.0 on stdin and stdout, for front ends and plugins."),
        discussion: HelpExamples.discussion(
            localized(
                """
                One JSON message per line by default; --framing content-length uses LSP-style headers. stdout
                carries protocol messages only; logs go to stderr (-v for more). Every method, parameter, result
                and error code is in docs/RPC.md. Try it:
                  echo '{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"portal":"demo","recipe":"grades"}}' | unitool rpc
                """), examples: "rpc"))
    @OptionGroup var globals: GlobalOptions
    @Option(help: ArgumentHelp(localized("newline (one JSON text per line) or content-length (LSP-style headers).")))
    var framing: FramingOption = .init(.newline)
    @Option(help: ArgumentHelp(localized("The largest message accepted, in bytes; larger ones are answered with an error and skipped.")))
    var maxMessageBytes = RPCServer.defaultMaxMessageBytes
    @Option(
        help: ArgumentHelp(localized("If the client leaves this many bytes of responses unread, the server gives up and exits with 75.")))
    var maxUnreadBytes = RPCLimits.defaultMaxUnreadBytes

    struct FramingOption: ExpressibleByArgument {
        let value: RPCFraming
        init(_ value: RPCFraming) { self.value = value }
        init?(argument: String) {
            guard let value = RPCFraming(rawValue: argument) else { return nil }
            self.value = value
        }
        static var allValueStrings: [String] { RPCFraming.allCases.map(\.rawValue) }
        /// The default as help shows it: `newline`, not the type's description.
        var defaultValueDescription: String { value.rawValue }
    }

    func run(_ environment: CommandEnvironment) async throws {
        // Both limits are sizes of buffers: 0, a negative number or Int.max is a mistake, refused here.
        try InputBounds.count(maxMessageBytes, option: "--max-message-bytes", in: InputBounds.messageBytes)
        try InputBounds.count(maxUnreadBytes, option: "--max-unread-bytes", in: InputBounds.unreadBytes)
        // One value for what the server enforces and what `initialize` tells the client.
        let limits = RPCLimits(maxMessageBytes: maxMessageBytes, maxUnreadBytes: maxUnreadBytes)
        let host = CommandLineRPCHost(environment: environment)
        await Self.serveOnStandardIO(
            "rpc", methods: RPCMethods(host: host, limits: limits).table, framing: framing.value, limits: limits, dialect: .unitool,
            host: host, logger: environment.logger)
    }

    /// Serves `methods` on stdin and stdout until the input ends, then exits the process with the
    /// server's code: `unitool rpc` and `unitool mcp` alike. A client that leaves `limits`'
    /// unread bytes unread ends the server with 75, and one that goes away does not kill it with
    /// SIGPIPE mid-write.
    static func serveOnStandardIO(
        _ name: String, methods: [String: RPCMethod], framing: RPCFraming, limits: RPCLimits, dialect: RPCDialect,
        batchRefusal: @escaping @Sendable () -> String? = { nil }, host: CommandLineRPCHost, logger: Logger,
        alongside: (@Sendable (RPCClientLink) async -> Void)? = nil
    ) async -> Never {
        signal(SIGPIPE, SIG_IGN)
        let backlog = limits.maxUnreadBytes ?? RPCLimits.defaultMaxUnreadBytes
        let output = FileDescriptorOutput(descriptor: STDOUT_FILENO, maxBacklog: backlog) { reason in
            logger.error("stopping: \(reason)")
            FileHandle.standardError.write(Data((localized("unitool \(name): stopping: \(reason)") + "\n").utf8))
            Foundation.exit(75)
        }
        let server = RPCServer(
            methods: methods, output: output, framing: framing, maxMessageBytes: limits.maxMessageBytes, dialect: dialect,
            batchRefusal: batchRefusal, logger: logger)
        // serve returns once every accepted request and notification has finished and every
        // answer is written (it flushes the output itself), also when the input ended right after
        // a request, so exiting below loses nothing.
        // Work beside the requests (`alongside`) lives exactly as long as the serving.
        let code = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await server.serve(StandardInputStream.make()) }
            if let alongside {
                group.addTask {
                    await alongside(server.client)
                    return nil
                }
            }
            var code: Int32 = 0
            for await finished in group {
                guard let finished else { continue }
                code = finished
                group.cancelAll()
            }
            return code
        }
        // Sessions are saved after every call, so closing is only tidiness: it may not hold up
        // the exit a client asked for by more than 3 s. Whichever ends first, the process exits.
        await withTaskGroup(of: Bool.self) { closing in
            closing.addTask {
                await host.closeAll()
                return true
            }
            closing.addTask {
                try? await Task.sleep(for: .seconds(3))
                return false
            }
            if await closing.next() == false {
                logger.warning("\(name): closing the connections took more than 3 s; exiting anyway")
            }
            Foundation.exit(code)
        }
        Foundation.exit(code)
    }
}
