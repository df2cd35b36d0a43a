import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Notifications written for people (issue 50, deliverable 2), through the real `unitool` and the
/// demo's own recipes: what `--exec` gets in `UNITOOL_EVENT_SUMMARY` names a book by its title and
/// says "overdue" for an overdue one, and a new grade names the course and the grade. The words
/// themselves are tested as values in UniToolKitTests (WatchSummaryTests).
@Suite("Watch summaries for people, end to end")
struct WatchForPeopleTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    /// The summaries an `--exec` command printed, one per event.
    func summaries(in file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test(
        "watch loans, as the done-when of issue 50 runs it (the recipe's own 3-day reminder): each loan named by its title; overdue ones say overdue, the others when they are due"
    )
    func loansByTitle() async throws {
        defer { sandbox.remove() }
        let output = sandbox.root.appendingPathComponent("summaries.txt")
        try await DemoUniversity.withRunning { demo in
            let run = try await sandbox.run(
                [
                    "--portal", "demo", "watch", "loans", "--exec",
                    "echo \"$UNITOOL_EVENT_SUMMARY\" >> '\(output.path)'",
                ],
                demo: demo.baseURL)
            #expect(run.exitCode == 0, "\(run)")
            let events = try run.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(events.count >= 2, "the demo has overdue loans and one due within 3 days: \(run)")
            let lines = try summaries(in: output)
            #expect(lines.count == events.count, "\(lines)")
            let today = String(ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate]))
            for (event, line) in zip(events, lines) {
                let record = try #require(event["record"] as? [String: Any])
                let title = try #require(record["title"] as? String)
                let barcode = try #require(record["barcode"] as? String)
                let due = try #require(record["due"] as? String)
                #expect(line == event["summary"] as? String, "the variable is the event's summary")
                #expect(line.hasPrefix(title) && !line.contains(barcode), "named by its title: \(line)")
                if due < today {
                    #expect(event["event"] as? String == "overdue" && line.contains("is overdue since"), "\(line)")
                } else {
                    #expect(event["event"] as? String == "due_soon" && line.contains("is due") && !line.contains("overdue"), "\(line)")
                }
            }
            #expect(events.contains { $0["event"] as? String == "overdue" }, "the demo's overdue loans: \(lines)")
        }
    }

    @Test("a grade posted while watching: the summary names the course and the grade, not the key's fields")
    func newGradeNamesCourseAndGrade() async throws {
        defer { sandbox.remove() }
        let output = sandbox.root.appendingPathComponent("summaries.txt")
        try await DemoUniversity.withRunning { demo in
            let watch = [
                "--portal", "demo", "watch", "grades", "--term", "2026-fall", "--exec",
                "echo \"$UNITOOL_EVENT_SUMMARY\" >> '\(output.path)'",
            ]
            let baseline = try await sandbox.run(watch, demo: demo.baseURL)
            #expect(baseline.exitCode == 0 && baseline.stdout.isEmpty, "\(baseline)")
            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-24")
            let posted = try await sandbox.run(watch, demo: demo.baseURL)
            #expect(posted.exitCode == 0, "\(posted)")
        }
        #expect(try summaries(in: output) == ["New grade: Magyar irodalom a XX. században (HUN-250): B"])
    }

    @Test(
        "--notify on a session bus with no notification daemon: a clear error and exit 25, not gdbus's message; the test event names the user",
        .enabled(if: Needs.program("/usr/bin/dbus-run-session") && Needs.program("/usr/bin/gdbus") && Needs.program("/usr/bin/python3")))
    func notifyWithoutDaemon() async throws {
        defer { sandbox.remove() }
        // A bus of its own, on which nothing provides org.freedesktop.Notifications. The test
        // process's threads block SIGTERM, and a child inherits that mask: the bus daemon would
        // outlive dbus-run-session's SIGTERM, holding the output pipes open. Python unblocks
        // every signal before it becomes dbus-run-session.
        let run = try await UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
                "/usr/bin/dbus-run-session", "--", UniToolProcess.executable.path, "--portal", "demo", "watch", "grades", "--test",
                "--notify",
            ], environment: sandbox.environment.merging(["NO_COLOR": "1"]) { $1 })
        #expect(run.exitCode == 25, "\(run)")
        #expect(run.stderr.contains("no notification service is running on the session bus"), "\(run)")
        #expect(!run.stderr.contains("GDBus.Error"), "\(run)")
        #expect(run.stderr.contains("  hint: start your desktop's notification daemon"), "what to do: \(run)")
        let event = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(event["event"] as? String == "test" && event["user"] as? String == "alice", "\(run.stdout)")
    }
}
