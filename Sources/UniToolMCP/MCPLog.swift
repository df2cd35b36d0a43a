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

    static let setLevelSchema = ArgumentSchema(
        properties: [.init("level", .string, allowed: Level.allCases.map(\.rawValue)), .init("_meta", .object)], required: ["level"])

    /// `logging/setLevel`: `{level}`, one of MCP's eight names.
    func setLevel(_ request: RPCRequest) throws -> JSONValue {
        do {
            let given = try Self.setLevelSchema.check(
                MCPToolCatalog.members(request.params).map { ($0.key, $0.value.argument) }, path: { $0 })
            if case .string(let name)? = given["level"], let level = Level(rawValue: name) { threshold.withLock { $0 = level } }
        } catch {
            throw RPCError.invalidParams(error.message)
        }
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
