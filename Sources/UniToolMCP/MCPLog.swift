import Synchronization
import UniToolKit
import UniToolRPC

/// MCP's `logging`: what the command line writes to stderr while it works (the status line's
/// progress, the notes on what was done for the user, the warnings about the server's own
/// environment) sent to the client as `notifications/message`, from the level the client chose
/// with `logging/setLevel` (warnings until it chooses).
final class MCPLog: Sendable {
    /// RFC 5424's severities, as MCP names them, least severe first.
    enum Level: String, CaseIterable, Comparable, Sendable {
        case debug, info, notice, warning, error, critical, alert, emergency

        static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    private let threshold = Mutex(Level.warning)

    var level: Level { threshold.withLock { $0 } }

    /// `logging/setLevel`: `{level}`, one of MCP's eight names.
    func setLevel(_ request: RPCRequest) throws -> JSONValue {
        guard let name = request.params?["level"]?.stringValue, let level = Level(rawValue: name) else {
            throw RPCError.invalidParams(
                "'level' must be one of \(Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        threshold.withLock { $0 = level }
        return .object([])
    }

    /// Sends `message` at `level` if the client asked for that level or a lower one.
    func send(_ level: Level, _ message: String, to client: RPCClientLink?) {
        guard let client, level >= self.level else { return }
        client.notify(
            "notifications/message",
            params: .object([("level", .string(level.rawValue)), ("logger", .string("unitool")), ("data", .string(message))]))
    }
}
