import Foundation
import Synchronization
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// The policy of `unitool today`, with the bundled demo recipes and a real history file; the
/// portal is a function returning records, since what is tested is the decision about them.
@Suite("Today: what to show, and where it comes from")
struct TodayServiceTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
    static let budapest = TimeZone(identifier: "Europe/Budapest")!
    /// Wednesday 25 November 2026, 10:00 in Budapest.
    static let wednesday = Date(timeIntervalSince1970: 1_795_597_200)

    func service(history: HistoryStore?, now: Date = wednesday, today: [TodayItem]? = nil) throws -> DayService {
        var portal = try Self.catalog.portal("demo")
        if let today { portal.today = today }
        let recipes = Self.catalog.dataRecipes["demo"]!.values.sorted { $0.command < $1.command }
        var service = DayService(portal: portal, user: "alice", recipes: recipes, history: history, now: now)
        service.userZone = Self.budapest
        return service
    }

    func temporaryStore() throws -> HistoryStore {
        try HistoryStore(file: FileManager.default.temporaryDirectory.appendingPathComponent("today-\(UUID().uuidString)/history.sqlite"))
    }

    static func courses() -> RecordSet {
        let recipe = try! catalog.recipe(portal: "demo", command: "courses")
        func meeting(_ day: String, _ time: String, _ room: String) -> Record {
            Record(fields: [("day", .string(day)), ("period", .integer(1)), ("time", .string(time)), ("room", .string(room))])
        }
        func course(_ title: String, _ code: String, _ meetings: [Record]) -> Record {
            Record(fields: [
                ("course", .string(title)), ("code", .string(code)), ("instructor", .string("Dr. X")), ("meetings", .list(meetings)),
                ("syllabus", .null), ("term_start", .date("2026-09-07")), ("term_end", .date("2026-12-18")),
                ("no_classes", .list([Record(fields: [("date", .date("2026-11-18")), ("reason", .string("Dies"))])])),
            ])
        }
        return RecordSet(
            columns: recipe.columns,
            records: [
                course("Operating Systems", "CS-340", [meeting("Wed", "15:00-16:30", "Lab 3"), meeting("Fri", "10:00-11:30", "B-110")]),
                course("Magyar irodalom", "HUN-250", [meeting("Wed", "08:15-09:45", "C-12")]),
                course("Probability", "MATH-301", [meeting("Wed", "10:00-11:30", "A-101")]),
            ])
    }

    @Test("today's classes come in time order: over, on now, and the next one marked; other days' classes are not there")
    func classesInOrder() async throws {
        let service = try service(
            history: try temporaryStore(),
            today: [TodayItem(title: "Classes today", command: "courses", options: [:], show: .events, days: 0, field: nil)])
        let report = await service.today(live: { _, _ in Self.courses() }, checkTerms: {})
        let rows = report.sections[0].rows.records.map { "\($0["when"]!.text) \($0["what"]!.text) \($0["status"]!.text)" }
        #expect(rows == ["08:15–09:45 Magyar irodalom done", "10:00–11:30 Probability now", "15:00–16:30 Operating Systems next"])
        #expect(report.problem == nil)
        if case .accepted = report.terms {} else { Issue.record("terms: \(report.terms)") }
        // A week earlier was a day without classes.
        let free = try self.service(history: nil, now: Self.wednesday.addingTimeInterval(-7 * 86_400), today: service.portal.today)
        #expect(
            try free.eventRows(of: Self.catalog.recipe(portal: "demo", command: "courses"), records: Self.courses(), days: 0).records
                .isEmpty)
    }

    @Test("a fresh answer in the history serves without asking the portal; --refresh asks anyway")
    func freshFromHistory() async throws {
        let history = try temporaryStore()
        let item = TodayItem(title: "Classes today", command: "courses", options: [:], show: .events, days: 0, field: nil)
        let service = try service(history: history, today: [item])
        let calls = Mutex(0)
        let live: LiveRecipeRun = { _, _ in
            calls.withLock { $0 += 1 }
            return Self.courses()
        }
        #expect(service.todayNeedsPortal(refresh: false))
        try history.record(portal: "demo", user: "alice", recipe: "courses", options: "", records: Self.courses())
        #expect(!service.todayNeedsPortal(refresh: false) && service.todayNeedsPortal(refresh: true))
        let report = await service.today(live: live, checkTerms: {})
        #expect(calls.withLock { $0 } == 0 && report.sections[0].fromHistory && report.sections[0].rows.records.count == 3)
        _ = await service.today(live: live, checkTerms: {}, refresh: true)
        #expect(calls.withLock { $0 } == 1)
    }

    @Test("when the portal fails, the history's older answer shows with the failure kept for the exit code")
    func failureFallsBackToHistory() async throws {
        let history = try temporaryStore()
        try history.record(
            portal: "demo", user: "alice", recipe: "courses", options: "", records: Self.courses(), at: Date().addingTimeInterval(-86_400))
        let item = TodayItem(title: "Classes today", command: "courses", options: [:], show: .events, days: 0, field: nil)
        let report = try await service(history: history, today: [item]).today(
            live: { _, _ in throw UniToolError(.portalUnreachable, "cannot reach the portal") }, checkTerms: {})
        #expect(report.sections[0].rows.records.count == 3 && report.sections[0].fromHistory)
        #expect(report.problem?.kind == .portalUnreachable)
        // Without any earlier answer the section is empty and says why, never an empty success.
        let empty = try await service(history: try temporaryStore(), today: [item]).today(
            live: { _, _ in throw UniToolError(.portalUnreachable, "cannot reach the portal") }, checkTerms: {})
        #expect(empty.sections[0].readAt == nil && empty.problem?.kind == .portalUnreachable)
    }

    @Test("terms to accept are reported, and no section asks the portal past the terms gate")
    func termsRefusal() async throws {
        let item = TodayItem(title: "Classes today", command: "courses", options: [:], show: .events, days: 0, field: nil)
        let calls = Mutex(0)
        let report = try await service(history: try temporaryStore(), today: [item]).today(
            live: { _, _ in
                calls.withLock { $0 += 1 }
                return Self.courses()
            }, checkTerms: { throw UniToolError(.termsNotAccepted, "the terms changed", hint: "run 'unitool terms accept'") })
        if case .needAccepting(let error) = report.terms {
            #expect(error.hint?.contains("terms accept") == true)
        } else {
            Issue.record("terms: \(report.terms)")
        }
        #expect(calls.withLock { $0 } == 0)
        #expect(report.problem?.kind == .termsNotAccepted)
    }

    @Test("due: records on or before the day limit, overdue ones first; a field that does not exist is named")
    func due() throws {
        let loans = try Self.catalog.recipe(portal: "demo", command: "loans")
        func loan(_ barcode: String, _ due: String) -> Record {
            Record(fields: [
                ("title", .string("T")), ("author", .string("A")), ("barcode", .string(barcode)), ("due", .date(due)),
                ("renewals_left", .integer(1)), ("overdue", .bool(false)),
            ])
        }
        let set = RecordSet(columns: loans.columns, records: [loan("3", "2026-11-28"), loan("1", "2026-11-01"), loan("2", "2026-11-29")])
        let rows = try service(history: nil).dueRows(of: loans, records: set, field: "due", days: 3, showing: loans.tableColumns)
        #expect(rows.records.map { $0["barcode"]!.text } == ["1", "3"])
        #expect {
            try service(history: nil).dueRows(of: loans, records: set, field: "returned", days: 3, showing: loans.tableColumns)
        } throws: {
            ($0 as? UniToolError)?.kind == .recipeInvalid
        }
    }

    @Test("a today: item naming a command the portal lacks is a section error with the commands listed")
    func unknownCommand() async throws {
        let item = TodayItem(title: "Timetable", command: "timetable", options: [:], show: .records, days: 0, field: nil)
        let report = try await service(history: nil, today: [item]).today(live: nil, checkTerms: nil)
        #expect(report.sections[0].error?.kind == .recipeNotFound)
        #expect(report.sections[0].error?.hint?.contains("courses") == true)
        #expect(
            item.key == "timetable"
                && TodayItem(title: "Loans due (3 days)", command: "l", options: [:], show: .due, days: 3, field: "d").key
                    == "loans_due_3_days"
                && TodayItem(title: "Today's menu", command: "m", options: [:], show: .records, days: 0, field: nil).key == "todays_menu"
        )
    }

    @Test("the today: list is read from the portal recipe and checked")
    func todayList() throws {
        let portal = try Self.catalog.portal("demo")
        #expect(portal.today.map(\.command) == ["courses", "attendance", "menu", "coop-hours", "exams", "loans", "news", "grades"])
        #expect(portal.today[5].show == .due && portal.today[5].field == "due" && portal.today[5].days == 3)
        #expect(portal.today[1].options == ["warning": "true"] && portal.today[1].fields == ["code", "course", "absent", "absences_left"])
        #expect(portal.timeZone?.identifier == "Europe/Budapest")
        let base = "portal: p\nbase_url: https://portal.example.edu\nlogin: { pages: [{ when: \"//form\", auto_submit: true }] }\n"
        #expect {
            try PortalRecipe.load(file: "p.yaml", text: base + "today:\n  - command: loans\n    show: due\n")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
        #expect {
            try PortalRecipe.load(file: "p.yaml", text: base + "today:\n  - command: loans\n    show: soon\n")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
        #expect { try PortalRecipe.load(file: "p.yaml", text: base + "timezone: Mars/Olympus\n") } throws: {
            ($0 as? UniToolError)?.kind == .recipeInvalid
        }
    }

    @Test("recipes lint finds a today: list's mistakes against the portal's commands")
    func todayProblems() throws {
        var portal = try Self.catalog.portal("demo")
        let commands = Self.catalog.dataRecipes["demo"]!
        #expect(portal.todayProblems(commands: commands).isEmpty)
        portal.today = [
            TodayItem(title: "a", command: "timetable", options: [:], show: .records, days: 0, field: nil),
            TodayItem(title: "b", command: "grades", options: ["trem": "x"], show: .events, days: 0, field: nil),
            TodayItem(title: "c", command: "loans", options: [:], show: .due, days: 3, field: "title"),
        ]
        let problems = portal.todayProblems(commands: commands)
        #expect(problems.count == 4, "\(problems)")
        #expect(problems[0].contains("'timetable' is not a command") && problems[1].contains("no option 'trem'"))
        #expect(problems[2].contains("calendar: section") && problems[3].contains("not a date field"))
    }
}
