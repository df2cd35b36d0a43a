import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The watch's delivery channels against receivers that misbehave, end to end: a desktop
/// notification carrying portal markup, an interval past the clock, and a systemd unit for a
/// binary in an awkward folder. Webhooks that trickle, redirect or are not there are tested in
/// process (UniToolKitTests/Watch/WebhookServiceTests).
@Suite("Watch channels under attack: notifications and units escaped, intervals bounded")
struct WebhookSecurityTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Runs unitool in the sandbox, killed after `timeout` seconds, so that a hang fails the test
    /// in bounded time instead of stalling the suite.
    func run(_ arguments: [String], timeout: TimeInterval = 30) async throws -> UniToolProcess.Outcome {
        try await UniToolProcess.run(arguments, environment: sandbox.environment, timeout: timeout)
    }

    @Test(
        "portal markup in a grade (a link, an image from file://, an ampersand) reaches a desktop notification's body as text: &, < and > escaped",
        .enabled(if: Needs.program("/usr/bin/gdbus") && Needs.program("/usr/bin/dbus-daemon")))
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
            let outcome = try await run(["watch", "grades", "--every", interval], timeout: 20)
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
        // A saved watch, for install refuses to write units that would have nothing to run.
        let saved = try await UniToolProcess.run(
            binary, ["--portal", "demo", "watch", "grades", "--save"], environment: sandbox.environment.merging(["NO_COLOR": "1"]) { $1 })
        try #require(saved.exitCode == 0, "\(saved)")
        let outcome = try await UniToolProcess.run(
            binary, ["watch", "install", "--directory", units.path], environment: sandbox.environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(outcome.exitCode == 0, "\(outcome)")
        let service = try String(contentsOf: units.appendingPathComponent("unitool-watch.service"), encoding: .utf8)
        let spelled = binary.path.replacingOccurrences(of: "%", with: "%%")
        #expect(service.contains("\nExecStart=\"\(spelled)\" watch --all\n"), "\(service)")
        let cron = binary.path.replacingOccurrences(of: "%", with: "\\%")
        #expect(outcome.stderr.contains("*/5 * * * * '\(cron)' watch --all"), "\(outcome)")
        if let verify = try await WatchUnits.verify(in: units) { #expect(verify.exitCode == 0 && verify.stderr.isEmpty, "\(verify)") }
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
