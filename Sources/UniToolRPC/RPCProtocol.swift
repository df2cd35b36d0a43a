import Foundation
import UniToolKit

/// A JSON-RPC error object: the standard codes, and unitool's own in the server range.
public struct RPCError: Error, Sendable, Equatable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: -32700, message: "parse error: \(detail)", data: .object([("kind", .string("parse_error"))]))
    }

    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: -32600, message: "invalid request: \(detail)", data: .object([("kind", .string("invalid_request"))]))
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(
            code: -32601, message: "method not found: \(method)",
            data: .object([("kind", .string("method_not_found")), ("hint", .string("call 'initialize' to see the methods"))]))
    }

    /// A parameter the caller got wrong: the command line's usage mistake, so `data` carries its
    /// exit code (64) as every unitool error's does, and a hint when there is one.
    public static func invalidParams(_ detail: String, hint: String? = nil) -> RPCError {
        var data: [(key: String, value: JSONValue)] = [("kind", .string("invalid_params"))]
        if let hint { data.append(("hint", .string(hint))) }
        data.append(("exit_code", .number(Double(UniToolError.Kind.usage.exitCode))))
        return RPCError(code: -32602, message: "invalid params: \(detail)", data: .object(data))
    }

    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: -32603, message: "internal error: \(detail)", data: .object([("kind", .string("internal"))]))
    }

    /// As the Language Server Protocol does it: the request was cancelled by `$/cancelRequest`.
    public static let requestCancelled = RPCError(
        code: -32800, message: "request cancelled", data: .object([("kind", .string("request_cancelled"))]))

    /// The server has been asked to shut down, and takes no new work.
    public static let shuttingDown = RPCError(
        code: -32600, message: "invalid request: the server is shutting down", data: .object([("kind", .string("shutting_down"))]))

    /// A unitool failure: code `-32000 - exit code`, and `data` carries the kind, the hint and
    /// the exit code, so a front end can act on the kind rather than parse the message.
    public init(_ error: UniToolError) {
        self.code = error.kind.rpcCode
        self.message = error.message
        var data: [(key: String, value: JSONValue)] = [("kind", .string(error.kind.rawValue))]
        if let hint = error.hint { data.append(("hint", .string(hint))) }
        data.append(("exit_code", .number(Double(error.kind.exitCode))))
        self.data = .object(data)
    }

    public static func == (lhs: RPCError, rhs: RPCError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.data == rhs.data
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("code", .number(Double(code))), ("message", .string(message))]
        if let data { members.append(("data", data)) }
        return .object(members)
    }
}

/// The limits a server enforces, which `initialize` reports so that a client can stay within
/// them instead of finding them by failing.
public struct RPCLimits: Sendable, Equatable {
    /// The largest message read (`--max-message-bytes`); a larger one is answered with -32600.
    public var maxMessageBytes: Int
    /// How many arrays and objects may be nested in a message (`JSONParser.maxDepth`).
    public var maxNestingDepth: Int
    /// Responses the client may leave unread before the server gives up (`--max-unread-bytes`);
    /// nil when the output has no such limit.
    public var maxUnreadBytes: Int?

    public init(
        maxMessageBytes: Int = RPCLimits.defaultMaxMessageBytes, maxNestingDepth: Int = JSONParser.maxDepth,
        maxUnreadBytes: Int? = RPCLimits.defaultMaxUnreadBytes
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxNestingDepth = maxNestingDepth
        self.maxUnreadBytes = maxUnreadBytes
    }

    public static let defaultMaxMessageBytes = 4 * 1024 * 1024
    public static let defaultMaxUnreadBytes = 64 * 1024 * 1024

    /// The limits as `initialize` reports them in `capabilities`.
    public var capabilities: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [
            ("maxMessageBytes", .number(Double(maxMessageBytes))), ("maxNestingDepth", .number(Double(maxNestingDepth))),
        ]
        if let maxUnreadBytes { members.append(("maxUnreadBytes", .number(Double(maxUnreadBytes)))) }
        return members
    }
}

/// How messages are delimited on the stream.
public enum RPCFraming: String, Sendable, CaseIterable {
    /// One JSON text per line (NDJSON). The default: easy from any language and from a shell.
    case newline
    /// `Content-Length: N\r\n\r\n` then N bytes, as the Language Server Protocol frames them.
    case contentLength = "content-length"

    /// A message as bytes on the wire.
    public func frame(_ text: String) -> [UInt8] {
        switch self {
        case .newline: return Array(text.utf8) + [0x0A]
        case .contentLength:
            let body = Array(text.utf8)
            return Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }
    }
}

/// Cuts an incoming byte stream into messages, never holding more than the size limit.
public struct RPCMessageReader: Sendable {
    public enum Item: Sendable, Equatable {
        case message([UInt8])
        /// A message over the limit was skipped; its size as far as it was seen.
        case tooLarge(Int)
        /// The Content-Length header block could not be read.
        case badHeader(String)
        /// The stream ended inside a Content-Length message: its header, or fewer body bytes than
        /// it announced. It is answered with -32700, so that the client learns it was not read.
        case truncated(String)
    }

    public let framing: RPCFraming
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    /// Bytes still to drop from an oversized message (content-length) or until the next newline.
    private var skipping: Int?
    private var skippedSoFar = 0

    public init(framing: RPCFraming, maxMessageBytes: Int) {
        self.framing = framing
        self.maxMessageBytes = maxMessageBytes
    }

    /// Adds bytes from the stream and returns the messages they complete.
    public mutating func feed(_ chunk: [UInt8]) -> [Item] {
        buffer += chunk
        var items: [Item] = []
        switch framing {
        case .newline: readLines(into: &items)
        case .contentLength: readFramed(into: &items)
        }
        return items
    }

    /// The end of the stream. In newline framing, what is left is a last message without its
    /// newline (or the rest of an oversized one); in Content-Length framing, anything but white
    /// space is a message that was cut off.
    public mutating func finish() -> [Item] {
        let rest = buffer
        let wasSkipping = skipping != nil
        let skipped = skippedSoFar
        buffer = []
        skipping = nil
        skippedSoFar = 0
        switch framing {
        case .newline:
            if wasSkipping { return [.tooLarge(skipped + rest.count)] }
            let line = trimmed(rest[...])
            return line.isEmpty ? [] : [.message(Array(line))]
        case .contentLength:
            // An oversized message was answered when its header was read; the rest of it is moot.
            if wasSkipping { return [] }
            guard rest.contains(where: { ![0x20, 0x09, 0x0D, 0x0A].contains($0) }) else { return [] }
            return [.truncated("the input ended inside a message (\(Self.describeCutOff(rest)))")]
        }
    }

    /// What arrived of a cut-off Content-Length message, for the error answer.
    static func describeCutOff(_ rest: [UInt8]) -> String {
        let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        guard let headerEnd = rest.firstRange(of: separator) else { return "its header was not complete" }
        let received = rest.count - headerEnd.upperBound
        let header = String(decoding: rest[..<headerEnd.lowerBound], as: UTF8.self)
        let announced = header.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingWhitespace() }
            return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1]) : nil
        }.last
        return announced.map { "\(received) of the \($0) bytes its header announced" } ?? "\(received) bytes of its body"
    }

    private func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var line = line
        while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line = line.dropLast() }
        while let first = line.first, first == 0x20 || first == 0x09 { line = line.dropFirst() }
        return line
    }

    private mutating func readLines(into items: inout [Item]) {
        while true {
            if skipping != nil {
                // Dropping an oversized line: discard up to and including its newline.
                if let newline = buffer.firstIndex(of: 0x0A) {
                    items.append(.tooLarge(skippedSoFar + newline))
                    buffer.removeSubrange(...newline)
                    skipping = nil
                    skippedSoFar = 0
                    continue
                }
                skippedSoFar += buffer.count
                buffer.removeAll(keepingCapacity: true)
                return
            }
            guard let newline = buffer.firstIndex(of: 0x0A) else {
                if buffer.count > maxMessageBytes {
                    skipping = 0
                    skippedSoFar = buffer.count
                    buffer.removeAll(keepingCapacity: true)
                }
                return
            }
            if newline > maxMessageBytes {
                items.append(.tooLarge(newline))
            } else {
                let line = trimmed(buffer[..<newline])
                if !line.isEmpty { items.append(.message(Array(line))) }
            }
            buffer.removeSubrange(...newline)
        }
    }

    private mutating func readFramed(into items: inout [Item]) {
        while true {
            if let remaining = skipping {
                let dropped = min(remaining, buffer.count)
                buffer.removeFirst(dropped)
                if remaining - dropped > 0 {
                    skipping = remaining - dropped
                    return
                }
                skipping = nil
                continue
            }
            let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
            guard let headerEnd = buffer.firstRange(of: separator) else {
                if buffer.count > 8192 {
                    items.append(.badHeader("no end of headers within 8192 bytes"))
                    buffer.removeAll()
                }
                return
            }
            let header = String(decoding: buffer[..<headerEnd.lowerBound], as: UTF8.self)
            buffer.removeSubrange(..<headerEnd.upperBound)
            var length: Int?
            for line in header.split(separator: "\r\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingWhitespace() }
                if parts.count == 2, parts[0].lowercased() == "content-length" { length = Int(parts[1]) }
            }
            guard let length, length >= 0 else {
                items.append(.badHeader("missing or invalid Content-Length"))
                continue
            }
            if length > maxMessageBytes {
                items.append(.tooLarge(length))
                skipping = length
                continue
            }
            guard buffer.count >= length else {
                // Put the header back until the body is complete.
                buffer.insert(contentsOf: Array("Content-Length: \(length)\r\n\r\n".utf8), at: 0)
                return
            }
            items.append(.message(Array(buffer[..<length])))
            buffer.removeFirst(length)
        }
    }
}
