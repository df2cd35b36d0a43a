import Foundation
import Testing
import UniToolKit
import UniToolRPC

@Suite("JSON-RPC messages: the JSON parser and the two framings")
struct RPCProtocolTests {
    @Test("JSON text round-trips with key order, escapes, surrogate pairs and numbers as they were written")
    func roundTrip() throws {
        let text = #"{"b":1,"a":[true,false,null,-2.5e3,"x\"\\\/\n\u00e9\ud83c\udf93"],"c":{}}"#
        let value = try JSONParser.parse(text)
        #expect(value["b"] == .number(1))
        #expect(value["a"] == .array([.bool(true), .bool(false), .null, .number(-2500), .string("x\"\\/\né🎓")]))
        #expect(value.serialized == #"{"b":1,"a":[true,false,null,-2.5e3,"x\"\\/\né🎓"],"c":{}}"#)
        #expect(try JSONParser.parse(value.serialized) == value)
    }

    @Test(
        "malformed JSON is refused with the place it went wrong",
        arguments: [
            "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "\"\u{01}\"", "tru", "{\"a\":1}x", "\"\\ud800\"", "[1 2]", "1e",
            "-01", "+1", ".5",
        ])
    func malformed(text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }

    @Test("nesting deeper than the limit is refused instead of exhausting the stack")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(deep) }
        let fine = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(try JSONParser.parse(fine) != .null)
    }

    @Test("invalid UTF-8 inside a string is a parse error, not a crash")
    func invalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test("newline framing: messages split across chunks, CRLF, blank lines and a last line without newline")
    func newlineFraming() {
        var reader = RPCMessageReader(framing: .newline, maxMessageBytes: 100)
        #expect(reader.feed(Array("{\"a\":".utf8)) == [])
        #expect(
            reader.feed(Array("1}\r\n\n  \n{\"b\":2}\n{\"c\"".utf8)) == [
                .message(Array("{\"a\":1}".utf8)), .message(Array("{\"b\":2}".utf8)),
            ])
        #expect(reader.finish() == [.message(Array("{\"c\"".utf8))])
    }

    @Test("an oversized line is skipped, however it arrives, and the next one is read")
    func newlineOversized() {
        var reader = RPCMessageReader(framing: .newline, maxMessageBytes: 10)
        #expect(reader.feed(Array(String(repeating: "x", count: 25).utf8)) == [])
        let items = reader.feed(Array("yyy\n{}\n".utf8))
        #expect(items == [.tooLarge(28), .message(Array("{}".utf8))])
    }

    @Test("content-length framing: split headers and bodies, several messages per chunk, oversized bodies skipped")
    func contentLengthFraming() {
        var reader = RPCMessageReader(framing: .contentLength, maxMessageBytes: 10)
        #expect(reader.feed(Array("Content-Len".utf8)) == [])
        #expect(reader.feed(Array("gth: 2\r\n\r\n{".utf8)) == [])
        #expect(reader.feed(Array("}Content-Length: 12\r\n\r\n0123456789ab".utf8)) == [.message(Array("{}".utf8)), .tooLarge(12)])
        #expect(reader.feed(Array("content-length: 3\r\nContent-Type: application/json\r\n\r\n[1]".utf8)) == [.message(Array("[1]".utf8))])
        #expect(reader.feed(Array("X-Other: 1\r\n\r\n".utf8)) == [.badHeader("missing or invalid Content-Length")])
    }

    @Test("a unitool error becomes code -32000 minus its exit code, with kind, hint and exit code in data")
    func applicationErrors() {
        let error = RPCError(UniToolError(.wrongCredentials, "wrong user name or password", hint: "check it"))
        #expect(error.code == -32010)
        #expect(error.data == .object([("kind", .string("wrong_credentials")), ("hint", .string("check it")), ("exit_code", .number(10))]))
    }
}
