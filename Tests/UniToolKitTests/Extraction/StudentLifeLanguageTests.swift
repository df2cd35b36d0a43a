import Foundation
import LibXML
import Testing
import UniToolKit
import UniToolTestSupport

/// What the recipe language gained for the campus app's other screens, each on a small page or
/// recipe: `compute: at_most`, the `covers` filter, a positional option and an option that
/// chooses its source, an action's parameters, `ask` and `confirm_page`, the calendar's `end`,
/// `only` and `when_asked`, and a `today:` section's `fields`. Every mistake is refused as the
/// recipe is read, naming the key.
@Suite("The recipe language: attendance, spans, syllabus-style sources, forms that ask, calendars of closed days")
struct StudentLifeLanguageTests {
    func recipe(_ text: String) throws -> DataRecipe { try DataRecipe.load(file: "test.yaml", text: text, portal: "test") }

    /// Whether reading `text` is refused as an invalid recipe whose message holds `words`.
    func refused(_ text: String, _ words: String) -> Bool {
        do {
            _ = try recipe(text)
            return false
        } catch let error as UniToolError {
            return error.kind == .recipeInvalid && (error.message + (error.hint ?? "")).contains(words)
        } catch {
            return false
        }
    }

    @Test("compute: at_most is true at or under the limit, false above it, null when the number is missing")
    func atMost() throws {
        let text = """
            command: attendance
            fetch: /a
            rows: "//tr"
            fields:
              code: { xpath: "td[1]", key: true }
              left: { xpath: "td[2]", type: integer }
              warning: { compute: { at_most: { left: 1 } }, flag: true }
            """
        let html =
            "<table><tr><td>A</td><td>0</td></tr><tr><td>B</td><td>1</td></tr><tr><td>C</td><td>2</td></tr><tr><td>D</td></tr></table>"
        let set = try RecordExtractor(recipe: try recipe(text), today: "2026-11-25").extract(
            from: try Document(html: html, url: "https://p/a"))
        #expect(set.records.map { $0["warning"] } == [.bool(true), .bool(true), .bool(false), .null])
        let base = "command: a\nfetch: /a\nrows: \"//tr\"\nfields:\n  code: { xpath: td }\n"
        #expect(refused(base + "  w: { compute: { at_most: { code: 1 } } }\n", "needs an integer or number field"))
        #expect(refused(base + "  n: { xpath: td, type: integer }\n  w: { compute: { at_most: { n: few } } }\n", "name one number field"))
        // The number is read before the warning, or the warning would be null on every row.
        #expect(refused(base + "  w: { compute: { at_most: { n: 1 } } }\n  n: { xpath: td, type: integer }\n", "declared before it"))
        #expect(
            refused(
                base + "  d: { xpath: td, type: date, format: yyyy-MM-dd }\n  n: { xpath: td, type: integer }\n"
                    + "  w: { compute: { at_most: { n: 1 }, before_today: d } }\n", "say one computation"))
    }

    @Test("the covers filter keeps records whose span holds the day; an open end runs on; its fields must be dates")
    func covers() throws {
        let recipe = try recipe(
            """
            command: hours
            fetch: /h
            rows: "//tr"
            options:
              on: { filter: { field: from, end_field: until, test: covers } }
            fields:
              from: { xpath: "td[1]", type: date, format: yyyy-MM-dd }
              until: { xpath: "td[2]", type: date, format: yyyy-MM-dd }
            """)
        let option = try #require(recipe.options.first)
        func kept(_ day: String) throws -> [String] {
            let spans: [(String, String?)] = [("2026-11-01", "2026-11-30"), ("2026-12-03", "2026-12-03"), ("2026-12-04", nil)]
            let set = RecordSet(
                columns: ["from", "until"],
                records: spans.map { Record(fields: [("from", .date($0.0)), ("until", $0.1.map(FieldValue.date) ?? .null)]) })
            return RecordFilter.apply([try RecordFilter(option: option, value: day)], to: set).records.map { $0["from"]?.text ?? "" }
        }
        #expect(try kept("2026-11-30") == ["2026-11-01"])
        #expect(try kept("2026-12-03") == ["2026-12-03"])
        #expect(try kept("2027-06-01") == ["2026-12-04"])
        #expect(try kept("2026-10-31") == [])
        let wednesday = try #require(CalendarDay(iso: "2026-11-25")?.moment(atMinute: 720, in: .current))
        #expect(try RecordFilter(option: option, value: "today", now: wednesday).value == "2026-11-25")

        let fields = "fields:\n  from: { xpath: td, type: date, format: yyyy-MM-dd }\n  note: { xpath: td }\n"
        let head = "command: h\nfetch: /h\nrows: \"//tr\"\noptions:\n"
        #expect(refused(head + "  on: { filter: { field: from, test: covers } }\n" + fields, "end_field"))
        #expect(refused(head + "  on: { filter: { field: from, end_field: note, test: covers } }\n" + fields, "'note' is not one"))
        #expect(refused(head + "  on: { filter: { field: from, end_field: from, test: since } }\n" + fields, "only test: covers"))
    }

    @Test("a weekday names one day for dated records: its next occurrence, today included; a timetable's day matches every week")
    func nextWeekday() throws {
        let recipe = try recipe(
            """
            command: menu
            fetch: /m
            rows: "//tr"
            options:
              day: { filter: { field: date, test: weekday } }
            fields:
              date: { xpath: "td[1]", type: date, format: yyyy-MM-dd }
              dish: { xpath: "td[2]" }
            """)
        let option = try #require(recipe.options.first)
        // Two weeks of menus: Monday 23 to Friday 27 November, and Monday 30 November.
        let days = ["2026-11-23", "2026-11-24", "2026-11-27", "2026-11-30"]
        let set = RecordSet(
            columns: ["date", "dish"], records: days.map { Record(fields: [("date", .date($0)), ("dish", .string("x"))]) })
        func kept(_ value: String, on today: String) throws -> [String] {
            let now = try #require(CalendarDay(iso: today)?.moment(atMinute: 600, in: .current))
            return RecordFilter.apply([try RecordFilter(option: option, value: value, now: now)], to: set).records.map {
                $0["date"]?.text ?? ""
            }
        }
        // On a Sunday, Monday is tomorrow, not six days ago.
        #expect(try kept("mon", on: "2026-11-29") == ["2026-11-30"])
        // On a Monday, Monday is today; on Tuesday, Friday is this week's.
        #expect(try kept("monday", on: "2026-11-23") == ["2026-11-23"])
        #expect(try kept("fri", on: "2026-11-24") == ["2026-11-27"])
        #expect(try kept("tomorrow", on: "2026-11-23") == ["2026-11-24"])
        #expect(try kept("yesterday", on: "2026-11-24") == ["2026-11-23"])
        #expect(try kept("2026-11-24", on: "2026-11-29") == ["2026-11-24"])
        // A day with no menu yet is no record, not another week's.
        #expect(try kept("tue", on: "2026-11-29") == [])
        #expect(throws: UniToolError.self) { try kept("someday", on: "2026-11-29") }

        // A timetable that names only weekdays matches the weekday, whatever the week.
        let timetable = RecordSet(
            columns: ["date"], records: [Record(fields: [("date", .string("Mon"))]), Record(fields: [("date", .string("火"))])])
        let now = try #require(CalendarDay(iso: "2026-11-29")?.moment(atMinute: 600, in: .current))
        let monday = try RecordFilter(option: option, value: "mon", now: now)
        #expect(RecordFilter.apply([monday], to: timetable).records == [Record(fields: [("date", .string("Mon"))])])
    }

    @Test("a yes/no field's equals filter takes any way of writing yes or no")
    func boolEquals() throws {
        let recipe = try recipe(
            """
            command: attendance
            fetch: /a
            rows: "//tr"
            options:
              warning: { filter: { field: warning, test: equals } }
            fields:
              code: { xpath: td, key: true }
              warning: { xpath: td, type: bool }
            """)
        let option = try #require(recipe.options.first)
        let set = RecordSet(
            columns: ["code", "warning"],
            records: [
                Record(fields: [("code", .string("A")), ("warning", .bool(true))]),
                Record(fields: [("code", .string("B")), ("warning", .bool(false))]),
            ])
        for (value, expected) in [("true", "A"), ("yes", "A"), ("1", "A"), ("no", "B"), ("false", "B")] {
            let kept = RecordFilter.apply([try RecordFilter(option: option, value: value)], to: set).records.map { $0["code"]?.text ?? "" }
            #expect(kept == [expected], "\(value)")
        }
    }

    static let syllabus = """
        command: syllabus
        login: false
        options:
          code: { positional: true }
          search: { source: search }
          lang: { default: en }
        sources:
          course:
            fetch: "/syllabus/{{code}}?lang={{lang}}"
            rows: "//table"
            fields: { code: { xpath: "tr[1]/td" } }
          search:
            fetch: "/syllabus?q={{search}}&lang={{lang}}"
            rows: "//tr"
            fields: { code: { xpath: "td[1]" } }
        """

    @Test("an option that chooses its source: what each source needs is required only for it; both, or neither, is refused")
    func sourceChosenByOption() throws {
        let recipe = try recipe(Self.syllabus)
        #expect(recipe.options.first?.positional == true)
        #expect(RecipeRequest.optionsSchema(for: recipe).required.isEmpty, "neither is required by every source")
        let search = try RecipeRequest(recipe: recipe, options: [("search", .string("theory"))], naming: .mcp)
        #expect(search.source == "search")
        let course = try RecipeRequest(recipe: recipe, options: [("code", .string("CS-320"))], naming: .commandLine)
        #expect(course.source == nil)
        #expect { try RecipeRequest(recipe: recipe, options: [], naming: .commandLine) } throws: {
            ($0 as? ArgumentProblem)?.message == "'syllabus' needs '--code', or '--search' instead"
        }
        #expect {
            try RecipeRequest(recipe: recipe, options: [("code", .string("A")), ("search", .string("b"))], naming: .rpc)
        } throws: { ($0 as? ArgumentProblem)?.message.contains("'options.code' is not read by source 'search'") == true }
        #expect {
            try RecipeRequest(recipe: recipe, options: [("search", .string("b"))], shape: [("source", .string("course"))], naming: .rpc)
        } throws: { ($0 as? ArgumentProblem)?.message.contains("reads from source 'search', not 'course'") == true }

        #expect(
            refused(Self.syllabus.replacingOccurrences(of: "search: { source: search }", with: "search: { source: nowhere }"), "nowhere"))
        #expect(
            refused(
                Self.syllabus.replacingOccurrences(of: "lang: { default: en }", with: "lang: { default: en, positional: true }"),
                "only one option can be positional"))
        #expect(
            refused(
                Self.syllabus.replacingOccurrences(
                    of: "search: { source: search }", with: "search: { source: search, filter: { field: code } }"), "cannot choose one"))
        let withAction =
            Self.syllabus
            + "\nactions:\n  save:\n    fetch: /s\n    form: \"//form\"\n    success_when: \"//p\"\n"
        #expect(refused(withAction, "cannot be positional in a recipe with actions"))
        // The history keys an answer by its options when an option chose its source, as watch
        // and today look it up.
        #expect(search.historySource == nil)
        let named = try RecipeRequest(
            recipe: recipe, options: [("code", .string("A"))], shape: [("source", .string("course"))], naming: .rpc)
        #expect(named.historySource == "course")
    }

    static let requestAction = """
        command: library
        fetch: /requests
        rows: "//tr"
        fields: { number: { xpath: "td[1]", key: true } }
        actions:
          request:
            parameters:
              title: { required: true, help: "the title" }
              isbn: {}
            ask: true
            fetch: /request
            form: "//form[@id='r']"
            fill: { title: "{{title}}", isbn: "{{isbn}}" }
            confirm_page: { form: "//form[@id='c']", submit: ".//button[@name='send']" }
            success_when: "//p[@class='done']"
        """

    @Test("an action's parameters, ask and confirm_page are read; a fill that names an unknown value, or a bad name, is refused")
    func actionParameters() throws {
        let action = try #require(try recipe(Self.requestAction).actions.first)
        #expect(action.parameters.map(\.name) == ["title", "isbn"] && action.parameters.map(\.required) == [true, false])
        #expect(action.ask && action.confirmPage?.form == "//form[@id='c']" && action.confirmPage?.submit == ".//button[@name='send']")
        #expect(action.values(argument: "", parameters: ["title": "T"]) == ["title": "T", "isbn": ""], "a value not given is empty")
        #expect(refused(Self.requestAction.replacingOccurrences(of: "isbn: \"{{isbn}}\"", with: "isbn: \"{{issn}}\""), "{{issn}}"))
        #expect(refused(Self.requestAction.replacingOccurrences(of: "isbn: {}", with: "ISBN-13: {}"), "lowercase letters"))
        #expect(refused(Self.requestAction.replacingOccurrences(of: "isbn: {}", with: "yes: {}"), "unitool's own option"))
        #expect(action.missingParameters(["isbn": "1"]) == ["title"] && action.missingParameters(["title": ""]) == ["title"])
        #expect(action.unknownParameters(["title": "T", "price": "1", "author": "A"]) == ["author", "price"])
        #expect(refused(Self.requestAction.replacingOccurrences(of: "confirm_page: { form:", with: "confirm_page: { from:"), "from"))
        #expect(
            refused(
                Self.requestAction.replacingOccurrences(
                    of: "confirm_page: { form: \"//form[@id='c']\"", with: "confirm_page: { form: \"//form[\""), "form"))
    }

    @Test("calendar end:, only: and when_asked: are read and checked against the fields")
    func calendarKeys() throws {
        let base = """
            command: hours
            fetch: /h
            rows: "//tr"
            fields:
              store: { xpath: "td[1]", key: true }
              from: { xpath: "td[2]", type: date, format: yyyy-MM-dd }
              until: { xpath: "td[3]", type: date, format: yyyy-MM-dd }
              closed: { xpath: "td[4]", type: bool }
            calendar:
              summary: "Closed: {{store}}"
              date: from

            """
        let spec = try #require(try recipe(base + "  end: until\n  only: closed\n  when_asked: true\n").calendar)
        #expect(spec.end == "until" && spec.only == "closed" && spec.whenAsked)
        #expect(refused(base + "  end: store\n", "needs a date field"))
        #expect(refused(base + "  only: store\n", "needs a bool field"))
        #expect(refused(base + "  end: until\n  time: store\n", "end: is the last day of an all-day event"))
    }

    @Test("an all-day event over several days ends the day after its last (DTEND is exclusive), and occurs on each")
    func spanEvent() throws {
        let recipe = try recipe(
            """
            command: hours
            fetch: /h
            rows: "//tr"
            fields:
              store: { xpath: "td[1]", key: true }
              from: { xpath: "td[2]", type: date, format: yyyy-MM-dd, key: true }
              until: { xpath: "td[3]", type: date, format: yyyy-MM-dd }
              closed: { xpath: "td[4]", type: bool }
            calendar: { summary: "Closed: {{store}}", date: from, end: until, only: closed }
            """)
        let set = RecordSet(
            columns: ["store", "from", "until", "closed"],
            records: [
                Record(fields: [
                    ("store", .string("Co-op")), ("from", .date("2026-12-20")), ("until", .date("2026-12-28")), ("closed", .bool(true)),
                ]),
                Record(fields: [
                    ("store", .string("Co-op")), ("from", .date("2026-11-01")), ("until", .date("2026-12-19")), ("closed", .bool(false)),
                ]),
            ])
        let events = try CalendarEventBuilder(recipe: recipe, spec: try #require(recipe.calendar), portal: "p", user: "u").events(from: set)
        #expect(events.count == 1, "only the closed range")
        let event = try #require(events.first)
        let christmas = try #require(CalendarDay(iso: "2026-12-24"))
        let after = try #require(CalendarDay(iso: "2026-12-29"))
        #expect(event.occurs(on: christmas) && !event.occurs(on: after))
        let record = try #require(CalendarEvent.records(events).records.first)
        #expect(record["start"] == .date("2026-12-20") && record["end"] == .date("2026-12-28"), "the last day, as people count")
        let text = ICalendarWriter(timeZone: TimeZone(identifier: "Asia/Tokyo")!, name: "x").render(events)
        #expect(text.contains("DTSTART;VALUE=DATE:20261220\r\n") && text.contains("DTEND;VALUE=DATE:20261229\r\n"), "\(text)")
    }

    @Test("a today: section's fields are read, only for records and due, and checked against the command's fields")
    func todayFields() throws {
        let portal = """
            portal: p
            base_url: https://portal.example.edu
            login: { pages: [{ when: "//form", auto_submit: true }] }
            today:
              - command: menu
                show: records
                fields: [dish, price]

            """
        let loaded = try PortalRecipe.load(file: "p.yaml", text: portal)
        #expect(loaded.today.first?.fields == ["dish", "price"])
        let menu = try recipe("command: menu\nfetch: /m\nrows: \"//tr\"\nfields:\n  dish: { xpath: td, key: true }\n")
        #expect(
            loaded.todayProblems(commands: ["menu": menu]) == ["p.yaml: today[0] (menu): 'price' is not a field of 'menu' (fields: dish)"])
        #expect {
            try PortalRecipe.load(file: "p.yaml", text: portal.replacingOccurrences(of: "show: records", with: "show: events"))
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }
}
