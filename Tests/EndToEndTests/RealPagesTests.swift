import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// What a real portal's pages do to a client, end to end: legacy encodings, a terms API behind
/// the login, cookies the portal deletes, traces that must hold no secret.
@Suite("Real pages: encodings, terms behind the login, state that follows the portal, clean traces")
struct RealPagesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        var environment = sandbox.environment.merging(extra) { $1 }
        environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString
        return try await UniToolProcess.run(["--portal", "demo"] + arguments, environment: environment)
    }

    @Test("a Windows-31J page labelled Shift_JIS only in the HTTP header: every row, exactly, and nothing on stderr")
    func windows31J() async throws {
        let clean = try await DemoUniversity.start()
        defer { Task { await clean.stop() } }
        let expected = try await run(["grades", "--term", "all", "--json"], demo: clean)
        try #require(expected.exitCode == 0, "\(expected)")

        var faults = DemoFaults()
        faults.legacyCharset = true
        let legacy = try await DemoUniversity.start(faults: faults)
        defer { Task { await legacy.stop() } }
        // The fault really serves Shift_JIS bytes, with no <meta> to tell.
        let page = try await run(["page", "/grades?term=2025-fall", "--fixture", sandbox.root.appendingPathComponent("raw.html").path], demo: legacy)
        try #require(page.exitCode == 0, "\(page)")
        let raw = try Data(contentsOf: sandbox.root.appendingPathComponent("raw.html"))
        #expect(raw.range(of: Data([0x87, 0x54])) != nil, "Ⅰ as Windows-31J's NEC row 13")
        #expect(String(data: raw, encoding: .utf8) == nil)
        #expect(raw.range(of: Data("charset".utf8)) == nil)

        let outcome = try await run(["grades", "--term", "all", "--json"], demo: legacy)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        #expect(outcome.stdout == expected.stdout)
        #expect(outcome.stdout.contains("日本語初級Ⅰ (Japanese for Beginners I)") && outcome.stdout.contains("Academic Writing ①"))
        // With -v, the decision is there to read; still no libxml2 noise.
        let verbose = try await run(["-v", "grades", "--term", "2025-fall", "--json"], demo: legacy)
        #expect(verbose.exitCode == 0, "\(verbose)")
        #expect(!verbose.stderr.contains("encoding error"))
    }

    @Test("'unitool page' prints a Shift_JIS page readable, and its saved test case reproduces the live result")
    func savedPageReproducesLiveRun() async throws {
        var faults = DemoFaults()
        faults.legacyCharset = true
        let legacy = try await DemoUniversity.start(faults: faults)
        defer { Task { await legacy.stop() } }

        let printed = try await run(["page", "/grades?term=2025-fall"], demo: legacy)
        #expect(printed.exitCode == 0, "\(printed)")
        #expect(printed.stdout.contains("日本語初級Ⅰ") && printed.stdout.contains("①"))
        #expect(printed.stdout.lowercased().contains("charset=utf-8") && !printed.stdout.contains("&#"))

        // A recipe folder of its own, with the page saved as a test case.
        let copy = sandbox.root.appendingPathComponent("recipes-copy/demo")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for name in ["portal.yaml", "grades.yaml"] {
            try FileManager.default.copyItem(
                at: Fixtures.recipes.appendingPathComponent("demo").appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        let fixture = copy.appendingPathComponent("Fixtures/grades/legacy.html")
        let saved = try await run(["page", "/grades?term=2025-fall", "--fixture", fixture.path], demo: legacy)
        try #require(saved.exitCode == 0, "\(saved)")
        let expectation = try String(contentsOf: copy.appendingPathComponent("Fixtures/grades/legacy.json"), encoding: .utf8)
        #expect(expectation.contains("\"content_type\": \"text/html; charset=Shift_JIS\""))

        // Before --update, the case says what to do; --update writes the records; then it passes.
        let empty = try await run(["recipes", "test", copy.path], demo: legacy)
        #expect(empty.exitCode != 0 && empty.stdout.contains("has no records yet"), "\(empty)")
        let update = try await run(["recipes", "test", "--update", copy.path], demo: legacy)
        #expect(update.exitCode == 0, "\(update)")
        let test = try await run(["recipes", "test", copy.path], demo: legacy)
        #expect(test.exitCode == 0 && test.stdout.contains("ok   demo/grades/legacy"), "\(test)")

        let live = try await run(["grades", "--term", "2025-fall", "--json"], demo: legacy)
        let liveRecords = try #require(try JSONSerialization.jsonObject(with: Data(live.stdout.utf8)) as? [[String: Any]])
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: copy.appendingPathComponent("Fixtures/grades/legacy.json")))
                as? [String: Any])
        let records = try #require(written["records"] as? [[String: Any]])
        #expect(records.map { $0["course"] as? String } == liveRecords.map { $0["course"] as? String })
        #expect(records.contains { $0["course"] as? String == "日本語初級Ⅰ (Japanese for Beginners I)" })

        // Without its Content-Type the page is misread, and --update refuses to write mojibake.
        var stripped = expectation.replacingOccurrences(of: "\"content_type\": \"text/html; charset=Shift_JIS\"", with: "\"content_type\": null")
        stripped = stripped.replacingOccurrences(of: "\"records\": null", with: "\"records\": []")
        try stripped.write(to: copy.appendingPathComponent("Fixtures/grades/legacy.json"), atomically: true, encoding: .utf8)
        let misread = try await run(["recipes", "test", "--update", copy.path], demo: legacy)
        #expect(misread.exitCode != 0, "\(misread)")
        #expect(misread.stdout.contains("not valid UTF-8") && misread.stdout.contains("content_type"), "\(misread)")
    }
}
