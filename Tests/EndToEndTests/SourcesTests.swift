import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// JSON, iCalendar and POST sources through the real executable against the demo's learning
/// platform and catalogue, shaped as Moodle and a library OPAC serve them.
@Suite("JSON, iCalendar and POST sources, end to end")
struct SourcesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func records(_ arguments: [String], demo: DemoUniversity) async throws -> [[String: Any]] {
        let outcome = try await sandbox.run(["--portal", "demo"] + arguments + ["--json"], demo: demo.baseURL)
        #expect(outcome.exitCode == 0, "\(outcome)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
    }

    @Test("a JSON answer to a POSTed AJAX call, with the session key read from the dashboard first; HTML in a field becomes text")
    func jsonOverPost() async throws {
        try await DemoUniversity.withRunning { demo in
            let courses = try await records(["lms-courses"], demo: demo)
            #expect(courses.map { $0["code"] as? String } == ["MATH-301", "CS-320", "HUN-250", "CS-340"])
            #expect(courses.first?["progress"] as? Int == 72)
            #expect(courses.first?["summary"] as? String == "Taught by Prof. Erzsébet Szabó. Weekly\u{a0}sessions.")
            // The option reaches the JSON body: the demo has no past courses, which is an empty list, not an error.
            #expect(try await records(["lms-courses", "--show", "past"], demo: demo).isEmpty)
            let posts = await demo.requests.filter { $0.method == "POST" && $0.path == "/lms/lib/ajax/service.php" }
            #expect(posts.count == 2)
        }
    }

    @Test("an iCalendar export's events are records: folded and escaped text read whole, UTC times in the campus's zone")
    func calendarSource() async throws {
        try await DemoUniversity.withRunning { demo in
            let deadlines = try await records(["deadlines"], demo: demo)
            #expect(deadlines.count == 4)
            #expect(
                deadlines.first?["notes"] as? String == "Hand in your solutions for MATH-301, parts A; B and C. Late work is not marked.")
            #expect(deadlines.allSatisfy { ($0["due"] as? String ?? "").hasSuffix("T23:59:00+01:00") }, "\(deadlines)")
            #expect(deadlines.allSatisfy { ($0["uid"] as? String ?? "").hasSuffix("@demo.unitool.invalid") })
        }
    }

    @Test("a form POSTed with the option's words; no hits is an empty answer the page says it is")
    func formPost() async throws {
        try await DemoUniversity.withRunning { demo in
            let hits = try await records(["catalogue", "--query", "information theory"], demo: demo)
            #expect(hits.map { $0["title"] as? String } == ["Elements of Information Theory"])
            #expect(try await records(["catalogue", "--query", "zzz"], demo: demo).isEmpty)
            let missing = try await sandbox.run(["--portal", "demo", "catalogue"], demo: demo.baseURL)
            #expect(missing.exitCode != 0, "the query is needed in the form: \(missing)")
        }
    }

    @Test(
        "an action with no argument acts on what the portal lists; when nothing is left, the page's 'nothing to do' is an answer, not drift"
    )
    func actionWithoutArgument() async throws {
        try await DemoUniversity.withRunning { demo in
            let first = try await records(["loans", "renew-all"], demo: demo)
            #expect(first.first?["renewed"] as? Int == 3, "the three loans due within a week: \(first)")
            let second = try await records(["loans", "renew-all"], demo: demo)
            #expect(second.first?["result"] as? String == "nothing to do")
            #expect((second.first?["message"] as? String ?? "").contains("nothing to renew"))
            let extra = try await sandbox.run(["--portal", "demo", "loans", "renew-all", "31000101"], demo: demo.baseURL)
            #expect(extra.exitCode == 64 && extra.stderr.contains("takes no argument"), "\(extra)")
        }
    }
}
