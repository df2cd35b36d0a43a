import Foundation
import Testing
import UniToolKit

@Suite("Records to calendar events")
struct CalendarEventTests {
    static let coursesRecipe = """
        command: courses
        fetch: /courses
        rows: "//article"
        fields:
          course: { xpath: "h3", required: true }
          code:   { xpath: "@id", key: true }
          meetings:
            list:
              rows: "li"
              fields:
                day:  { xpath: "@data-day" }
                time: { xpath: "." }
                room: { xpath: "@data-room" }
          term_start: { xpath: "//@data-start", type: date, format: yyyy-MM-dd, priority: hidden }
          term_end:   { xpath: "//@data-end", type: date, format: yyyy-MM-dd, priority: hidden }
          no_classes:
            priority: hidden
            list:
              rows: "//li[@class='free']"
              fields:
                date: { xpath: "@data-date", type: date, format: yyyy-MM-dd }
        calendar:
          each: meetings
          summary: "{{course}}"
          location: "{{room}}"
          day: day
          time: time
          weekly: { from: term_start, until: term_end, except: no_classes.date }
        """

    func recipe(_ text: String = coursesRecipe) throws -> DataRecipe {
        try DataRecipe.load(file: "courses.yaml", text: text, portal: "uni")
    }

    func course(_ code: String, meetings: [(String, String, String)], free: [String] = ["2026-10-26", "2026-10-27"]) -> Record {
        Record(fields: [
            ("course", .string("Course \(code)")), ("code", .string(code)),
            (
                "meetings",
                .list(meetings.map { Record(fields: [("day", .string($0.0)), ("time", .string($0.1)), ("room", .string($0.2))]) })
            ),
            ("term_start", .date("2026-09-10")), ("term_end", .date("2026-12-18")),
            ("no_classes", .list(free.map { Record(fields: [("date", .date($0))]) })),
        ])
    }

    func events(_ records: [Record], recipe: DataRecipe? = nil, user: String = "alice") throws -> [CalendarEvent] {
        let recipe = try recipe ?? self.recipe()
        return try CalendarEventBuilder(recipe: recipe, spec: recipe.calendar!, portal: "uni", user: user)
            .events(from: RecordSet(columns: recipe.columns, records: records))
    }

    @Test("a meeting becomes a weekly series from its first weekday in the term, skipping only free days on that weekday")
    func weeklySeries() throws {
        let built = try events([course("M-1", meetings: [("Mon", "10:00-11:30", "A-101"), ("Thu", "10:00-11:30", "A-101")])])
        #expect(built.count == 2)
        // The term starts on Thursday 10 September: the Monday class first meets on the 14th.
        #expect(built[0].timing == .timed(CalendarDay(year: 2026, month: 9, day: 14), startMinute: 600, endMinute: 690))
        #expect(built[1].timing.day == CalendarDay(year: 2026, month: 9, day: 10))
        #expect(built[0].exceptions == [CalendarDay(year: 2026, month: 10, day: 26)])
        #expect(built[1].exceptions.isEmpty, "the free Monday and Tuesday are not Thursdays")
        #expect(built[0].weeklyUntil == CalendarDay(year: 2026, month: 12, day: 18))
        #expect(built[0].occurrences.count == 14 - 1)
        #expect(built[0].occurs(on: CalendarDay(year: 2026, month: 11, day: 23)))
        #expect(!built[0].occurs(on: CalendarDay(year: 2026, month: 10, day: 26)))
        #expect(!built[0].occurs(on: CalendarDay(year: 2026, month: 11, day: 24)))
        #expect(built[0].location == "A-101" && built[0].summary == "Course M-1")
    }

    @Test("UIDs follow the record's key and the meeting's place: the same after a room or time change, different across users")
    func stableUIDs() throws {
        let before = try events([course("M-1", meetings: [("Mon", "10:00-11:30", "A-101")])])
        let moved = try events([course("M-1", meetings: [("Mon", "12:00-13:30", "B-2")])])
        #expect(before[0].uid == moved[0].uid)
        #expect(before[0].uid.hasSuffix("@uni.unitool"))
        #expect(try events([course("M-1", meetings: [("Mon", "10:00-11:30", "A-101")])], user: "bob")[0].uid != before[0].uid)
        #expect(try events([course("M-2", meetings: [("Mon", "10:00-11:30", "A-101")])])[0].uid != before[0].uid)
    }

    @Test("a day unitool cannot read is an error naming the record; an empty day has no event")
    func unreadableDay() throws {
        #expect { try events([course("M-1", meetings: [("Someday", "10:00", "A")])]) } throws: {
            ($0 as? UniToolError)?.kind == .recipeInvalid
        }
        #expect(try events([course("M-1", meetings: [("", "10:00-11:00", "A")])]).isEmpty)
    }

    @Test("weekdays as portals print them")
    func weekdays() {
        #expect(Weekday(parsing: "Mon") == .monday)
        #expect(Weekday(parsing: "thursday") == .thursday)
        #expect(Weekday(parsing: "Tu.") == .tuesday)
        #expect(Weekday(parsing: "月") == .monday)
        #expect(Weekday(parsing: "(金)") == .friday)
        #expect(Weekday(parsing: "水曜日") == .wednesday)
        #expect(Weekday(parsing: "2026-11-24") == .tuesday)
        #expect(Weekday(parsing: "x") == nil)
        #expect(Weekday(parsing: "") == nil)
    }

    @Test("times and spans as timetables print them")
    func timeSpans() {
        #expect(TimeSpan(parsing: "10:00–11:30") == TimeSpan(start: 600, end: 690))
        #expect(TimeSpan(parsing: "9.30 - 11.00") == TimeSpan(start: 570, end: 660))
        #expect(TimeSpan(parsing: "13:00〜14:30") == TimeSpan(start: 780, end: 870))
        #expect(TimeSpan(parsing: "08:15") == TimeSpan(start: 495, end: nil))
        #expect(TimeSpan(parsing: "25:00") == nil)
        #expect(TimeSpan(parsing: "soon") == nil)
    }

    static let examsRecipe = """
        command: exams
        fetch: /exams
        rows: "//tr"
        fields:
          course: { xpath: "td[1]", key: true }
          date:   { xpath: "td[2]", type: date, format: yyyy-MM-dd }
          time:   { xpath: "td[3]" }
        calendar:
          summary: "Exam: {{course}}"
          date: date
          time: time
          duration: 2h
          alarm: 1d
        """

    @Test("an exam with a start time lasts its duration; one without a date yet has no event")
    func exams() throws {
        let recipe = try recipe(Self.examsRecipe)
        let built = try events(
            [
                Record(fields: [("course", .string("Physics")), ("date", .date("2026-12-21")), ("time", .string("09:00"))]),
                Record(fields: [("course", .string("Literature")), ("date", .null), ("time", .string(""))]),
            ], recipe: recipe)
        #expect(built.count == 1)
        #expect(built[0].timing == .timed(CalendarDay(year: 2026, month: 12, day: 21), startMinute: 540, endMinute: 660))
        #expect(built[0].alarm == 86_400 && built[0].weeklyUntil == nil)
    }

    @Test(
        "a calendar: section is checked against the recipe's fields when it is read",
        arguments: [
            ("summary: \"{{nope}}\"\n  date: date", "{{nope}}"),
            ("summary: x\n  date: time", "needs a date or datetime field"),
            ("summary: x\n  date: date\n  day: time", "not both"),
            ("summary: x\n  day: time", "weekly"),
            ("summary: x\n  date: date\n  alarm: soon", "length of time"),
            ("summary: x", "say when"),
        ])
    func invalidSections(section: String, complaint: String) {
        let text = Self.examsRecipe.components(separatedBy: "calendar:")[0] + "calendar:\n  " + section + "\n"
        do {
            _ = try DataRecipe.load(file: "exams.yaml", text: text, portal: "uni")
            Issue.record("accepted: \(section)")
        } catch {
            #expect("\(error)".contains(complaint), "\(error)")
        }
    }

    @Test("days: ISO text, weekday arithmetic, and the day a moment falls on in a zone")
    func days() {
        let day = CalendarDay(iso: "2026-11-24")
        #expect(day?.weekday == .tuesday && day?.description == "2026-11-24" && day?.basic == "20261124")
        #expect(CalendarDay(iso: "2026-02-30") == nil)
        #expect(CalendarDay(iso: "2026-11-24T10:00:00+01:00") == day)
        // 23:30 UTC on the 24th is already the 25th in Budapest.
        let late = Date(timeIntervalSince1970: 1_795_563_000)
        #expect(CalendarDay(late, in: TimeZone(identifier: "UTC")!) == day)
        #expect(CalendarDay(late, in: TimeZone(identifier: "Europe/Budapest")!) == day?.adding(days: 1))
    }
}
