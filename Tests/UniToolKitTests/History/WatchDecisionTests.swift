import Foundation
import Testing
import UniToolKit

@Suite("What a watch announces")
struct WatchDecisionTests {
    let template = WatchEvent(
        kind: .added, portal: "demo", user: "alice", command: "loans", options: "", time: Date(timeIntervalSince1970: 0))

    func loans(_ due: [(String, String)]) -> RecordSet {
        RecordSet(
            columns: ["barcode", "due"], records: due.map { Record(fields: [("barcode", .string($0.0)), ("due", .date($0.1))]) })
    }

    func decide(
        _ previous: RecordSet?, _ outcome: Result<RecordSet, UniToolError>, memory: WatchDecision.Memory = .init(),
        existing: Bool = false, due: WatchDecision.DueRule? = nil
    ) -> WatchDecision {
        WatchDecision(
            previous: previous, outcome: outcome, memory: memory, keys: ["barcode"], announceExisting: existing, due: due,
            today: "2026-11-25", template: template)
    }

    @Test("the first run is a baseline, unless existing records are to be announced")
    func baseline() {
        let now = loans([("1", "2026-12-01")])
        #expect(decide(nil, .success(now)).events.isEmpty)
        #expect(decide(nil, .success(now), existing: true).events.map(\.kind) == [.added])
        #expect(decide(now, .success(now)).events.isEmpty)
    }

    @Test("a failure is announced when it starts and when it ends, not in between")
    func failureOnceAndRecovery() {
        let error = UniToolError(.layoutChanged, "the page changed")
        let first = decide(loans([]), .failure(error))
        #expect(first.events.map(\.kind) == [.failing])
        #expect(first.events.first?.error == error)
        let second = decide(loans([]), .failure(error), memory: first.memory)
        #expect(second.events.isEmpty)
        let back = decide(loans([]), .success(loans([])), memory: second.memory)
        #expect(back.events.map(\.kind) == [.recovered])
        #expect(back.memory.failing == nil)
    }

    @Test("due_soon is announced once per loan, when it comes within the window")
    func dueSoonOnce() {
        let rule = WatchDecision.DueRule(field: "due", days: 3)
        let now = loans([("1", "2026-11-27"), ("2", "2026-12-20")])
        let first = decide(now, .success(now), due: rule)
        #expect(first.events.map(\.kind) == [.dueSoon])
        #expect(first.events.first?.key == "1")
        #expect(decide(now, .success(now), memory: first.memory, due: rule).events.isEmpty, "not again")
        // Renewed: a new due date outside the window, then inside it again later, is news again.
        let renewed = loans([("1", "2026-11-28"), ("2", "2026-12-20")])
        let after = decide(now, .success(renewed), memory: first.memory, due: rule)
        #expect(after.events.map(\.kind) == [.changed, .dueSoon])
    }

    @Test("the first run announces what is already due: a reminder is not held back as the baseline is")
    func dueSoonOnFirstRun() {
        let rule = WatchDecision.DueRule(field: "due", days: 3)
        let now = loans([("1", "2026-11-27"), ("2", "2026-12-20")])
        let first = decide(nil, .success(now), due: rule)
        #expect(first.events.map(\.kind) == [.dueSoon] && first.events.first?.key == "1")
        #expect(decide(now, .success(now), memory: first.memory, due: rule).events.isEmpty, "once")
    }

    @Test("an event's JSON has the documented members, and its summary names the change")
    func eventJSON() throws {
        var event = template
        event.kind = .changed
        event.key = "1"
        event.changes = [RecordChanges.FieldChange(field: "due", old: .date("2026-11-27"), new: .date("2026-12-11"))]
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["event", "time", "portal", "user", "command", "options", "summary", "key", "changes"])
        #expect(event.summary == "loans: 1: due \"2026-11-27\" → \"2026-12-11\"")
    }

    @Test("watches.yaml intervals: at least a minute; a watch is due when its interval is nearly up")
    func intervals() {
        #expect(WatchFile.interval("1h") == .seconds(3600))
        #expect(WatchFile.interval("30s") == nil)
        #expect(WatchFile.interval("soon") == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(WatchFile.isDue(lastRun: nil, every: .seconds(3600), now: now))
        #expect(!WatchFile.isDue(lastRun: now.addingTimeInterval(-600), every: .seconds(3600), now: now))
        #expect(WatchFile.isDue(lastRun: now.addingTimeInterval(-3300), every: .seconds(3600), now: now))
    }

    @Test("webhook formats: the event as is, or a message as ntfy, Discord, Slack and Telegram take it")
    func webhookFormats() throws {
        var event = template
        event.kind = .added
        event.key = "31000101"
        #expect(WebhookChannel.message(for: event, format: .json).body == event.json)
        let ntfy = WebhookChannel.message(for: event, format: .ntfy)
        #expect(ntfy.contentType.hasPrefix("text/plain") && ntfy.body == "loans: new 31000101" && ntfy.headers.first?.0 == "Title")
        #expect(
            WebhookChannel.message(for: event, format: .discord).body
                == "{\"content\": \"loans: new 31000101\", \"allowed_mentions\": {\"parse\": []}}")
        #expect(WebhookChannel.message(for: event, format: .slack).body == "{\"text\": \"loans: new 31000101\"}")
        event.key = "evil\u{1B}[2J"
        #expect(!WebhookChannel.message(for: event, format: .ntfy).body.contains("\u{1B}"), "no control character reaches a phone")
    }
}
