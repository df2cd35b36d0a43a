extension Sequence<UInt8> {
    /// The bytes as lower-case hexadecimal, two digits each: digests in file names, history
    /// snapshots, calendar UIDs. By table: `String(format: "%02x")` per byte cost more than the
    /// SHA-256 it spelled out (found with perf on the JSON-RPC server).
    var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
