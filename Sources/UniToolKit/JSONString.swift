/// JSON string literals, for every stage that writes JSON by hand (the renderers, the trace,
/// recipe templates, watch events): one escaping rule everywhere.
public enum JSONString {
    /// A JSON string literal (RFC 8259): what must be escaped, and DEL and the C1 controls
    /// (U+007F–U+009F) too. JSON allows those raw, but a terminal acts on them (U+009B is CSI),
    /// and JSON output is often read on one; `\u009b` reads back as the same character.
    public static func quoted(_ text: String) -> String {
        // Byte by byte over the UTF-8, copying what needs no escape as it is: the scalar-by-scalar
        // first version was a tenth of a JSON-RPC `session.fetch`, whose answer is a whole page.
        var utf8 = text
        return utf8.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 2)
            result.append(UInt8(ascii: "\""))
            let hex = Array("0123456789abcdef".utf8)
            func escaped(_ letter: Unicode.Scalar) {
                result.append(UInt8(ascii: "\\"))
                result.append(UInt8(ascii: letter))
            }
            func escapeCode(_ value: UInt8) {
                escaped("u")
                result.append(UInt8(ascii: "0"))
                result.append(UInt8(ascii: "0"))
                result.append(hex[Int(value >> 4)])
                result.append(hex[Int(value & 0x0F)])
            }
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""): escaped("\"")
                case UInt8(ascii: "\\"): escaped("\\")
                case UInt8(ascii: "\n"): escaped("n")
                case UInt8(ascii: "\r"): escaped("r")
                case UInt8(ascii: "\t"): escaped("t")
                case 0x00..<0x20, 0x7F: escapeCode(byte)
                // U+0080–U+009F, the C1 controls, are 0xC2 0x80–0x9F in UTF-8.
                case 0xC2 where index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]):
                    escapeCode(bytes[index + 1])
                    index += 1
                default: result.append(byte)
                }
                index += 1
            }
            result.append(UInt8(ascii: "\""))
            return String(decoding: result, as: UTF8.self)
        }
    }
}
