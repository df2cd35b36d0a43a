import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL
import Testing

@testable import UniToolKit

/// How transport failures are named, and which of them are worth a retry.
@Suite("Transport errors: what the portal sent that unitool does not accept")
struct TransportErrorTests {
    let url = URL(string: "https://portal.example.edu/grades")!

    @Test("headers too large and a decompression bomb are 'more than unitool accepts', a portal error that is not retried")
    func oversizedInput() {
        for error in [HTTPParserError.headerOverflow, HTTPParserError.invalidHeaderToken] as [any Error] {
            let classified = HTTPSession.classify(error, url: url)
            #expect(classified.kind == .portalError, "\(error)")
            #expect(classified.message.contains("more than unitool accepts"), "\(classified.message)")
            // Retries are for .portalUnreachable only: a portal that sends too much sends it again.
            #expect(classified.kind != .portalUnreachable)
        }
    }

    @Test("a cut-off body is still a broken connection, which a GET may retry")
    func cutOffBody() {
        let classified = HTTPSession.classify(HTTPParserError.invalidEOFState, url: url)
        #expect(classified.kind == .portalUnreachable)
        #expect(classified.message.contains("cut short"))
    }

    @Test(
        "each failure is told by its type, and only a broken connection is worth a retry",
        arguments: [
            (HTTPParserError.headerOverflow, TransportFailure.tooMuch, false),
            (NIOHTTPDecompression.DecompressionError.limit, .tooMuch, false),
            (HTTPParserError.invalidEOFState, .cutShort, true),
            (HTTPClientError.bodyLengthMismatch, .cutShort, true),
            (HTTPClientError.remoteConnectionClosed, .closedEarly, true),
            (HTTPClientError.readTimeout, .timedOut, false),
            (HTTPClientError.deadlineExceeded, .timedOut, false),
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), .refused, false),
            (IOError(errnoCode: ECONNRESET, reason: "read"), .broken, true),
            (ChannelError.connectTimeout(.seconds(1)), .timedOut, false),
            (ChannelError.eof, .broken, true),
            (NIOSSLError.handshakeFailed(.sslError([])), .untrustedTLS, false),
            (CancellationError(), .broken, true),
        ] as [(any Error & Sendable, TransportFailure, Bool)])
    func byType(error: any Error & Sendable, failure: TransportFailure, retry: Bool) {
        #expect(TransportFailure.of(error) == failure, "\(error)")
        #expect(failure.isWorthRetry == retry)
        // The user's error follows from the failure, whatever the error's text says.
        let classified = HTTPSession.classified(error, url: url)
        #expect(classified.failure == failure)
        #expect(!classified.error.message.isEmpty && classified.error.hint != nil)
    }

    @Test("a refused connection says so, and is not tried again")
    func refused() {
        let classified = HTTPSession.classify(IOError(errnoCode: ECONNREFUSED, reason: "connect"), url: url)
        #expect(classified.kind == .portalUnreachable && classified.message.contains("refused"))
    }
}
