import DemoUniversity
import Foundation

/// Finds a `unitool demo serve` on its shared port, so that commands use it (its state, its
/// links) instead of a demo of their own that ends with them.
package enum SharedDemo {
    /// The demo's address if one answers on 127.0.0.1:`port` within a few hundred milliseconds:
    /// a GET of its terms API whose answer names the demo's server. Anything else on that port,
    /// or nothing, is nil.
    package static func running(onPort port: Int) -> URL? {
        guard port > 0 else { return nil }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 0, tv_usec: 300_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET /api/terms/version HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while answer.count < 8192 {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        let head = String(decoding: answer, as: UTF8.self).lowercased()
        guard head.hasPrefix("http/1.1 200"), head.contains("\r\nserver: demouniversity\r\n") else { return nil }
        return URL(string: "http://127.0.0.1:\(port)")
    }
}
