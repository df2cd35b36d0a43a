import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("The history of recipe runs")
struct HistoryStoreTests {
    static let grades: DataRecipe = {
        let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
        return try! catalog.recipe(portal: "demo", command: "grades")
    }()

    func temporaryStore() throws -> HistoryStore {
        try HistoryStore(
            file: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)/history.sqlite"))
    }

    func answer(_ grade: FieldValue) -> RecordSet {
        RecordSet(
            columns: Self.grades.columns,
            records: [
                Record(fields: [
                    ("term", .string("2026-fall")), ("course", .string("Probability Theory")), ("code", .string("MATH-301")),
                    ("credits", .number(6)), ("grade", grade), ("points", .number(3.7)), ("date", .date("2026-11-13")),
                ])
            ])
    }

    @Test("a run is read back with its types, by the same question; the file is private")
    func roundTrip() throws {
        let store = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.file.deletingLastPathComponent()) }
        let ranAt = Date(timeIntervalSince1970: 1_800_000_000)
        let question = HistoryStore.optionsKey(Self.grades.effectiveOptions([:]), source: nil)
        #expect(question == "term=current")
        try store.record(portal: "demo", user: "alice", recipe: "grades", options: question, records: answer(.string("A-")), at: ranAt)
        let offline = try store.offlineAnswer(recipe: Self.grades, portal: "demo", user: "alice", options: ["term": "current"], source: nil)
        #expect(offline.records == answer(.string("A-")))
        #expect(offline.ranAt == ranAt)
        #expect {
            try store.offlineAnswer(recipe: Self.grades, portal: "demo", user: "bob", options: [:], source: nil)
        } throws: { ($0 as? UniToolError)?.kind == .noOfflineAnswer }
        let mode = try FileManager.default.attributesOfItem(atPath: store.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("--offline --term 2026-fall is answered from the --term all run, whose records name their term; a term it lacks is not")
    func offlineFromTheWiderAnswer() throws {
        let store = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.file.deletingLastPathComponent()) }
        let ranAt = Date(timeIntervalSince1970: 1_800_000_000)
        var spring = answer(.string("B")).records[0]
        spring.fields[0].value = .string("2026-spring")
        let every = RecordSet(columns: Self.grades.columns, records: answer(.string("A-")).records + [spring])
        try store.record(portal: "demo", user: "alice", recipe: "grades", options: "term=all", records: every, at: ranAt)
        let fall = try store.offlineAnswer(recipe: Self.grades, portal: "demo", user: "alice", options: ["term": "2026-fall"], source: nil)
        #expect(fall.records == answer(.string("A-")))
        #expect(fall.ranAt == ranAt)
        let springOnly = try store.offlineAnswer(
            recipe: Self.grades, portal: "demo", user: "alice", options: ["term": "2026-spring"], source: nil)
        #expect(springOnly.records.records == [spring])
        // A term the wider answer does not hold, and 'current' (which only the portal can say), stay unanswered.
        for term in ["2025-fall", "current"] {
            #expect {
                try store.offlineAnswer(recipe: Self.grades, portal: "demo", user: "alice", options: ["term": term], source: nil)
            } throws: { ($0 as? UniToolError)?.kind == .noOfflineAnswer }
        }
        // An exact answer wins over the wider one.
        try store.record(
            portal: "demo", user: "alice", recipe: "grades", options: "term=2026-fall", records: answer(.string("C")),
            at: ranAt.addingTimeInterval(-60))
        let exact = try store.offlineAnswer(recipe: Self.grades, portal: "demo", user: "alice", options: ["term": "2026-fall"], source: nil)
        #expect(exact.records == answer(.string("C")))
    }

    @Test("the newest run of each command: from the whole history, or from the runs kept since a look alone")
    func newestRunsSinceALook() throws {
        let store = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.file.deletingLastPathComponent()) }
        func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }
        try store.record(portal: "demo", user: "alice", recipe: "grades", options: "term=current", records: answer(.string("A")), at: at(0))
        try store.record(portal: "demo", user: "alice", recipe: "grades", options: "term=all", records: answer(.string("A")), at: at(10))
        try store.record(portal: "demo", user: "", recipe: "news", options: "", records: answer(.string("A")), at: at(5))
        // Another user's, and another portal's: never counted.
        try store.record(portal: "demo", user: "bob", recipe: "loans", options: "", records: answer(.string("A")), at: at(20))
        try store.record(portal: "other", user: "alice", recipe: "courses", options: "", records: answer(.string("A")), at: at(30))
        let whole = try #require(try store.newestRuns(portal: "demo", users: ["alice", ""]))
        #expect(whole.ranAt == ["grades": at(10), "news": at(5)])
        #expect(whole.lastRunID == 5)

        let nothingNew = try #require(try store.newestRuns(portal: "demo", users: ["alice", ""], after: whole.lastRunID))
        #expect(nothingNew == HistoryStore.NewestRuns(ranAt: [:], lastRunID: 5))

        try store.record(portal: "demo", user: "alice", recipe: "courses", options: "", records: answer(.string("A")), at: at(40))
        try store.record(portal: "other", user: "alice", recipe: "grades", options: "", records: answer(.string("A")), at: at(50))
        let since = try #require(try store.newestRuns(portal: "demo", users: ["alice", ""], after: whole.lastRunID))
        #expect(since == HistoryStore.NewestRuns(ranAt: ["courses": at(40)], lastRunID: 7))
        // A look from beyond the history's end (runs forgotten since) asks for a whole look.
        #expect(try store.newestRuns(portal: "demo", users: ["alice"], after: 99) == nil)
    }

    @Test("unchanged answers share one snapshot, and pruning drops old runs and unused snapshots")
    func snapshotsAreShared() throws {
        let store = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.file.deletingLastPathComponent()) }
        for hour in 0..<48 {
            let grade: FieldValue = hour < 24 ? .null : .string("A-")
            try store.record(
                portal: "demo", user: "alice", recipe: "grades", options: "term=current", records: answer(grade),
                at: Date(timeIntervalSince1970: 1_800_000_000 + Double(hour) * 3600))
        }
        #expect(try store.counts() == (48, 2))
        #expect(try store.prune(before: Date(timeIntervalSince1970: 1_800_000_000 + 30 * 3600)) == 30)
        #expect(try store.counts() == (18, 1))
    }

    @Test("recording forgets runs older than the retention, on its own; history_days is checked")
    func retention() throws {
        let store = try HistoryStore(
            file: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)/history.sqlite"),
            retentionDays: 30)
        defer { try? FileManager.default.removeItem(at: store.file.deletingLastPathComponent()) }
        for day in 0..<200 {
            try store.record(
                portal: "demo", user: "alice", recipe: "grades", options: "term=current", records: answer(.string("\(day)")),
                at: Date(timeIntervalSince1970: 1_800_000_000 + Double(day) * 86_400))
        }
        let (runs, snapshots) = try store.counts()
        #expect(runs < 200 && runs >= 30, "\(runs)")
        #expect(snapshots == runs)
        #expect(UserConfig(values: ["history_days": "90"]).historyDays == 90)
        #expect(UserConfig().historyDays == 365)
        #expect { try UserConfig.validate(key: "history_days", value: "forever") } throws: { ($0 as? UniToolError)?.kind == .usage }
    }

    @Test("the report names a grade that came in, once, with its old and new value")
    func report() throws {
        let store = try temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.file.deletingLastPathComponent()) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (hour, grade) in [(0, FieldValue.null), (1, .null), (2, .string("A-")), (3, .string("A-"))] {
            try store.record(
                portal: "demo", user: "alice", recipe: "grades", options: "term=current", records: answer(grade),
                at: start.addingTimeInterval(Double(hour) * 3600))
        }
        let report = try HistoryReport.changes(in: store, recipe: Self.grades, portal: "demo", user: "alice", since: start)
        #expect(report.records.count == 1)
        #expect(report.records.first?["change"] == .string("changed"))
        #expect(report.records.first?["key"] == .string("2026-fall/MATH-301"))
        #expect(report.records.first?["new"] == .string("A-"))
        let later = try HistoryReport.changes(
            in: store, recipe: Self.grades, portal: "demo", user: "alice", since: start.addingTimeInterval(2.5 * 3600))
        #expect(later.records.isEmpty, "the run in the window is compared with the one before it: nothing new")
    }

    @Test("--since takes days, hours, today and a date, and refuses the rest; ages read as people say them")
    func sinceAndAge() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try HistoryReport.start(of: "30d", now: now) == now.addingTimeInterval(-30 * 86_400))
        #expect(try HistoryReport.start(of: "12h", now: now) == now.addingTimeInterval(-12 * 3600))
        _ = try HistoryReport.start(of: "2026-11-01", now: now)
        #expect { try HistoryReport.start(of: "soon", now: now) } throws: { ($0 as? UniToolError)?.kind == .usage }
        #expect(HistoryStore.age(of: now.addingTimeInterval(-30), now: now) == "less than a minute ago")
        #expect(HistoryStore.age(of: now.addingTimeInterval(-60), now: now) == "1 minute ago")
        #expect(HistoryStore.age(of: now.addingTimeInterval(-7200), now: now) == "2 hours ago")
        #expect(HistoryStore.age(of: now.addingTimeInterval(-3 * 86_400), now: now) == "3 days ago")
    }

    @Test("a history file that is a symbolic link is refused with a one-line warning: no literal \\n before the hint")
    func symlinkWarningOnOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("history.sqlite")
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/dev/null")
        var thrown: (any Error)?
        do { _ = try HistoryStore(file: file) } catch { thrown = error }
        let error = try #require(thrown)
        let warning = HistoryStore.unavailableWarning(error)
        #expect(warning.contains("is a symbolic link"), "\(warning)")
        #expect(warning.contains("; remove the link"), "\(warning)")
        #expect(!warning.contains("\n") && !warning.contains("\\n"), "\(warning)")
    }
}
