import Foundation
import Logging
import Synchronization
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A redirect held back for another request's login (`HTTPSession.redirectGate`) leaves the jar
/// as it was: the held response's cookies would replace the login state the login in flight
/// depends on (Authlib keeps OIDC's `state` in the portal's session cookie; issue 49).
@Suite("A held redirect does not touch the cookie jar")
struct HeldRedirectTests {
    /// A portal whose every page sends the browser to the login service with a fresh login state
    /// in a cookie, as an OIDC client does.
    static func portal() throws -> RecordingHTTPServer {
        let counter = Counter()
        return try RecordingHTTPServer { _ in
            let state = counter.next()
            return .status(
                302, headers: ["Location": "http://127.0.0.1:9/authorize?state=\(state)", "Set-Cookie": "login_state=\(state); Path=/"])
        }
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock { count in
                count += 1
                return count
            }
        }
    }

    @Test("held: the page comes back marked, and its cookie is not stored; followed (a refused address): its cookie is")
    func heldLeavesTheJar() async throws {
        let server = try Self.portal()
        defer { server.stop() }
        let session = HTTPSession(logger: Logger(label: "held-redirect"))
        defer { Task { await session.shutdown() } }
        let page = try #require(URL(string: server.url("/grades")))

        let held = try await HTTPSession.$redirectGate.withValue(HTTPSession.RedirectGate { _ in true }) {
            try await session.get(page)
        }
        #expect(held.heldRedirect?.absoluteString == "http://127.0.0.1:9/authorize?state=1")
        #expect(session.cookieJar.header(for: page) == nil, "the held response's cookie went into the jar")

        // Not held: the redirect is followed (to a port nobody listens on), and the response
        // that sent it there has set its cookie, as a browser's would.
        _ = try? await HTTPSession.$redirectGate.withValue(HTTPSession.RedirectGate { _ in false }) {
            try await session.get(page)
        }
        #expect(session.cookieJar.header(for: page) == "login_state=2")
    }
}
