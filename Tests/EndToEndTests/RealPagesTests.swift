import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// What a real portal's pages do to a client, end to end, where the process is the point: stderr
/// on a legacy encoding, `unitool page` and its saved test case, the terms commands' choice of
/// user, the overview. The service's own behaviour (rows of a Windows-31J page, terms behind the
/// login, trailing-comma terms, a time-out page that deletes the cookie) is in
/// UniToolKitTests/Session/RealPortalServiceTests; traces that must hold no secret in
/// UniToolKitTests/Session/TraceServiceTests.
@Suite("Real pages: stderr on legacy encodings, saved pages, terms commands, overview")
struct RealPagesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--portal", "demo"] + arguments, demo: demo.baseURL, extra: extra)
    }

    @Test("a Windows-31J page labelled Shift_JIS only in the HTTP header: nothing on stderr, and with -v no libxml2 noise")
    func windows31JQuietStderr() async throws {
        var faults = DemoFaults()
        faults.legacyCharset = true
        let legacy = try await DemoUniversity.start(faults: faults)
        defer { Task { await legacy.stop() } }
        // The rows themselves are checked in process (UniToolKitTests/Session/RealPortalServiceTests).
        let outcome = try await run(["grades", "--term", "all", "--json"], demo: legacy)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stderr.isEmpty, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("日本語初級Ⅰ (Japanese for Beginners I)"))
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
        var stripped = expectation.replacingOccurrences(
            of: "\"content_type\": \"text/html; charset=Shift_JIS\"", with: "\"content_type\": null")
        stripped = stripped.replacingOccurrences(of: "\"records\": null", with: "\"records\": []")
        try stripped.write(to: copy.appendingPathComponent("Fixtures/grades/legacy.json"), atomically: true, encoding: .utf8)
        let misread = try await run(["recipes", "test", "--update", copy.path], demo: legacy)
        #expect(misread.exitCode != 0, "\(misread)")
        #expect(misread.stdout.contains("not valid UTF-8") && misread.stdout.contains("content_type"), "\(misread)")
    }

    /// The demo's recipes as a university of its own ("campus", not the demo), pointed at a
    /// running demo: a portal for which unitool knows no default user.
    func campusPortal(at demo: DemoUniversity) throws {
        try sandbox.installPortalCopy("campus", at: demo.baseURL)
    }

    func samlPosts(_ demo: DemoUniversity, since start: Int = 0) async -> Int {
        await demo.requests.dropFirst(start).filter { $0.method == "POST" && $0.path.hasPrefix("/Shibboleth.sso/SAML2/POST") }.count
    }

    @Test("terms commands need no --user, unless the portal's terms API is behind the login")
    func termsWithoutUser() async throws {
        let open = try await DemoUniversity.start()
        defer { Task { await open.stop() } }
        try campusPortal(at: open)
        let anonymous = try await run(["--portal", "campus", "terms", "status", "--json"], demo: open)
        #expect(anonymous.exitCode == 0, "\(anonymous)")
        #expect(anonymous.stdout.contains("\"current\": \"\(DemoUniversity.initialTermsVersion)\""), "\(anonymous)")
        let accept = try await run(["--portal", "campus", "terms", "accept"], demo: open)
        #expect(accept.exitCode == 0, "\(accept)")
        #expect(await samlPosts(open) == 0)

        var faults = DemoFaults()
        faults.termsAPI = .protected
        let protected = try await DemoUniversity.start(faults: faults)
        defer { Task { await protected.stop() } }
        try FileManager.default.removeItem(at: sandbox.root.appendingPathComponent("config/unitool/recipes/campus"))
        try campusPortal(at: protected)
        let refused = try await run(["--portal", "campus", "terms", "status"], demo: protected)
        #expect(refused.exitCode == 40, "\(refused)")
        #expect(refused.stderr.contains("behind the login") && refused.stderr.contains("--user"), "\(refused)")
        let withUser = try await UniToolProcess.run(
            ["--portal", "campus", "--user", "alice", "--password-stdin", "terms", "status", "--json"], stdin: "wonderland",
            environment: sandbox.environment)
        #expect(withUser.exitCode == 0, "\(withUser)")
        #expect(withUser.stdout.contains("\"up_to_date\": true"), "\(withUser)")
        #expect(await samlPosts(protected) == 1)
    }

    @Test("the overview mentions terms only for a portal whose recipe has them")
    func overviewWithoutTerms() async throws {
        try await DemoUniversity.withRunning { demo in
            try campusPortal(at: demo)
            let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/campus")
            var portal = try String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)
            let terms = try #require(portal.range(of: "\nterms:"))
            portal = String(portal[..<terms.lowerBound]) + "\n"
            try portal.write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
            // Without a command, the overview is what was asked for: on stdout.
            let overview = try await UniToolProcess.run(["--portal", "campus", "--user", "alice"], environment: sandbox.environment)
            #expect(overview.stdout.contains("PORTAL: Demo University (campus)"), "\(overview)")
            #expect(!overview.stdout.contains("terms:") && !overview.stdout.contains("terms accept"), "\(overview)")
            let withTerms = try await run([], demo: demo)
            #expect(withTerms.stdout.contains("terms:"), "\(withTerms)")
        }
    }
}
