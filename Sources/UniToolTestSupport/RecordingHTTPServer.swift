import Foundation
import Synchronization

/// A small HTTP/1.1 server over plain sockets, for tests that must know exactly what reached a
/// server: every request it was sent (method, path, body), how many were in flight at once, and
/// answers a test chooses (a status after a delay, or a connection dropped without an answer).
///
/// Each connection is served on a thread of its own and closed after one answer
/// (`Connection: close`), so that "in flight" means requests the server has read and not yet
/// answered. The accept loop looks every 100 ms whether the server was stopped.
public final class RecordingHTTPServer: Sendable {
    public struct Request: Sendable, Equatable {
        public let method: String
        public let path: String
        public let body: String
        /// The request's headers by lower-case name (the last of a repeated one).
        public var headers: [String: String] = [:]
    }

    public enum Answer: Sendable {
        /// Answers with this status, headers (a redirect's `Location`) and body, after holding the
        /// request for `after`. The body is an HTML page unless `headers` names another type.
        case status(Int, headers: [String: String] = [:], body: String = "", after: Duration = .zero)
        /// Reads the request, then closes the connection without an answer.
        case drop
        /// Writes whatever the test likes, a piece at a time (a body that trickles): `send` writes
        /// one piece and says false once the client has gone or the server was stopped.
        case custom(@Sendable (_ send: (String) -> Bool) -> Void)
        /// Answers 200 with `body` once `count` requests have been in flight at one moment (this
        /// one among them): a test that needs that many at once ends only if they were sent so,
        /// with no clock deciding it.
        case together(Int, body: String)
    }

    /// The address the server listens on (an IPv4 address) and its port.
    public let host: String
    public let port: Int
    private let listener: Int32
    private let answer: @Sendable (Request) -> Answer
    private let state = Mutex(State())

    private struct State {
        var requests: [Request] = []
        var inFlight = 0
        var mostInFlight = 0
        var connections = 0
        var stopped = false
    }

    /// Starts listening on `host` (127.0.0.1 unless a test needs another address) at a port the
    /// system picks; `answer` decides each request's answer.
    public init(host: String = "127.0.0.1", answer: @escaping @Sendable (Request) -> Answer) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure("socket") }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, listen(descriptor, 128) == 0 else {
            close(descriptor)
            throw Self.failure("bind to \(host)")
        }
        self.host = host
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = descriptor
        self.answer = answer
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `http://host:port`.
    public var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    /// `http://host:port` and `path`, as a command line takes an address.
    public func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// A port on 127.0.0.1 where nothing listens, and nothing will: a socket is bound to it and
    /// never listens, so a connection is refused, and no other server of the suite can take the
    /// port meanwhile (a port handed out and given back could be taken before the test uses it).
    /// The socket stays open for the rest of the process.
    public static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw failure("bind to 127.0.0.1")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Every request read so far, in the order they arrived.
    public var requests: [Request] { state.withLock { $0.requests } }
    /// The most requests that were read and not yet answered at one moment.
    public var mostInFlight: Int { state.withLock { $0.mostInFlight } }
    /// How many connections were accepted, whether or not a request followed.
    public var connections: Int { state.withLock { $0.connections } }

    /// Stops accepting connections (within 100 ms); connections being served finish.
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    /// An IPv4 address of this machine that is not loopback (not 127.0.0.0/8), if it has one:
    /// a host that a test can reach without the address counting as "this machine".
    public static func nonLoopbackIPv4Address() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            // IFF_UP is 0x1 and IFF_LOOPBACK 0x8 on Linux.
            let flags = current.pointee.ifa_flags
            guard flags & 0x1 != 0, flags & 0x8 == 0, let address = current.pointee.ifa_addr,
                address.pointee.sa_family == sa_family_t(AF_INET)
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN)) != nil
            }
            let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if converted, !name.hasPrefix("127.") { return name }
        }
        return nil
    }

    private static func failure(_ what: String) -> CocoaError {
        CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what) failed: \(String(cString: strerror(errno)))"])
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !state.withLock({ $0.stopped }) {
            var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            state.withLock { $0.connections += 1 }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        // A client that never finishes its request must not keep the thread forever.
        var limit = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(connection) else { return }
        state.withLock { state in
            state.requests.append(request)
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
        }
        // A request stops being in flight just before its answer leaves: the client can send its
        // next request only after that answer, so the two are never counted at once.
        var chosen = answer(request)
        if case .together(let count, let body) = chosen {
            while state.withLock({ $0.mostInFlight < count && !$0.stopped }) { Thread.sleep(forTimeInterval: 0.005) }
            chosen = .status(200, body: body)
        }
        switch chosen {
        case .together:
            break
        case .drop:
            state.withLock { $0.inFlight -= 1 }
            shutdown(connection, Int32(SHUT_RDWR))
        case .custom(let write):
            state.withLock { $0.inFlight -= 1 }
            write { [self] text in !state.withLock { $0.stopped } && Self.send(Array(text.utf8), to: connection) }
            shutdown(connection, Int32(SHUT_WR))
        case .status(let status, let headers, let body, let delay):
            if delay > .zero {
                Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            }
            state.withLock { $0.inFlight -= 1 }
            let bodyBytes = Array(body.utf8)
            let fields = ["Content-Type": "text/html; charset=utf-8"].merging(headers) { $1 }
            let head =
                "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\n"
                + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
                + "Content-Length: \(bodyBytes.count)\r\nConnection: close\r\n\r\n"
            Self.send(Array(head.utf8) + bodyBytes, to: connection)
            shutdown(connection, Int32(SHUT_WR))
        }
    }

    /// Writes all of `bytes`; false once the other side has gone (no SIGPIPE).
    @discardableResult
    private static func send(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// The request line, the headers up to the empty line, and a body of `Content-Length` bytes.
    private func readRequest(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var bodyLength = 0
        while true {
            if headEnd == nil, let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) {
                headEnd = end + separator.count
                let head = String(decoding: bytes[..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        bodyLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            if let headEnd, bytes.count >= headEnd + bodyLength { break }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
        guard let headEnd else { return nil }
        let requestLine = String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Request(
            method: String(parts[0]), path: String(parts[1]),
            body: String(decoding: bytes[headEnd..<(headEnd + bodyLength)], as: UTF8.self), headers: headers)
    }
}
