import Foundation
import UniToolHost

/// Runs the real `unitool` executable, as a user or a script would.
public struct UniToolProcess {
    public struct Outcome: Sendable, CustomStringConvertible {
        public let exitCode: Int32
        public let stdout: String
        public let stderr: String
        /// Wall-clock seconds from start to exit, so that a test can tell a clear failure from a hang.
        public var seconds: Double = 0
        public var description: String { "exit \(exitCode)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }
    }

    /// The binary built beside the test bundle, or `UNITOOL_BIN`.
    public static var executable: URL {
        if let explicit = ProcessInfo.processInfo.environment["UNITOOL_BIN"] {
            return URL(fileURLWithPath: explicit)
        }
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the tests run from .build/<triple>/debug/<package>PackageTests.xctest.
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("unitool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return Fixtures.root.appendingPathComponent(".build/debug/unitool")
    }

    /// Runs unitool and waits for it, killing it after `timeout` seconds so that a hang fails the
    /// test instead of stalling the suite.
    public static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        removingEnvironment: [String] = [], timeout: TimeInterval = 60, currentDirectory: URL? = nil
    ) throws -> Outcome {
        // In English unless the test chooses a language: a developer's own LANG=ja_JP.UTF-8 must
        // not turn the texts the tests compare into Japanese.
        let languageVariables = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]
        var removing = removingEnvironment
        var environment = environment
        if !languageVariables.contains(where: { environment[$0] != nil || removingEnvironment.contains($0) }) {
            removing += ["LANGUAGE", "LC_ALL", "LC_MESSAGES"]
            environment["LANG"] = "C.UTF-8"
        }
        return try run(
            executable, arguments, stdin: stdin, environment: environment.merging(["NO_COLOR": "1"]) { $1 },
            removingEnvironment: removing, timeout: timeout, currentDirectory: currentDirectory)
    }

    /// Runs any program the same way (the one process runner of the tests): stdin written and
    /// closed, stdout and stderr read to their ends on threads of their own, killed after
    /// `timeout` seconds.
    public static func run(
        _ program: URL, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        removingEnvironment: [String] = [], timeout: TimeInterval = 60, currentDirectory: URL? = nil
    ) throws -> Outcome {
        let started = Date()
        var env = ProcessInfo.processInfo.environment
        for name in removingEnvironment { env.removeValue(forKey: name) }
        for (name, value) in environment { env[name] = value }
        // Started with posix_spawn, not Foundation's Process: its run() over-reads a buffer while
        // it lists /proc/self/fd (ChildProcess.spawn says more), and crashed the suite.
        ignoreBrokenPipes
        let input = try DescriptorPipe()
        let output = try DescriptorPipe()
        let error = try DescriptorPipe()
        let pid = try ChildProcess.spawn(
            program.path, arguments: arguments, environment: env, standardInput: input.readEnd, standardOutput: output.writeEnd,
            standardError: error.writeEnd, currentDirectory: currentDirectory?.path)
        input.closeRead()
        output.closeWrite()
        error.closeWrite()

        let deadline = DispatchTime.now() + timeout
        let group = DispatchGroup()
        let stdoutData = ReadBuffer()
        let stderrData = ReadBuffer()
        // Threads of their own, not dispatch's pool: when many tests block in it at once,
        // dispatch adds threads only slowly, and every read would wait its turn.
        for (pipe, buffer) in [(output, stdoutData), (error, stderrData)] {
            group.enter()
            Thread.detachNewThread {
                buffer.readToEnd(pipe.readEnd)
                pipe.closeRead()
                group.leave()
            }
        }
        if let stdin { input.writeAll(Array(stdin.utf8)) }
        input.closeWrite()
        if group.wait(timeout: deadline) == .timedOut {
            // What the process was doing, so that a hang seen once in CI can be told apart:
            // still running (and where it waits), or gone while another process holds its pipes.
            let state = ProcessState.describe(pid)
            kill(pid, SIGTERM)
            _ = exitStatus(of: pid, timeout: 5)
            var outcome = Outcome(
                exitCode: -1, stdout: stdoutData.text,
                stderr: "\(program.lastPathComponent) did not finish within \(timeout) s and was killed (\(state))\n\(stderrData.text)")
            outcome.seconds = Date().timeIntervalSince(started)
            return outcome
        }
        let status = exitStatus(of: pid, timeout: timeout)
        var outcome = Outcome(exitCode: status, stdout: stdoutData.text, stderr: stderrData.text)
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    /// What `waitpid` said, as tests compare it: the exit status, or the signal that ended it.
    static func exitCode(fromWaitStatus status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : signal
    }

    /// A write to a child that has gone is an error to ignore, never the SIGPIPE that would end
    /// the whole test process.
    static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Waits for the child `pid` to end and gives its exit status (the signal, for a killed one);
    /// after `timeout` seconds it is killed.
    public static func exitStatus(of pid: pid_t, timeout: TimeInterval = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        var killed = false
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                return exitCode(fromWaitStatus: status)
            }
            if result < 0 && errno != EINTR { return -1 }
            if !killed, Date() > deadline {
                kill(pid, SIGKILL)
                killed = true
            }
            usleep(5_000)
        }
    }

    /// Waits for `process` to end and gives its `terminationStatus` (the signal, for a killed one),
    /// without trusting Foundation alone to notice the end: Foundation learns of it from SIGCHLD,
    /// and a library in the test process that takes SIGCHLD for itself leaves `waitUntilExit`
    /// spinning forever on a child that is long a zombie (seen once in CI, which then hung).
    /// The child is reaped here when Foundation has not; after `timeout` seconds it is killed.
    public static func exitStatus(of process: Process, timeout: TimeInterval = 60) -> Int32 {
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(timeout)
        var killed = false
        while true {
            if !process.isRunning { return process.terminationStatus }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                return exitCode(fromWaitStatus: status)
            }
            if !killed, Date() > deadline {
                kill(pid, SIGKILL)
                killed = true
            }
            usleep(5_000)
        }
    }

    /// How many unitool processes async tests may run at once. Without a cap, every test of the
    /// suite starts its process at the same moment, and on a small machine they starve each other
    /// (and the demo servers in the test process) into timeouts.
    public static let slots = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount * 2))

    /// `run`, for async tests: it waits on a thread of its own, so that the test never blocks one of
    /// the few threads of Swift's cooperative pool, on which a demo university started by the
    /// same test serves its requests.
    public static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        removingEnvironment: [String] = [], timeout: TimeInterval = 60, currentDirectory: URL? = nil
    ) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                slots.wait()
                defer { slots.signal() }
                continuation.resume(
                    with: Result {
                        try run(
                            arguments, stdin: stdin, environment: environment, removingEnvironment: removingEnvironment,
                            timeout: timeout, currentDirectory: currentDirectory) as Outcome
                    })
            }
        }
    }

    /// `run` of any program, for async tests, on a thread of its own for the same reason.
    public static func run(
        _ program: URL, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        removingEnvironment: [String] = [], timeout: TimeInterval = 60, currentDirectory: URL? = nil
    ) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try run(
                            program, arguments, stdin: stdin, environment: environment, removingEnvironment: removingEnvironment,
                            timeout: timeout, currentDirectory: currentDirectory) as Outcome
                    })
            }
        }
    }
}

/// What a reader thread has read of one pipe so far, so that a run killed at its time limit still
/// reports the output it had.
final class ReadBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func readToEnd(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            lock.withLock { data.append(contentsOf: chunk[0..<count]) }
        }
    }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// A pipe of two descriptors, both close-on-exec (the child gets its end by `dup2`), each closed
/// once.
final class DescriptorPipe: @unchecked Sendable {
    let readEnd: Int32
    let writeEnd: Int32
    private let closed = NSLock()
    private var readClosed = false
    private var writeClosed = false

    init() throws {
        var ends: [Int32] = [-1, -1]
        // (pipe2 is not visible to Swift here; every child closes all descriptors above stderr anyway.)
        guard pipe(&ends) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "pipe: \(String(cString: strerror(errno)))"])
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
    }

    func writeAll(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    func closeRead() {
        closed.withLock {
            if !readClosed { close(readEnd) }
            readClosed = true
        }
    }

    func closeWrite() {
        closed.withLock {
            if !writeClosed { close(writeEnd) }
            writeClosed = true
        }
    }

    deinit {
        closeRead()
        closeWrite()
    }
}

/// The kernel's word on a process, from /proc: its state and the call it sleeps in.
enum ProcessState {
    static func describe(_ pid: Int32) -> String {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let state = status.split(separator: "\n").first(where: { $0.hasPrefix("State:") }) else {
            return "process \(pid) had already exited; another process held its output open"
        }
        let wchan = (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) ?? "?"
        return "process \(pid) \(state.replacingOccurrences(of: "\t", with: " ")), waiting in \(wchan.isEmpty ? "-" : wchan)"
    }
}
