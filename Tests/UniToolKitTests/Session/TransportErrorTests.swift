import Foundation
import NIOHTTP1
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
}
