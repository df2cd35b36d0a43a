import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// A student's own recording of the learning platform's dashboard, whose script asks for the
/// course list by a JSON POST to `lib/ajax/service.php` as Moodle 4.x's does (issue 48): Chromium
/// records alice opening the dashboard; the folder `recipes new --from-har` writes has a `courses`
/// command that POSTs the same call with the session key read from the dashboard, and returns
/// the courses the bundled `lms-courses` reads.
@Suite(
    "A recording's AJAX POST as a command (chromium + Playwright)",
    .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright: run through Scripts/test.sh"))
struct RecordedAjaxEndToEndTests {
    @Test("the dashboard's service.php call becomes 'courses', which returns the courses, its session key read at each run")
    func dashboardCall() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            let bundled = try await sandbox.run(
                ["--portal", "demo", "--user", "alice", "--password-stdin", "lms-courses", "--show", "all", "--json"], demo: demo.baseURL,
                stdin: "wonderland")
            try #require(bundled.exitCode == 0, "\(bundled)")
            let expected = try #require(try JSONSerialization.jsonObject(with: Data(bundled.stdout.utf8)) as? [[String: Any]])
            let titles = expected.compactMap { $0["course"] as? String }
            #expect(titles.count >= 2, "\(expected)")

            let har = sandbox.root.appendingPathComponent("lms.har")
            try await BrowserRecorder.record(
                start: demo.baseURL.appendingPathComponent("home"), user: "alice", password: "wonderland", done: "a#logout",
                then: ["/lms/my/"], to: har)
            // The page's script really made the call in Chromium: the recording holds its POST.
            let root = try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any]
            let entries = (root?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
            let posts = entries.compactMap { $0["request"] as? [String: Any] }.filter {
                $0["method"] as? String == "POST" && ($0["url"] as? String ?? "").contains("/lms/lib/ajax/service.php?sesskey=")
            }
            try #require(
                posts.count == 1, "the dashboard's call in the HAR: \(entries.compactMap { ($0["request"] as? [String: Any])?["url"] })")

            let home = try Sandbox()
            defer { home.remove() }
            let made = try await home.run(["recipes", "new", "rec-lms", "--from-har", har.path])
            try #require(made.exitCode == 0, "\(made)")
            let folder = home.root.appendingPathComponent("config/unitool/recipes/rec-lms")
            let recipe = (try? String(contentsOf: folder.appendingPathComponent("courses.yaml"), encoding: .utf8)) ?? ""
            #expect(recipe.contains("method: post") && recipe.contains("parse: json"), "\(recipe)\n\(made.stdout)")
            #expect(recipe.contains("sesskey={{sesskey}}") && recipe.contains("read:"), "\(recipe)")

            let run = try await home.run(
                ["--portal", "rec-lms", "--user", "alice", "--password-stdin", "courses", "--json"], stdin: "wonderland")
            try #require(run.exitCode == 0, "\(run)\n--- courses.yaml\n\(recipe)\n--- report\n\(made.stdout)")
            let records = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
            #expect(records.count == expected.count, "\(records)")
            for title in titles {
                #expect(records.contains { $0.values.contains { ($0 as? String) == title } }, "\(title) in \(records)")
            }
        }
    }
}
