import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// A watch run in process, as `unitool watch --once` makes one: `Watcher.run` on a connection of
/// its own that keeps the history (the bench's), against the demo university, then the events
/// (and those kept from earlier runs) delivered to the channels. What a run announces, what it
/// remembers and what it keeps for a channel that failed. What only the binary shows (its lines
/// on stdout and stderr, exit codes as such, real receivers in other processes, `watch --all`,
/// `watch install` and systemd, a run that must not crash) stays in EndToEndTests/WatchTests.
@Suite("A watch run, through the service: what it announces, remembers and keeps for a channel")
struct WatcherServiceTests {
    /// One run: what `Watcher.run` returned, and what the channels made of its events.
    struct Run: Sendable {
        let outcome: Watcher.Outcome
        let report: WatchDelivery.Report

        var kinds: [WatchEvent.Kind] { outcome.events.map(\.kind) }
    }

    /// One `watch --once` run of `spec` for alice: a connection of its own (as each run of the
    /// binary makes one), the history kept in the bench's file, and the events delivered to
    /// `channels` with what the history keeps for them, as the CLI delivers them.
    func watchOnce(_ spec: WatchSpec, _ bench: DemoServiceBench, on demo: DemoUniversity, channels: [any WatchChannel] = [])
        async throws -> Run
    {
        try await bench.withService(on: demo, keepingHistory: true) { _, connection in
            let outcome = try await Watcher.run(spec, on: connection)
            guard !channels.isEmpty else { return Run(outcome: outcome, report: WatchDelivery.Report()) }
            let report = try await WatchDelivery(channels: channels).deliver(
                outcome.events, watch: spec.memoryKey(portal: connection.portal.id, user: connection.user), history: connection.history)
            return Run(outcome: outcome, report: report)
        }
    }

    func grades(_ bench: DemoServiceBench) throws -> WatchSpec {
        WatchSpec(recipe: try bench.recipe("grades"), options: ["term": "2026-fall"])
    }

    // MARK: From EndToEndTests/WatchTests (gradeReachesEveryChannel keeps the channels there)

    @Test("the first run is the baseline; a grade posted is one changed event, field by field; the next run announces nothing")
    func baselineThenChange() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let spec = try grades(bench)
            let baseline = try await watchOnce(spec, bench, on: demo)
            #expect(baseline.outcome.failure == nil, "\(String(describing: baseline.outcome.failure))")
            #expect(baseline.outcome.events.isEmpty, "the first run is the baseline: \(baseline.kinds)")
            let history = try HistoryStore(file: bench.historyFile)
            let recorded = try history.latest(portal: "demo", user: "alice", recipe: "grades", options: spec.question)
            #expect(recorded != nil, "the baseline is recorded in the history")

            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-24")
            let posted = try await watchOnce(spec, bench, on: demo)
            #expect(posted.outcome.failure == nil, "\(String(describing: posted.outcome.failure))")
            #expect(posted.kinds == [.changed], "one event: \(posted.kinds)")
            let event = try #require(posted.outcome.events.first)
            #expect(event.key == "2026-fall/HUN-250")
            #expect(event.portal == "demo" && event.user == "alice" && event.command == "grades" && event.options == spec.question)
            #expect(event.changes.map(\.field) == ["grade", "points", "date"], "\(event.changes)")
            #expect(event.changes.first?.new.text == "B", "\(event.changes)")

            let again = try await watchOnce(spec, bench, on: demo)
            #expect(again.outcome.failure == nil && again.outcome.events.isEmpty, "nothing new: \(again.kinds)")
        }
    }

    // MARK: From EndToEndTests/WatchTests.layoutChangeOnceAndRecovery

    @Test("a layout change during a watch is announced once (the run's error all the same), and its recovery once")
    func layoutChangeOnceAndRecovery() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let spec = try grades(bench)
            let watch = spec.memoryKey(portal: "demo", user: "alice")
            let baseline = try await watchOnce(spec, bench, on: demo)
            #expect(baseline.outcome.failure == nil && baseline.outcome.events.isEmpty, "\(baseline.kinds)")

            await demo.changeLayout(true)
            let broken = try await watchOnce(spec, bench, on: demo)
            #expect(broken.kinds == [.failing], "\(broken.kinds)")
            #expect(broken.outcome.events.first?.error?.kind == .layoutChanged, "\(broken.outcome.events)")
            #expect(broken.outcome.failure?.kind == .layoutChanged, "\(String(describing: broken.outcome.failure))")
            let remembered = try HistoryStore(file: bench.historyFile).memory(ofWatch: watch)
            #expect(remembered.failing == UniToolError.Kind.layoutChanged.rawValue, "\(remembered)")

            let stillBroken = try await watchOnce(spec, bench, on: demo)
            #expect(stillBroken.outcome.events.isEmpty, "not announced again: \(stillBroken.kinds)")
            #expect(stillBroken.outcome.failure?.kind == .layoutChanged, "still the run's error (exit 30)")

            await demo.changeLayout(false)
            let recovered = try await watchOnce(spec, bench, on: demo)
            #expect(recovered.outcome.failure == nil, "\(String(describing: recovered.outcome.failure))")
            #expect(recovered.kinds == [.recovered], "the recovery alone, the grades as before: \(recovered.kinds)")
            let forgotten = try HistoryStore(file: bench.historyFile).memory(ofWatch: watch)
            #expect(forgotten.failing == nil, "\(forgotten)")

            let quiet = try await watchOnce(spec, bench, on: demo)
            #expect(quiet.outcome.failure == nil && quiet.outcome.events.isEmpty, "\(quiet.kinds)")
        }
    }

    // MARK: From EndToEndTests/WatchTests.readmeWatchExampleSurvivesItsCommand (its 20 runs of the binary stay there)

    @Test(
        "the README's loans watch, its command failing for three runs: each due loan is announced once, kept for the command, and delivered once when it works"
    )
    func dueSoonKeptForAFailingCommand() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let delivered = bench.sandbox.root.appendingPathComponent("delivered.txt")
        let down = bench.sandbox.root.appendingPathComponent("daemon-down")
        FileManager.default.createFile(atPath: down.path, contents: nil)
        // As notify-send does: stdin closed unread, the key from the environment. While the flag
        // file is there, the "notification daemon" is down and the command fails.
        let exec = ExecChannel(
            command: "exec 0<&-; [ -e '\(down.path)' ] && exit 7; printf '%s\\n' \"$UNITOOL_EVENT_KEY\" >> '\(delivered.path)'")
        let spec = WatchSpec(recipe: try bench.recipe("loans"), options: [:], due: WatchDecision.DueRule(field: "due", days: 3))
        let watch = spec.memoryKey(portal: "demo", user: "alice")
        try await DemoUniversity.withRunning { demo in
            // The first run announces what is already due: the overdue loans and the one due in two days.
            let first = try await watchOnce(spec, bench, on: demo, channels: [exec])
            #expect(first.outcome.failure == nil, "\(String(describing: first.outcome.failure))")
            // The overdue ones as overdue, the one still to come as due soon.
            #expect(first.outcome.events.allSatisfy { [.dueSoon, .overdue].contains($0.kind) }, "\(first.kinds)")
            #expect(first.outcome.events.filter { $0.kind == .dueSoon }.compactMap(\.key) == ["31000103"], "\(first.kinds)")
            let announced = first.outcome.events.compactMap(\.key)
            #expect(Set(announced) == ["31000101", "31000102", "31000103", "31000112"], "\(announced)")
            #expect(announced.count == Set(announced).count, "each loan once: \(announced)")
            #expect(first.report.failures.count == announced.count, "\(first.report.failures.map(\.error))")
            #expect(
                first.report.failures.allSatisfy { $0.error.kind == .channelFailed && $0.error.message.contains("exited with status 7") })
            #expect(first.report.pending.compactMap(\.event.key) == announced && first.report.pending.allSatisfy { $0.attempts == 1 })

            for attempt in 2...3 {
                let failing = try await watchOnce(spec, bench, on: demo, channels: [exec])
                #expect(failing.outcome.events.isEmpty, "run \(attempt): not announced again: \(failing.kinds)")
                #expect(failing.report.failures.count == announced.count, "run \(attempt): the kept events are tried again")
                #expect(failing.report.pending.allSatisfy { $0.attempts == attempt }, "run \(attempt)")
                let kept = try HistoryStore(file: bench.historyFile).pendingDeliveries(ofWatch: watch)
                #expect(kept.compactMap(\.event.key) == announced, "run \(attempt): kept in the history for the next run")
            }

            try FileManager.default.removeItem(at: down)
            let working = try await watchOnce(spec, bench, on: demo, channels: [exec])
            #expect(working.outcome.events.isEmpty, "\(working.kinds)")
            #expect(working.report.failures.isEmpty && working.report.pending.isEmpty, "\(working.report.failures.map(\.error))")
            #expect(working.report.redelivered == announced.count)
            let kept = try HistoryStore(file: bench.historyFile).pendingDeliveries(ofWatch: watch)
            #expect(kept.isEmpty, "\(kept)")

            for run in 5...6 {
                let later = try await watchOnce(spec, bench, on: demo, channels: [exec])
                #expect(later.outcome.events.isEmpty && later.report.redelivered == 0, "run \(run): \(later.kinds)")
            }
            let lines = try String(contentsOf: delivered, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.sorted() == announced.sorted(), "each announced event delivered exactly once: \(lines) vs \(announced)")
        }
    }
}
