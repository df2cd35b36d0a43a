import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Ports and scripts of the interop peers (SimpleSAMLphp, LemonLDAP::NG with the Shibboleth SP,
/// an openssl server): one copy for every suite that starts one.
public enum InteropPeer {
    /// A port on 127.0.0.1 that nobody listens on now, chosen by the system (bound to port 0 and
    /// let go at once).
    public static func unusedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(descriptor, pointer, length) == 0 else { return -1 }
                return getsockname(descriptor, pointer, &length)
            }
        }
        guard bound == 0 else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a peer's script (start or stop) with bash through `system(3)`, which waits for the
    /// script alone: Foundation's `Process` would also wait for the servers the script leaves
    /// running, which inherit the pipes it watches. `discardingErrors` sends its stderr away too.
    public static func runScript(_ script: String, _ arguments: [String], discardingErrors: Bool = false) -> Int32 {
        let quoted = (["/bin/bash", script] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return system(quoted.joined(separator: " ") + " </dev/null >/dev/null" + (discardingErrors ? " 2>&1" : ""))
    }
}
