import Foundation
import Testing

@testable import UniToolKit

/// The retry policy of a watch's channels, with channels that fail on cue (pure logic: the real
/// `--exec` is tested in ExecChannelTests and end to end in WatchTests).
@Suite("Watch delivery: what a channel did not take is kept, tried again, and given up only with a word")
struct WatchDeliveryTests {
    final class ScriptedChannel: WatchChannel, @unchecked Sendable {
        let name: String
        let identity: String
        var failing: Bool
        var taken: [String] = []
        init(_ name: String, failing: Bool = false) {
            self.name = name
            self.identity = "scripted \(name)"
            self.failing = failing
        }
        func deliver(_ event: WatchEvent) async throws {
            if failing { throw UniToolError(.channelFailed, "\(name) is down") }
            taken.append(event.key ?? "")
        }
    }

    func event(_ key: String, kind: WatchEvent.Kind = .dueSoon) -> WatchEvent {
        WatchEvent(
            kind: kind, portal: "demo", user: "alice", command: "loans", options: "", time: Date(timeIntervalSince1970: 1_800_000_000),
            key: key, record: Record(fields: [("barcode", .string(key)), ("due", .date("2026-11-28")), ("renewals", .integer(2))]))
    }

    @Test("a failed event is kept with one attempt; the next run sends it before the new ones, and nothing is kept after")
    func keptAndRetried() async {
        let exec = ScriptedChannel("--exec", failing: true)
        let first = await WatchDelivery(channels: [exec]).deliver([event("A"), event("B")], pending: [])
        #expect(first.failures.count == 2 && first.failures.allSatisfy { $0.error.kind.exitCode == 25 })
        #expect(first.pending.map(\.event.key) == ["A", "B"] && first.pending.allSatisfy { $0.attempts == 1 })
        exec.failing = false
        let second = await WatchDelivery(channels: [exec]).deliver([event("C")], pending: first.pending)
        #expect(exec.taken == ["A", "B", "C"])
        #expect(second.pending.isEmpty && second.failures.isEmpty && second.redelivered == 2)
        #expect(second.delivered.map(\.channel) == ["--exec"] && second.delivered.first?.count == 3)
    }

    @Test("one channel failing does not hold up another; only the failed pair is kept")
    func channelsIndependent() async {
        let exec = ScriptedChannel("--exec", failing: true)
        let notify = ScriptedChannel("desktop notifications")
        let report = await WatchDelivery(channels: [exec, notify]).deliver([event("A")], pending: [])
        #expect(notify.taken == ["A"])
        #expect(report.pending.map(\.channel) == ["scripted --exec"])
    }

    @Test("after ten runs that fail, an event is given up and reported, not kept for ever")
    func givenUpAfterLimit() async {
        let exec = ScriptedChannel("--exec", failing: true)
        var pending: [PendingDelivery] = []
        var givenUp: [PendingDelivery] = []
        for run in 1...WatchDelivery.maximumAttempts {
            let report = await WatchDelivery(channels: [exec]).deliver(run == 1 ? [event("A")] : [], pending: pending)
            pending = report.pending
            givenUp += report.givenUp
            #expect(report.failures.first?.attempts == run)
        }
        #expect(pending.isEmpty)
        #expect(givenUp.map(\.event.key) == ["A"] && givenUp.first?.attempts == WatchDelivery.maximumAttempts)
    }

    @Test("an event kept for a channel not given this time stays kept, untried")
    func channelNotGiven() async {
        let kept = PendingDelivery(channel: "webhook 0123", event: event("A"), attempts: 3)
        let report = await WatchDelivery(channels: [ScriptedChannel("--exec")]).deliver([], pending: [kept])
        #expect(report.pending == [kept] && report.failures.isEmpty)
    }

    @Test("at most 200 events are kept per watch; the oldest beyond that are given up, with a report")
    func pendingCapped() async {
        let exec = ScriptedChannel("--exec", failing: true)
        let events = (1...(WatchDelivery.maximumPending + 5)).map { event("K\($0)") }
        let report = await WatchDelivery(channels: [exec]).deliver(events, pending: [])
        #expect(report.pending.count == WatchDelivery.maximumPending)
        #expect(report.givenUp.map(\.event.key) == ["K1", "K2", "K3", "K4", "K5"])
        #expect(report.pending.first?.event.key == "K6")
    }

    @Test("the line for a terminal: counts by kind and where they went, or 'nothing new'")
    func summaryLine() async {
        let exec = ScriptedChannel("--exec")
        let events = [event("A"), event("B"), event("C", kind: .changed)]
        let report = await WatchDelivery(channels: [exec]).deliver(events, pending: [])
        #expect(
            WatchDelivery.summary(command: "loans", events: events, report: report)
                == "loans: 3 events (2 due_soon, 1 changed); delivered to --exec")
        #expect(WatchDelivery.summary(command: "loans", events: [], report: WatchDelivery.Report()) == "loans: nothing new")
        exec.failing = true
        let failed = await WatchDelivery(channels: [exec]).deliver([event("A")], pending: [])
        #expect(
            WatchDelivery.summary(command: "loans", events: [event("A")], report: failed)
                == "loans: 1 event (1 due_soon); --exec failed, 1 kept to try again on the next run")
    }

    @Test("a kept event comes back from storage exactly: its JSON line is the same, typed values and field order included")
    func eventRoundTrip() throws {
        var changed = event("B", kind: .changed)
        changed.changes = [.init(field: "grade", old: .null, new: .number(4.5))]
        changed.record = Record(fields: [
            ("zeta", .string("12")), ("alpha", .date("2026-01-02")), ("at", .datetime("2026-01-02T09:30:00+01:00")),
            ("ok", .bool(true)), ("link", .url("https://example.edu/x")), ("none", .null),
            ("meetings", .list([Record(fields: [("day", .string("Mon"))])])),
        ])
        var failing = event("C", kind: .failing)
        failing.record = nil
        failing.error = UniToolError(.layoutChanged, "the page changed", hint: "see the saved page")
        for original in [event("A"), changed, failing] {
            let stored = try JSONEncoder().encode(PendingDelivery(channel: "exec x", event: original, attempts: 2))
            let back = try JSONDecoder().decode(PendingDelivery.self, from: stored)
            #expect(back.event == original)
            #expect(back.event.json == original.json)
        }
    }

    @Test("kept events live in the history, per watch; an empty list removes the row")
    func storedInHistory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-pending-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let history = try HistoryStore(file: folder.appendingPathComponent("history.sqlite"))
        let kept = [PendingDelivery(channel: "exec true", event: event("A"), attempts: 1)]
        try history.save(pendingDeliveries: kept, ofWatch: "demo|alice|loans|")
        #expect(try history.pendingDeliveries(ofWatch: "demo|alice|loans|") == kept)
        #expect(try history.pendingDeliveries(ofWatch: "demo|bob|loans|").isEmpty)
        try history.save(pendingDeliveries: [], ofWatch: "demo|alice|loans|")
        #expect(try history.pendingDeliveries(ofWatch: "demo|alice|loans|").isEmpty)
    }
}
