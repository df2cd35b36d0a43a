import CProcessHardening
import Foundation

/// Starts a program with one extra file descriptor, which Foundation's `Process` cannot hand on.
///
/// This is the only place in unitool that builds C argument vectors: `posix_spawn` needs them,
/// and the plugin's channel on descriptor 3 needs `posix_spawn`.
package enum ChildProcess {
    /// A connected pair of Unix sockets: unitool keeps one end, the child gets the other as fd 3.
    package final class Channel: @unchecked Sendable {
        package let parentEnd: Int32
        package let childEnd: Int32
        private var parentClosed = false

        package init() throws {
            var descriptors: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0 else {
                throw UniToolErrorBox.system("socketpair")
            }
            parentEnd = descriptors[0]
            childEnd = descriptors[1]
            // unitool's end must not leak into the child, or the child would never see EOF.
            _ = fcntl(parentEnd, F_SETFD, FD_CLOEXEC)
        }

        /// Ends the conversation: the server's reader sees the end of input.
        package func closeParentEnd() {
            guard !parentClosed else { return }
            parentClosed = true
            shutdown(parentEnd, Int32(SHUT_RDWR))
        }

        deinit {
            close(parentEnd)
        }
    }

    package enum UniToolErrorBox: Error, CustomStringConvertible {
        case system(String)
        package var description: String {
            switch self {
            case .system(let call): return "\(call) failed: \(String(cString: strerror(errno)))"
            }
        }
    }

    /// `posix_spawn` with C copies of the argument vector and environment, freed afterwards.
    private static func spawn(
        _ path: String, arguments: [String], environment: [String: String], actions: inout posix_spawn_file_actions_t,
        attributes: inout posix_spawnattr_t
    ) throws -> pid_t {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            errno = result
            throw UniToolErrorBox.system("posix_spawn of \(path)")
        }
        return pid
    }

    /// Starts `path` with the given descriptors as its stdin, stdout and stderr, every other
    /// descriptor closed, in `currentDirectory` if given, and returns its process id.
    ///
    /// For the tests' process runner: Foundation's `Process.run()` on Linux reads
    /// `/proc/self/fd` with a `dirent` copy that over-reads glibc's buffer
    /// (swift-corelibs-foundation PR 5472, not in Swift 6.3.1), and crashed a suite whose
    /// process held some 1,300 descriptors.
    package static func spawn(
        _ path: String, arguments: [String], environment: [String: String], standardInput: Int32, standardOutput: Int32,
        standardError: Int32, currentDirectory: String? = nil
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        unitool_spawn_close_from(&actions, 3)
        if let currentDirectory { unitool_spawn_chdir(&actions, currentDirectory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        return try spawn(path, arguments: arguments, environment: environment, actions: &actions, attributes: &attributes)
    }

    /// How a `firstLine` run ended.
    package enum Ending: Equatable {
        case exited(Int32)
        case timedOut
        /// It printed more than the cap allows (in its first line or after it), and was stopped.
        case tooLong
    }

    package struct FirstLine {
        package var line: [UInt8]
        package var ending: Ending
    }

    /// Runs `path` in a process group of its own, with stdin from /dev/null and stdout into a
    /// pipe, and returns the first line it prints (without the line break).
    ///
    /// At most `maximumBytes` of output are taken in all, the first line and whatever follows it
    /// while the program ends: once it has printed more, the whole process group is killed at
    /// once (`.tooLong`), so a command that never stops printing, such as `yes`, costs
    /// milliseconds rather than the time limit. Past the deadline the group is killed too. Once
    /// the program has exited, a background child still holding the pipe is not waited for.
    package static func firstLine(
        of path: String, arguments: [String], environment: [String: String], maximumBytes: Int, timeout: Duration
    ) throws -> FirstLine {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw UniToolErrorBox.system("pipe") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        // Nothing else of unitool's is handed on (its D-Bus socket, the pipes of whoever ran
        // it): a background child of the command must not hold them open.
        unitool_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let spawned = Result(catching: {
            try spawn(path, arguments: arguments, environment: environment, actions: &actions, attributes: &attributes)
        })
        close(writeEnd)
        let pid = try spawned.get()
        let deadline = ContinuousClock.now + timeout
        func millisecondsLeft() -> Int32 {
            let left = deadline - ContinuousClock.now
            return left <= .zero
                ? 0 : Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        }
        func killGroup() {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }

        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        // Every byte read from the pipe, the first line's and any after it.
        var received = 0
        func tooLong() -> FirstLine {
            killGroup()
            for index in line.indices { line[index] = 0 }
            return FirstLine(line: [], ending: .tooLong)
        }

        reading: while true {
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, millisecondsLeft())
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                killGroup()
                return FirstLine(line: line, ending: .timedOut)
            }
            // The buffer is never empty here, so it has an address.
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            received += count
            if received > maximumBytes { return tooLong() }
            for byte in buffer[0..<count] {
                if byte == 0x0A || byte == 0x0D {
                    break reading
                }
                line.append(byte)
            }
        }
        // The first line is in; wait for the program itself, not for its background children,
        // and keep draining the pipe meanwhile: a program that goes on printing would otherwise
        // fill it, block, and hold unitool until the time limit.
        var draining = true
        var status: Int32 = 0
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { break }
            if millisecondsLeft() == 0 {
                killGroup()
                return FirstLine(line: line, ending: .timedOut)
            }
            guard draining else {
                usleep(5_000)
                continue
            }
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, min(5, millisecondsLeft())) > 0 else { continue }
            // The buffer is never empty here, so it has an address.
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress!, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            // The end of the pipe (or an error reading it): only the program's exit is left to wait for.
            guard count > 0 else {
                draining = false
                continue
            }
            received += count
            if received > maximumBytes { return tooLong() }
        }
        let exited = status & 0x7F == 0
        return FirstLine(line: line, ending: .exited(exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)))
    }

    /// Runs `path` with `arguments`, the channel's child end as descriptor 3, and the caller's
    /// stdin, stdout and stderr. Waits for it on a thread of its own and returns its exit code
    /// (128 + the signal number if a signal ended it).
    /// With `emptyStandardInput`, the child reads /dev/null instead (stdin held a password).
    package static func run(
        _ path: String, arguments: [String], environment: [String: String], channel: Channel, emptyStandardInput: Bool = false
    ) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if emptyStandardInput { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        posix_spawn_file_actions_adddup2(&actions, channel.childEnd, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let spawned = Result(catching: {
            try spawn(path, arguments: arguments, environment: environment, actions: &actions, attributes: &attributes)
        })
        close(channel.childEnd)
        let child = try spawned.get()
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
                let exited = status & 0x7F == 0
                continuation.resume(returning: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F))
            }
        }
    }
}
