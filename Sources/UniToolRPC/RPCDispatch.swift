import Foundation
import UniToolKit

/// Where the lifecycle stands: `shutdown` stops new work, `exit` ends the server.
///
/// It is decided in the order messages arrive, never when a task gets round to it, so that a
/// notification sent after `shutdown` can never run, and a request sent before it is never
/// refused.
public struct RPCLifecycle: Sendable, Equatable {
    public private(set) var shutdownRequested = false
    public private(set) var exitRequested = false

    public init() {}

    public mutating func requestShutdown() { shutdownRequested = true }
    public mutating func requestExit() { exitRequested = true }

    /// As in LSP: 0 after `shutdown` or at a plain end of input, 1 for `exit` without `shutdown`.
    public var exitCode: Int32 { exitRequested && !shutdownRequested ? 1 : 0 }
}

/// The protocol spoken over JSON-RPC 2.0: the one core serves unitool's own methods (with LSP's
/// conventions for cancellation, progress and the lifecycle) and the Model Context Protocol,
/// which names these differently and answers a cancelled request not at all.
public struct RPCDialect: Sendable, Equatable {
    /// The notification that cancels a request in flight, and the parameter naming its id.
    public let cancelNotification: String
    public let cancelledIDParameter: String
    /// Whether a cancelled request is answered (LSP's -32800) or not at all (MCP).
    public let answersCancelledRequests: Bool
    /// Whether `shutdown` and `exit` are the protocol's (LSP); MCP ends with the input.
    public let hasLifecycle: Bool
    /// How a request asks for progress, and how progress is sent.
    public let progress: ProgressStyle
    /// The notifications the protocol itself defines: they act at once, in order, so that they
    /// are never stuck behind slow work. Kept, not derived per message: every message asks.
    public let controlNotifications: Set<String>
    /// Whether a request may have `"id": null`: JSON-RPC 2.0 discourages it but allows it; MCP
    /// forbids it (a request's id is a string or a number).
    public let allowsNullID: Bool

    public init(
        cancelNotification: String, cancelledIDParameter: String, answersCancelledRequests: Bool, hasLifecycle: Bool,
        progress: ProgressStyle, allowsNullID: Bool = true
    ) {
        self.cancelNotification = cancelNotification
        self.cancelledIDParameter = cancelledIDParameter
        self.answersCancelledRequests = answersCancelledRequests
        self.hasLifecycle = hasLifecycle
        self.progress = progress
        self.allowsNullID = allowsNullID
        controlNotifications = hasLifecycle ? [cancelNotification, "exit"] : [cancelNotification]
    }

    public enum ProgressStyle: Sendable, Equatable {
        /// `progressToken` among the params; `$/progress` with `{token, value: {message}}`.
        case lsp
        /// `_meta.progressToken`; `notifications/progress` with `{progressToken, progress, message}`,
        /// `progress` rising with each message.
        case mcp
    }

    /// `unitool rpc`: docs/RPC.md.
    public static let unitool = RPCDialect(
        cancelNotification: "$/cancelRequest", cancelledIDParameter: "id", answersCancelledRequests: true, hasLifecycle: true,
        progress: .lsp)
    /// `unitool mcp`: the Model Context Protocol's base protocol.
    public static let mcp = RPCDialect(
        cancelNotification: "notifications/cancelled", cancelledIDParameter: "requestId", answersCancelledRequests: false,
        hasLifecycle: false, progress: .mcp, allowsNullID: false)
}

/// What the server does with one request or notification, decided before any work starts.
/// A pure function of the message and the lifecycle, so that every rule is unit-tested.
public enum RPCRoute: Sendable, Equatable {
    /// `$/cancelRequest`: cancel the request in flight with this id (if any).
    case cancel(JSONValue?)
    /// `exit`: stop reading, finish the work in flight, end.
    case exit
    /// A valid `shutdown`: take no new work from now on; a request is answered with null.
    case shutdown
    /// Run the method (a request answers with its result; a notification runs for its effect).
    case run
    /// Answer this request at once with this error, without running anything.
    case refuse(RPCError)
    /// A notification that will not run; the reason goes to the debug log (there is no one to answer).
    case ignore(String)

    public static func decide(_ request: RPCRequest, lifecycle: RPCLifecycle, dialect: RPCDialect = .unitool) -> RPCRoute {
        let isRequest = request.id != nil
        if request.id == .null, !dialect.allowsNullID {
            return .refuse(.invalidRequest("a request's id must be a string or a number, never null (MCP's base protocol)"))
        }
        if dialect.controlNotifications.contains(request.method) {
            if isRequest {
                // A request must get an answer, and these have none to give: say so, rather
                // than act on a message that is not what the protocol defines.
                return .refuse(
                    .invalidRequest("'\(request.method)' is a notification: send it without an 'id' (it has no answer)"))
            }
            if request.method == "exit" { return .exit }
            return .cancel(request.params?[dialect.cancelledIDParameter])
        }
        guard dialect.hasLifecycle else { return .run }
        if lifecycle.shutdownRequested {
            return isRequest ? .refuse(.shuttingDown) : .ignore("'\(request.method)' arrived after shutdown")
        }
        if request.method == "shutdown" {
            do {
                _ = try Params(request, checking: RPCMethods.schemas)
            } catch let error as RPCError {
                return isRequest ? .refuse(error) : .ignore("'shutdown' with invalid params: \(error.message)")
            } catch {
                return isRequest ? .refuse(.invalidParams("\(error)")) : .ignore("'shutdown': \(error)")
            }
            return .shutdown
        }
        return .run
    }
}

/// The server's bookkeeping of accepted work (requests, notifications and batches), apart from
/// the tasks that do it, so that its decisions are plain values: is this id already in flight,
/// which work does a cancellation reach, is everything done.
///
/// Work is entered when its message is read and leaves only once its answer has been handed to
/// the output, so "idle" really means that nothing more will be written.
public struct RPCWorkLedger: Sendable, Equatable {
    /// One piece of accepted work.
    public typealias Ticket = Int

    public enum Admission: Sendable, Equatable {
        case admitted(Ticket)
        /// A request with the same id is still in flight: two answers with one id could not be
        /// told apart, so the newer request is refused instead.
        case duplicateID
    }

    private var nextTicket: Ticket = 0
    private var open: Set<Ticket> = []
    private var ticketsByID: [String: Ticket] = [:]
    private var idsByTicket: [Ticket: String] = [:]

    public init() {}

    /// The key that identifies an id: its exact JSON text, so `1` and `"1"` are different ids.
    public static func key(for id: JSONValue) -> String { id.serialized }

    /// A request: its id must not belong to another request in flight.
    public mutating func admitRequest(id: JSONValue) -> Admission {
        let key = Self.key(for: id)
        guard ticketsByID[key] == nil else { return .duplicateID }
        let ticket = issue()
        ticketsByID[key] = ticket
        idsByTicket[ticket] = key
        return .admitted(ticket)
    }

    /// A notification or a batch: work without an id of its own, tracked until it completes.
    public mutating func admitWork() -> Ticket { issue() }

    /// The request in flight with this id, for `$/cancelRequest`.
    public func ticket(forID id: JSONValue) -> Ticket? { ticketsByID[Self.key(for: id)] }

    /// The request's answer is about to be written: from now on its id is free, so that a
    /// client that reuses it the moment the answer arrives is not refused. The work stays on the
    /// books until `finish`.
    public mutating func releaseID(of ticket: Ticket) {
        if let key = idsByTicket.removeValue(forKey: ticket) { ticketsByID.removeValue(forKey: key) }
    }

    /// The work is done (and its answer, if any, handed to the output); its id may be used again.
    public mutating func finish(_ ticket: Ticket) {
        open.remove(ticket)
        if let key = idsByTicket.removeValue(forKey: ticket) { ticketsByID.removeValue(forKey: key) }
    }

    public var isIdle: Bool { open.isEmpty }
    public var openCount: Int { open.count }

    private mutating func issue() -> Ticket {
        nextTicket += 1
        open.insert(nextTicket)
        return nextTicket
    }
}

/// What a request that the client cancelled is answered with (pure). A cancel asks to stop work,
/// not to hide what was done: a handler that returned a result answers it, and so does one that
/// failed after its point of no return (`PointOfNoReturn`: an action's form was sent, and the
/// portal may have acted on it). Only a failure that the cancel caused is answered as cancelled
/// (-32800 in unitool's protocol, silence in MCP's), so that a client retries only what was not
/// done.
public enum RPCCancellation {
    /// How the handler ended.
    public enum Ending: Sendable, Equatable {
        /// It returned a result.
        case result
        /// It threw a `CancellationError`: it stopped because it was asked to.
        case cancellationError
        /// It threw anything else.
        case failure
    }

    /// Whether the answer is "cancelled" rather than the handler's own result or error.
    public static func answersCancelled(_ ending: Ending, cancelled: Bool, pastPointOfNoReturn: Bool) -> Bool {
        switch ending {
        case .result: return false
        case .cancellationError: return true
        case .failure: return cancelled && !pastPointOfNoReturn
        }
    }
}
