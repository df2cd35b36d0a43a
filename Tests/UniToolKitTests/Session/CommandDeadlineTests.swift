import Foundation
import Logging
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// `--timeout` bounds the whole command: the decision on the clock's readings, and the session
/// that obeys it against a real server on loopback that counts what reached it.
@Suite("The command's deadline: every request and retry within --timeout", .timeLimit(.minutes(1)))
struct CommandDeadlineTests {
    static let logger = Logger(label: "deadline")
    let start = ContinuousClock.now

    @Test("a request gets its own limit, or what is left of the command's time when that is less")
    func requestLimit() {
        let deadline = CommandDeadline(seconds: 2, from: start)
        #expect(deadline.requestLimit(.seconds(30), now: start) == (.seconds(2), true))
        #expect(deadline.requestLimit(.seconds(1), now: start) == (.seconds(1), false))
        #expect(deadline.requestLimit(.seconds(30), now: start + .milliseconds(1500)) == (.milliseconds(500), true))
        // Past the end, nothing is left, never a negative time.
        #expect(deadline.requestLimit(.seconds(30), now: start + .seconds(5)) == (.zero, true))
    }

    @Test("a retry is made only if its wait ends before the command's time does")
    func retryInTime() {
        let deadline = CommandDeadline(seconds: 2, from: start)
        #expect(deadline.allows(wait: .milliseconds(250), now: start))
        #expect(!deadline.allows(wait: .seconds(3), now: start))
        #expect(!deadline.allows(wait: .milliseconds(600), now: start + .milliseconds(1500)))
        // A try needs a second of its own: a retry that would start with 0.2 s left is not made.
        #expect(!deadline.allows(wait: .milliseconds(800), now: start + .seconds(1)))
    }

    func session() -> HTTPSession {
        var configuration = HTTPSession.Configuration()
        configuration.retries = 2
        configuration.retryDelay = .milliseconds(20)
        configuration.maxRetryAfter = .seconds(10)
        return HTTPSession(configuration: configuration, logger: Self.logger)
    }

    @Test("a 503 asking to retry after 3 s, under a 1 s deadline, is asked once and stands; without one, it is asked 3 times")
    func retryPastTheDeadlineIsNotMade() async throws {
        let server = try RecordingHTTPServer { _ in .status(503, headers: ["Retry-After": "0"], body: "<h1>busy</h1>") }
        defer { server.stop() }
        let slow = try RecordingHTTPServer { _ in .status(503, headers: ["Retry-After": "3"], body: "<h1>busy</h1>") }
        defer { slow.stop() }
        let session = session()
        await #expect(throws: UniToolError.self) {
            try await HTTPSession.$commandDeadline.withValue(CommandDeadline(seconds: 1)) {
                try await session.get(slow.baseURL.appendingPathComponent("page"))
            }
        }
        // At most the first try (a loaded machine may not even have sent it in a second): never a retry.
        #expect(slow.requests.count <= 1, "the retry 3 s later would end after the deadline: \(slow.requests.count) requests")
        // A retry that fits is still made: Retry-After 0, three tries, within a minute's deadline.
        await #expect(throws: UniToolError.self) {
            try await HTTPSession.$commandDeadline.withValue(CommandDeadline(seconds: 60)) {
                try await session.get(server.baseURL.appendingPathComponent("page"))
            }
        }
        #expect(server.requests.count == 3)
        await session.shutdown()
    }

    @Test("a server that does not answer within the command's time is portal_timeout naming --timeout, not the 30 s request limit")
    func hangingServerEndsAtTheDeadline() async throws {
        // Holds the connection without a byte of answer until the server stops.
        let server = try RecordingHTTPServer { _ in
            .custom { send in
                while send("") { Thread.sleep(forTimeInterval: 0.05) }
            }
        }
        defer { server.stop() }
        let session = session()
        let error = await #expect(throws: UniToolError.self) {
            try await HTTPSession.$commandDeadline.withValue(CommandDeadline(seconds: 1)) {
                try await session.get(server.baseURL.appendingPathComponent("page"))
            }
        }
        #expect(error?.kind == .portalTimeout, "\(String(describing: error))")
        #expect(error?.message.contains("--timeout 1 seconds passed") == true, "\(String(describing: error))")
        #expect(error?.hint?.contains("bounds the whole command") == true, "\(String(describing: error))")
        await session.shutdown()
    }

    @Test("once the command's time is up, no further request is sent")
    func expiredDeadlineSendsNothing() async throws {
        let server = try RecordingHTTPServer { _ in .status(200, body: "ok") }
        defer { server.stop() }
        let session = session()
        let spent = CommandDeadline(seconds: 1, from: .now - .seconds(2))
        let error = await #expect(throws: UniToolError.self) {
            try await HTTPSession.$commandDeadline.withValue(spent) {
                try await session.get(server.baseURL.appendingPathComponent("page"))
            }
        }
        #expect(error?.kind == .portalTimeout, "\(String(describing: error))")
        #expect(server.requests.isEmpty)
        await session.shutdown()
    }
}
