import Foundation
import Localization
import Synchronization

/// Messages on Chromium's `--remote-debugging-pipe`: JSON texts, each ended by a NUL byte.
///
/// A value type with no I/O, so that the framing is tested byte by byte apart from the pipe.
public struct MessageFraming: Sendable {
    /// No message may be longer: a response body is the largest thing the browser sends, and a
    /// page of more than this is no page a recipe reads.
    public static let maximumMessageBytes = 64 << 20

    private var pending: [UInt8] = []
    /// How much of `pending` is known to hold no NUL: a large message arrives in many reads, and
    /// each read looks only at its own bytes, not again at all before it.
    private var scanned = 0

    public init() {}

    /// The bytes of one message as they go on the pipe.
    public static func framed(_ message: Data) -> Data { message + [0] }

    /// Takes bytes as they arrive and returns the messages they complete, in order.
    public mutating func append(_ bytes: some Collection<UInt8>) throws -> [Data] {
        pending.append(contentsOf: bytes)
        var messages: [Data] = []
        var start = 0
        var searchFrom = scanned
        while let end = pending[searchFrom...].firstIndex(of: 0) {
            messages.append(Data(pending[start..<end]))
            start = end + 1
            searchFrom = start
        }
        if start > 0 { pending.removeSubrange(0..<start) }
        scanned = pending.count
        if pending.count > Self.maximumMessageBytes { throw DevToolsError.messageTooLong(pending.count) }
        return messages
    }
}

/// A DevTools protocol event: a method and its parameters, from one target's session (or the
/// browser's, when `sessionID` is nil).
public struct DevToolsEvent: Sendable {
    public var method: String
    public var params: DevToolsValue
    public var sessionID: String?
}

public enum DevToolsError: Error, CustomStringConvertible, Equatable {
    /// The browser answered a command with an error.
    case commandFailed(method: String, message: String)
    /// The browser is gone (closed by the person, or it crashed): no answer will come.
    case closed
    case messageTooLong(Int)

    public var description: String {
        switch self {
        case .commandFailed(let method, let message): return localized("the browser refused \(method): \(message)")
        case .closed: return localized("the browser closed")
        case .messageTooLong(let bytes): return localized("the browser sent a message of over \(bytes) bytes")
        }
    }
}

/// One DevTools conversation over a socket that the browser has as descriptors 3 and 4.
///
/// Commands get increasing ids; each `send` waits for the answer with its id (or its task's
/// cancellation). Everything else the browser says is an event, delivered in order on `events`
/// (one reader). A thread of its own reads the socket, since a blocking read is what a pipe
/// offers; it ends at the browser's end of output, and then every command still waiting fails
/// with `closed`.
///
/// The descriptor is closed exactly once, when both the reader has stopped and `close()` was
/// called, and no write happens after `close()`: a number the kernel gives out again (to a
/// connection to the portal) is never read, written or shut down by mistake.
public final class DevToolsConnection: Sendable {
    private struct State {
        var nextID = 1
        var waiting: [Int: (method: String, answer: CheckedContinuation<DevToolsValue, any Error>)] = [:]
        var closed = false
    }

    /// The descriptor's life: writes and the final close take this lock, the reader's messages
    /// never do (a write blocked on a full socket must not stop the reader that empties it).
    private struct Descriptor {
        var closeAsked = false
        var readerDone = false
    }

    private let descriptor: Int32
    private let state = Mutex(State())
    private let lifetime = Mutex(Descriptor())
    public let events: AsyncStream<DevToolsEvent>
    private let eventSink: AsyncStream<DevToolsEvent>.Continuation

    /// Takes `descriptor` (unitool's end of the socket) and starts reading it.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        (events, eventSink) = AsyncStream.makeStream(of: DevToolsEvent.self, bufferingPolicy: .unbounded)
        let thread = Thread { [self] in readUntilClosed() }
        thread.name = "unitool DevTools reader"
        thread.start()
    }

    /// Sends a command and returns its result. Cancelling the calling task stops the wait
    /// (`CancellationError`); the browser's late answer is then dropped.
    @discardableResult
    public func send(_ method: String, _ params: DevToolsValue = [:], session: String? = nil) async throws -> DevToolsValue {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let registered = state.withLock { state in
                    guard !state.closed, !Task.isCancelled else { return false }
                    state.waiting[id] = (method, continuation)
                    return true
                }
                guard registered else {
                    return continuation.resume(throwing: Task.isCancelled ? CancellationError() : DevToolsError.closed)
                }
                do {
                    try write(Self.message(id: id, method: method, params: params, session: session))
                } catch {
                    if let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) { waiting.answer.resume(throwing: error) }
                }
            }
        } onCancel: {
            if let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) { waiting.answer.resume(throwing: CancellationError()) }
        }
    }

    /// Sends a command whose answer nobody waits for: `Browser.close`, after which the browser
    /// may be gone before it answers.
    public func post(_ method: String, _ params: DevToolsValue = [:]) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try? write(Self.message(id: id, method: method, params: params, session: nil))
    }

    /// A command as it goes on the pipe.
    private static func message(id: Int, method: String, params: DevToolsValue, session: String?) throws -> Data {
        var message: [String: DevToolsValue] = ["id": .number(Double(id)), "method": .string(method), "params": params]
        if let session { message["sessionId"] = .string(session) }
        return MessageFraming.framed(try DevToolsValue.object(message).serialized())
    }

    /// Stops the conversation: the reader sees the end, waiting commands fail with `closed`, and
    /// nothing more is written.
    public func close() {
        lifetime.withLock { lifetime in
            guard !lifetime.closeAsked else { return }
            lifetime.closeAsked = true
            if lifetime.readerDone {
                Foundation.close(descriptor)
            } else {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    private func write(_ data: Data) throws {
        try lifetime.withLock { lifetime in
            guard !lifetime.closeAsked else { throw DevToolsError.closed }
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    // MSG_NOSIGNAL: a browser that died answers EPIPE, not a SIGPIPE that ends unitool.
                    let written = Foundation.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw DevToolsError.closed
                    }
                    offset += written
                }
            }
        }
    }

    private func readUntilClosed() {
        var framing = MessageFraming()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            guard let messages = try? framing.append(buffer[0..<count]) else { break }
            for message in messages {
                guard let value = try? DevToolsValue(json: message) else { continue }
                if let id = value["id"].int {
                    guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { continue }
                    if value["error"].isNull {
                        waiting.answer.resume(returning: value["result"])
                    } else {
                        let message = value["error"]["message"].string ?? localized("an unknown error")
                        waiting.answer.resume(throwing: DevToolsError.commandFailed(method: waiting.method, message: message))
                    }
                } else if let method = value["method"].string {
                    eventSink.yield(DevToolsEvent(method: method, params: value["params"], sessionID: value["sessionId"].string))
                }
            }
        }
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting.values.map(\.answer)
        }
        for continuation in waiting { continuation.resume(throwing: DevToolsError.closed) }
        eventSink.finish()
        lifetime.withLock { lifetime in
            lifetime.readerDone = true
            if lifetime.closeAsked { Foundation.close(descriptor) }
        }
    }

    deinit {
        // A connection dropped without `close()` (its reader is done, or it would hold self).
        lifetime.withLock { lifetime in
            if !lifetime.closeAsked, lifetime.readerDone { Foundation.close(descriptor) }
        }
    }
}
