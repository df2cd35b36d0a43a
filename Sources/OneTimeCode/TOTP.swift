import Foundation
import MessageDigest

/// Time-based one-time codes (RFC 6238, over RFC 4226's HOTP), as authenticator apps make them.
///
/// Its own small target because two sides need exactly the same arithmetic: unitool, which
/// answers a portal's one-time-code page, and the demo university, which checks the answer.
/// Both are held to the RFC's own test vectors.
public struct TOTP: Sendable, Equatable {
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    public var secret: [UInt8]
    public var digits: Int
    public var period: Int
    public var algorithm: Algorithm

    public init(secret: [UInt8], digits: Int = 6, period: Int = 30, algorithm: Algorithm = .sha1) {
        self.secret = secret
        self.digits = digits
        self.period = period
        self.algorithm = algorithm
    }

    /// The code for a moment in time.
    public func code(at date: Date) -> String {
        code(counter: UInt64(max(0, date.timeIntervalSince1970) / Double(period)))
    }

    /// The HOTP value for one counter: dynamic truncation of the HMAC, modulo 10^digits.
    public func code(counter: UInt64) -> String {
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let hash: MessageDigest.Algorithm
        switch algorithm {
        case .sha1: hash = .sha1
        case .sha256: hash = .sha256
        case .sha512: hash = .sha512
        }
        let mac = MessageDigest.hmac(hash, key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus &*= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// True if `code` is the code of `date`, or of up to `window` periods either side, which
    /// allows for clocks that differ a little and for a code typed just before it changed.
    public func verify(_ code: String, at date: Date, window: Int = 1) -> Bool {
        let counter = Int64(max(0, date.timeIntervalSince1970) / Double(period))
        for step in -Int64(window)...Int64(window) where counter + step >= 0 {
            if self.code(counter: UInt64(counter + step)) == code { return true }
        }
        return false
    }
}

extension TOTP {
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notBase32
        case emptySecret
        case notOTPAuth(String)
        case unsupported(String)

        public var description: String {
            switch self {
            case .notBase32: return "the secret is not valid base32 (letters A-Z and digits 2-7)"
            case .emptySecret: return "the secret is empty"
            case .notOTPAuth(let why): return "not an otpauth://totp/ URI: \(why)"
            case .unsupported(let what): return "unsupported: \(what)"
            }
        }
    }

    /// Reads what a user has: a base32 secret (spaces and dashes allowed, as apps print it) or
    /// an `otpauth://totp/Label?secret=...&digits=6&period=30&algorithm=SHA1` URI from a QR code.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.lowercased().hasPrefix("otpauth:") else {
            self.init(secret: try Base32.decode(trimmed))
            return
        }
        guard let components = URLComponents(string: trimmed), components.scheme?.lowercased() == "otpauth" else {
            throw ParseError.notOTPAuth("it cannot be read as a URI")
        }
        guard components.host?.lowercased() == "totp" else {
            throw ParseError.unsupported("'\(components.host ?? "")' codes; only time-based (totp) codes are supported")
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name.lowercased()] = item.value ?? "" }
        guard let secretText = parameters["secret"] else { throw ParseError.notOTPAuth("it has no secret parameter") }
        let secret = try Base32.decode(secretText)
        let digits = Int(parameters["digits"] ?? "6") ?? -1
        guard (6...8).contains(digits) else { throw ParseError.unsupported("digits=\(parameters["digits"] ?? "")") }
        let period = Int(parameters["period"] ?? "30") ?? -1
        guard period > 0 else { throw ParseError.unsupported("period=\(parameters["period"] ?? "")") }
        guard let algorithm = Algorithm(rawValue: (parameters["algorithm"] ?? "SHA1").uppercased()) else {
            throw ParseError.unsupported("algorithm=\(parameters["algorithm"] ?? "")")
        }
        self.init(secret: secret, digits: digits, period: period, algorithm: algorithm)
    }

    /// The form unitool stores in the keyring: an otpauth URI, so that digits, period and
    /// algorithm are kept with the secret.
    public var uri: String {
        "otpauth://totp/unitool?secret=\(Base32.encode(secret))&digits=\(digits)&period=\(period)&algorithm=\(algorithm.rawValue)"
    }
}

/// RFC 4648 base32, the alphabet TOTP secrets are written in.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func decode(_ text: String) throws -> [UInt8] {
        var buffer: UInt32 = 0
        var bits = 0
        var output: [UInt8] = []
        for character in text.uppercased().utf8 {
            if character == UInt8(ascii: " ") || character == UInt8(ascii: "-") || character == UInt8(ascii: "=") { continue }
            guard let index = alphabet.firstIndex(of: character) else { throw TOTP.ParseError.notBase32 }
            buffer = (buffer << 5) | UInt32(index)
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xff))
            }
        }
        guard !output.isEmpty else { throw TOTP.ParseError.emptySecret }
        return output
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1f)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1f)]) }
        return String(decoding: output, as: UTF8.self)
    }
}
