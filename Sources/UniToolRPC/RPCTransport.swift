import Foundation
import Synchronization
import UniToolKit

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
                    // The buffer is never empty here, so it has an address.
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

    /// Waits until everything queued so far is written (or given up on).
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
                    // The buffer is never empty here, so it has an address.
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
