import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Summaries written for people (issue 50, deliverable 2): what names a record, dates and changes
/// in words, a recipe's `watch:` templates and their checks, overdue apart from due soon, and the
/// event's JSON with typed values.
@Suite("Watch summaries for people")
struct WatchSummaryTests {
    static let today = "2026-11-29"

    static func recipe(watch: String = "", fields: String? = nil) throws -> DataRecipe {
        let fieldLines =
            fields ?? """
                  title:   { xpath: "td[1]", required: true, priority: high }
                  barcode: { xpath: "td[2]", required: true, key: true }
                  due:     { xpath: "td[3]", type: date, format: yyyy-MM-dd, required: true }
                  renewals_left: { xpath: "td[4]", type: integer }
                  overdue: { compute: { before_today: due }, flag: true }
                """
        return try DataRecipe.load(
            file: "loans.yaml", text: "command: loans\nfetch: /loans\nrows: \"//tr\"\nfields:\n\(fieldLines)\n\(watch)", portal: "demo")
    }

    static func loan(_ title: String, _ barcode: String, due: String, renewals: Int = 2) -> Record {
        Record(fields: [
            ("title", .string(title)), ("barcode", .string(barcode)), ("due", .date(due)), ("renewals_left", .integer(renewals)),
            ("overdue", .bool(due < today)),
        ])
    }

    static let template = WatchEvent(
        kind: .added, portal: "demo", user: "alice", command: "loans", options: "", time: Date(timeIntervalSince1970: 0))

    static func event(_ kind: WatchEvent.Kind, _ record: Record, changes: [RecordChanges.FieldChange] = []) -> WatchEvent {
        var event = template
        event.kind = kind
        event.record = record
        event.key = record["barcode"]?.text
        event.changes = changes
        return event
    }

    // MARK: the decision

    @Test(
        "a date already past is overdue, today and later are due soon",
        arguments: [
            ("2026-11-26", WatchEvent.Kind.overdue), ("2026-11-28", .overdue), ("2026-11-29", .dueSoon), ("2026-12-01", .dueSoon),
        ])
    func dueKind(date: String, kind: WatchEvent.Kind) {
        #expect(WatchDecision.dueKind(date: date, today: Self.today) == kind)
    }

    @Test(
        "--due-within announces overdue loans as overdue, the rest as due soon, each once; a loan due soon is announced again when it becomes overdue"
    )
    func overdueApartFromDueSoon() throws {
        let recipe = try Self.recipe()
        let answer = RecordSet(
            columns: recipe.columns,
            records: [Self.loan("Overdue Book", "1", due: "2026-11-26"), Self.loan("Soon Book", "2", due: "2026-12-01")])
        let rule = WatchDecision.DueRule(field: "due", days: 3)
        func decide(_ memory: WatchDecision.Memory, today: String) -> WatchDecision {
            WatchDecision(
                previous: answer, outcome: .success(answer), memory: memory, keys: recipe.keyFields, announceExisting: false,
                due: rule, today: today, template: Self.template,
                summary: WatchSummary(recipe: recipe, fields: recipe.primary.fields, dueField: "due", today: today))
        }
        let first = decide(.init(), today: Self.today)
        #expect(first.events.map(\.kind) == [.overdue, .dueSoon])
        #expect(first.events.map(\.summary) == ["loans: Overdue Book is overdue since 26 Nov", "loans: Soon Book is due Tue 1 Dec"])
        #expect(decide(first.memory, today: Self.today).events.isEmpty, "once")
        // Two days on, the loan announced as due soon is past its date: that is news.
        let later = decide(first.memory, today: "2026-12-02")
        #expect(later.events.map(\.kind) == [.overdue] && later.events.first?.key == "2")
    }

    @Test("a loan that passes its due date is one overdue event, not also a change of its computed overdue flag")
    func overdueNotTwice() throws {
        let recipe = try Self.recipe()
        let rule = WatchDecision.DueRule(field: "due", days: 3, fields: recipe.primary.fields)
        #expect(rule.derived == ["overdue"])
        let before = RecordSet(
            columns: recipe.columns,
            records: [Self.loan("Book", "1", due: "2026-11-28")].map { record in
                Record(fields: record.fields.map { ($0.name, $0.name == "overdue" ? FieldValue.bool(false) : $0.value) })
            })
        let now = RecordSet(columns: recipe.columns, records: [Self.loan("Book", "1", due: "2026-11-28")])
        let memory = WatchDecision.Memory(announcedDue: ["1@2026-11-28"])
        let decision = WatchDecision(
            previous: before, outcome: .success(now), memory: memory, keys: recipe.keyFields, announceExisting: false, due: rule,
            today: Self.today, template: Self.template)
        #expect(decision.events.map(\.kind) == [.overdue])
        // Without the rule, the flag's change is how the watch says it.
        let plain = WatchDecision(
            previous: before, outcome: .success(now), memory: .init(), keys: recipe.keyFields, announceExisting: false, due: nil,
            today: Self.today, template: Self.template)
        #expect(plain.events.map(\.kind) == [.changed])
    }

    @Test("dates in a summary follow the locale given: month and weekday names in its language")
    func localeDates() {
        let hungarian = WatchSummary(command: "loans", dueField: "due", today: Self.today, locale: Locale(identifier: "hu_HU"))
        let words = hungarian.words(.date("2026-12-01"))
        #expect(words.contains("dec") && !words.contains("Dec"), "\(words)")
        let english = WatchSummary(command: "loans", dueField: "due", today: Self.today)
        #expect(english.words(.date("2026-12-01")) == "Tue 1 Dec")
    }

    @Test("a date and time is shown in the portal's zone, as tables show it, whatever the reader's zone")
    func portalZone() throws {
        var tokyo = WatchSummary(command: "deadlines", today: Self.today)
        tokyo.timeZone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        var budapest = tokyo
        budapest.timeZone = try #require(TimeZone(identifier: "Europe/Budapest"))
        let moment = FieldValue.datetime("2026-12-01T23:59:00+09:00")
        #expect(tokyo.words(moment).contains("23:59"), "\(tokyo.words(moment))")
        #expect(budapest.words(moment).contains("15:59"), "\(budapest.words(moment))")
    }

    // MARK: generic summaries

    @Test("without a template, a record is named by its title-like field, and dates and changes are words")
    func genericSummaries() throws {
        let recipe = try Self.recipe()
        let summary = WatchSummary(recipe: recipe, fields: recipe.primary.fields, dueField: nil, today: Self.today)
        let book = Self.loan("Der Zauberberg", "31000107", due: "2026-12-19")
        #expect(summary.text(for: Self.event(.added, book)) == "New in loans: Der Zauberberg")
        #expect(summary.text(for: Self.event(.removed, book)) == "Gone from loans: Der Zauberberg")
        let renewed = Self.event(
            .changed, book,
            changes: [
                .init(field: "due", old: .date("2026-12-05"), new: .date("2026-12-19")),
                .init(field: "renewals_left", old: .integer(3), new: .integer(2)),
                .init(field: "overdue", old: .bool(true), new: .bool(false)),
            ])
        #expect(
            summary.text(for: renewed)
                == "loans: Der Zauberberg: due Sat 19 Dec (was Sat 5 Dec), renewals left 2 (was 3), no longer overdue")
        #expect(
            summary.changes([.init(field: "grade", old: .null, new: .string("B")), .init(field: "points", old: .number(3), new: .null)])
                == "grade B, no points (was 3)")
        // With the due field known (the recipe's watch: due:, or --due-within's), an added loan says when.
        let withDue = WatchSummary(recipe: recipe, fields: recipe.primary.fields, dueField: "due", today: Self.today)
        #expect(withDue.text(for: Self.event(.added, book)) == "New in loans: Der Zauberberg, due Sat 19 Dec")
    }

    @Test("the due date in words: today, tomorrow, a weekday, overdue since, and the year only when it is another")
    func whenWords() throws {
        let summary = WatchSummary(command: "loans", dueField: "due", today: Self.today)
        func when(_ due: String) -> String? { summary.when(of: Record(fields: [("due", .date(due))])) }
        #expect(when("2026-11-29") == "due today")
        #expect(when("2026-11-30") == "due tomorrow")
        #expect(when("2026-12-01") == "due Tue 1 Dec")
        #expect(when("2026-11-26") == "overdue since 26 Nov")
        let nextYear = when("2027-01-04") ?? ""
        #expect(nextYear.hasPrefix("due Mon") && nextYear.hasSuffix("4 Jan 2027"), "\(nextYear)")
        #expect(summary.when(of: Record(fields: [("due", .null)])) == nil, "no date: no words")
    }

    @Test("what names a record: the priority: high text field, else a required text field, else a text key")
    func titleField() throws {
        #expect(WatchSummary.titleField(in: try Self.recipe().primary.fields) == "title")
        let koha = try Self.recipe(
            fields: """
                  title:   { xpath: "td[1]", required: true }
                  barcode: { xpath: "td[2]", key: true }
                  due:     { xpath: "td[3]", type: date, format: yyyy-MM-dd }
                """)
        #expect(WatchSummary.titleField(in: koha.primary.fields) == "title")
        let moodle = try Self.recipe(
            fields: """
                  course: { xpath: "td[1]", required: true, key: true }
                  grade:  { xpath: "td[2]" }
                """)
        #expect(WatchSummary.titleField(in: moodle.primary.fields) == "course")
        let summary = WatchSummary(command: "loans", titleField: nil, today: Self.today)
        #expect(summary.text(for: Self.event(.added, Self.loan("T", "31000101", due: "2026-12-01"))) == "New in loans: 31000101")
    }

    // MARK: templates

    @Test("a recipe's templates: KIND.FIELD before KIND, fields and {{changes}} and {{when}} filled")
    func templates() throws {
        let recipe = try Self.recipe(
            watch: """
                watch:
                  due: due
                  summary:
                    added.renewals_left: "New loan: {{title}}, {{when}}, {{renewals_left}} renewals"
                    added: "New loan: {{title}}, {{when}}"
                    changed.due: "Renewed: {{title}}, {{when}}"
                    changed: "{{title}}: {{changes}}"
                    overdue: "{{title}} is {{when}} ({{command}})"
                """)
        let summary = WatchSummary(recipe: recipe, fields: recipe.primary.fields, dueField: nil, today: Self.today)
        let book = Self.loan("ノルウェイの森", "31000102", due: "2026-11-26")
        #expect(summary.text(for: Self.event(.overdue, book)) == "ノルウェイの森 is overdue since 26 Nov (loans)")
        #expect(summary.text(for: Self.event(.added, book)) == "New loan: ノルウェイの森, overdue since 26 Nov, 2 renewals")
        let none = Record(fields: book.fields.map { ($0.name, $0.name == "renewals_left" ? FieldValue.null : $0.value) })
        #expect(summary.text(for: Self.event(.added, none)) == "New loan: ノルウェイの森, overdue since 26 Nov")
        let renewed = Self.loan("ノルウェイの森", "31000102", due: "2026-12-10")
        #expect(
            summary.text(
                for: Self.event(.changed, renewed, changes: [.init(field: "due", old: .date("2026-11-26"), new: .date("2026-12-10"))]))
                == "Renewed: ノルウェイの森, due Thu 10 Dec")
        #expect(
            summary.text(for: Self.event(.changed, renewed, changes: [.init(field: "renewals_left", old: .integer(1), new: .integer(0))]))
                == "ノルウェイの森: renewals left 0 (was 1)")
        // No template for the kind: the generic line.
        #expect(summary.text(for: Self.event(.removed, book)) == "Gone from loans: ノルウェイの森")
    }

    @Test("the bundled demo recipes: a new grade names the course and the grade; a loan is named by its title")
    func bundledDemo() throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let grades = try catalog.recipe(portal: "demo", command: "grades")
        let summary = WatchSummary(recipe: grades, fields: grades.primary.fields, dueField: nil, today: Self.today)
        let record = Record(fields: [
            ("term", .string("2026-fall")), ("course", .string("Magyar irodalom a XX. században")), ("code", .string("HUN-250")),
            ("credits", .number(4)), ("grade", .string("B")), ("points", .number(3)), ("date", .date("2026-11-24")),
        ])
        var event = Self.event(
            .changed, record,
            changes: [.init(field: "grade", old: .null, new: .string("B")), .init(field: "points", old: .null, new: .number(3))])
        event.command = "grades"
        #expect(summary.text(for: event) == "New grade: Magyar irodalom a XX. században (HUN-250): B")
        let loans = try catalog.recipe(portal: "demo", command: "loans")
        #expect(loans.watch?.due == "due" && loans.watch?.within == 3, "a loans watch reminds by default")
        let loanSummary = WatchSummary(recipe: loans, fields: loans.primary.fields, dueField: nil, today: Self.today)
        #expect(
            loanSummary.text(for: Self.event(.dueSoon, Self.loan("Operating Systems", "31000103", due: "2026-12-01")))
                == "Operating Systems is due Tue 1 Dec")
    }

    @Test(
        "a watch: section's mistakes are recipe errors that name the key and what is allowed",
        arguments: [
            ("summary:\n    new: \"x\"", "'new' is not an event kind", "did you mean 'added'?"),
            ("summary:\n    due_son: \"x\"", "'due_son' is not an event kind", "did you mean 'due_soon'?"),
            ("summary:\n    changed.grade: \"x\"", "'changed.grade' is not an event kind", "KIND.FIELD"),
            ("summary:\n    added: \"{{titel}}\"", "uses {{titel}}", "did you mean {{title}}?"),
            ("summary:\n    added: \"{{changes}}\"", "uses {{changes}}", "it may use"),
            ("summary:\n    added: \"{{title}}, {{when}}\"", "uses {{when}}", "name the date field with 'due:'"),
            ("due: title", "'title' is not a date field", "its date fields: due"),
            ("every: 1h", "unknown key", "due, within, summary"),
            ("within: 3d", "name it with 'due:'", "watch: { due: due, within: 3d }"),
            ("due: due\n  within: soon", "'soon' is not a number of days", "such as within: 3d"),
        ])
    func lint(section: String, message: String, hint: String) throws {
        do {
            _ = try Self.recipe(watch: "watch:\n  \(section)\n")
            Issue.record("accepted: \(section)")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains(message), "\(error.message)")
            #expect((error.hint ?? "").contains(hint), "\(error.hint ?? "")")
        }
    }

    @Test("a template fills in the portal's text as it is, and --exec gets it escaped for a terminal, in a variable")
    func portalTextInTemplates() throws {
        let recipe = try Self.recipe(watch: "watch:\n  due: due\n  summary:\n    overdue: \"{{title}} is {{when}}\"\n")
        let summary = WatchSummary(recipe: recipe, fields: recipe.primary.fields, dueField: nil, today: Self.today)
        var event = Self.event(.overdue, Self.loan("Evil\u{1B}]0;pwned\u{07} $(id) {{when}}", "1", due: "2026-11-26"))
        event.summary = summary.text(for: event)
        // Inserted once, not read again as a template: the title's own {{when}} stays as it is.
        #expect(event.summary == "Evil\u{1B}]0;pwned\u{07} $(id) {{when}} is overdue since 26 Nov")
        let variable = try #require(ExecChannel.variables(for: event)["UNITOOL_EVENT_SUMMARY"])
        #expect(!variable.contains("\u{1B}") && !variable.contains("\u{07}") && variable.contains("$(id)"), "\(variable)")
    }

    // MARK: the event's JSON

    @Test("the event's JSON carries typed values (numbers, booleans, ISO dates), the written summary, and null for no user")
    func typedJSON() throws {
        let recipe = try Self.recipe()
        let summary = WatchSummary(recipe: recipe, fields: recipe.primary.fields, dueField: "due", today: Self.today)
        var event = Self.event(
            .changed, Self.loan("Édes Anna", "31000110", due: "2026-11-20"),
            changes: [
                .init(field: "renewals_left", old: .integer(3), new: .integer(2)),
                .init(field: "overdue", old: .bool(false), new: .bool(true)),
            ])
        event.summary = summary.text(for: event)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
        #expect(object["record"] is [String: Any] && object["changes"] is [[String: Any]])
        // The text itself: a number is no string, a boolean no "yes", a date ISO 8601.
        #expect(event.json.contains("\"renewals_left\": 2,") && event.json.contains("\"overdue\": true}"))
        #expect(event.json.contains("\"due\": \"2026-11-20\""))
        #expect(event.json.contains("{\"field\": \"renewals_left\", \"old\": 3, \"new\": 2}"))
        #expect(event.json.contains("{\"field\": \"overdue\", \"old\": false, \"new\": true}"))
        #expect(object["summary"] as? String == "loans: Édes Anna: renewals left 2 (was 3), now overdue")
        // Kept for a channel that failed and read back: the same words, not the generic line.
        let kept = try JSONDecoder().decode(WatchEvent.self, from: JSONEncoder().encode(event))
        #expect(kept.summary == event.summary && kept == event)
        // A public command has no user: null, not "".
        var test = Self.template
        test.kind = .test
        test.user = ""
        let testObject = try #require(try JSONSerialization.jsonObject(with: Data(test.json.utf8)) as? [String: Any])
        #expect(testObject["user"] is NSNull)
    }

    // MARK: --notify

    @Test("--notify's failures say what is missing: no notification service, no session bus, or the daemon's words")
    func notifyFailures() {
        let noService = DesktopNotificationChannel.failure(
            gdbus:
                "Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.Notifications was not provided by any .service files\n"
        )
        #expect(noService.kind == .channelFailed && noService.message.contains("no notification service is running on the session bus"))
        #expect(!noService.message.contains("GDBus.Error") && (noService.hint ?? "").contains("--exec or --webhook"))
        let noBus = DesktopNotificationChannel.failure(gdbus: "Error connecting: Cannot autolaunch D-Bus without X11 $DISPLAY\n")
        #expect(noBus.message.contains("no D-Bus session bus"))
        let other = DesktopNotificationChannel.failure(gdbus: "Error: something\u{1B}[2J odd\nsecond line")
        #expect(other.message.contains("something") && !other.message.contains("\u{1B}") && !other.message.contains("\n"))
    }
}
