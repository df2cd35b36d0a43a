import CZlib

/// Raw DEFLATE (RFC 1951), as SAML's HTTP-Redirect binding uses for `SAMLRequest`.
enum Deflate {
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard unitool_deflateInit2(&stream, Z_DEFAULT_COMPRESSION, -15) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var input = input
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(produced))
    }

    /// Inflates at most `limit` bytes; a larger or broken input gives nil.
    static func decompress(_ input: [UInt8], limit: Int = 64 * 1024) -> [UInt8]? {
        var stream = z_stream()
        guard unitool_inflateInit2(&stream, -15) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = input
        var output = [UInt8](repeating: 0, count: limit)
        let result: (Int32, Int) = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = inflate(&stream, Z_FINISH)
                return (status, outBuffer.count - Int(stream.avail_out))
            }
        }
        guard result.0 == Z_STREAM_END else { return nil }
        return Array(output.prefix(result.1))
    }
}
