import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The watch's delivery channels against receivers that misbehave, end to end: webhook servers
/// on loopback that trickle, redirect or are not there, a desktop notification carrying portal
/// markup, an interval past the clock, and a systemd unit for a binary in an awkward folder.
@Suite("Watch channels under attack: webhooks bounded, never redirected, notifications and units escaped")
struct WebhookSecurityTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Runs unitool in the sandbox, killed after `timeout` seconds, so that a hang fails the test
    /// in bounded time instead of stalling the suite.
    func run(_ arguments: [String], timeout: TimeInterval = 30) throws -> UniToolProcess.Outcome {
        try UniToolProcess.run(arguments, environment: sandbox.environment, timeout: timeout)
    }

    /// The lines of stderr that report a channel's failure.
    static func failureLines(_ outcome: UniToolProcess.Outcome) -> [Substring] {
        outcome.stderr.split(separator: "\n").filter { $0.contains("did not take") }
    }

    @Test("a webhook that sends its headers and then trickles its body is given up at --timeout: exit 21 within the limit, one line")
    func tricklingWebhook() async throws {
        defer { sandbox.remove() }
        let server = try WebhookTestServer { connection, server in
            guard WebhookTestServer.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n", to: connection)
            else { return }
            for _ in 0..<400 where !server.isStopped {
                Thread.sleep(forTimeInterval: 0.25)
                guard WebhookTestServer.send("x", to: connection) else { return }
            }
        }
        defer { server.stop() }
        let outcome = try run(["watch", "grades", "--test", "--webhook", server.url("/hook"), "--timeout", "2"])
        #expect(outcome.exitCode == 21, "\(outcome)")
        #expect(outcome.seconds < 8, "the deadline covers the body: took \(outcome.seconds) s")
        #expect(server.connections == 1, "the event was sent: \(server.connections) connections")
        let lines = Self.failureLines(outcome)
        #expect(lines.count == 1 && lines[0].contains("in time") && !outcome.stderr.contains(": delivered"), "\(outcome)")
    }

    @Test(
        "a webhook answering 307 or 302 to another host is not followed: the other host sees no connection, and the event is an error (exit 22), never delivered",
        arguments: [307, 302])
    func redirectNotFollowed(status: Int) async throws {
        defer { sandbox.remove() }
        let elsewhere = try WebhookTestServer(host: "127.0.0.2") { connection, _ in
            _ = WebhookTestServer.send("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", to: connection)
        }
        defer { elsewhere.stop() }
        let redirecting = try WebhookTestServer { connection, _ in
            _ = WebhookTestServer.send(
                "HTTP/1.1 \(status) Moved\r\nLocation: \(elsewhere.url("/stolen"))\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                to: connection)
        }
        defer { redirecting.stop() }
        let outcome = try run(["watch", "grades", "--test", "--webhook", redirecting.url("/hook")])
        #expect(redirecting.connections == 1, "the webhook itself was asked: \(outcome)")
        #expect(elsewhere.connections == 0, "a \(status) re-sent the event to 127.0.0.2: \(outcome)")
        #expect(outcome.exitCode == 22, "\(outcome)")
        #expect(!outcome.stderr.contains(": delivered"), "\(outcome)")
        let lines = Self.failureLines(outcome)
        #expect(lines.count == 1 && lines[0].contains("\(status)") && lines[0].contains("redirect"), "\(outcome)")
    }

    @Test("a webhook on a closed port fails at once with one clean line, exit 20 (unreachable), and no token from the address")
    func closedPort() async throws {
        defer { sandbox.remove() }
        let port = try WebhookTestServer.closedPort()
        let outcome = try run(["watch", "grades", "--test", "--webhook", "http://127.0.0.1:\(port)/hook/secret-token?key=also-secret"])
        #expect(outcome.exitCode == 20, "\(outcome)")
        #expect(outcome.seconds < 5, "a refused connection is not tried again: took \(outcome.seconds) s")
        let lines = Self.failureLines(outcome)
        #expect(lines.count == 1, "\(outcome)")
        #expect(
            lines.first?.hasPrefix("unitool: the webhook at 127.0.0.1 did not take the test event: ") == true
                && lines.first?.contains("refused") == true, "\(outcome)")
        #expect(!outcome.stderr.contains("secret"), "the address's path and query stay out of messages: \(outcome)")
        #expect(!outcome.stderr.contains("NIO") && !outcome.stderr.contains("Error("), "no type dump: \(outcome)")
    }

    @Test(
        "portal markup in a grade (a link, an image from file://, an ampersand) reaches a desktop notification's body as text: &, < and > escaped",
        .enabled(if: ["/usr/bin/gdbus", "/usr/bin/dbus-daemon"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }))
    func notificationMarkupEscaped() async throws {
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let desktop = try await PrivateNotificationServer.start(in: sandbox)
        defer { desktop.stop() }
        let grade = "<a href=\"https://evil.example/\">B</a><img src=\"file:///etc/passwd\"> & more"
        try await DemoUniversity.withRunning { demo in
            let watch = ["watch", "grades", "--term", "2026-fall", "--once", "--notify"]
            let bus = ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress]
            let baseline = try await sandbox.run(watch, demo: demo.baseURL, extra: bus)
            #expect(baseline.exitCode == 0, "\(baseline)")
            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: grade, points: 3.0, date: "2026-11-24")
            let posted = try await sandbox.run(watch, demo: demo.baseURL, extra: bus)
            #expect(posted.exitCode == 0 && !posted.stderr.contains("did not take"), "\(posted)")
        }
        let notes = try String(contentsOf: desktop.received, encoding: .utf8).split(separator: "\n")
        #expect(notes.count == 1, "\(notes)")
        let note = try #require(try JSONSerialization.jsonObject(with: Data((notes.first ?? "").utf8)) as? [String: String])
        let body = note["body"] ?? ""
        #expect(
            body.contains("grade: &lt;a href=\"https://evil.example/\"&gt;B&lt;/a&gt;&lt;img src=\"file:///etc/passwd\"&gt; &amp; more"),
            "\(body)")
        #expect(!body.contains("<a ") && !body.contains("<img") && !body.contains(" & "), "\(body)")
    }

    @Test("watch --every outside 1m to 366d (106751991167d, 367d, 30s, a number past Int64) is exit 64 naming the range, never a crash")
    func everyOutOfRange() async throws {
        defer { sandbox.remove() }
        for interval in ["106751991167d", "367d", "30s", "99999999999999999999d"] {
            let outcome = try run(["watch", "grades", "--every", interval], timeout: 20)
            #expect(outcome.exitCode == 64, "--every \(interval): \(outcome)")
            #expect(outcome.stderr.contains("1m to 366d"), "--every \(interval): \(outcome)")
        }
    }

    @Test(
        "watch install quotes ExecStart as systemd reads it: a binary in a folder with a space, % and $ stays one word, and systemd-analyze verify accepts it"
    )
    func execStartQuoted() async throws {
        defer { sandbox.remove() }
        let folder = sandbox.root.appendingPathComponent("my tools %h $HOME")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = folder.appendingPathComponent("unitool")
        // A hard link keeps the path the kernel reports as /proc/self/exe; a copy where that fails.
        if link(UniToolProcess.executable.path, binary.path) != 0 {
            try FileManager.default.copyItem(at: UniToolProcess.executable, to: binary)
        }
        let units = sandbox.root.appendingPathComponent("units")
        let outcome = try UniToolProcess.run(
            binary, ["watch", "install", "--directory", units.path], environment: sandbox.environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(outcome.exitCode == 0, "\(outcome)")
        let service = try String(contentsOf: units.appendingPathComponent("unitool-watch.service"), encoding: .utf8)
        let spelled = binary.path.replacingOccurrences(of: "%", with: "%%")
        #expect(service.contains("\nExecStart=\"\(spelled)\" watch --all\n"), "\(service)")
        let cron = binary.path.replacingOccurrences(of: "%", with: "\\%")
        #expect(outcome.stderr.contains("*/5 * * * * '\(cron)' watch --all"), "\(outcome)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verify = try UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
                [
                    "verify", units.appendingPathComponent("unitool-watch.service").path,
                    units.appendingPathComponent("unitool-watch.timer").path,
                ])
            #expect(verify.exitCode == 0 && verify.stderr.isEmpty, "\(verify)")
        }
    }
}

/// A small HTTP server on a loopback address, with threads of its own: it reads each request
/// (head and body) and lets `answer` write whatever bytes it likes, so that a test can be the
/// webhook that trickles, redirects or answers nothing; it counts the connections it accepted.
final class WebhookTestServer: @unchecked Sendable {
    let host: String
    let port: Int
    private let listener: Int32
    private let answer: @Sendable (Int32, WebhookTestServer) -> Void
    private let lock = NSLock()
    private var accepted = 0
    private var stopped = false

    init(host: String = "127.0.0.1", answer: @escaping @Sendable (Int32, WebhookTestServer) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(host, port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen on \(host): errno \(errno)"])
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.host = host
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.answer = answer
        Thread.detachNewThread { self.acceptConnections() }
    }

    func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    var connections: Int { lock.withLock { accepted } }
    var isStopped: Bool { lock.withLock { stopped } }

    /// Stops accepting; connections in progress end at their next write.
    func stop() {
        lock.withLock { stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Writes all of `text`; false once the other side has gone (no SIGPIPE).
    @discardableResult
    static func send(_ text: String, to connection: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// A port on 127.0.0.1 that the system has just handed out and taken back: nothing listens.
    static func closedPort() throws -> Int {
        let server = try WebhookTestServer { _, _ in }
        server.stop()
        return server.port
    }

    private static func address(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR, !isStopped { continue }
                return
            }
            lock.withLock { accepted += 1 }
            Thread.detachNewThread {
                defer { close(connection) }
                Self.readRequest(connection)
                self.answer(connection, self)
            }
        }
    }

    /// Reads one request's head and its Content-Length body, for at most 5 seconds.
    private static func readRequest(_ connection: Int32) {
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received += buffer[0..<count]
            guard let end = received.firstRange(of: separator)?.upperBound else { continue }
            let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - end >= length { return }
        }
    }
}

/// The notification listener of Tests/EndToEndTests/Interop on a D-Bus session of its own, so
/// that this suite and WatchTests, which both own org.freedesktop.Notifications, never take the
/// name from each other when they run at the same time.
final class PrivateNotificationServer: @unchecked Sendable {
    let busAddress: String
    let received: URL
    private let busProcess: pid_t
    private let listener = Process()

    static func start(in sandbox: Sandbox) async throws -> PrivateNotificationServer {
        let server = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try PrivateNotificationServer(in: sandbox) }) }
        }
        for _ in 0..<200 {
            if FileManager.default.fileExists(atPath: server.ready.path) { return server }
            try await Task.sleep(for: .milliseconds(50))
        }
        server.stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "notification_listener.py did not start"])
    }

    private var ready: URL { received.deletingPathExtension().appendingPathExtension("ready") }

    private init(in sandbox: Sandbox) throws {
        // --fork: the daemon prints its address and process id, then leaves the foreground.
        let bus = try UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/dbus-daemon"), ["--session", "--fork", "--print-address=1", "--print-pid=1"], timeout: 10)
        let lines = bus.stdout.split(separator: "\n").map(String.init)
        guard bus.exitCode == 0, lines.count >= 2, let pid = pid_t(lines[1]) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "dbus-daemon did not start: \(bus)"])
        }
        busAddress = lines[0]
        busProcess = pid
        received = sandbox.root.appendingPathComponent("private-notifications.received")
        FileManager.default.createFile(atPath: received.path, contents: nil)
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [
            Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/notification_listener.py").path, ready.path, received.path,
        ]
        listener.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SESSION_BUS_ADDRESS": busAddress]) { $1 }
        listener.standardOutput = FileHandle.nullDevice
        do {
            try listener.run()
        } catch {
            kill(busProcess, SIGTERM)
            throw error
        }
    }

    /// Stops the listener and the bus, each by its own process id.
    func stop() {
        if listener.isRunning { kill(listener.processIdentifier, SIGKILL) }
        kill(busProcess, SIGTERM)
    }
}
