import Foundation
import Logging
import Synchronization
import UniToolKit

/// One call as a method sees it.
public struct RPCRequest: Sendable {
    public var id: JSONValue?
    public var method: String
    /// Always an object (or nil): unitool's methods take named parameters only.
    public var params: JSONValue?
    /// Set when the client asked for progress with `progressToken`: sends `$/progress`.
    public var progress: (@Sendable (String) -> Void)?
    /// The client on the other end of the stream, for a method that needs to ask it something
    /// (MCP's `elicitation/create`) or tell it something (a list that changed). Nil outside a server.
    public var client: RPCClientLink?

    public init(
        id: JSONValue?, method: String, params: JSONValue?, progress: (@Sendable (String) -> Void)? = nil, client: RPCClientLink? = nil
    ) {
        self.id = id
        self.method = method
        self.params = params
        self.progress = progress
        self.client = client
    }
}

/// What a method may send the client besides its answer: a request of the server's own, whose
/// answer it waits for, and a notification.
public struct RPCClientLink: Sendable {
    let server: RPCServer

    /// Sends `method` to the client as a request and returns its result. Throws the client's
    /// error (`RPCClientLink.Failure.answered`), `.clientGone` once the input has ended, or
    /// `CancellationError` when the calling task is cancelled (the question is then dropped).
    public func request(_ method: String, params: JSONValue) async throws -> JSONValue {
        try await server.ask(method, params: params)
    }

    /// Sends a notification, unless the input has ended: the server is finishing, and nothing
    /// may follow its last answers.
    public func notify(_ method: String, params: JSONValue) {
        guard !server.inputEnded else { return }
        server.notify(method, params: params)
    }

    public enum Failure: Error, Sendable, Equatable {
        /// The client answered with an error.
        case answered(code: Int, message: String)
        /// The input ended before the client answered: nobody is left to answer.
        case clientGone
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
            case .string, .number, .numberLiteral, .null: usableID = id
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
    /// Returns once everything sent so far has been written, so that the server never ends
    /// with an answer still queued.
    func flush()
}

extension RPCOutput {
    /// For outputs that write synchronously in `send`.
    public func flush() {}
}

/// A JSON-RPC 2.0 server over a byte stream.
///
/// Requests run concurrently, each in its own task, and answer in the order they finish.
/// Notifications get no answer, but run to completion like requests. A batch is answered as one
/// array once all its requests are done; its requests are ordinary requests in every other way
/// (ids, cancellation, shutdown). `$/cancelRequest` cancels a request in flight; `shutdown` stops
/// new work; `exit` or the end of the input ends the server once every piece of accepted work has
/// finished and its answer has been written.
public final class RPCServer: Sendable {
    public static let defaultMaxMessageBytes = RPCLimits.defaultMaxMessageBytes

    private let methods: [String: RPCMethod]
    private let output: any RPCOutput
    public let framing: RPCFraming
    public let maxMessageBytes: Int
    private let logger: Logger

    private struct State {
        var lifecycle = RPCLifecycle()
        var ledger = RPCWorkLedger()
        /// The task of each piece of work in the ledger, for cancellation.
        var tasks: [RPCWorkLedger.Ticket: Task<JSONValue?, Never>] = [:]
        /// The language of the connection's messages: the locale its client declared at
        /// `initialize` (LSP's `locale`), else English, whatever the server's own `LANG` says,
        /// since a program reads what it is sent.
        var translation = Translation.english

        /// Starts the work of `ticket` (a request, a notification, a batch's answer), kept by its
        /// ticket. The one unstructured task of the server, by necessity: JSON-RPC and MCP cancel
        /// one request by its id, and a task group cannot cancel one of its children. None
        /// outlives the server: the work ledger keeps each on the books until it has finished,
        /// and `serve` returns only then.
        @discardableResult
        mutating func start(
            _ ticket: RPCWorkLedger.Ticket, _ work: @escaping @Sendable () async -> JSONValue?
        ) -> Task<JSONValue?, Never> {
            let translation = self.translation
            let task = Task { await Translation.$override.withValue(translation) { await work() } }
            tasks[ticket] = task
            return task
        }
        /// Who waits for the ledger to become idle (the end of `serve`).
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// The server's own requests to the client, by id, until their answers come.
        var questions: [String: CheckedContinuation<JSONValue, any Error>] = [:]
        var questionsAsked = 0
        /// Set when the input ends: a question asked then could never be answered.
        var clientGone = false
    }
    private let state = Mutex(State())

    /// The protocol's own conventions (`RPCDialect`): unitool's, or MCP's.
    public let dialect: RPCDialect
    /// Why a batch is refused now, or nil to take it: MCP removed batches in 2025-06-18, so the
    /// answer depends on the version agreed at `initialize`, which only the MCP server knows.
    public let batchRefusal: @Sendable () -> String?

    public init(
        methods: [String: RPCMethod], output: any RPCOutput, framing: RPCFraming = .newline,
        maxMessageBytes: Int = RPCServer.defaultMaxMessageBytes, dialect: RPCDialect = .unitool,
        batchRefusal: @escaping @Sendable () -> String? = { nil }, logger: Logger
    ) {
        self.dialect = dialect
        self.batchRefusal = batchRefusal
        self.methods = methods
        self.output = output
        self.framing = framing
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
    }

    /// Serves until `exit` or the end of the input, then waits until every accepted request and
    /// notification has finished and every answer has been written. Returns the process exit
    /// code: 0 after a `shutdown` (or a plain end of input), 1 for `exit` without `shutdown`, as
    /// in LSP.
    ///
    /// Nothing is written after this returns: a caller may end the process at once.
    public func serve(_ input: AsyncStream<[UInt8]>) async -> Int32 {
        var reader = RPCMessageReader(framing: framing, maxMessageBytes: maxMessageBytes)
        reading: for await chunk in input {
            for item in reader.feed(chunk) {
                // Nothing after `exit` is read, even later in the same chunk.
                if exitRequested { break reading }
                receive(item)
            }
            if exitRequested { break }
        }
        if !exitRequested {
            for item in reader.finish() { receive(item) }
            logger.debug("the input ended; finishing the work in flight")
        }
        // Work waiting for the client's answer to a question would wait forever.
        let unanswered = state.withLock { state in
            state.clientGone = true
            defer { state.questions = [:] }
            return state.questions.values
        }
        for question in unanswered { question.resume(throwing: RPCClientLink.Failure.clientGone) }
        await workFinished()
        output.flush()
        return state.withLock { $0.lifecycle.exitCode }
    }

    private var exitRequested: Bool { state.withLock { $0.lifecycle.exitRequested } }

    /// Returns once the ledger is idle. Waiting on a continuation rather than on a snapshot of
    /// the tasks closes the gap where a task had left the books but not yet written its answer
    /// (the cause of "no answer at all" when the end of input followed a request at once).
    private func workFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idleNow = state.withLock { state -> Bool in
                if state.ledger.isIdle { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idleNow { continuation.resume() }
        }
    }

    /// Takes finished work off the books, after its answer was handed to the output.
    private func finish(_ ticket: RPCWorkLedger.Ticket) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ledger.finish(ticket)
            state.tasks.removeValue(forKey: ticket)
            guard state.ledger.isIdle else { return [] }
            let waiters = state.idleWaiters
            state.idleWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Handles one framed item from the stream.
    func receive(_ item: RPCMessageReader.Item) {
        switch item {
        case .tooLarge(let size):
            // Said on stderr too, which clients log: the answer's null id names no request.
            logger.warning("a message of \(size) bytes was refused; the limit is \(maxMessageBytes) bytes")
            send(response(id: .null, error: .invalidRequest("the message is \(size) bytes; the limit is \(maxMessageBytes)")))
        case .badHeader(let reason), .truncated(let reason):
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
                if let reason = batchRefusal() {
                    send(response(id: .null, error: .invalidRequest(reason)))
                    return
                }
                receiveBatch(items)
            } else {
                switch accept(value, answeredAlone: true) {
                case .nothing, .running: break
                case .answer(let message): send(message)
                }
            }
        }
    }

    /// What accepting one message (alone or in a batch) led to.
    private enum Acceptance: Sendable {
        /// A notification, or a control message: nothing to answer.
        case nothing
        /// An answer decided at once (an invalid request, a refusal, `shutdown`).
        case answer(JSONValue)
        /// A request running in this task; the task returns its answer when it is part of a
        /// batch, and sends it itself (returning nil) when it came alone.
        case running(Task<JSONValue?, Never>)
    }

    /// Checks one message and starts its work. Every decision is taken here, under the lock and
    /// in the order messages arrive: the lifecycle, duplicate ids, registration of the task (so
    /// that a quick task can never finish before it is on the books).
    private func accept(_ value: JSONValue, answeredAlone: Bool) -> Acceptance {
        // An answer to one of the server's own questions: handed to whoever waits, never answered.
        if value["method"] == nil, value["result"] != nil || value["error"] != nil {
            receiveAnswer(value)
            return .nothing
        }
        var decoded: RPCRequest
        switch RPCEnvelope.decode(value) {
        case .failure(let rejection): return .answer(response(id: rejection.id, error: rejection.error))
        case .success(let request): decoded = request
        }
        // Any request may ask for progress; a method that has something to report uses it.
        decoded.progress = progressReporter(for: decoded)
        decoded.client = RPCClientLink(server: self)
        let request = decoded
        let id = request.id ?? .null
        enum Decision: Sendable {
            case acceptance(Acceptance)
            case cancel(Task<JSONValue?, Never>?, JSONValue?)
            case ignored(String)
        }
        // LSP's `locale` at `initialize`: the connection's language from then on. Its catalogs
        // are read here, outside the lock. MCP declares no locale and stays English.
        let declared: Translation? =
            dialect == .unitool && request.method == "initialize"
            ? request.params?["locale"]?.stringValue.map(Translation.forLocale) : nil
        let decision = state.withLock { state -> Decision in
            switch RPCRoute.decide(request, lifecycle: state.lifecycle, dialect: dialect) {
            case .exit:
                state.lifecycle.requestExit()
                return .acceptance(.nothing)
            case .cancel(let target):
                var task: Task<JSONValue?, Never>?
                if let target, let ticket = state.ledger.ticket(forID: target) { task = state.tasks[ticket] }
                return .cancel(task, target)
            case .refuse(let error):
                return .acceptance(.answer(response(id: id, error: error)))
            case .ignore(let reason):
                return .ignored(reason)
            case .shutdown:
                state.lifecycle.requestShutdown()
                return .acceptance(request.id == nil ? .nothing : .answer(response(id: id, result: .null)))
            case .run:
                guard request.id != nil else {
                    // A notification: nothing to answer, but it is work like any other, run to
                    // completion before the server ends. Unknown ones are ignored, as the spec says.
                    guard let method = methods[request.method], !request.method.hasPrefix("$/"),
                        !dialect.controlNotifications.contains(request.method)
                    else {
                        return .ignored("no method '\(request.method)' for a notification")
                    }
                    let ticket = state.ledger.admitWork()
                    let logger = self.logger
                    state.start(ticket) { [self] () -> JSONValue? in
                        do {
                            _ = try await method(request)
                        } catch {
                            logger.debug("notification \(request.method) failed: \(error)")
                        }
                        finish(ticket)
                        return nil
                    }
                    return .acceptance(.nothing)
                }
                if let declared { state.translation = declared }
                switch state.ledger.admitRequest(id: id) {
                case .duplicateID:
                    return .acceptance(
                        .answer(
                            response(
                                id: id,
                                error: .invalidRequest(
                                    "another request with id \(id.serialized) is still in flight; ids must be unique among requests in flight"
                                ))))
                case .admitted(let ticket):
                    let task = state.start(ticket) { [self] () -> JSONValue? in
                        let (message, cancelled) = await answer(request)
                        // MCP answers a cancelled request not at all: the client has given up on
                        // it. A request that did its work despite the cancel is answered.
                        let silent = cancelled && !dialect.answersCancelledRequests
                        guard answeredAlone else {
                            // Part of a batch: the batch sends the answers and stays on the books until then.
                            finish(ticket)
                            return silent ? nil : message
                        }
                        // The id is free before its answer goes out: a client may reuse it at once.
                        self.state.withLock { $0.ledger.releaseID(of: ticket) }
                        if !silent { send(message) }
                        finish(ticket)
                        return nil
                    }
                    return .acceptance(.running(task))
                }
            }
        }
        switch decision {
        case .acceptance(let acceptance):
            return acceptance
        case .cancel(let task, let target):
            task?.cancel()
            logger.debug("cancel request \(target?.serialized ?? "without an id"): \(task == nil ? "not in flight" : "cancelled")")
            return .nothing
        case .ignored(let reason):
            logger.debug("notification ignored: \(reason)")
            return .nothing
        }
    }

    /// A batch: each element is accepted now, in order, exactly as if it had come alone, so that
    /// ids, cancellation and shutdown treat its requests like any others; the answers are sent
    /// together, in request order, once all are done.
    private func receiveBatch(_ items: [JSONValue]) {
        guard !items.isEmpty else {
            send(response(id: .null, error: .invalidRequest("an empty batch")))
            return
        }
        // The batch is on the books before its elements, so that the books are never idle
        // between an element finishing and the batch answer being sent.
        let ticket = state.withLock { $0.ledger.admitWork() }
        var answers: [Acceptance] = []
        for item in items {
            switch accept(item, answeredAlone: false) {
            case .nothing: break
            case let other: answers.append(other)
            }
        }
        // A batch of notifications only gets no answer at all.
        guard !answers.isEmpty else {
            finish(ticket)
            return
        }
        let pending = answers
        // The batch's task answers by itself when it ends; nothing here waits for it.
        _ = state.withLock { state in
            state.start(ticket) { [self] () -> JSONValue? in
                var messages: [JSONValue] = []
                for answer in pending {
                    switch answer {
                    case .nothing: break
                    case .answer(let message): messages.append(message)
                    case .running(let task): if let message = await task.value { messages.append(message) }
                    }
                }
                sendRaw(JSONValue.array(messages).serialized)
                finish(ticket)
                return nil
            }
        }
    }

    /// Runs a request and builds its response message, and says whether that is "cancelled"
    /// (`RPCCancellation`): a handler that returned a result, or failed after its point of no
    /// return, is answered with what it did even when the client cancelled it meanwhile.
    private func answer(_ request: RPCRequest) async -> (message: JSONValue, cancelled: Bool) {
        let id = request.id ?? .null
        guard let method = methods[request.method] else {
            return (response(id: id, error: .methodNotFound(request.method)), false)
        }
        let witness = PointOfNoReturn.Witness()
        func ended(_ ending: RPCCancellation.Ending, _ message: @autoclosure () -> JSONValue) -> (JSONValue, Bool) {
            if RPCCancellation.answersCancelled(ending, cancelled: Task.isCancelled, pastPointOfNoReturn: witness.passed) {
                return (response(id: id, error: .requestCancelled), true)
            }
            return (message(), false)
        }
        do {
            // Each method hands the service `request.interaction`, so that its own progress
            // (login pages, terms read) goes to the same client.
            let result = try await PointOfNoReturn.$witness.withValue(witness) { try await method(request) }
            return ended(.result, response(id: id, result: result))
        } catch let error as RPCError {
            return ended(.failure, response(id: id, error: error))
        } catch let error as UniToolError {
            return ended(.failure, response(id: id, error: RPCError(error)))
        } catch is CancellationError {
            return ended(.cancellationError, response(id: id, error: .requestCancelled))
        } catch {
            if !Task.isCancelled || witness.passed { logger.error("\(request.method) failed: \(error)") }
            return ended(.failure, response(id: id, error: .internalError("\(error)")))
        }
    }

    private func response(id: JSONValue, result: JSONValue) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
    }

    private func response(id: JSONValue, error: RPCError) -> JSONValue {
        .object([("jsonrpc", .string("2.0")), ("id", id), ("error", error.json)])
    }

    /// How a request's work reports progress, if the request asked for it, in the dialect's form.
    private func progressReporter(for request: RPCRequest) -> (@Sendable (String) -> Void)? {
        guard request.id != nil else { return nil }
        switch dialect.progress {
        case .lsp:
            guard let token = request.params?["progressToken"], token.stringValue != nil || token.isNumber else { return nil }
            return { [weak self] message in
                self?.notify("$/progress", params: .object([("token", token), ("value", .object([("message", .string(message))]))]))
            }
        case .mcp:
            guard let token = request.params?["_meta"]?["progressToken"], token.stringValue != nil || token.isNumber else { return nil }
            let step = Atomic<Int>(0)
            return { [weak self] message in
                let progress = step.add(1, ordering: .relaxed).newValue
                self?.notify(
                    "notifications/progress",
                    params: .object([
                        ("progressToken", token), ("progress", .number(Double(progress))), ("message", .string(message)),
                    ]))
            }
        }
    }

    /// Whether the input has ended: no answer can come, and the server is finishing.
    var inputEnded: Bool { state.withLock { $0.clientGone } }

    /// The client on the other end, for work that runs beside the requests (a watch on the history
    /// that tells the client what changed).
    public var client: RPCClientLink { RPCClientLink(server: self) }

    /// Sends a request of the server's own and waits for the client's answer (see `RPCClientLink`).
    func ask(_ method: String, params: JSONValue) async throws -> JSONValue {
        let id = state.withLock { state in
            state.questionsAsked += 1
            return "unitool-\(state.questionsAsked)"
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                let refusal = state.withLock { state -> (any Error)? in
                    if state.clientGone { return RPCClientLink.Failure.clientGone }
                    if Task.isCancelled { return CancellationError() }
                    state.questions[id] = continuation
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                    return
                }
                send(
                    .object([("jsonrpc", .string("2.0")), ("id", .string(id)), ("method", .string(method)), ("params", params)]))
            }
        } onCancel: {
            let waiting = state.withLock { $0.questions.removeValue(forKey: id) }
            waiting?.resume(throwing: CancellationError())
            // The client may be showing the question: tell it the answer is no longer wanted.
            if waiting != nil {
                notify(dialect.cancelNotification, params: .object([(dialect.cancelledIDParameter, .string(id))]))
            }
        }
    }

    /// The client's answer to a question: its result, or its error, to whoever asked.
    private func receiveAnswer(_ value: JSONValue) {
        guard let id = value["id"]?.stringValue, let waiting = state.withLock({ $0.questions.removeValue(forKey: id) }) else {
            logger.debug("an answer to no question of ours was ignored (id \(value["id"]?.serialized ?? "none"))")
            return
        }
        if let result = value["result"] {
            waiting.resume(returning: result)
        } else {
            let error = value["error"]
            waiting.resume(
                throwing: RPCClientLink.Failure.answered(
                    // Whatever number the client sent: one out of Int's range is no reason to stop.
                    code: (error?["code"]?.doubleValue).flatMap { Int(exactly: $0.rounded()) } ?? 0,
                    message: ShownValue.text(error?["message"]?.stringValue ?? "no message")))
        }
    }

    /// Sends a notification to the client.
    public func notify(_ method: String, params: JSONValue) {
        send(.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
    }

    private func send(_ message: JSONValue) { sendRaw(message.serialized) }

    private func sendRaw(_ text: String) { output.send(framing.frame(text)) }
}
