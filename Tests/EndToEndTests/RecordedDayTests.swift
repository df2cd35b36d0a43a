import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// A student's own recording of the demo, made useful for the day: Chromium records alice opening
/// her timetable and her library loans; the folder `recipes new --from-har` writes reads the
/// course blocks (the page's subject, not its list of days without classes), and `unitool today`
/// for that folder lists the loans that are due, as the bundled demo's loans give them.
@Suite(
    "A recording's folder in the day (chromium + Playwright)",
    .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright: run through Scripts/test.sh"))
struct RecordedDayTests {
    /// A day on which alice has loans due within a week and one overdue, in the demo's data.
    static let now = "2026-11-25T10:00:00+01:00"

    @Test("courses returns the course blocks, and today lists the loans due, from the person's own recording")
    func coursesAndToday() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            let bundled = { (command: String) async throws -> [[String: Any]] in
                let outcome = try await sandbox.run(
                    ["--portal", "demo", "--user", "alice", "--password-stdin", command, "--json"], demo: demo.baseURL,
                    stdin: "wonderland", extra: ["UNITOOL_NOW": Self.now])
                try #require(outcome.exitCode == 0, "\(outcome)")
                return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
            }
            let courses = try await bundled("courses")
            let loans = try await bundled("loans")

            let har = sandbox.root.appendingPathComponent("day.har")
            try await BrowserRecorder.record(
                start: demo.baseURL.appendingPathComponent("home"), user: "alice", password: "wonderland", done: "a#logout",
                then: ["/courses", "/library/loans"], to: har)
            let home = try Sandbox()
            defer { home.remove() }
            let made = try await home.run(["recipes", "new", "rec-day", "--from-har", har.path])
            try #require(made.exitCode == 0, "\(made)")
            let folder = home.root.appendingPathComponent("config/unitool/recipes/rec-day")
            let portalYAML = (try? String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)) ?? ""
            let run = { (arguments: [String]) async throws -> UniToolProcess.Outcome in
                try await home.run(
                    ["--portal", "rec-day", "--user", "alice", "--password-stdin"] + arguments, stdin: "wonderland",
                    extra: ["UNITOOL_NOW": Self.now])
            }

            // The course blocks: every course the bundled recipe reads, by its title, and nothing else.
            let madeCourses = try await run(["courses", "--json"])
            try #require(madeCourses.exitCode == 0, "\(madeCourses)\n\(made.stdout)")
            let records = try #require(try JSONSerialization.jsonObject(with: Data(madeCourses.stdout.utf8)) as? [[String: Any]])
            let titles = courses.compactMap { $0["course"] as? String }
            #expect(!titles.isEmpty)
            #expect(records.count == courses.count, "\(records)")
            for title in titles {
                #expect(records.contains { $0.values.contains { ($0 as? String)?.contains(title) == true } }, "\(title) in \(records)")
            }

            // today: the loans due by the day's window, by their titles, from the folder's today: list.
            let today = try await run(["today", "--json"])
            #expect(today.exitCode == 0, "\(today)\n--- portal.yaml\n\(portalYAML)")
            let day = try #require(try JSONSerialization.jsonObject(with: Data(today.stdout.utf8)) as? [String: Any], "\(today)")
            let shown = jsonStrings(in: day)
            let due = loans.filter { loan in
                guard let date = loan["due"] as? String else { return false }
                return date <= "2026-12-02"
            }
            #expect(!due.isEmpty, "the demo has loans due in the week: \(loans)")
            for loan in due {
                let title = try #require(loan["title"] as? String)
                #expect(
                    shown.contains { $0.contains(title) }, "'\(title)' (due \(loan["due"] ?? "")) in today: \(today.stdout)\n\(portalYAML)")
            }
            for loan in loans where (loan["due"] as? String ?? "") > "2026-12-31" {
                let title = try #require(loan["title"] as? String)
                #expect(!shown.contains { $0.contains(title) }, "'\(title)' is not due soon: \(today.stdout)")
            }
        }
    }
}
