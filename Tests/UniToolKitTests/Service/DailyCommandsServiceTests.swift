import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The daily commands through the service, in process, against a demo on loopback: the records
/// each demo command gives and their types, other demo users (one of them locked out), and the
/// day's views (`today`, `calendar`) built from live runs by `DayService`. What only the binary
/// shows (table, CSV and JSON on stdout, help, usage errors, the `--json` error shape, a terminal's
/// width, the overview) stays in EndToEndTests (CampusCommandsTests, GradesCommandTests,
/// DayTests, DailyUseTests).
@Suite("Daily commands through the service: typed records, other users, today and the calendar")
struct DailyCommandsServiceTests {
    /// Wednesday 25 November 2026, 10:00 in Budapest: Magyar irodalom (08:15) is over, Operating
    /// Systems (15:00) is next.
    static let wednesday = Date(timeIntervalSince1970: 1_795_597_200)

    /// A demo whose clock is `wednesday` too, as the day's views here are: its due dates and term
    /// are then the same whatever day the suite runs (with the real clock, a loan due "in two
    /// days" fell outside Wednesday's three once the real date passed the 26th).
    static func withDemoOnWednesday<T: Sendable>(_ body: (DemoUniversity) async throws -> T) async throws -> T {
        try await DemoUniversity.withRunning(now: { wednesday }, body)
    }

    /// Whether `value` is of the type the recipe gives `spec`; null is every type's "nothing".
    static func typed(_ value: FieldValue, as spec: FieldSpec) -> Bool {
        if value == .null { return true }
        if spec.list != nil {
            if case .list = value { return true }
            return false
        }
        switch (spec.type, value) {
        case (.string, .string), (.integer, .integer), (.number, .number), (.date, .date), (.datetime, .datetime), (.bool, .bool),
            (.url, .url):
            return true
        default: return false
        }
    }

    // MARK: Records (from EndToEndTests/CampusCommandsTests, GradesCommandTests)

    @Test(
        "every demo command gives records typed as its recipe says, required fields filled",
        arguments: ["courses", "loans", "news", "library-calendar"])
    func typedRecords(command: String) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let recipe = try bench.recipe(command)
        try await DemoUniversity.withRunning { demo in
            let set = try await bench.run(command, on: demo)
            #expect(!set.records.isEmpty)
            #expect(set.columns.allSatisfy { recipe.columns.contains($0) }, "\(set.columns) against \(recipe.columns)")
            Self.expectTyped(set, as: recipe)
        }
    }

    /// Every value of `set` is of the type its field has in `recipe`, and every required one is there.
    static func expectTyped(_ set: RecordSet, as recipe: DataRecipe) {
        for record in set.records {
            for spec in recipe.primary.fields {
                guard let value = record[spec.name] else { continue }
                #expect(typed(value, as: spec), "\(recipe.command).\(spec.name) is \(value), not \(spec.type)")
                if spec.required { #expect(value != .null, "\(recipe.command).\(spec.name) is required") }
            }
        }
    }

    @Test("grades of the current term: course, credits and grade for every row; a grade not given yet is null")
    func gradesTyped() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let set = try await bench.run("grades", ["term": "current"], on: demo)
            #expect(set.records.count == 4, "\(set)")
            for record in set.records {
                if case .string = record["course"] {} else { Issue.record("course: \(String(describing: record["course"]))") }
                #expect(record["credits"]?.isNumeric == true, "credits: \(String(describing: record["credits"]))")
                #expect(record["grade"] != nil, "every record has a grade field")
            }
            #expect(set.records.contains { $0["course"] == .string("Probability Theory") })
            #expect(set.records.first?["grade"] == .string("A-"))
            #expect(set.records.last?["grade"] == .null)
        }
    }

    // MARK: Other demo users (from EndToEndTests/GradesCommandTests, DailyUseTests)

    @Test("another demo user logs in with their own password and sees their own grades")
    func otherUser() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let set = try await bench.run("grades", on: demo, user: "bence")
            #expect(set.records.contains { $0["course"] == .string("Számítógépes hálózatok") }, "\(set)")
        }
    }

    @Test("the demo's locked user is account_locked (exit 13), with a hint that does not invite another try")
    func lockedUser() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) {
                try await bench.run("grades", on: demo, user: "laszlo")
            }
            #expect(error?.kind == .accountLocked, "\(String(describing: error))")
            #expect(error?.kind.exitCode == 13)
            #expect(error?.message.contains("locked") == true, "\(String(describing: error))")
            // The portal's own words may say when; unitool's hint must not suggest another attempt.
            let hint = error?.hint ?? ""
            #expect(!hint.isEmpty && !hint.lowercased().contains("again") && !hint.contains("password"), "\(hint)")
        }
    }

    // MARK: Today (from EndToEndTests/DayTests)

    func section(_ report: TodayReport, _ command: String, _ show: TodayItem.Show) throws -> TodaySection {
        try #require(report.sections.first { $0.item.command == command && $0.item.show == show }, "no \(command) section")
    }

    func classes(_ report: TodayReport) throws -> [String] {
        try section(report, "courses", .events).rows.records.map {
            "\($0["when"]?.text ?? "") \($0["what"]?.text ?? "") \($0["where"]?.text ?? "") \($0["status"]?.text ?? "")"
        }
    }

    func loans(_ report: TodayReport) throws -> Set<String> {
        Set(try section(report, "loans", .due).rows.records.compactMap { $0["barcode"]?.text })
    }

    /// `today` for `user` as the person looks at it (the mark moves), with the portal asked
    /// (`refresh`: even with fresh answers in the history).
    func today(_ bench: DemoServiceBench, on demo: DemoUniversity, user: String = "alice", refresh: Bool = false) async throws
        -> TodayReport
    {
        try await bench.withService(on: demo, user: user, keepingHistory: true) { service, connection in
            let day = try bench.day(history: service.history, user: user, now: Self.wednesday)
            let runs = DemoServiceBench.liveRuns(through: connection, now: Self.wednesday)
            return await day.today(live: runs.live, checkTerms: runs.checkTerms, refresh: refresh, markSeen: true)
        }
    }

    @Test("today on a Wednesday: the day's classes in order with the next marked, and the loans due; then from the history alone")
    func todayWithFixedClock() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await Self.withDemoOnWednesday { demo in
            let report = try await today(bench, on: demo)
            #expect(report.problem == nil, "\(String(describing: report.problem))")
            let live = try classes(report)
            #expect(
                live == ["08:15–09:45 Magyar irodalom a XX. században C-12 done", "15:00–16:30 Operating Systems Lab 3 next"], "\(live)")
            // Overdue ones, and the one due in two days; not the one due in five.
            let due = try loans(report)
            #expect(due == ["31000112", "31000101", "31000102", "31000103"], "\(due)")
            if case .accepted = report.terms {} else { Issue.record("terms: \(report.terms)") }

            // Offline: the same answers, from the history.
            let history = try bench.day(history: try HistoryStore(file: bench.historyFile), now: Self.wednesday)
            let offline = await history.today(live: nil, checkTerms: nil)
            let offlineClasses = try classes(offline)
            let offlineLoans = try loans(offline)
            let offlineSection = try section(offline, "courses", .events)
            #expect(offlineClasses == live)
            #expect(offlineLoans == due)
            #expect(offlineSection.fromHistory)
        }
    }

    @Test("'since you last looked' is per user: the first look shows nothing new, a grade posted after it shows as changed")
    func sinceYouLastLooked() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await Self.withDemoOnWednesday { demo in
            let first = try await today(bench, on: demo)
            let firstLook = try section(first, "grades", .changes)
            #expect(firstLook.firstLook)

            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-25")
            let second = try await today(bench, on: demo, refresh: true)
            let changes = try section(second, "grades", .changes).rows.records
            #expect(changes.count == 1, "\(changes)")
            #expect(changes.first?["code"] == .string("HUN-250"))
            #expect(changes.first?["change"]?.text.contains("grade: – → B") == true, "\(changes)")

            let third = try await today(bench, on: demo)
            let seen = try section(third, "grades", .changes)
            #expect(seen.rows.records.isEmpty, "seen once, not new again")
            // Another user has looked at nothing yet.
            let bence = try await today(bench, on: demo, user: "bence")
            let bences = try section(bence, "grades", .changes)
            #expect(bences.firstLook)
        }
    }

    // MARK: The calendar (from EndToEndTests/DayTests)

    /// The file's occurrences between two dates, as Python's `icalendar` with
    /// `recurring_ical_events` expands them: as a calendar app reads the file.
    func expand(_ file: URL, from start: String, to end: String) async throws -> (zones: [String], events: [[String: Any]]) {
        let script = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/ical_expand.py")
        let outcome = try await UniToolProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, file.path, start, end])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome)")
        return (object["zones"] as? [String] ?? [], object["events"] as? [[String: Any]] ?? [])
    }

    @Test(
        "the calendar's expanded events are the demo timetable for the whole term, rooms and free days included, with stable UIDs",
        .enabled(if: Needs.program("/usr/bin/python3")))
    func calendarMatchesTimetable() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let (text, uids, answers) = try await Self.withDemoOnWednesday { demo in
            try await bench.withService(on: demo) { _, connection in
                let day = try bench.day(history: nil, now: Self.wednesday)
                let live = DemoServiceBench.liveRuns(through: connection, now: Self.wednesday).live
                let calendar = try await day.calendar(live: live)
                // A second export has the same UIDs, so importing it again updates instead of doubling.
                let again = try await day.calendar(live: live)
                let uids = Set(calendar.events.map(\.uid))
                #expect(uids == Set(again.events.map(\.uid)) && uids.count > 10)
                return (calendar.text, uids, calendar.answers.map { ($0.0, $0.1.records) })
            }
        }
        #expect(answers.map(\.0) == ["courses", "exams", "loans"], "events from courses, exams, loans")
        #expect(!uids.isEmpty)
        // What the timetable says, from the courses command's own records.
        let records = try #require(answers.first { $0.0 == "courses" }?.1.records)
        let termStart = try #require(records.first?["term_start"]?.text)
        let termEnd = try #require(records.first?["term_end"]?.text)
        let free: Set<String> = {
            guard case .list(let days)? = records.first?["no_classes"] else { return [] }
            return Set(days.compactMap { $0["date"]?.text })
        }()
        #expect(free.count == 6, "the demo lists a day and a week without classes: \(free)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        var expected = Set<String>()
        var day = try #require(formatter.date(from: termStart))
        let last = try #require(formatter.date(from: termEnd))
        while day <= last {
            let date = formatter.string(from: day)
            let weekday = days[calendar.component(.weekday, from: day) - 1]
            for course in records where !free.contains(date) {
                guard case .list(let meetings)? = course["meetings"] else { continue }
                for meeting in meetings where meeting["day"]?.text == weekday {
                    let start = (meeting["time"]?.text ?? "").prefix(5)
                    expected.insert("\(date) \(start) \(course["course"]?.text ?? "") @ \(meeting["room"]?.text ?? "")")
                }
            }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        #expect(expected.count > 90, "a whole term of classes: \(expected.count)")

        let file = bench.sandbox.root.appendingPathComponent("week.ics")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let end = formatter.string(from: calendar.date(byAdding: .day, value: 60, to: last)!)
        let (zones, events) = try await expand(file, from: termStart, to: end)
        #expect(zones == ["Europe/Budapest"])

        let titles = Set(records.compactMap { $0["course"]?.text })
        let classes = events.filter { titles.contains($0["summary"] as? String ?? "") }
        let found = Set(
            classes.map { event -> String in
                let start = event["start"] as? String ?? ""
                return "\(start.prefix(10)) \(start.dropFirst(11).prefix(5)) \(event["summary"] ?? "") @ \(event["location"] ?? "")"
            })
        #expect(
            found == expected,
            "missing: \(expected.subtracting(found).sorted().prefix(5)), extra: \(found.subtracting(expected).sorted().prefix(5))")
        #expect(classes.allSatisfy { $0["tzid"] as? String == "Europe/Budapest" })

        // Exams are timed, loans all-day, and both remind the day before.
        let exams = events.filter {
            ($0["summary"] as? String ?? "").hasPrefix("Midterm:") || ($0["summary"] as? String ?? "").hasPrefix("Final:")
        }
        #expect(exams.count == 4, "the demo's four scheduled exams (one is not announced yet): \(exams)")
        #expect(exams.allSatisfy { $0["all_day"] as? Bool == false && $0["alarms"] as? [String] == ["-P1D"] })
        let loans = events.filter { ($0["summary"] as? String ?? "").hasPrefix("Return:") }
        #expect(!loans.isEmpty && loans.allSatisfy { $0["all_day"] as? Bool == true && $0["alarms"] as? [String] == ["-P1D"] })
    }
}
