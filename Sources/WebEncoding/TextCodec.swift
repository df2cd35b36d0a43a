import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Decoding and encoding in a `WebEncoding`, through glibc's iconv where the standard's
/// encoding is a legacy one. The only code in unitool that touches iconv's pointers.
///
/// Decoding never fails and never stops early: a byte sequence that is not valid in the
/// encoding becomes U+FFFD and decoding goes on with the next byte, as a browser's decoder does
/// in its "replacement" error mode. A page is never cut short.
extension WebEncoding {
    /// What decoding produced: the text as UTF-8 bytes, and how many byte sequences were not
    /// valid in the encoding (each now U+FFFD).
    public struct Decoded: Sendable {
        public var utf8: [UInt8]
        public var errors: Int
    }

    /// Decodes `bytes` (without a byte order mark) into UTF-8.
    public func decode(_ bytes: [UInt8]) -> Decoded {
        switch name {
        case "UTF-8":
            if String(validating: bytes, as: UTF8.self) != nil { return Decoded(utf8: bytes, errors: 0) }
            // Swift replaces the maximal invalid subpart, as the standard's UTF-8 decoder does.
            let text = String(decoding: bytes, as: UTF8.self)
            let replaced = text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
            let literal = zip(bytes, zip(bytes.dropFirst(), bytes.dropFirst(2))).filter { $0 == 0xEF && $1.0 == 0xBF && $1.1 == 0xBD }.count
            return Decoded(utf8: Array(text.utf8), errors: max(replaced - literal, 1))
        case "replacement":
            return Decoded(utf8: bytes.isEmpty ? [] : Array("\u{FFFD}".utf8), errors: bytes.isEmpty ? 0 : 1)
        case "x-user-defined":
            var text = String.UnicodeScalarView()
            for byte in bytes {
                // U+F780 to U+F7FF are in the Private Use Area, valid scalars all.
                text.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(0xF780 + UInt32(byte) - 0x80)!)
            }
            return Decoded(utf8: Array(String(text).utf8), errors: 0)
        default:
            return iconvDecode(bytes)
        }
    }

    /// Encodes one piece of text for a form, as a browser does: a character the encoding
    /// cannot hold becomes the HTML character reference `&#NNNN;` (decimal).
    public func encodeForForm(_ text: String) -> [UInt8] {
        let target = outputEncoding
        guard target != .utf8, let converterName = target.iconvEncoderName,
            let converter = Converter(from: "UTF-8", to: converterName)
        else { return Array(text.utf8) }
        let stateful = target.name == "ISO-2022-JP"
        var output: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar.isASCII, !stateful {
                output.append(UInt8(scalar.value))
            } else if let bytes = converter.convertWhole(Array(String(scalar).utf8)) {
                output += bytes
            } else {
                // Back to ASCII first (ISO-2022-JP's escape), then the reference in ASCII.
                output += converter.finish()
                output += Array("&#\(scalar.value);".utf8)
            }
        }
        return output + converter.finish()
    }

    private func iconvDecode(_ bytes: [UInt8]) -> Decoded {
        guard let converterName = iconvDecoderName, let converter = Converter(from: converterName, to: "UTF-8") else {
            // glibc without this converter: read what is ASCII, mark the rest.
            let text = String(String.UnicodeScalarView(bytes.map { $0 < 0x80 ? Unicode.Scalar($0) : "\u{FFFD}" }))
            return Decoded(utf8: Array(text.utf8), errors: bytes.filter { $0 >= 0x80 }.count)
        }
        return converter.decodeReplacing(bytes, undefinedByteToC1: mapsUndefinedBytesToC1)
    }
}

/// One iconv conversion descriptor.
private final class Converter {
    private let descriptor: iconv_t

    init?(from source: String, to target: String) {
        let descriptor = iconv_open(target, source)
        guard let descriptor, Int(bitPattern: descriptor) != -1 else { return nil }
        self.descriptor = descriptor
    }

    deinit { iconv_close(descriptor) }

    /// Converts all of `input`, replacing each invalid sequence by U+FFFD (or, for the Windows
    /// code pages, an undefined byte by the C1 control of the same number) and going on.
    func decodeReplacing(_ input: [UInt8], undefinedByteToC1: Bool) -> WebEncoding.Decoded {
        var output = [UInt8](repeating: 0, count: max(64, input.count * 3 + 16))
        var produced = 0
        var errors = 0
        var consumed = 0
        let replacement = Array("\u{FFFD}".utf8)
        input.withUnsafeBufferPointer { inputBuffer in
            while consumed < input.count {
                if output.count - produced < 64 { output += [UInt8](repeating: 0, count: output.count) }
                var inLeft = input.count - consumed
                var outLeft = output.count - produced
                let result: Int = output.withUnsafeMutableBufferPointer { outputBuffer in
                    // The buffer is never empty here, so it has an address.
                    var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: inputBuffer.baseAddress! + consumed)
                        .assumingMemoryBound(to: CChar.self)
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outputBuffer.baseAddress! + produced)
                        .assumingMemoryBound(to: CChar.self)
                    return iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                }
                consumed = input.count - inLeft
                produced = output.count - outLeft
                guard result == -1 else { continue }
                switch errno {
                case E2BIG:
                    output += [UInt8](repeating: 0, count: output.count)
                case EILSEQ, EINVAL:
                    // EINVAL: a sequence cut off by the end of the input. Either way one byte is
                    // replaced and the rest is decoded again from the next byte, which keeps an
                    // ASCII byte after a bad lead byte, as the standard's decoders do.
                    let byte = input[consumed]
                    let substitute =
                        undefinedByteToC1 && (0x80...0x9F).contains(byte)
                        ? Array(String(Unicode.Scalar(byte)).utf8) : replacement
                    if output.count - produced < substitute.count { output += [UInt8](repeating: 0, count: output.count) }
                    output.replaceSubrange(produced..<(produced + substitute.count), with: substitute)
                    produced += substitute.count
                    if substitute == replacement { errors += 1 }
                    consumed += 1
                    reset()
                default:
                    errors += 1
                    consumed = input.count
                }
            }
        }
        output.removeSubrange(produced...)
        return WebEncoding.Decoded(utf8: output, errors: errors)
    }

    /// The whole of `input` converted, or nil if any of it cannot be.
    func convertWhole(_ input: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var inLeft = input.count
        var outLeft = output.count
        var input = input
        let result: Int = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                // The buffer is never empty here, so it has an address.
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inputBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outputBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                return iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
            }
        }
        // No reset on failure: a stateful encoder's state must stay as the output left it.
        guard result != -1, inLeft == 0 else { return nil }
        return Array(output[0..<(output.count - outLeft)])
    }

    /// The bytes that return a stateful encoder (ISO-2022-JP) to its initial state.
    func finish() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 16)
        var outLeft = output.count
        output.withUnsafeMutableBufferPointer { outputBuffer in
            // The buffer is never empty here, so it has an address.
            var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outputBuffer.baseAddress!)
                .assumingMemoryBound(to: CChar.self)
            _ = iconv(descriptor, nil, nil, &outPointer, &outLeft)
        }
        return Array(output[0..<(output.count - outLeft)])
    }

    private func reset() { _ = iconv(descriptor, nil, nil, nil, nil) }
}
