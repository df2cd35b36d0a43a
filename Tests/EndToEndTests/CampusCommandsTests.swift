import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What only the binary shows of the demo's commands: a drift report in the user's cache, `recipes
/// test`'s output, a table on a narrow terminal. The records themselves, their types and `loans
/// renew` are tested in process (UniToolKitTests: DailyCommandsServiceTests, CampusRecipesTests).
@Suite("Courses, loans, news and the library calendar, end to end")
struct CampusCommandsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity? = nil, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--portal", "demo"] + arguments, demo: demo?.baseURL, extra: extra)
    }

    @Test("a drifted page is exit 30 naming recipe, field and XPath, and is saved without form values")
    func driftIsSaved() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "layout-changed")) { demo in
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
    }

    @Test("YAMS_DEFAULT_ENCODING in the environment changes nothing: the recipes are read as UTF-8, and stdout stays JSON")
    func yamlEncodingFromTheEnvironment() async throws {
        try await DemoUniversity.withRunning { demo in
            let outcome = try await run(["attendance", "--json"], demo: demo, extra: ["YAMS_DEFAULT_ENCODING": "utf16"])
            #expect(outcome.exitCode == 0, "\(outcome)")
            let records = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]]
            #expect(records?.first?["code"] as? String == "CS-320", "\(outcome.stdout)")
        }
    }

    @Test("a table wider than the terminal wraps its long text and keeps the barcode whole; dates are local for people")
    func tableFitsTerminal() async throws {
        try await DemoUniversity.withRunning { demo in
            let outcome = try await run(["loans"], demo: demo, extra: ["COLUMNS": "80"])
            #expect(outcome.exitCode == 0, "\(outcome)")
            let lines = outcome.stdout.split(separator: "\n")
            #expect(lines.allSatisfy { line in line.reduce(0) { $0 + (($1.unicodeScalars.first?.value ?? 0) > 0x3000 ? 2 : 1) } <= 80 })
            #expect(!outcome.stdout.contains("…"), "long text wraps rather than being cut")
            #expect(outcome.stdout.contains("31000108"))
            #expect(outcome.stdout.range(of: #"\d{4}-\d{2}-\d{2}"#, options: .regularExpression) == nil, "ISO dates are for machines")
        }
    }
}
