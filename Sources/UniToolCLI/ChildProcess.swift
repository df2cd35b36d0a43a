import Foundation

/// Starts a program with one extra file descriptor, which Foundation's `Process` cannot hand on.
///
/// This is the only place in unitool that builds C argument vectors: `posix_spawn` needs them,
/// and the plugin's channel on descriptor 3 needs `posix_spawn`.
enum ChildProcess {
    /// A connected pair of Unix sockets: unitool keeps one end, the child gets the other as fd 3.
    final class Channel: @unchecked Sendable {
        let parentEnd: Int32
        let childEnd: Int32
        private var parentClosed = false

        init() throws {
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
        func closeParentEnd() {
            guard !parentClosed else { return }
            parentClosed = true
            shutdown(parentEnd, Int32(SHUT_RDWR))
        }

        deinit {
            close(parentEnd)
        }
    }

    enum UniToolErrorBox: Error, CustomStringConvertible {
        case system(String)
        var description: String {
            switch self {
            case .system(let call): return "\(call) failed: \(String(cString: strerror(errno)))"
            }
        }
    }

    /// Runs `path` with `arguments`, the channel's child end as descriptor 3, and the caller's
    /// stdin, stdout and stderr. Waits for it on a thread of its own and returns its exit code
    /// (128 + the signal number if a signal ended it).
    static func run(_ path: String, arguments: [String], environment: [String: String], channel: Channel) async throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, channel.childEnd, 3)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(channel.childEnd)
        guard result == 0 else {
            errno = result
            throw UniToolErrorBox.system("posix_spawn of \(path)")
        }
        let child = pid
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
