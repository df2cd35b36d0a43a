import Foundation
import Logging
import Synchronization

/// One call as a method sees it.
public struct RPCRequest: Sendable {
    public var id: JSONValue?
    public var method: String
    /// Always an object (or nil): unitool's methods take named parameters only.
    public var params: JSONValue?
    /// Set when the client asked for progress with `progressToken`: sends `$/progress`.
    public var progress: (@Sendable (String) -> Void)?

    public init(id: JSONValue?, method: String, params: JSONValue?, progress: (@Sendable (String) -> Void)? = nil) {
        self.id = id
        self.method = method
        self.params = params
        self.progress = progress
    }
}

/// The JSON-RPC 2.0 request envelope, checked apart from the server so that it can be fuzzed.
public enum RPCEnvelope {
    /// Why a message is not a request, and the id to answer with (null when it had no usable one).
    public struct Rejection: Error, Sendable, Equatable {
        public var id: JSONValue
        public var error: RPCError
    }

    /// Reads one parsed message as a request, or says why it is not one.
    public static func decode(_ value: JSONValue) -> Result<RPCRequest, Rejection> {
        guard case .object = value else {
            return .failure(Rejection(id: .null, error: .invalidRequest("expected an object, got \(value.typeName)")))
        }
        let id = value["id"]
        var usableID: JSONValue = .null
        if let id {
            switch id {
            case .string, .number, .null: usableID = id
            default:
                return .failure(
                    Rejection(id: .null, error: .invalidRequest("'id' must be a string, a number or null, not \(id.typeName)")))
            }
        }
        guard value["jsonrpc"] == .string("2.0") else {
            return .failure(Rejection(id: usableID, error: .invalidRequest("'jsonrpc' must be \"2.0\"")))
        }
        guard let method = value["method"]?.stringValue else {
            return .failure(Rejection(id: usableID, error: .invalidRequest("'method' must be a string")))
        }
        let params = value["params"]
        if let params {
            switch params {
            case .object, .array: break
            default:
                return .failure(
                    Rejection(
                        id: usableID, error: .invalidRequest("'params' must be an object or an array, not \(params.typeName)")))
            }
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }
}

public typealias RPCMethod = @Sendable (RPCRequest) async throws -> JSONValue

/// Where protocol messages go: stdout in `unitool rpc`, a socket for a plugin.
public protocol RPCOutput: Sendable {
    func send(_ bytes: [UInt8])
}

/// A JSON-RPC 2.0 server over a byte stream.
///
/// Requests run concurrently, each in its own task, and answer in the order they finish.
/// Notifications get no answer. A batch is answered as one array once all its requests are
/// done. `$/cancelRequest` cancels a request in flight; `shutdown` stops new work; `exit` or the
/// end of the input ends the server once the work in flight has answered.
public final class RPCServer: Sendable {
    public static let defaultMaxMessageBytes = 4 * 1024 * 1024

    private let methods: [String: RPCMethod]
    private let output: any RPCOutput
    public let framing: RPCFraming
    public let maxMessageBytes: Int
    private let logger: Logger

    private struct State {
        var inFlight: [String: Task<Void, Never>] = [:]
        var batches: [UUID: Task<Void, Never>] = [:]
        var shuttingDown = false
        var exitRequested = false
    }
    private let state = Mutex(State())

    public init(
        methods: [String: RPCMethod], output: any RPCOutput, framing: RPCFraming = .newline,
        maxMessageBytes: Int = RPCServer.defaultMaxMessageBytes, logger: Logger
    ) {
        self.methods = methods
        self.output = output
        self.framing = framing
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
    }

    /// Serves until `exit` or the end of the input. Returns the process exit code: 0 after a
    /// `shutdown` (or a plain end of input), 1 for `exit` without `shutdown`, as in LSP.
    public func serve(_ input: AsyncStream<[UInt8]>) async -> Int32 {
        var reader = RPCMessageReader(framing: framing, maxMessageBytes: maxMessageBytes)
        for await chunk in input {
            for item in reader.feed(chunk) { receive(item) }
            if state.withLock({ $0.exitRequested }) { break }
        }
        if !state.withLock({ $0.exitRequested }) {
            for item in reader.finish() { receive(item) }
            logger.debug("the input ended; finishing the requests in flight")
        }
        await waitForWorkInFlight()
        return state.withLock { $0.exitRequested && !$0.shuttingDown ? 1 : 0 }
    }

    private func waitForWorkInFlight() async {
        while true {
            let tasks = state.withLock { Array($0.inFlight.values) + Array($0.batches.values) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
            // Every task unregisters itself when done; yield so that none is waited for twice.
            await Task.yield()
        }
    }

    /// Handles one framed item from the stream.
    func receive(_ item: RPCMessageReader.Item) {
        switch item {
        case .tooLarge(let size):
            send(response(id: .null, error: .invalidRequest("the message is \(size) bytes; the limit is \(maxMessageBytes)")))
        case .badHeader(let reason):
            send(response(id: .null, error: .parseError(reason)))
        case .message(let bytes):
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch {
                send(response(id: .null, error: .parseError("\(error)")))
                return
            }
            if case .array(let items) = value {
                receiveBatch(items)
            } else if let request = validate(value, answer: { self.send($0) }) {
                start(request)
            }
        }
    }

    /// Checks the envelope. An invalid one is answered at once (with its id, if it had a usable one).
    private func validate(_ value: JSONValue, answer: (JSONValue) -> Void = { _ in }) -> RPCRequest? {
        switch RPCEnvelope.decode(value) {
        case .failure(let rejection):
            answer(response(id: rejection.id, error: rejection.error))
            return nil
        case .success(var request):
            if let token = request.params?["progressToken"], request.id != nil {
                request.progress = { [weak self] message in
                    self?.notify("$/progress", params: .object([("token", token), ("value", .object([("message", .string(message))]))]))
                }
            }
            return request
        }
    }

    private func start(_ request: RPCRequest) {
        // Control messages act at once, in order, so that `exit` and cancellations are never
        // stuck behind slow work.
        if request.method == "$/cancelRequest" {
            cancel(request.params?["id"])
            return
        }
        if request.method == "exit" {
            state.withLock { $0.exitRequested = true }
            return
        }
        guard let id = request.id else {
            // A notification: nothing to answer. Unknown ones are ignored, as the spec says.
            if let method = methods[request.method], !request.method.hasPrefix("$/") {
                Task { _ = try? await method(request) }
            }
            return
        }
        let key = id.serialized
        // The task is registered under the lock it must take to unregister itself, so a quick
        // request can never finish before it is registered and then stay registered forever.
        state.withLock { locked in
            if locked.inFlight[key] != nil { logger.warning("two requests in flight with the same id \(key)") }
            locked.inFlight[key] = Task { [self] in
                let message = await answer(request)
                _ = state.withLock { $0.inFlight.removeValue(forKey: key) }
                send(message)
            }
        }
    }

    private func receiveBatch(_ items: [JSONValue]) {
        guard !items.isEmpty else {
            send(response(id: .null, error: .invalidRequest("an empty batch")))
            return
        }
        let batchID = UUID()
        state.withLock { $0.batches[batchID] = makeBatchTask(items, batchID: batchID) }
    }

    private func makeBatchTask(_ items: [JSONValue], batchID: UUID) -> Task<Void, Never> {
        Task { [self] in
            let answers = await withTaskGroup(of: (Int, JSONValue?).self) { group in
                for (index, item) in items.enumerated() {
                    var immediate: JSONValue?
                    guard let request = validate(item, answer: { immediate = $0 }) else {
                        let answer = immediate
                        group.addTask { (index, answer) }
                        continue
                    }
                    if request.method == "$/cancelRequest" || request.method == "exit" || request.id == nil {
                        start(request)
                        continue
                    }
                    group.addTask { (index, await self.answer(request)) }
                }
                var results: [(Int, JSONValue)] = []
                for await (index, answer) in group {
                    if let answer { results.append((index, answer)) }
                }
                return results.sorted { $0.0 < $1.0 }.map(\.1)
            }
            _ = state.withLock { $0.batches.removeValue(forKey: batchID) }
            if !answers.isEmpty { sendRaw(JSONValue.array(answers).serialized) }
        }
    }

    private func cancel(_ id: JSONValue?) {
        guard let id else { return }
        let task = state.withLock { $0.inFlight[id.serialized] }
        task?.cancel()
        logger.debug("cancel request \(id.serialized): \(task == nil ? "not in flight" : "cancelled")")
    }

    /// Runs a request and builds its response message.
    private func answer(_ request: RPCRequest) async -> JSONValue {
        let id = request.id ?? .null
        if request.method == "shutdown" {
            state.withLock { $0.shuttingDown = true }
            return response(id: id, result: .null)
        }
        if state.withLock({ $0.shuttingDown }) {
            return response(id: id, error: .shuttingDown)
        }
        guard let method = methods[request.method] else {
            return response(id: id, error: .methodNotFound(request.method))
        }
        do {
            let result = try await method(request)
            if Task.isCancelled { return response(id: id, error: .requestCancelled) }
            return response(id: id, result: result)
        } catch let error as RPCError {
            return response(id: id, error: error)
        } catch let error as UniToolError {
            if Task.isCancelled { return response(id: id, error: .requestCancelled) }
            return response(id: id, error: RPCError(error))
        } catch is CancellationError {
            return response(id: id, error: .requestCancelled)
        } catch {
            if Task.isCancelled { return response(id: id, error: .requestCancelled) }
            logger.error("\(request.method) failed: \(error)")
            return response(id: id, error: .internalError("\(error)"))
        }
    }

    private func response(id: JSONValue, result: JSONValue) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
    }

    private func response(id: JSONValue, error: RPCError) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("error", error.json)])
    }

    /// Sends a notification to the client.
    public func notify(_ method: String, params: JSONValue) {
        send(.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
    }

    private func send(_ message: JSONValue) { sendRaw(message.serialized) }

    private func sendRaw(_ text: String) { output.send(framing.frame(text)) }
}

/// Writes protocol messages to a file descriptor from one serial queue, so that messages never
/// interleave. If the client stops reading and the backlog passes `maxBacklog`, `onStall` is
/// called once: the server cannot usefully go on.
public final class FileDescriptorOutput: RPCOutput, Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "unitool.rpc.output")
    private let backlog = Mutex(0)
    private let maxBacklog: Int
    private let onStall: @Sendable (String) -> Void

    public init(descriptor: Int32, maxBacklog: Int = 64 * 1024 * 1024, onStall: @escaping @Sendable (String) -> Void) {
        self.descriptor = descriptor
        self.maxBacklog = maxBacklog
        self.onStall = onStall
    }

    public func send(_ bytes: [UInt8]) {
        let pending = backlog.withLock { value -> Int in
            value += bytes.count
            return value
        }
        if pending > maxBacklog {
            onStall("the client has not read \(pending) bytes of responses")
            return
        }
        queue.async { [self] in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { buffer in
                    write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                }
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    onStall("cannot write to the client: \(String(cString: strerror(errno)))")
                    break
                }
                offset += written
            }
            backlog.withLock { $0 -= bytes.count }
        }
    }

    /// Waits until everything queued so far is written.
    public func flush() {
        queue.sync {}
    }
}

/// Standard input as a stream of chunks, read on a thread of its own so that a blocked read
/// never holds up the server's tasks.
public enum StandardInputStream {
    public static func make(descriptor: Int32 = STDIN_FILENO) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            let thread = Thread {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 { break }
                    continuation.yield(Array(buffer[..<count]))
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}
