import Foundation
import Synchronization
import Testing
import UniToolKit
import UniToolTestSupport

/// `--webhook` in process: `WebhookChannel` delivers a test event to servers on loopback the test
/// starts, which trickle, redirect or are not there. What the CLI prints of a failure (`watch
/// --test`'s one line on stderr) is the error's message, checked here.
@Suite("Webhooks: bounded in time, never redirected, named by their origin only")
struct WebhookServiceTests {
    let event = WatchEvent(kind: .test, portal: "demo", user: "", command: "grades", options: "", time: Date())

    /// Delivers the test event to `url` and returns the error it fails with.
    func failure(_ url: String, deadline: Duration = WebhookChannel.defaultDeadline) async throws -> UniToolError? {
        let channel = try WebhookChannel(url: try #require(URL(string: url)), deadline: deadline)
        return await #expect(throws: UniToolError.self) { try await channel.deliver(event) }
    }

    @Test("a webhook that sends its headers and then trickles its body is given up at the deadline: portal_timeout (exit 21)")
    func tricklingWebhook() async throws {
        let bodySent = Locked(false)
        let server = try RecordingHTTPServer { _ in
            .custom { send in
                guard send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 400\r\n\r\n") else { return }
                for _ in 0..<400 {
                    Thread.sleep(forTimeInterval: 0.25)
                    guard send("x") else { return }
                }
                bodySent.mutex.withLock { $0 = true }
            }
        }
        defer { server.stop() }
        let error = try await failure(server.url("/hook"), deadline: .seconds(2))
        #expect(error?.kind == .portalTimeout && error?.kind.exitCode == 21, "\(String(describing: error))")
        #expect(error?.message.contains("in time") == true, "\(String(describing: error))")
        // The body would take 100 s: the call ends with the webhook still sending, which only a
        // deadline over the whole body does (a byte every 0.25 s never trips one per read).
        #expect(!bodySent.value, "the deadline covers the body: the whole body was sent")
        #expect(server.connections == 1, "the event was sent: \(server.connections) connections")
    }

    @Test(
        "a webhook answering 307 or 302 to another host is not followed: the other host sees no connection, and the event is portal_error (exit 22)",
        arguments: [307, 302])
    func redirectNotFollowed(status: Int) async throws {
        let elsewhere = try RecordingHTTPServer(host: "127.0.0.2") { _ in .status(204) }
        defer { elsewhere.stop() }
        let redirecting = try RecordingHTTPServer { _ in .status(status, headers: ["Location": elsewhere.url("/stolen")]) }
        defer { redirecting.stop() }
        let error = try await failure(redirecting.url("/hook"))
        #expect(redirecting.connections == 1, "the webhook itself was asked")
        #expect(elsewhere.connections == 0, "a \(status) re-sent the event to 127.0.0.2")
        #expect(error?.kind == .portalError && error?.kind.exitCode == 22, "\(String(describing: error))")
        let message = error?.message ?? ""
        #expect(message.contains("\(status)") && message.contains("redirect"), "\(message)")
    }

    @Test("a webhook on a closed port fails without retries: portal_unreachable (exit 20), 'refused', and no token from the address")
    func closedPort() async throws {
        let port = try RecordingHTTPServer.closedPort()
        let url = "http://127.0.0.1:\(port)/hook/secret-token?key=also-secret"
        let channel = try WebhookChannel(url: try #require(URL(string: url)))
        #expect(channel.name == "the webhook at 127.0.0.1")
        let error = try await failure(url)
        // A refused connection tried again would end in the connect timeout, not in "refused".
        #expect(error?.kind == .portalUnreachable && error?.kind.exitCode == 20, "\(String(describing: error))")
        let text = "\(error?.message ?? "") \(error?.hint ?? "")"
        #expect(error?.message.contains("refused") == true, "\(text)")
        #expect(!text.contains("secret"), "the address's path and query stay out of messages: \(text)")
        #expect(!text.contains("NIO") && !text.contains("Error("), "no type dump: \(text)")
    }
}
