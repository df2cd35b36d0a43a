import Foundation
import Testing
import UniToolKit
import UniToolRPC

/// Findings of issue 17 (section 8) about the JSON layer: ids altered on the way back, a nesting
/// limit that counted scalars, and a Content-Length message cut off without an answer.
@Suite("JSON-RPC: numbers kept exactly, the nesting limit, cut-off messages")
struct JSONExactnessTests {
    @Test(
        "a number comes back byte for byte, whatever its size or spelling",
        arguments: [
            "1", "-7", "0", "-0", "1.5", "1.5e3", "1E3", "1e+3", "2.50", "1000000000000000", "123456789012345678",
            "9007199254740993", "-9223372036854775809", "18446744073709551616", "1e999", "-1e400", "0.1e-400",
            String(repeating: "9", count: 400),
        ])
    func numbersRoundTrip(text: String) throws {
        #expect(try JSONParser.parse(text).serialized == text)
        let id = try JSONParser.parse(#"{"jsonrpc":"2.0","id":\#(text),"method":"x"}"#)
        #expect(id["id"]?.serialized == text)
    }

    @Test("2^53+1 and 2^53 stay two different texts, though a Double cannot tell them apart")
    func beyondDoublePrecision() throws {
        let above = try JSONParser.parse("9007199254740993")
        let exact = try JSONParser.parse("9007199254740992")
        #expect(above.serialized != exact.serialized)
        #expect(above.isNumber && exact.isNumber)
    }

    @Test("ordinary numbers stay plain .number values, so that matching on them keeps working")
    func ordinaryNumbersArePlain() throws {
        guard case .number(let code) = try JSONParser.parse("-32601") else {
            Issue.record("-32601 should parse to .number")
            return
        }
        #expect(code == -32601)
        #expect(try JSONParser.parse("1.5e3") == .number(1500), "equal by value")
        #expect(try JSONParser.parse("1.5e3").typeName == "a number")
    }

    @Test("an id that is a number literal is a usable id, not a bad id type")
    func literalIDsAreIDs() throws {
        let message = try JSONParser.parse(#"{"jsonrpc":"2.0","id":123456789012345678901,"method":"portals.list"}"#)
        guard case .success(let request) = RPCEnvelope.decode(message) else {
            Issue.record("a large integer id was refused")
            return
        }
        #expect(request.id?.serialized == "123456789012345678901")
    }

    static func nested(_ containers: Int, around scalar: String = "1") -> String {
        String(repeating: "[", count: containers) + scalar + String(repeating: "]", count: containers)
    }

    @Test("the nesting limit counts arrays and objects, never the scalar inside them")
    func nestingCountsContainersOnly() throws {
        #expect(JSONParser.maxDepth == 64)
        #expect(try JSONParser.parse(Self.nested(64)).serialized == Self.nested(64))
        #expect(try JSONParser.parse(Self.nested(64, around: "")).serialized == Self.nested(64, around: ""))
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Self.nested(65)) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Self.nested(65, around: "")) }
        let objects = String(repeating: #"{"a":"#, count: 64) + "true" + String(repeating: "}", count: 64)
        #expect(try JSONParser.parse(objects).serialized == objects)
        let tooManyObjects = String(repeating: #"{"a":"#, count: 65) + "true" + String(repeating: "}", count: 65)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(tooManyObjects) }
    }

    @Test("Content-Length framing: a message cut off by the end of input is reported, not dropped")
    func contentLengthCutOff() {
        var body = RPCMessageReader(framing: .contentLength, maxMessageBytes: 100)
        #expect(body.feed(Array("Content-Length: 40\r\n\r\n{\"jsonrpc\":".utf8)) == [])
        #expect(body.finish() == [.truncated("the input ended inside a message (11 of the 40 bytes its header announced)")])
        #expect(body.finish() == [], "the reader starts over after the end")

        var header = RPCMessageReader(framing: .contentLength, maxMessageBytes: 100)
        #expect(header.feed(Array("Content-Len".utf8)) == [])
        #expect(header.finish() == [.truncated("the input ended inside a message (its header was not complete)")])

        var whitespace = RPCMessageReader(framing: .contentLength, maxMessageBytes: 100)
        #expect(whitespace.feed(Array("Content-Length: 2\r\n\r\n{}\r\n".utf8)) == [.message(Array("{}".utf8))])
        #expect(whitespace.finish() == [], "white space after the last message is not a message")
    }

    @Test("newline framing: an oversized last line cut off by the end of input is still answered")
    func newlineOversizedAtEnd() {
        var reader = RPCMessageReader(framing: .newline, maxMessageBytes: 10)
        #expect(reader.feed(Array(String(repeating: "x", count: 25).utf8)) == [])
        #expect(reader.finish() == [.tooLarge(25)])
    }

    @Test("initialize's limits: the message size in force, the nesting limit, the unread limit when there is one")
    func limitsAsCapabilities() {
        let limits = RPCLimits(maxMessageBytes: 1000, maxUnreadBytes: 5000)
        #expect(JSONValue.object(limits.capabilities).serialized == #"{"maxMessageBytes":1000,"maxNestingDepth":64,"maxUnreadBytes":5000}"#)
        let unlimited = RPCLimits(maxMessageBytes: 1000, maxUnreadBytes: nil)
        #expect(JSONValue.object(unlimited.capabilities).serialized == #"{"maxMessageBytes":1000,"maxNestingDepth":64}"#)
    }
}
