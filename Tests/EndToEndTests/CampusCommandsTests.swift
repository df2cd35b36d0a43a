import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// courses, grades --term all, loans (and renew), news and library-calendar: the real executable
/// and the bundled recipes against a demo the test starts, so it can also see the requests.
@Suite("Courses, loans, news and the library calendar, end to end")
struct CampusCommandsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity? = nil, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        var environment = sandbox.environment.merging(extra) { $1 }
        if let demo { environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString }
        return try await UniToolProcess.run(["--portal", "demo"] + arguments, environment: environment)
    }

    func json(_ outcome: UniToolProcess.Outcome) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
    }

    @Test(
        "every demo command gives typed records in table, json, jsonl and csv", arguments: ["courses", "loans", "news", "library-calendar"])
    func everyFormat(command: String) async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let table = try await run([command], demo: demo)
        let records = try json(try await run([command, "--json"], demo: demo))
        let lines = try await run([command, "--format", "jsonl"], demo: demo)
        let csv = try await run([command, "--format", "csv"], demo: demo)
        for outcome in [table, lines, csv] { #expect(outcome.exitCode == 0, "\(outcome)") }
        #expect(!records.isEmpty)
        #expect(lines.stdout.split(separator: "\n").count == records.count)
        // CSV: a header, then a CRLF-ended line per record (no field of the demo holds a newline).
        #expect(csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == records.count + 1)
        #expect(table.stdout.split(separator: "\n").count == records.count + 2)
    }

    @Test("courses: each course with its meetings as a list; --day keeps the courses that meet that day, and only those meetings")
    func courses() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let all = try json(try await run(["courses", "--json"], demo: demo))
        #expect(all.count == 4)
        let systems = try #require(all.first { $0["code"] as? String == "CS-340" })
        #expect(systems["instructor"] as? String == "Dr. Lars Øberg")
        #expect((systems["meetings"] as? [[String: Any]])?.count == 3)
        #expect((systems["syllabus"] as? String)?.hasSuffix("/syllabus/CS-340") == true)
        let monday = try json(try await run(["courses", "--day", "mon", "--json"], demo: demo))
        #expect(monday.compactMap { $0["code"] as? String } == ["MATH-301", "CS-340"])
        for course in monday {
            let days = (course["meetings"] as? [[String: Any]] ?? []).compactMap { $0["day"] as? String }
            #expect(days == ["Mon"])
        }
        let wrong = try await run(["courses", "--day", "someday"], demo: demo)
        #expect(wrong.exitCode == 64)
        #expect(wrong.stderr.contains("not a day for --day"))
    }

    @Test("grades --term all reads every term at once; --summary gives credits earned and GPA per term")
    func gradesAllTerms() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let all = try json(try await run(["grades", "--term", "all", "--json"], demo: demo))
        #expect(all.count == 12)
        #expect(Set(all.compactMap { $0["term"] as? String }) == ["2025-fall", "2026-spring", "2026-fall"])
        let summary = try json(try await run(["grades", "--term", "all", "--summary", "--json"], demo: demo))
        #expect(summary.count == 3)
        let fall = try #require(summary.first { $0["term"] as? String == "2026-fall" })
        #expect(fall["credits_earned"] as? Double == 11)
        // (3.7 * 6 + 3.3 * 5) / 11 = 3.518..., the two courses still in progress do not count.
        #expect(fall["gpa"] as? Double == 3.52)
        let fields = try await run(["grades", "--term", "2025-fall", "--fields", "code,grade", "--format", "csv"], demo: demo)
        #expect(fields.stdout.hasPrefix("code,grade\r\nMATH-101,A\r\n"), "\(fields)")
        let unknown = try await run(["grades", "--fields", "code,mark"], demo: demo)
        #expect(unknown.exitCode == 64)
        #expect(unknown.stderr.contains("there is no field 'mark'"))
    }

    @Test("loans: every page is read, due dates are ISO 8601, and overdue is worked out from today")
    func loans() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        // Log in first, so that the count below is of the loans pages alone.
        #expect(try await run(["courses"], demo: demo).exitCode == 0)
        let before = await demo.requests.count
        let loans = try json(try await run(["loans", "--json"], demo: demo))
        #expect(loans.count == 12, "three pages: five, five and two loans")
        let pages = await demo.requests.dropFirst(before).filter { $0.path == "/library/loans" }
        #expect(pages.count == 3)
        #expect(Set(loans.compactMap { $0["barcode"] as? String }).count == 12)
        let overdue = loans.filter { $0["overdue"] as? Bool == true }.compactMap { $0["barcode"] as? String }
        #expect(Set(overdue) == ["31000101", "31000102", "31000112"])
        #expect(loans.allSatisfy { ($0["due"] as? String)?.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil })
        #expect(loans.contains { $0["title"] as? String == "ノルウェイの森" })
    }

    @Test("loans renew submits the portal's form and reports the new due date")
    func renew() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let before = try json(try await run(["loans", "--json"], demo: demo)).first { $0["barcode"] as? String == "31000103" }
        let renewed = try await run(["loans", "renew", "31000103", "--json"], demo: demo)
        #expect(renewed.exitCode == 0, "\(renewed)")
        let result = try #require(try json(renewed).first)
        #expect(result["barcode"] as? String == "31000103")
        #expect(result["title"] as? String == "Operating Systems: Three Easy Pieces")
        let oldDue = try #require(before?["due"] as? String)
        let newDue = try #require(result["due"] as? String)
        #expect(newDue > oldDue)
        let after = try json(try await run(["loans", "--json"], demo: demo)).first { $0["barcode"] as? String == "31000103" }
        #expect(after?["due"] as? String == newDue)
        #expect(after?["renewals_left"] as? Int == (before?["renewals_left"] as? Int ?? 0) - 1)
    }

    @Test("a renewal the portal refuses is exit 24 with the portal's reason; a missing barcode is a usage error")
    func renewRefused() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let reserved = try await run(["loans", "renew", "31000104"], demo: demo)
        #expect(reserved.exitCode == 24, "\(reserved)")
        #expect(reserved.stderr.contains("reserved by another reader"))
        let noRenewals = try await run(["loans", "renew", "31000102", "--json"], demo: demo)
        #expect(noRenewals.exitCode == 24)
        #expect(noRenewals.stderr.contains("\"kind\": \"action_refused\""))
        #expect(noRenewals.stderr.contains("No renewals left"))
        let unknown = try await run(["loans", "renew", "O'Brien"], demo: demo)
        #expect(unknown.exitCode == 24)
        #expect(unknown.stderr.contains("There is no loan with barcode O'Brien"))
        let missing = try await run(["loans", "renew"], demo: demo)
        #expect(missing.exitCode == 64)
        #expect(missing.stderr.contains("needs the barcode"))
    }

    @Test("news from RSS, Atom and the paginated HTML list agree; --since and --category filter")
    func news() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let rss = try json(try await run(["news", "--json"], demo: demo))
        let atom = try json(try await run(["news", "--source", "atom", "--json"], demo: demo))
        let page = try json(try await run(["news", "--source", "page", "--json"], demo: demo))
        #expect(rss.count == 14)
        for other in [atom, page] {
            #expect(other.count == rss.count)
            for (left, right) in zip(rss, other) {
                #expect(left["title"] as? String == right["title"] as? String)
                #expect(left["date"] as? String == right["date"] as? String)
                #expect(left["link"] as? String == right["link"] as? String)
                #expect(left["category"] as? String == right["category"] as? String)
            }
        }
        #expect(rss.contains { $0["title"] as? String == "留学生向け説明会のお知らせ" })
        let recent = try json(try await run(["news", "--since", "2026-11-12", "--json"], demo: demo))
        #expect(recent.count == 4)
        #expect(recent.allSatisfy { ($0["date"] as? String ?? "") >= "2026-11-12" })
        let library = try json(try await run(["news", "--source", "page", "--category", "library", "--json"], demo: demo))
        #expect(library.count == 3)
        let bad = try await run(["news", "--source", "telegram"], demo: demo)
        #expect(bad.exitCode == 64)
        #expect(bad.stderr.contains("sources: rss, atom, page"))
    }

    @Test("library-calendar finds this term's PDF link on the page, and the link works")
    func libraryCalendar() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let result = try #require(try json(try await run(["library-calendar", "--json"], demo: demo)).first)
        let link = try #require(result["url"] as? String)
        #expect(link.hasPrefix(demo.baseURL.absoluteString.trimmingCharacters(in: ["/"])))
        #expect(link.hasSuffix(".pdf"))
        let (data, response) = try await URLSession.shared.data(from: URL(string: link)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.starts(with: Data("%PDF".utf8)))
    }

    @Test("a drifted page is exit 30 naming recipe, field and XPath, and is saved without form values")
    func driftIsSaved() async throws {
        let demo = try await DemoUniversity.start(faults: try DemoFaults(parsing: "layout-changed"))
        defer { Task { await demo.stop() } }
        let outcome = try await run(["grades", "--term", "2026-spring"], demo: demo)
        #expect(outcome.exitCode == 30, "\(outcome)")
        #expect(outcome.stderr.contains("required field 'course'"))
        #expect(outcome.stderr.contains("td[@class='course']"))
        #expect(outcome.stderr.contains("the page is saved at"))
        let saved = sandbox.allFiles().filter { $0.path.contains("/cache/unitool/drift/") }
        let file = try #require(saved.first)
        #expect(file.lastPathComponent.hasPrefix("demo-grades-"))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("course-title"), "the page as the portal sent it")
        #expect(text.range(of: #"<input[^>]*\bvalue="#, options: .regularExpression) == nil, "form values are removed")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("the bundled recipes pass their offline tests")
    func bundledRecipeTests() async throws {
        let outcome = try await run(["recipes", "test", Fixtures.recipes.appendingPathComponent("demo").path])
        #expect(outcome.exitCode == 0, "\(outcome)")
        for command in ["courses", "grades", "loans", "news", "library-calendar"] {
            #expect(outcome.stdout.contains("ok   demo/\(command)/"), "\(command) has no passing case")
        }
        #expect(!outcome.stdout.contains("FAIL"))
    }

    @Test("a saved page with one column renamed fails its recipe test, naming the field and the XPath")
    func renamedColumnFails() async throws {
        let copy = sandbox.root.appendingPathComponent("recipes-copy/demo")
        let original = Fixtures.recipes.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: copy.appendingPathComponent("Fixtures/grades"), withIntermediateDirectories: true)
        for name in ["portal.yaml", "grades.yaml", "Fixtures/grades/2026-spring.json"] {
            try FileManager.default.copyItem(at: original.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        let page = try String(contentsOf: original.appendingPathComponent("Fixtures/grades/2026-spring.html"), encoding: .utf8)
        try page.replacingOccurrences(of: "class=\"credits\"", with: "class=\"ects\"")
            .write(to: copy.appendingPathComponent("Fixtures/grades/2026-spring.html"), atomically: true, encoding: .utf8)
        let outcome = try await run(["recipes", "test", copy.path])
        #expect(outcome.exitCode == 30, "\(outcome)")
        #expect(outcome.stdout.contains("FAIL demo/grades/2026-spring"))
        #expect(outcome.stdout.contains("required field 'credits'"))
        #expect(outcome.stdout.contains("td[@class='credits']"))
    }

    @Test("a table wider than the terminal is cut with an ellipsis; dates are local for people")
    func tableFitsTerminal() async throws {
        let demo = try await DemoUniversity.start()
        defer { Task { await demo.stop() } }
        let outcome = try await run(["loans"], demo: demo, extra: ["COLUMNS": "80"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { line in line.reduce(0) { $0 + (($1.unicodeScalars.first?.value ?? 0) > 0x3000 ? 2 : 1) } <= 80 })
        #expect(outcome.stdout.contains("…"))
        #expect(outcome.stdout.range(of: #"\d{4}-\d{2}-\d{2}"#, options: .regularExpression) == nil, "ISO dates are for machines")
    }
}
