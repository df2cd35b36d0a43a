import Foundation

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
        try run(
            executable, arguments, stdin: stdin, environment: environment.merging(["NO_COLOR": "1"]) { $1 },
            removingEnvironment: removingEnvironment, timeout: timeout, currentDirectory: currentDirectory)
    }

    /// Runs any program the same way (the one process runner of the tests): stdin written and
    /// closed, stdout and stderr read to their ends on threads of their own, killed after
    /// `timeout` seconds.
    public static func run(
        _ program: URL, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
        removingEnvironment: [String] = [], timeout: TimeInterval = 60, currentDirectory: URL? = nil
    ) throws -> Outcome {
        let started = Date()
        let process = Process()
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.executableURL = program
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in removingEnvironment { env.removeValue(forKey: name) }
        for (name, value) in environment { env[name] = value }
        process.environment = env
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()

        let deadline = DispatchTime.now() + timeout
        let group = DispatchGroup()
        nonisolated(unsafe) var stdoutData = Data()
        nonisolated(unsafe) var stderrData = Data()
        // Threads of their own, not dispatch's pool: when many tests block in it at once,
        // dispatch adds threads only slowly, and every read would wait its turn.
        group.enter()
        Thread.detachNewThread {
            stdoutData = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        Thread.detachNewThread {
            stderrData = error.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if group.wait(timeout: deadline) == .timedOut {
            process.terminate()
            _ = exitStatus(of: process, timeout: 5)
            var outcome = Outcome(
                exitCode: -1, stdout: "", stderr: "\(program.lastPathComponent) did not finish within \(timeout) s and was killed")
            outcome.seconds = Date().timeIntervalSince(started)
            return outcome
        }
        let status = exitStatus(of: process, timeout: timeout)
        var outcome = Outcome(
            exitCode: status, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
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
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : signal
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
}
