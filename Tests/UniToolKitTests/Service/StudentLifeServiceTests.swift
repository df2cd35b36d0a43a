import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The campus app's other screens through the service, in process, against a demo on loopback
/// whose clock is Wednesday 25 November 2026: attendance, the syllabus, the dining menu and its
/// PDF, the co-op's hours, library purchase requests (asked before sending, through the
/// library's own confirmation page), the portal's links, and what `today` and the calendar make
/// of them. What only the binary shows (tables, `--yes`, a terminal's answer, MCP and JSON-RPC)
/// is in EndToEndTests/StudentLifeCommandsTests.
@Suite("The campus app's other screens through the service")
struct StudentLifeServiceTests {
    /// Wednesday 25 November 2026, 10:00 in Budapest.
    static let wednesday = DailyCommandsServiceTests.wednesday

    /// Each record's `field` as text, in order.
    static func texts(_ set: RecordSet, _ field: String) -> [String] { set.records.map { $0[field]?.text ?? "" } }

    @Test(
        "every new command gives records typed as its recipe says, required fields filled",
        arguments: [
            ("attendance", [:]), ("menu", [:]), ("menu-pdf", [:]), ("coop-hours", [:]), ("links", [:]), ("study-support", ["day": "mon"]),
            ("syllabus", ["code": "CS-320"]),
            ("syllabus", ["search": "theory"]),
        ] as [(String, [String: String])])
    func typedRecords(command: String, options: [String: String]) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let recipe = try bench.recipe(command)
        try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            let set = try await bench.run(command, options, on: demo)
            #expect(!set.records.isEmpty, "\(command) \(options)")
            DailyCommandsServiceTests.expectTyped(set, as: recipe)
        }
    }

    @Test("attendance: per course the summary row's counts, absences left, and a warning at one left or none")
    func attendance() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            let set = try await bench.run("attendance", on: demo)
            // Sorted by absences left, fewest first.
            #expect(Self.texts(set, "code") == ["CS-320", "CS-340", "MATH-301", "HUN-250"], "\(set.records)")
            let first = try #require(set.records.first)
            #expect(first["attended"] == .integer(6) && first["absent"] == .integer(4) && first["late"] == .integer(0))
            #expect(first["absences_left"] == .integer(1) && first["warning"] == .bool(true))
            // Three late arrivals count as one absence: 5 - 2 - 1.
            let os = try #require(set.records.first { $0["code"] == .string("CS-340") })
            #expect(os["late"] == .integer(3) && os["absences_left"] == .integer(2) && os["warning"] == .bool(false))

            #expect { try bench.request("attendance", ["warning": "ture"]) } throws: {
                ($0 as? ArgumentProblem)?.message.contains("'ture' is not yes or no for options.warning") == true
            }
            let warned = try await bench.run("attendance", ["warning": "yes"], on: demo)
            #expect(Self.texts(warned, "code") == ["CS-320"])
            // A roll call that marks alice absent from Operating Systems: one left, and warned.
            await demo.recordAbsence(user: "alice", code: "CS-340", on: Self.wednesday)
            let after = try await bench.run("attendance", ["warning": "true"], on: demo)
            #expect(Self.texts(after, "code") == ["CS-320", "CS-340"], "\(after.records)")
            #expect(after.records.last?["absences_left"] == .integer(1))
        }
    }

    @Test("syllabus: a code reads the course's page in either language, --search the results list; neither, or both, is refused")
    func syllabus() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            let english = try await bench.run("syllabus", ["code": "CS-320"], on: demo)
            #expect(english.records.first?["title"] == .string("Information Theory"))
            #expect(english.records.first?["credits"] == .integer(5), "the credits the grades page shows for CS-320")
            #expect(english.records.first?["grading"]?.text.contains("attendance 20%") == true)
            let japanese = try await bench.run("syllabus", ["code": "CS-320", "lang": "ja"], on: demo)
            #expect(japanese.records.first?["title"] == .string("情報理論"))
            #expect(japanese.records.first?["schedule"] == .string("秋学期 火3"))
            let found = try await bench.run("syllabus", ["search": "theory"], on: demo)
            #expect(Self.texts(found, "code") == ["MATH-301", "CS-320"], "\(found.records)")
            let none = try await bench.run("syllabus", ["search": "astrology"], on: demo)
            #expect(none.records.isEmpty)
            let missing = await #expect(throws: UniToolError.self) { try await bench.run("syllabus", ["code": "XX-999"], on: demo) }
            #expect(
                missing?.kind == .portalError && missing?.hint?.contains("no page for code XX-999") == true,
                "\(String(describing: missing))")
        }
        #expect { try bench.request("syllabus") } throws: { ($0 as? ArgumentProblem)?.message.contains("options.search") == true }
        #expect { try bench.request("syllabus", ["code": "CS-320", "search": "x"]) } throws: {
            ($0 as? ArgumentProblem)?.message.contains("not read by source 'search'") == true
        }
        #expect(try bench.request("syllabus", ["search": "x"]).source == "search")
        #expect(try bench.request("syllabus", ["code": "CS-320"]).source == nil)
    }

    @Test("menu: the week's dishes per cafeteria with prices in yen; --day today is the service clock's day; the PDF links")
    func menu() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            let week = try await bench.run("menu", on: demo)
            #expect(week.records.count == 25)
            #expect(Set(Self.texts(week, "date")) == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"])
            let today = try await bench.withService(on: demo) { _, connection in
                let service = PortalService(connection: connection, clock: { Self.wednesday })
                return try await service.execute(
                    try bench.request("menu", ["day": "today"]), of: try bench.recipe("menu"), interaction: Unattended()
                )
                .records
            }
            #expect(Set(Self.texts(today, "date")) == ["2026-11-25"], "\(today.records)")
            let ginger = try #require(today.records.first { $0["dish"]?.text.contains("Ginger pork") == true })
            #expect(ginger["price"] == .integer(500) && ginger["cafeteria"] == .string("第一食堂 Central Cafeteria"))
            let north = try await bench.run("menu", ["cafeteria": "北"], on: demo)
            #expect(Set(Self.texts(north, "cafeteria")) == ["北食堂 North Cafeteria"])

            let pdfs = try await bench.run("menu-pdf", on: demo)
            #expect(Self.texts(pdfs, "week") == ["2026-W49", "2026-W49"])
            let link = try #require(pdfs.records.first?["url"]?.text)
            let page = try await bench.withService(on: demo) { service, _ in try await service.fetch(link, interaction: Unattended()) }
            #expect(page.page.status == 200 && page.page.contentType == "application/pdf")
            #expect(String(decoding: page.page.body, as: UTF8.self).hasPrefix("%PDF-1.4"))
        }
    }

    @Test("coop-hours: ranges with their hours, closed ones flagged; --on picks the ranges that include a day")
    func coopHours() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            let all = try await bench.run("coop-hours", on: demo)
            #expect(all.records.count == 8)
            let closed = all.records.filter { $0["closed"] == .bool(true) }
            #expect(
                closed.map { "\($0["from"]?.text ?? "")..\($0["until"]?.text ?? "")" } == [
                    "2026-12-03..2026-12-03", "2026-12-20..2026-12-28", "2026-12-20..2026-12-28",
                ])
            #expect(closed.allSatisfy { $0["weekdays"] == .null }, "a dash is no hours")
            let stocktaking = try await bench.run("coop-hours", ["on": "2026-12-03"], on: demo)
            #expect(Self.texts(stocktaking, "note") == ["棚卸し Stocktaking", "授業期間 Term time"], "\(stocktaking.records)")
            let holidays = try await bench.run("coop-hours", ["on": "2026-12-24"], on: demo)
            #expect(holidays.records.allSatisfy { $0["closed"] == .bool(true) } && holidays.records.count == 2)
        }
    }

    @Test(
        "library request: declined, nothing is sent; confirmed with its values, it passes the library's confirmation page and gives the request number"
    )
    func purchaseRequest() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let library = try bench.recipe("library")
        let request = try #require(library.actions.first { $0.name == "request" })
        #expect(request.ask && request.confirmPage != nil)
        let values = ["title": "Gödel, Escher, Bach", "author": "Hofstadter, Douglas R.", "isbn": "978-0-465-02656-2", "reason": "CS-320"]
        try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            let declining = ScriptedInteraction(confirms: false)
            let declined = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(request, of: library, argument: "", parameters: values, interaction: declining)
                }
            }
            #expect(declined?.kind == .declined)
            #expect(declining.confirmedValues == [values], "the person saw every value")
            // Nobody to ask (a script's own use of the library): an action that asks first is not sent.
            let unattended = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(request, of: library, argument: "", parameters: values, interaction: Unattended())
                }
            }
            #expect(unattended?.kind == .declined)
            #expect(await demo.requests.isEmpty, "nothing was sent, not even the login")

            let person = ScriptedInteraction(confirms: true)
            let result = try await bench.withService(on: demo) { service, _ in
                try await service.perform(request, of: library, argument: "", parameters: values, interaction: person)
            }
            #expect(result.records.first?["number"] == .string("R2026-0042"), "\(result.records)")
            #expect(result.records.first?["title"] == .string("Gödel, Escher, Bach"))
            let posts = await demo.requests.filter { $0.method == "POST" }.map(\.path)
            #expect(posts.filter { $0.hasPrefix("/library/request") } == ["/library/request", "/library/request/send"], "\(posts)")

            let listed = try await bench.run("library", on: demo)
            #expect(Self.texts(listed, "number") == ["R2026-0042"])
            #expect(listed.records.first?["isbn"] == .string("978-0-465-02656-2"))

            // The library's own objection, in its words; nothing filed.
            let refused = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(
                        request, of: library, argument: "", parameters: ["title": "X", "isbn": "978-0-465-02656-3"], interaction: person)
                }
            }
            #expect(refused?.kind == .actionRefused && refused?.message.contains("is not valid") == true, "\(String(describing: refused))")
            // A required value missing, or one the action does not take: usage, before anything.
            let missing = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(request, of: library, argument: "", parameters: ["isbn": "1"], interaction: person)
                }
            }
            #expect(missing?.kind == .usage && missing?.message.contains("'--title' is required by 'library request'") == true)
            let unknown = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(
                        request, of: library, argument: "", parameters: ["title": "X", "price": "1"], interaction: person)
                }
            }
            #expect(unknown?.kind == .usage && unknown?.message.contains("'--price' is not a value 'library request' takes") == true)
            #expect(Self.texts(try await bench.run("library", on: demo), "number") == ["R2026-0042"], "still one request")
        }
    }

    @Test("today on a Wednesday: the attendance warning, the day's menu and the co-op's hours")
    func today() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let report = try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            try await bench.withService(on: demo, keepingHistory: true) { service, connection in
                let day = try bench.day(history: service.history, now: Self.wednesday)
                let runs = DemoServiceBench.liveRuns(through: connection, now: Self.wednesday)
                return await day.today(live: runs.live, checkTerms: runs.checkTerms, refresh: true)
            }
        }
        #expect(report.problem == nil, "\(String(describing: report.problem))")
        func rows(_ command: String) throws -> RecordSet {
            try #require(report.sections.first { $0.item.command == command }, "no \(command) section").rows
        }
        let warnings = try rows("attendance")
        #expect(warnings.columns == ["code", "course", "absent", "absences_left"])
        #expect(Self.texts(warnings, "code") == ["CS-320"] && warnings.records.first?["absences_left"] == .integer(1))
        let menu = try rows("menu")
        #expect(menu.records.count == 5 && menu.columns == ["cafeteria", "category", "dish", "price"])
        #expect(menu.records.contains { $0["dish"]?.text.contains("Ginger pork") == true }, "Wednesday's dishes")
        let hours = try rows("coop-hours")
        #expect(Self.texts(hours, "store") == ["中央購買部 Central Store", "ブックセンター Book Center"])
        #expect(Self.texts(hours, "weekdays") == ["9:00–19:00", "10:00–18:00"])
    }

    @Test(
        "calendar: the co-op's closed ranges only when asked, each an all-day event over its days as icalendar reads it",
        .enabled(if: Needs.program("/usr/bin/python3")))
    func calendarIncludesClosedDays() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let (plain, asked) = try await DailyCommandsServiceTests.withDemoOnWednesday { demo in
            try await bench.withService(on: demo) { _, connection in
                let day = try bench.day(history: nil, now: Self.wednesday)
                let live = DemoServiceBench.liveRuns(through: connection, now: Self.wednesday).live
                let plain = try await day.calendar(live: live)
                let asked = try await day.calendar(live: live, including: ["coop-hours"])
                await #expect(throws: UniToolError.self) { try await day.calendar(live: live, including: ["menu"]) }
                return (plain, asked)
            }
        }
        #expect(plain.answers.map(\.0) == ["courses", "exams", "loans"])
        #expect(asked.answers.map(\.0) == ["coop-hours", "courses", "exams", "loans"], "in the catalog's order")
        let file = bench.sandbox.root.appendingPathComponent("coop.ics")
        try asked.text.write(to: file, atomically: true, encoding: .utf8)
        let (_, events) = try await DailyCommandsServiceTests().expand(file, from: "2026-12-01", to: "2027-01-10")
        let closed = events.filter { ($0["summary"] as? String ?? "").hasPrefix("Closed: ") }
            .map { "\($0["summary"] ?? "") \($0["start"] ?? "")..\($0["end"] ?? "")" }.sorted()
        #expect(
            closed == [
                "Closed: ブックセンター Book Center 2026-12-20..2026-12-29", "Closed: 中央購買部 Central Store 2026-12-03..2026-12-04",
                "Closed: 中央購買部 Central Store 2026-12-20..2026-12-29",
            ], "\(closed)")
    }
}
