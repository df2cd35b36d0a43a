import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Who moves "since you last looked" (issue 50): the person, never a script.
@Suite("Today: looking is the person's act")
struct TodayLookTests {
    @Test("only the screen on a terminal marks by itself; JSON, CSV, pipes and files never do")
    func defaults() {
        let screen = TodayLook(markSeen: nil, standardOutputIsTerminal: true, format: .table)
        #expect(screen.marksSeen && screen.reason == .personAtTerminal)
        let piped = TodayLook(markSeen: nil, standardOutputIsTerminal: false, format: .table)
        #expect(!piped.marksSeen && piped.reason == .notTerminal)
        #expect(piped.explanation.contains("stays where it was") && piped.explanation.contains("--mark-seen moves it"))
        #expect(screen.explanation == "'since you last looked' moves to now (the screen on a terminal)")
        for format in [OutputFormat.json, .jsonl, .csv] {
            for terminal in [true, false] {
                let look = TodayLook(markSeen: nil, standardOutputIsTerminal: terminal, format: format)
                #expect(!look.marksSeen && look.reason == .formatForPrograms, "\(format) on a terminal: \(terminal)")
            }
        }
    }

    @Test("--mark-seen marks from anywhere, --no-mark-seen nowhere")
    func explicit() {
        for format in OutputFormat.allCases {
            for terminal in [true, false] {
                let asked = TodayLook(markSeen: true, standardOutputIsTerminal: terminal, format: format)
                #expect(asked.marksSeen && asked.reason == .asked, "\(format), terminal \(terminal)")
                let declined = TodayLook(markSeen: false, standardOutputIsTerminal: terminal, format: format)
                #expect(!declined.marksSeen && declined.reason == .declined, "\(format), terminal \(terminal)")
            }
        }
    }

    @Test("a look that does not mark sees what is new since the person's last look, and leaves it new")
    func scriptLeavesTheMark() throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let history = try HistoryStore(
            file: FileManager.default.temporaryDirectory.appendingPathComponent("today-look-\(UUID().uuidString)/history.sqlite"))
        defer { try? FileManager.default.removeItem(at: history.file.deletingLastPathComponent()) }
        let recipes = catalog.dataRecipes["demo"]!.values.sorted { $0.command < $1.command }
        let service = DayService(portal: try catalog.portal("demo"), user: "alice", recipes: recipes, history: history, now: Date())
        let recipe = try catalog.recipe(portal: "demo", command: "grades")
        let item = TodayItem(title: "Grades", command: "grades", options: [:], show: .changes, days: 0, field: nil)
        let question = HistoryStore.optionsKey(recipe.effectiveOptions(item.options), source: nil)
        func grades(_ grade: FieldValue) -> RecordSet {
            RecordSet(
                columns: recipe.columns,
                records: [
                    Record(fields: [
                        ("term", .string("2026-fall")), ("course", .string("Magyar irodalom")), ("code", .string("HUN-250")),
                        ("credits", .number(4)), ("grade", grade), ("points", .null), ("date", .null),
                    ])
                ])
        }
        func new(markSeen: Bool) throws -> [String] {
            try service.changeRows(of: recipe, item: item, records: grades(.string("B")), markSeen: markSeen).0.records.compactMap {
                $0["change"]?.text
            }
        }
        // The person's first look, at a course without a grade.
        try history.record(
            portal: "demo", user: "alice", recipe: "grades", options: question, records: grades(.null), at: Date().addingTimeInterval(-60))
        #expect(try service.changeRows(of: recipe, item: item, records: grades(.null), markSeen: true).firstLook)
        // The grade arrives; a script polls three times without marking.
        try history.record(portal: "demo", user: "alice", recipe: "grades", options: question, records: grades(.string("B")))
        for _ in 0..<3 {
            let seen = try new(markSeen: false)
            #expect(seen == ["grade: – → B"], "\(seen)")
        }
        // The person still sees it; once seen, it is no longer new.
        #expect(try new(markSeen: true) == ["grade: – → B"])
        #expect(try new(markSeen: true).isEmpty)
    }
}
