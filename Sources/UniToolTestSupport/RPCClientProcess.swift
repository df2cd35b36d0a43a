import Foundation
import UniToolHost
import UniToolKit
import UniToolRPC

/// `unitool rpc` as a subprocess a test talks to, message by message, as a front end would.
public final class RPCClientProcess: @unchecked Sendable {
    /// The child, started with posix_spawn (`ChildProcess.spawn`: Foundation's `Process.run()`
    /// can crash while it lists /proc/self/fd).
    public private(set) var pid: pid_t = 0
    private var status: Int32?
    private let input = Pipe()
    private let condition = NSCondition()
    private var stdoutBuffer = Data()
    private var stderrBuffer = Data()
    private var stdoutClosed = false

    /// Starts `unitool rpc`. Spawning happens on a thread of its own: Foundation's `Process`
    /// may block while it starts, and must never do so on Swift's small cooperative pool.
    /// - Parameter readsOutput: false plays a client that never reads its responses.
    public static func start(command: String = "rpc", arguments: [String] = [], environment: [String: String], readsOutput: Bool = true)
        async throws
        -> RPCClientProcess
    {
        // Writing to a server that has gone must fail the write, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                UniToolProcess.slots.wait()
                defer { UniToolProcess.slots.signal() }
                continuation.resume(
                    with: Result {
                        try RPCClientProcess(command: command, arguments: arguments, environment: environment, readsOutput: readsOutput)
                    })
            }
        }
    }

    private let output = Pipe()

    private init(command: String, arguments: [String], environment: [String: String], readsOutput: Bool) throws {
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        env["NO_COLOR"] = "1"
        let error = Pipe()
        pid = try ChildProcess.spawn(
            UniToolProcess.executable.path, arguments: [command] + arguments, environment: env,
            standardInput: input.fileHandleForReading.fileDescriptor, standardOutput: output.fileHandleForWriting.fileDescriptor,
            standardError: error.fileHandleForWriting.fileDescriptor)
        // The child's ends are the child's: the reader sees the end only once it has exited.
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        try? error.fileHandleForWriting.close()
        Thread.detachNewThread { [self] in
            while readsOutput {
                let data = output.fileHandleForReading.availableData
                condition.lock()
                if data.isEmpty { stdoutClosed = true } else { stdoutBuffer += data }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { break }
            }
        }
        Thread.detachNewThread { [self] in
            while true {
                let data = error.fileHandleForReading.availableData
                if data.isEmpty { break }
                condition.lock()
                stderrBuffer += data
                condition.unlock()
            }
        }
    }

    deinit {
        if isRunning {
            kill(pid, SIGTERM)
            let child = pid
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            }
        }
    }

    /// Whether the child still runs; reaps it, and keeps its exit status, once it has ended.
    private var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        if status != nil { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = UniToolProcess.exitCode(fromWaitStatus: raw)
        return false
    }

    /// Sends bytes as they are: a test may send broken or partial messages on purpose.
    public func sendRaw(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    public func sendLine(_ text: String) { sendRaw(text + "\n") }

    /// Like `sendRaw`, but throws when the server has gone instead of raising SIGPIPE.
    public func sendRawChecked(_ text: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    public func closeInput() { try? input.fileHandleForWriting.close() }

    public var stderr: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: stderrBuffer, as: UTF8.self)
    }

    /// Everything unitool wrote to stdout so far.
    public var stdout: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: stdoutBuffer, as: UTF8.self)
    }

    /// How long a read or the exit is waited for before the test is told it never came: a guard
    /// against a hang, never a measure of speed, so it is long enough for the whole suite's load
    /// on two cores (a first call that starts the demo and logs in took over 30 s there).
    public static let patience: TimeInterval = 120

    /// The next newline-framed message, or nil if none comes within `timeout` seconds.
    public func nextLine(timeout: TimeInterval = RPCClientProcess.patience) async -> JSONValue? {
        await onThread { [self] in
            take(timeout: timeout) { buffer in
                guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
                let line = buffer[buffer.startIndex..<newline]
                return (Data(line), newline + 1 - buffer.startIndex)
            }.flatMap { try? JSONParser.parse(Array($0)) }
        }
    }

    /// The next Content-Length-framed message.
    public func nextFramed(timeout: TimeInterval = RPCClientProcess.patience) async -> JSONValue? {
        await onThread { [self] in
            take(timeout: timeout) { buffer in
                guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
                let header = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                guard let length = header.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                    buffer.distance(from: end.upperBound, to: buffer.endIndex) >= length
                else { return nil }
                let body = buffer[end.upperBound..<(end.upperBound + length)]
                return (Data(body), end.upperBound + length - buffer.startIndex)
            }.flatMap { try? JSONParser.parse(Array($0)) }
        }
    }

    /// Reads messages until the response with this id, keeping the others in `seen`; one seen
    /// already (answered before a response read earlier) is taken from there.
    public func response(id: JSONValue, seen: inout [JSONValue], timeout: TimeInterval = RPCClientProcess.patience) async -> JSONValue? {
        if let index = seen.firstIndex(where: { $0["id"] == id }) { return seen.remove(at: index) }
        while let message = await nextLine(timeout: timeout) {
            if message["id"] == id { return message }
            seen.append(message)
        }
        return nil
    }

    /// Waits for the process to end; nil if it is still running after `timeout`.
    public func waitForExit(timeout: TimeInterval = RPCClientProcess.patience) async -> Int32? {
        await onThread { [self] in
            let deadline = Date().addingTimeInterval(timeout)
            while isRunning && Date() < deadline { usleep(20_000) }
            guard !isRunning else { return nil }
            condition.lock()
            defer { condition.unlock() }
            return status
        }
    }

    public func terminate() { if isRunning { kill(pid, SIGTERM) } }

    /// Opens an MCP session as a client does: `initialize` with id 1, its answer awaited (and
    /// returned, nil if none came), then `notifications/initialized`.
    public func initializeMCP(seen: inout [JSONValue]) async -> JSONValue? {
        sendLine(
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#
        )
        let answer = await response(id: .number(1), seen: &seen)
        sendLine(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        return answer
    }

    private func take(timeout: TimeInterval, _ cut: (Data) -> (Data, Int)?) -> Data? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let (message, consumed) = cut(stdoutBuffer) {
                stdoutBuffer.removeFirst(consumed)
                return message
            }
            if stdoutClosed || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Blocking waits run on a thread of their own, never on Swift's cooperative pool, where a
    /// demo university in the test process serves its requests.
    private func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }
}
