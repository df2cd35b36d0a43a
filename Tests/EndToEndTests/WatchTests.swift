import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `unitool watch` and `--offline` against the demo, with real receivers: a shell command, a
/// webhook server on loopback, and a notification server on the test's private D-Bus session.
/// What a watch run decides and remembers (the baseline, a change, due_soon once, a failure and
/// its recovery once, events kept for a channel that failed) is tested in process
/// (UniToolKitTests: WatcherServiceTests).
@Suite("Watch, history and offline answers, end to end")
struct WatchTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    static let listenerPython = "/usr/bin/python3"

    @Test(
        "a grade posted while watching reaches --exec, a webhook and a desktop notification as one changed event; the next run announces nothing",
        .enabled(if: Needs.program("/usr/bin/gdbus")),
        .enabled(if: Needs.testSandbox, "listens for notifications on the D-Bus session of Scripts/test.sh"))
    func gradeReachesEveryChannel() async throws {
        defer { sandbox.remove() }
        let webhook = try await Receiver.start(script: "webhook_receiver.py", python: "/usr/bin/env", arguments: ["python3"], in: sandbox)
        defer { webhook.stop() }
        let desktop = try await Receiver.start(script: "notification_listener.py", python: Self.listenerPython, arguments: [], in: sandbox)
        defer { desktop.stop() }
        let execFile = sandbox.root.appendingPathComponent("exec.jsonl")
        try await DemoUniversity.withRunning { demo in
            let port = try String(contentsOf: webhook.ready, encoding: .utf8)
            let watch = [
                "watch", "grades", "--term", "2026-fall", "--once", "--exec",
                "cat >> '\(execFile.path)'; echo \"$UNITOOL_EVENT\" >> '\(execFile.path).kinds'",
                "--webhook", "http://127.0.0.1:\(port)/hook", "--notify",
            ]
            let baseline = try await sandbox.run(watch, demo: demo.baseURL)
            #expect(baseline.exitCode == 0, "\(baseline)")
            #expect(baseline.stdout.isEmpty, "the first run is the baseline: \(baseline)")

            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-24")
            let posted = try await sandbox.run(watch, demo: demo.baseURL)
            #expect(posted.exitCode == 0 && !posted.stderr.contains("did not take"), "\(posted)")
            let lines = posted.stdout.split(separator: "\n")
            #expect(lines.count == 1, "one event: \(posted)")
            let event = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
            #expect(event["event"] as? String == "changed")
            #expect(event["key"] as? String == "2026-fall/HUN-250")
            let changes = try #require(event["changes"] as? [[String: Any]])
            #expect(changes.map { $0["field"] as? String } == ["grade", "points", "date"], "\(changes)")
            #expect(changes.first?["new"] as? String == "B")

            let again = try await sandbox.run(watch, demo: demo.baseURL)
            #expect(again.exitCode == 0 && again.stdout.isEmpty, "nothing new: \(again)")
        }
        let execLines = try String(contentsOf: execFile, encoding: .utf8).split(separator: "\n")
        #expect(execLines.count == 1 && execLines[0].contains("\"HUN-250\""), "\(execLines)")
        #expect(try String(contentsOf: URL(fileURLWithPath: execFile.path + ".kinds"), encoding: .utf8) == "changed\n")
        let hooks = try String(contentsOf: webhook.received, encoding: .utf8).split(separator: "\n")
        #expect(hooks.count == 1 && hooks[0].hasPrefix("application/json\t") && hooks[0].contains("\"event\": \"changed\""), "\(hooks)")
        let notes = try String(contentsOf: desktop.received, encoding: .utf8).split(separator: "\n")
        #expect(notes.count == 1, "\(notes)")
        let note = try #require(try JSONSerialization.jsonObject(with: Data((notes.first ?? "").utf8)) as? [String: String])
        #expect(note["app"] == "unitool")
        #expect(note["summary"] == "New grade: Magyar irodalom a XX. században (HUN-250): B", "\(note)")

        // --test: a test event to every channel, in the webhook's format, with no portal at all.
        let port = try String(contentsOf: webhook.ready, encoding: .utf8)
        let test = try await sandbox.run([
            "watch", "grades", "--test", "--webhook", "http://127.0.0.1:\(port)/hook", "--webhook-format", "slack", "--notify",
        ])
        #expect(test.exitCode == 0 && test.stdout.contains("\"event\": \"test\""), "\(test)")
        #expect(test.stderr.contains("desktop notifications: delivered"), "\(test)")
        let slack = try String(contentsOf: webhook.received, encoding: .utf8).split(separator: "\n").last ?? ""
        #expect(slack.hasPrefix("application/json\t{\"text\": \"a test event"), "\(slack)")
        #expect(try String(contentsOf: desktop.received, encoding: .utf8).split(separator: "\n").count == 2)
    }

    @Test(
        "the README's loans watch, its command closing stdin unread and failing for three runs: 20 runs, no crash, every event delivered once"
    )
    func readmeWatchExampleSurvivesItsCommand() async throws {
        defer { sandbox.remove() }
        let delivered = sandbox.root.appendingPathComponent("delivered.txt")
        let down = sandbox.root.appendingPathComponent("daemon-down")
        FileManager.default.createFile(atPath: down.path, contents: nil)
        // As notify-send does: stdin closed unread, the summary from the environment. While the
        // flag file is there, the "notification daemon" is down and the command fails.
        let command =
            "exec 0<&-; [ -e '\(down.path)' ] && exit 7; printf '%s\\n' \"$UNITOOL_EVENT_KEY\" >> '\(delivered.path)'"
        try await DemoUniversity.withRunning { demo in
            var announced: [String] = []
            var codes: [Int32] = []
            for run in 1...20 {
                if run == 4 { try FileManager.default.removeItem(at: down) }
                let outcome = try await sandbox.run(
                    ["--portal", "demo", "watch", "loans", "--due-within", "3d", "--once", "--exec", command], demo: demo.baseURL)
                codes.append(outcome.exitCode)
                for line in outcome.stdout.split(separator: "\n") {
                    let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    announced.append(try #require(event["key"] as? String))
                }
                if run <= 3 {
                    #expect(outcome.stderr.contains("--exec did not take the 'due_soon' event"), "\(outcome)")
                    #expect(outcome.stderr.contains("exited with status 7"), "\(outcome)")
                }
            }
            #expect(!announced.isEmpty, "the demo has loans due within 3 days")
            #expect(codes == [25, 25, 25] + Array(repeating: 0, count: 17), "\(codes)")
            let lines = try String(contentsOf: delivered, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.sorted() == announced.sorted(), "each announced event delivered exactly once: \(lines) vs \(announced)")
        }
    }

    @Test("--offline answers grades with the demo stopped, saying how old the answer is; history shows the posted grade; search finds it")
    func offlineWithDemoStopped() async throws {
        defer { sandbox.remove() }
        let demo = try await DemoUniversity.start()
        let online = try await sandbox.run(["grades", "--term", "2026-fall", "--format", "csv"], demo: demo.baseURL)
        #expect(online.exitCode == 0, "\(online)")
        await demo.postGrade(user: "alice", term: "2026-fall", code: "CS-340", grade: "A", points: 4.0, date: "2026-11-24")
        #expect(try await sandbox.run(["grades", "--term", "2026-fall"], demo: demo.baseURL).exitCode == 0)
        let history = try await sandbox.run(["history", "grades", "--json"], demo: demo.baseURL)
        #expect(history.exitCode == 0, "\(history)")
        #expect(history.stdout.contains("\"key\": \"2026-fall/CS-340\"") && history.stdout.contains("\"new\": \"A\""), "\(history)")
        for command in ["courses", "news"] { #expect(try await sandbox.run([command], demo: demo.baseURL).exitCode == 0) }
        await demo.stop()

        let unreachable = try await sandbox.run(["grades", "--term", "2026-fall"], demo: demo.baseURL)
        #expect(unreachable.exitCode == 20, "\(unreachable)")
        #expect(unreachable.stderr.contains("'--offline' answers from the history"), "\(unreachable)")
        let offline = try await sandbox.run(["grades", "--term", "2026-fall", "--format", "csv", "--offline"], demo: demo.baseURL)
        #expect(offline.exitCode == 0, "\(offline)")
        #expect(offline.stdout.contains("CS-340") && offline.stdout.contains(",A,"), "the latest answer: \(offline)")
        #expect(offline.stderr.contains("offline: 'grades' as of"), "\(offline)")
        let never = try await sandbox.run(["loans", "--offline"], demo: demo.baseURL)
        #expect(never.exitCode == 51, "\(never)")
        // search reads the same history, with the demo stopped: typos, accents and all.
        let course = try await sandbox.run(["search", "infromation theroy", "--json"], demo: demo.baseURL)
        #expect(course.exitCode == 0 && course.stdout.contains("情報理論 (Information Theory)"), "\(course)")
        let withoutAccents = try await sandbox.run(["search", "kozepiskola"], demo: demo.baseURL)
        #expect(withoutAccents.exitCode == 0 && withoutAccents.stdout.contains("középiskolásoknak"), "\(withoutAccents)")
    }
}

extension WatchTests {
    @Test("watches.yaml: watch --all runs the watches that are due, status shows them, and install writes units systemd accepts")
    func watchFileAndInstall() async throws {
        defer { sandbox.remove() }
        let config = sandbox.root.appendingPathComponent("config/unitool")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try """
        watches:
          grades:
            command: grades
            options: { term: 2026-fall }
            every: 1h
          loans:
            command: loans
            every: 6h
            due_within: 3d
        """.write(to: config.appendingPathComponent("watches.yaml"), atomically: true, encoding: .utf8)
        try await DemoUniversity.withRunning { demo in
            let first = try await sandbox.run(["watch", "--all"], demo: demo.baseURL)
            // Two baselines; the loans due within 3 days are announced from the first run on.
            let firstEvents = first.stdout.split(separator: "\n")
            #expect(first.exitCode == 0 && !firstEvents.isEmpty, "\(first)")
            #expect(
                firstEvents.allSatisfy {
                    ($0.contains("\"event\": \"due_soon\"") || $0.contains("\"event\": \"overdue\""))
                        && $0.contains("\"command\": \"loans\"")
                }, "\(first)")
            let before = await demo.requestCount
            let second = try await sandbox.run(["watch", "--all"], demo: demo.baseURL)
            #expect(second.exitCode == 0 && second.stdout.isEmpty, "\(second)")
            #expect(await demo.requestCount == before, "nothing is due yet, so the portal is not asked")
            let status = try await sandbox.run(["watch", "status", "--json"], demo: demo.baseURL)
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            #expect(rows.map { $0["watch"] as? String } == ["grades", "loans"], "\(status)")
            #expect(rows.allSatisfy { $0["last_run"] is String } && rows.map { $0["every"] as? String } == ["1h", "6h"], "\(status)")
        }
        let units = sandbox.root.appendingPathComponent("units")
        let install = try await sandbox.run(["watch", "install", "--directory", units.path])
        #expect(install.exitCode == 0, "\(install)")
        #expect(install.stderr.contains("systemctl --user") && install.stderr.contains("*/5 * * * *"), "\(install)")
        let service = try String(contentsOf: units.appendingPathComponent("unitool-watch.service"), encoding: .utf8)
        #expect(service.contains("ExecStart=\(UniToolProcess.executable.path) watch --all"), "\(service)")
        if let verify = try await WatchUnits.verify(in: units) { #expect(verify.exitCode == 0 && verify.stderr.isEmpty, "\(verify)") }
    }
}

extension WatchTests {
    @Test(
        "a watch saved with --save is what watch install's printed ExecStart runs, exiting 0; with none saved install refuses (52); --all --now runs it at once"
    )
    func savedWatchInstallsWorking() async throws {
        defer { sandbox.remove() }
        let units = sandbox.root.appendingPathComponent("units")
        let refused = try await sandbox.run(["watch", "install", "--directory", units.path])
        #expect(refused.exitCode == 52 && refused.stderr.contains("--save"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: units.path), "no units that would fail every 5 minutes")
        let unsaved = try await sandbox.run(["watch", "install", "--print"])
        #expect(unsaved.exitCode == 0 && unsaved.stderr.contains("no watch is saved yet"), "\(unsaved)")
        #expect(try await sandbox.run(["watch", "--all"]).exitCode == 52)

        try await DemoUniversity.withRunning { demo in
            let save = try await sandbox.run(["watch", "grades", "--term", "2026-fall", "--notify", "--save"], demo: demo.baseURL)
            #expect(save.exitCode == 0 && save.stdout.isEmpty && save.stderr.contains("saved the watch 'grades'"), "\(save)")
            #expect(await demo.requestCount == 0, "--save saves; it does not run the watch")
            let list = try await sandbox.run(["watch", "list", "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]], "\(list)")
            #expect(rows.count == 1 && rows.first?["options"] as? String == "term=2026-fall", "\(list)")
            #expect(rows.first?["channels"] as? String == "notify" && rows.first?["every"] as? String == "1h", "\(list)")

            // The ExecStart line as systemd would run it: its program (quoted as systemd quotes
            // it) and its words, in the sandbox's environment.
            let printed = try await sandbox.run(["watch", "install", "--print"])
            #expect(printed.exitCode == 0 && !printed.stderr.contains("no watch is saved"), "\(printed)")
            let line = try #require(printed.stdout.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }, "\(printed)")
            let words = Self.systemdWords(String(line.dropFirst("ExecStart=".count)))
            #expect(words.dropFirst() == ["watch", "--all"], "\(words)")
            let environment = sandbox.environment.merging(["UNITOOL_DEMO_URL": demo.baseURL.absoluteString]) { $1 }
            let first = try await UniToolProcess.run(URL(fileURLWithPath: words[0]), Array(words.dropFirst()), environment: environment)
            #expect(first.exitCode == 0, "\(first)")
            let asked = await demo.requestCount
            #expect(asked > 0, "the saved watch ran against the demo")

            let notDue = try await UniToolProcess.run(URL(fileURLWithPath: words[0]), Array(words.dropFirst()), environment: environment)
            #expect(notDue.exitCode == 0 && notDue.stdout.isEmpty, "\(notDue)")
            let note = notDue.stderr.split(separator: "\n")
            #expect(note.count == 1 && note[0].hasPrefix("no watch is due (next: 'grades' in "), "\(notDue)")
            #expect(await demo.requestCount == asked)

            let now = try await sandbox.run(["watch", "--all", "--now"], demo: demo.baseURL)
            #expect(now.exitCode == 0 && !now.stderr.contains("no watch is due"), "\(now)")
            #expect(await demo.requestCount > asked, "--now runs the watch although it is not due")
        }

        let remove = try await sandbox.run(["watch", "remove", "grades"])
        #expect(remove.exitCode == 0, "\(remove)")
        let config = sandbox.root.appendingPathComponent("config/unitool/watches.yaml")
        #expect(!FileManager.default.fileExists(atPath: config.path), "the last watch takes the file with it")
        let missing = try await sandbox.run(["watch", "remove", "grades"])
        #expect(missing.exitCode == 52, "\(missing)")
        let help = try await sandbox.run(["watch", "install", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--directory <dir>") && help.stdout.contains("--print"), "\(help)")
        #expect(!help.stdout.contains("--due-within"), "install's own options, not the watch's")
    }

    /// The words of an `ExecStart=` value as systemd splits them (systemd.syntax(7)): a word in
    /// double quotes keeps its spaces; `%%` is a `%`.
    static func systemdWords(_ value: String) -> [String] {
        var words: [String] = []
        var rest = Substring(value)
        while let first = rest.first(where: { $0 != " " }) {
            rest = rest.drop { $0 == " " }
            if first == "\"" {
                let body = rest.dropFirst().prefix { $0 != "\"" }
                words.append(String(body))
                rest = rest.dropFirst(body.count + 2)
            } else {
                let word = rest.prefix { $0 != " " }
                words.append(String(word))
                rest = rest.dropFirst(word.count)
            }
        }
        return words.map { $0.replacingOccurrences(of: "%%", with: "%") }
    }
}

/// The units `watch install` writes, as systemd itself reads them.
enum WatchUnits {
    /// `systemd-analyze verify` of the service and timer in `units`, or nil where systemd's
    /// tools are not installed.
    static func verify(in units: URL) async throws -> UniToolProcess.Outcome? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else { return nil }
        return try await UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/systemd-analyze"),
            [
                "verify", units.appendingPathComponent("unitool-watch.service").path,
                units.appendingPathComponent("unitool-watch.timer").path,
            ])
    }
}

/// A receiver script from Tests/EndToEndTests/Interop, run in the background until stopped.
final class Receiver: @unchecked Sendable {
    let ready: URL
    let received: URL
    private let process = Process()

    static func start(script: String, python: String, arguments: [String], in sandbox: Sandbox) async throws -> Receiver {
        let receiver = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Receiver(script: script, python: python, arguments: arguments, in: sandbox) })
            }
        }
        for _ in 0..<200 {
            if FileManager.default.fileExists(atPath: receiver.ready.path) { return receiver }
            try await Task.sleep(for: .milliseconds(50))
        }
        receiver.stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "\(script) did not start"])
    }

    private init(script: String, python: String, arguments: [String], in sandbox: Sandbox) throws {
        let name = (script as NSString).deletingPathExtension
        ready = sandbox.root.appendingPathComponent("\(name).ready")
        received = sandbox.root.appendingPathComponent("\(name).received")
        FileManager.default.createFile(atPath: received.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments =
            arguments + [Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/\(script)").path, ready.path, received.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
