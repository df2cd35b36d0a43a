import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Ports and scripts of the interop peers (SimpleSAMLphp, LemonLDAP::NG with the Shibboleth SP,
/// an openssl server): one copy for every suite that starts one.
public enum InteropPeer {
    /// A port on 127.0.0.1 for a server a test starts by number (php -S, starman, Apache,
    /// `unitool demo serve`), free now and out of the way of the system's own choices.
    ///
    /// Why not the system's pick (bind to port 0, let go, hand the number on): until the server
    /// binds it, the same number may go to any connection the system opens meanwhile, since
    /// ports the system picks come from its ephemeral range. Here the port is below that range
    /// (Linux: 32768 and up), which the system never picks by itself, chosen at random, checked
    /// free by binding it, and never handed out twice in this process.
    public static func unusedPort() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if isFree(port) { return port }
        }
        throw CocoaError(.fileWriteUnknown)
    }

    private static let handedOut = Mutex<Set<Int>>([])

    /// Whether a server could bind `port` on 127.0.0.1 now.
    static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs a peer's script (start or stop) with bash through `system(3)`, which waits for the
    /// script alone: Foundation's `Process` would also wait for the servers the script leaves
    /// running, which inherit the pipes it watches. `discardingErrors` sends its stderr away too.
    public static func runScript(_ script: String, _ arguments: [String], discardingErrors: Bool = false) -> Int32 {
        let quoted = (["/bin/bash", script] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return system(quoted.joined(separator: " ") + " </dev/null >/dev/null" + (discardingErrors ? " 2>&1" : ""))
    }
}
