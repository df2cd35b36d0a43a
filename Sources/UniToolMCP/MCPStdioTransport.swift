import Foundation
import Logging
import MCP
import UniToolRPC

/// Cuts the MCP stdio stream (one JSON-RPC message a line) into messages, in time linear in
/// its length and never holding more than `maxMessageBytes` of one message.
///
/// Why unitool has its own: the SDK's `StdioTransport` searched its whole buffer again after
/// every 4 KB read, with no limit on the buffer, so an 8 MB line cost a minute of CPU and a
/// 64 MB one never ended. Here each byte is looked at once, and a line over the limit is
/// dropped as it arrives (only its length is kept), to be answered with an error. A pure value.
public struct MCPLineReader: Sendable {
    public enum Item: Sendable, Equatable {
        case message([UInt8])
        /// A line over the limit, skipped; its length.
        case tooLarge(Int)
    }

    /// The limit of `unitool rpc` too: 4 MiB, far above any tool call an assistant sends.
    public static let defaultMaxMessageBytes = RPCLimits.defaultMaxMessageBytes

    public let maxMessageBytes: Int
    /// The bytes of the line being read, while it is within the limit.
    private var line: [UInt8] = []
    /// The length of the line being skipped, once it passed the limit.
    private var skipped: Int?

    public init(maxMessageBytes: Int = MCPLineReader.defaultMaxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Adds bytes from the stream and returns the messages they complete.
    public mutating func feed(_ chunk: [UInt8]) -> [Item] {
        var items: [Item] = []
        var start = chunk.startIndex
        while start < chunk.endIndex {
            let newline = chunk[start...].firstIndex(of: 0x0A)
            let piece = chunk[start..<(newline ?? chunk.endIndex)]
            if let count = skipped {
                skipped = count + piece.count
            } else if line.count + piece.count > maxMessageBytes {
                skipped = line.count + piece.count
                line = []
            } else {
                line.append(contentsOf: piece)
            }
            guard let newline else { break }
            if let item = endOfLine() { items.append(item) }
            start = newline + 1
        }
        return items
    }

    /// The end of the stream: a last line without its newline is a message too.
    public mutating func finish() -> [Item] {
        endOfLine().map { [$0] } ?? []
    }

    private mutating func endOfLine() -> Item? {
        defer {
            skipped = nil
            // A big message's buffer is let go; a small one's is kept for the next line.
            if line.capacity > 64 * 1024 { line = [] } else { line.removeAll(keepingCapacity: true) }
        }
        if let count = skipped { return .tooLarge(count) }
        var slice = line[...]
        while let last = slice.last, last == 0x0D || last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        return slice.isEmpty ? nil : .message(Array(slice))
    }

    /// The JSON-RPC answer to a message over the limit: Invalid Request, with a null id since the
    /// message was never read.
    public func refusal(ofLength length: Int) -> String {
        let message =
            "the message is \(length) bytes; unitool mcp reads messages of at most \(maxMessageBytes) bytes (\(maxMessageBytes / (1024 * 1024)) MiB)"
        return #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"\#(message)"}}"#
    }
}

/// The stdio transport of `unitool mcp`, in the SDK's `Transport` terms: messages are read by
/// `MCPLineReader` on a thread of its own (a blocked read never holds up the server's tasks),
/// and written from one serial queue so that they never interleave. A message over the limit is
/// answered with a JSON-RPC error and noted on stderr; the server goes on with the next one.
public actor MCPStdioTransport: Transport {
    public nonisolated let logger: Logger
    private let input: Int32
    private let output: FileDescriptorOutput
    private let maxMessageBytes: Int
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var connected = false

    public init(
        input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, maxMessageBytes: Int = MCPLineReader.defaultMaxMessageBytes,
        logger: Logger = Logger(label: "unitool.mcp.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.input = input
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
        // A client that stops reading while answers pile up cannot be served: stop, and say so.
        self.output = FileDescriptorOutput(descriptor: output) { reason in
            FileHandle.standardError.write(Data("unitool mcp: stopping: \(reason)\n".utf8))
            Foundation.exit(75)
        }
        let (messages, continuation) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
        self.messages = messages
        self.continuation = continuation
    }

    public func connect() async throws {
        guard !connected else { return }
        connected = true
        let (input, output, continuation, limit) = (self.input, self.output, self.continuation, maxMessageBytes)
        let thread = Thread {
            var reader = MCPLineReader(maxMessageBytes: limit)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                // The buffer is never empty here, so it has an address.
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                let items = count > 0 ? reader.feed(Array(buffer[..<count])) : reader.finish()
                for item in items {
                    switch item {
                    case .message(let bytes):
                        continuation.yield(Data(bytes))
                    case .tooLarge(let length):
                        FileHandle.standardError.write(
                            Data("unitool mcp: a message of \(length) bytes was refused; the limit is \(limit) bytes\n".utf8))
                        output.send(Array(reader.refusal(ofLength: length).utf8) + [0x0A])
                    }
                }
                if count <= 0 { break }
            }
            continuation.finish()
        }
        thread.start()
    }

    public func disconnect() async {
        continuation.finish()
        output.flush()
    }

    public func send(_ data: Data) async throws {
        output.send(Array(data) + [0x0A])
    }

    public func receive() -> AsyncThrowingStream<Data, any Error> { messages }

    /// Waits until every message handed to `send` is written, for the end of the process.
    public func flush() { output.flush() }
}
