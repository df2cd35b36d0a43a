import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `unitool calendar`, `--format ics` and `unitool today` against the demo, with the clock fixed
/// by `UNITOOL_NOW`; the calendar is read back by a real iCalendar library (Python's
/// `icalendar`, recurrences expanded by `recurring_ical_events`), as a calendar app reads it.
@Suite("Your day: the calendar export and today, end to end")
struct DayTests {
    let sandbox: Sandbox
    /// A Wednesday morning, campus time: Magyar irodalom (08:15) is over, Operating Systems
    /// (15:00) is next.
    static let wednesday = "2026-11-25T10:00:00+01:00"

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], now: String = wednesday, demo: DemoUniversity? = nil) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--portal", "demo"] + arguments, demo: demo?.baseURL, extra: ["UNITOOL_NOW": now])
    }

    func object(_ outcome: UniToolProcess.Outcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome)")
    }

    /// The file's occurrences between two dates, as the Python library expands them.
    func expand(_ file: URL, from start: String, to end: String) async throws -> (zones: [String], events: [[String: Any]]) {
        let script = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/ical_expand.py")
        let outcome = try await UniToolProcess.run(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, file.path, start, end])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome)")
        return (object["zones"] as? [String] ?? [], object["events"] as? [[String: Any]] ?? [])
    }

    @Test("the calendar's expanded events are the demo timetable for the whole term, rooms and free days included, with stable UIDs")
    func calendarMatchesTimetable() async throws {
        // What the timetable says, from the courses command's own records.
        let courses = try await run(["courses", "--json"])
        #expect(courses.exitCode == 0, "\(courses)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(courses.stdout.utf8)) as? [[String: Any]])
        let termStart = try #require(records.first?["term_start"] as? String)
        let termEnd = try #require(records.first?["term_end"] as? String)
        let free = Set((records.first?["no_classes"] as? [[String: Any]] ?? []).compactMap { $0["date"] as? String })
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
                for meeting in course["meetings"] as? [[String: Any]] ?? [] where meeting["day"] as? String == weekday {
                    let start = (meeting["time"] as? String ?? "").prefix(5)
                    expected.insert("\(date) \(start) \(course["course"] ?? "") @ \(meeting["room"] ?? "")")
                }
            }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        #expect(expected.count > 90, "a whole term of classes: \(expected.count)")

        let file = sandbox.root.appendingPathComponent("week.ics")
        let export = try await run(["calendar", "--output", file.path])
        #expect(export.exitCode == 0 && export.stdout.isEmpty, "\(export)")
        #expect(export.stderr.contains("events from courses, exams, loans"), "\(export)")
        let end = formatter.string(from: calendar.date(byAdding: .day, value: 60, to: last)!)
        let (zones, events) = try await expand(file, from: termStart, to: end)
        #expect(zones == ["Europe/Budapest"])

        let classes = events.filter { event in records.contains { $0["course"] as? String == event["summary"] as? String } }
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

        // A second export has the same UIDs, so importing it again updates instead of doubling.
        let again = sandbox.root.appendingPathComponent("again.ics")
        #expect(try await run(["calendar", "--output", again.path]).exitCode == 0)
        let uids = { (url: URL) throws -> Set<String> in
            Set(try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") })
        }
        let first = try uids(file)
        #expect(first == (try uids(again)) && first.count > 10)
    }

    @Test("--format ics on one command, and a clear refusal for a command without a calendar")
    func formatICS() async throws {
        let exams = try await run(["exams", "--format", "ics"])
        #expect(exams.exitCode == 0, "\(exams)")
        #expect(exams.stdout.hasPrefix("BEGIN:VCALENDAR\r\n") && exams.stdout.contains("SUMMARY:Midterm: 情報理論 (Information Theory)\r\n"))
        let grades = try await run(["grades", "--format=ics"])
        #expect(grades.exitCode == 64, "\(grades)")
        #expect(grades.stderr.contains("'grades' has no calendar") && grades.stderr.contains("courses, exams, loans"), "\(grades)")
    }

    @Test("today, with the clock fixed on a Wednesday: the day's classes in order with the next marked, and the loans due; then --offline")
    func todayWithFixedClock() async throws {
        let live = try await run(["today", "--json"])
        #expect(live.exitCode == 0, "\(live)")
        let report = try object(live)
        #expect(report["date"] as? String == "2026-11-25")
        let sections = try #require(report["sections"] as? [String: Any])
        func classes(_ sections: [String: Any]) -> [String] {
            ((sections["classes_today"] as? [String: Any])?["events"] as? [[String: Any]] ?? []).map {
                "\($0["when"] ?? "") \($0["what"] ?? "") \($0["where"] ?? "") \($0["status"] ?? "")"
            }
        }
        #expect(
            classes(sections) == [
                "08:15–09:45 Magyar irodalom a XX. században C-12 done", "15:00–16:30 Operating Systems Lab 3 next",
            ])
        func loans(_ sections: [String: Any]) -> Set<String> {
            Set(
                ((sections["loans_overdue_or_due_within_3_days"] as? [String: Any])?["records"] as? [[String: Any]] ?? []).compactMap {
                    $0["barcode"] as? String
                })
        }
        // Overdue ones, and the one due in two days; not the one due in five.
        #expect(loans(sections) == ["31000112", "31000101", "31000102", "31000103"])
        #expect((report["terms"] as? [String: Any])?["status"] as? String == "accepted")

        let text = try await run(["today"])
        #expect(text.stdout.contains("Wednesday 25 November 2026") && text.stdout.contains("Classes today"), "\(text)")

        let offline = try await run(["today", "--offline", "--json"])
        #expect(offline.exitCode == 0, "\(offline)")
        let offlineSections = try #require(try object(offline)["sections"] as? [String: Any])
        #expect(classes(offlineSections) == classes(sections))
        #expect(loans(offlineSections) == loans(sections))
        #expect((offlineSections["classes_today"] as? [String: Any])?["from_history"] as? Bool == true)
    }

    @Test("'since you last looked' is per user: the first look shows nothing new, a grade posted after it shows as changed")
    func sinceYouLastLooked() async throws {
        try await DemoUniversity.withRunning { demo in
            let first = try await run(["today", "--json"], demo: demo)
            #expect(first.exitCode == 0, "\(first)")
            let grades = { (outcome: UniToolProcess.Outcome) throws -> [String: Any] in
                try #require((try object(outcome)["sections"] as? [String: Any])?["grades_since_you_last_looked"] as? [String: Any])
            }
            #expect(try grades(first)["first_look"] as? Bool == true)

            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-25")
            let second = try await run(["today", "--refresh", "--json"], demo: demo)
            let changes = try grades(second)["changes"] as? [[String: Any]] ?? []
            #expect(changes.count == 1, "\(second)")
            #expect(changes.first?["code"] as? String == "HUN-250")
            #expect((changes.first?["change"] as? String ?? "").contains("grade: – → B"), "\(changes)")

            let third = try await run(["today", "--json"], demo: demo)
            #expect((try grades(third)["changes"] as? [[String: Any]])?.isEmpty == true, "seen once, not new again: \(third)")
            // Another user has looked at nothing yet.
            let bence = try await sandbox.run(
                ["--portal", "demo", "today", "--json", "--user", "bence", "--password-stdin"], demo: demo.baseURL, stdin: "Kaland-2026",
                extra: ["UNITOOL_NOW": Self.wednesday])
            #expect(try grades(bence)["first_look"] as? Bool == true, "\(bence)")
        }
    }

    @Test("the overview lists pinned commands first, then the recent ones; a pin with a mistyped option is refused")
    func pinsAndRecents() async throws {
        #expect(try await run(["loans", "--json"]).exitCode == 0)
        let pinned = try await run(["pin", "grades", "--term", "current"])
        #expect(pinned.exitCode == 0 && pinned.stderr.contains("pinned: unitool grades --term current"), "\(pinned)")
        let typo = try await run(["pin", "grades", "--trem", "current"])
        #expect(typo.exitCode == 64 && typo.stderr.contains("did you mean '--term'"), "\(typo)")
        let overview = try await run([])
        let text = overview.stdout
        let pins = try #require(text.range(of: "PINNED (unitool pin):\n  unitool grades --term current\n"), "\(overview)")
        let recent = try #require(text.range(of: "RECENT:\n  unitool loans\n"), "\(overview)")
        #expect(pins.lowerBound < recent.lowerBound)
        #expect(try await run(["pin", "--json"]).stdout == "[\"unitool grades --term current\"]\n")
        #expect(try await run(["pin", "--remove", "grades", "--term", "current"]).exitCode == 0)
        #expect(!(try await run([])).stdout.contains("PINNED"))
    }
}
