import Foundation
import OneTimeCode
import Testing

@Suite("TOTP (RFC 6238) and base32")
struct TOTPTests {
    /// RFC 6238, appendix B: the seeds are ASCII "1234567890" repeated to the hash's key size.
    static func seed(_ length: Int) -> [UInt8] { Array(String(repeating: "1234567890", count: 7).utf8.prefix(length)) }

    @Test(
        "the RFC 6238 test vectors, for SHA-1, SHA-256 and SHA-512, 8 digits",
        arguments: [
            (59.0, "94287082", "46119246", "90693936"),
            (1_111_111_109.0, "07081804", "68084774", "25091201"),
            (1_111_111_111.0, "14050471", "67062674", "99943326"),
            (1_234_567_890.0, "89005924", "91819424", "93441116"),
            (2_000_000_000.0, "69279037", "90698825", "38618901"),
            (20_000_000_000.0, "65353130", "77737706", "47863826"),
        ])
    func rfcVectors(time: Double, sha1: String, sha256: String, sha512: String) {
        let date = Date(timeIntervalSince1970: time)
        #expect(TOTP(secret: Self.seed(20), digits: 8, algorithm: .sha1).code(at: date) == sha1)
        #expect(TOTP(secret: Self.seed(32), digits: 8, algorithm: .sha256).code(at: date) == sha256)
        #expect(TOTP(secret: Self.seed(64), digits: 8, algorithm: .sha512).code(at: date) == sha512)
    }

    @Test("the RFC 4226 HOTP vectors, 6 digits, counters 0 to 9")
    func hotpVectors() {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        let totp = TOTP(secret: Self.seed(20))
        #expect((0..<10).map { totp.code(counter: UInt64($0)) } == expected)
    }

    @Test("verify accepts the neighbouring periods within the window, and nothing further")
    func verifyWindow() {
        let totp = TOTP(secret: Self.seed(20))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(totp.verify(totp.code(at: now.addingTimeInterval(-30)), at: now))
        #expect(totp.verify(totp.code(at: now.addingTimeInterval(30)), at: now))
        #expect(!totp.verify(totp.code(at: now.addingTimeInterval(-90)), at: now))
    }

    @Test("base32 decodes what apps print (lower case, spaces, padding) and round-trips")
    func base32() throws {
        #expect(try Base32.decode("JBSWY3DPEHPK3PXP") == Array("Hello!".utf8) + [0xde, 0xad, 0xbe, 0xef])
        #expect(try Base32.decode("jbsw y3dp-ehpk 3pxp") == Base32.decode("JBSWY3DPEHPK3PXP"))
        #expect(try Base32.decode("GEZDGNBV") == Array("12345".utf8))
        #expect(try Base32.decode("GEZDGNBVGY======") == Array("123456".utf8))
        let bytes: [UInt8] = (0..<37).map { UInt8($0 * 7 % 256) }
        #expect(try Base32.decode(Base32.encode(bytes)) == bytes)
        #expect(throws: TOTP.ParseError.notBase32) { try Base32.decode("JBSW1") }
        #expect(throws: TOTP.ParseError.emptySecret) { try Base32.decode("  ") }
    }

    @Test("an otpauth URI keeps digits, period and algorithm; a base32 text gets the defaults")
    func otpauth() throws {
        let uri = try TOTP(
            parsing: "otpauth://totp/Demo%20University:yuki?secret=JBSWY3DPEHPK3PXP&issuer=Demo&digits=8&period=60&algorithm=sha256")
        #expect(uri.digits == 8 && uri.period == 60 && uri.algorithm == .sha256)
        #expect(uri.secret == (try Base32.decode("JBSWY3DPEHPK3PXP")))
        #expect(try TOTP(parsing: uri.uri) == uri, "the stored form reads back the same")
        let plain = try TOTP(parsing: "JBSWY3DPEHPK3PXP\n")
        #expect(plain.digits == 6 && plain.period == 30 && plain.algorithm == .sha1)
        #expect(throws: TOTP.ParseError.self) { try TOTP(parsing: "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1") }
        #expect(throws: TOTP.ParseError.self) { try TOTP(parsing: "otpauth://totp/x?issuer=Demo") }
        #expect(throws: TOTP.ParseError.self) { try TOTP(parsing: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5") }
    }
}
