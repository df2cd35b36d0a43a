import CLibGcrypt

/// SHA hashes and HMACs, by libgcrypt: a small library that libsecret uses too, on every Debian
/// system. The only Swift code that calls it; every other module asks here.
///
/// It took the place of swift-crypto, whose own copy of BoringSSL (beside NIOSSL's) made the
/// binary 2.8 MB larger for a few hashes.
public enum MessageDigest {
    public enum Algorithm: Sendable {
        case sha1, sha256, sha512

        var hash: Int32 {
            switch self {
            case .sha1: return Int32(GCRY_MD_SHA1.rawValue)
            case .sha256: return Int32(GCRY_MD_SHA256.rawValue)
            case .sha512: return Int32(GCRY_MD_SHA512.rawValue)
            }
        }

        var mac: Int32 {
            switch self {
            case .sha1: return Int32(GCRY_MAC_HMAC_SHA1.rawValue)
            case .sha256: return Int32(GCRY_MAC_HMAC_SHA256.rawValue)
            case .sha512: return Int32(GCRY_MAC_HMAC_SHA512.rawValue)
            }
        }

        /// The digest's length in bytes.
        public var length: Int {
            switch self {
            case .sha1: return 20
            case .sha256: return 32
            case .sha512: return 64
            }
        }
    }

    /// libgcrypt wants its version checked once before the first call; the check also sets it
    /// up. A `let` of a static is initialised once, thread-safely.
    private static let ready: Bool = {
        _ = gcry_check_version(nil)
        return true
    }()

    /// The SHA-256 of `bytes`.
    public static func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] { hash(.sha256, bytes) }

    /// The hash of `bytes` by `algorithm`.
    public static func hash(_ algorithm: Algorithm, _ bytes: some Sequence<UInt8>) -> [UInt8] {
        precondition(ready)
        let input = Array(bytes)
        var digest = [UInt8](repeating: 0, count: algorithm.length)
        input.withUnsafeBytes { source in
            digest.withUnsafeMutableBytes { target in
                gcry_md_hash_buffer(algorithm.hash, target.baseAddress, source.baseAddress, source.count)
            }
        }
        return digest
    }

    /// The HMAC of `message` under `key`, by `algorithm` (RFC 2104).
    public static func hmac(_ algorithm: Algorithm, key: some Sequence<UInt8>, message: some Sequence<UInt8>) -> [UInt8] {
        precondition(ready)
        let key = Array(key)
        let message = Array(message)
        var handle: gcry_mac_hd_t?
        // Opening fails only for an algorithm libgcrypt was built without, and each of these is
        // in every build of it: that would be a broken installation, not a run-time condition.
        guard gcry_mac_open(&handle, algorithm.mac, 0, nil) == 0, let handle else {
            fatalError("libgcrypt has no HMAC with \(algorithm): the installation is broken")
        }
        defer { gcry_mac_close(handle) }
        var mac = [UInt8](repeating: 0, count: algorithm.length)
        var length = mac.count
        key.withUnsafeBytes { bytes in _ = gcry_mac_setkey(handle, bytes.baseAddress, bytes.count) }
        message.withUnsafeBytes { bytes in _ = gcry_mac_write(handle, bytes.baseAddress, bytes.count) }
        mac.withUnsafeMutableBytes { bytes in _ = gcry_mac_read(handle, bytes.baseAddress, &length) }
        return mac
    }

    /// Whether two MACs are equal, in time that depends only on their lengths.
    public static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
