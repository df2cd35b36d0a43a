import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on a loopback address of the test's choosing (127.0.0.9, say), that
/// counts every TCP connection made to it and answers each request with what `respond` says.
///
/// It is the far end of an attack: the host a hostile recipe or a redirect tries to reach,
/// where a test checks that nothing arrived, not even a connection. It is also a portal that
/// misbehaves in one exact way (a 307 to elsewhere). Real sockets, so what unitool would send
/// is what would arrive; one thread, one connection at a time, `Connection: close`.
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        public var method: String
        public var target: String
        public var headers: [String: String]
        public var body: Data
    }

    public let host: String
    public private(set) var port: UInt16 = 0
    private let descriptor: Int32
    private let respond: @Sendable (Request) -> Data
    private let lock = NSLock()
    private var connectionCount = 0
    private var received: [Request] = []
    private var stopped = false

    /// The server's address, `http://host:port`.
    public var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    /// Every connection accepted so far, whether or not a request came on it.
    public var connections: Int { lock.withLock { connectionCount } }
    /// Every request read so far.
    public var requests: [Request] { lock.withLock { received } }

    /// A plain 200 with a small page.
    public static let okPage: @Sendable (Request) -> Data = { _ in
        response(status: "200 OK", headers: ["Content-Type": "text/html"], body: "<html><body><p id='x'>stolen</p></body></html>")
    }

    /// A whole HTTP response, with `Content-Length` and `Connection: close`.
    public static func response(status: String, headers: [String: String] = [:], body: String = "") -> Data {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        return Data(text.utf8)
    }

    /// Listens on `host` (an IPv4 loopback address) at a port the system picks.
    public init(host: String = "127.0.0.1", respond: @escaping @Sendable (Request) -> Data = LoopbackHTTPServer.okPage) throws {
        self.host = host
        self.respond = respond
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw POSIXError(.EINVAL) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 32) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Stops listening; a connection made after this is refused by the system.
    public func stop() {
        // Once: a descriptor closed twice may by then be another part of the test's.
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    deinit { stop() }

    private func serve() {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            lock.withLock { connectionCount += 1 }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if let request = Self.read(client) {
                lock.withLock { received.append(request) }
                let answer = respond(request)
                answer.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = send(client, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                        if written <= 0 { break }
                        offset += written
                    }
                }
            }
            close(client)
        }
    }

    /// Reads one request: the head up to the blank line, then `Content-Length` bytes of body.
    private static func read(_ client: Int32) -> Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator = Data("\r\n\r\n".utf8)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            headEnd = data.range(of: separator)
            if data.count > 1 << 20 { return nil }
        }
        let head = String(decoding: data[..<headEnd!.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[headEnd!.upperBound...])
        let length = Int(headers["content-length"] ?? "") ?? 0
        while body.count < length {
            let count = recv(client, &buffer, min(buffer.count, length - body.count), 0)
            guard count > 0 else { break }
            body.append(contentsOf: buffer[0..<count])
        }
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }
}
