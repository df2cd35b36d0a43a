import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Chained `read:` values through the service against a real HTTP server (issue 48): a session
/// key read off a form page is posted in the form whose answer holds the next value, in the
/// order the recipe writes them.
@Suite("read: values in a chain, through the service")
struct ReadChainServiceTests {
    /// A portal pack in a directory of its own, with `recipe` as its `export` command.
    func bench(for portal: RecordingHTTPServer, recipe: String) throws -> (DemoServiceBench, URL) {
        let recipes = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-recipes-\(UUID().uuidString)")
        let pack = recipes.appendingPathComponent("chain")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try
            "portal: chain\nbase_url: \(portal.baseURL.absoluteString)\nlogin: { pages: [{ name: never, when: \"//form[@id='never']\", auto_submit: true }] }\n"
            .write(to: pack.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try recipe.write(to: pack.appendingPathComponent("export.yaml"), atomically: true, encoding: .utf8)
        return (try DemoServiceBench(recipes: [recipes]), recipes)
    }

    func run(_ bench: DemoServiceBench, at portal: RecordingHTTPServer, configuration: HTTPSession.Configuration = .init())
        async throws -> RecordSet
    {
        let recipe = try bench.recipe("export", portal: "chain")
        let request = try bench.request("export", [:], portal: "chain")
        return try await bench.withService(at: portal.baseURL, portal: "chain", configuration: configuration) { service, _ in
            try await service.execute(request, of: recipe, interaction: Unattended()).records
        }
    }

    @Test("a later read posts an earlier read's value (a session key) and the fetch uses the later one")
    func laterReadPostsEarlierValue() async throws {
        let portal = try RecordingHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/form"): .status(200, body: #"<form method="post"><input type="hidden" name="sesskey" value="k-123"></form>"#)
            case ("POST", "/form"):
                request.body.contains("sesskey=k-123")
                    ? .status(200, body: #"<input id="token" value="t-9">"#) : .status(403, body: "<p>bad session key</p>")
            default: .status(200, body: "<ul><li>listed</li></ul>")
            }
        }
        defer { portal.stop() }
        let (bench, recipes) = try bench(
            for: portal,
            recipe: """
                command: export
                login: false
                read:
                  sesskey: { fetch: /form, xpath: "//input[@name='sesskey']/@value" }
                  token: { fetch: /form, method: post, form: { sesskey: "{{sesskey}}", go: "1" }, xpath: "//input[@id='token']/@value" }
                fetch: /list?token={{token}}
                rows: //li
                fields: { name: { xpath: ".", required: true } }

                """)
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let set = try await run(bench, at: portal)
        #expect(set.records.count == 1)
        let sent = portal.requests.map { "\($0.method) \($0.path) \($0.body)" }
        #expect(sent == ["GET /form ", "POST /form sesskey=k-123&go=1", "GET /list?token=t-9 "], "\(sent)")
    }

    // MARK: An address read off a form's answer (type: url)

    static let token = "0f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4"

    static let calendar = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        BEGIN:VEVENT\r
        UID:7@portal\r
        SUMMARY:Essay due\r
        DTSTART:20261127T225900Z\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static func exportRecipe() -> String {
        """
        command: export
        login: false
        read:
          sesskey: { fetch: /form, xpath: "//input[@name='sesskey']/@value" }
          address: { fetch: /form, method: post, form: { sesskey: "{{sesskey}}", generate: "1" }, xpath: "//input[@id='exporturl']/@value", type: url }
        fetch: "{{address}}"
        parse: ics
        rows: //vevent
        fields:
          uid: { xpath: uid, key: true, priority: hidden }
          what: { xpath: summary, required: true }

        """
    }

    /// A portal whose form's answer shows `shown` as the export address.
    static func exportPortal(showing shown: String) throws -> RecordingHTTPServer {
        try RecordingHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/form"): .status(200, body: #"<form method="post"><input type="hidden" name="sesskey" value="k-123"></form>"#)
            case ("POST", "/form"): .status(200, body: #"<form><input id="exporturl" type="text" value="\#(shown)"></form>"#)
            case ("GET", let path) where path.hasPrefix("/cal/export?") || path.hasPrefix("/cal/feed/"):
                .status(200, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: calendar)
            default: .status(404, body: "<p>no such page</p>")
            }
        }
    }

    @Test("an address a form's answer shows is resolved against that page and fetched as it is, and reaches no log or trace")
    func addressIsFetchedAsItIs() async throws {
        // Relative, with &amp; in the markup: the address is the attribute's value, resolved.
        let portal = try Self.exportPortal(showing: "/cal/export?userid=5&amp;authtoken=\(Self.token)&amp;what=all")
        defer { portal.stop() }
        let (bench, recipes) = try bench(for: portal, recipe: Self.exportRecipe())
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let trace = HTTPTrace(includeBodies: true)
        var configuration = HTTPSession.Configuration()
        configuration.trace = trace
        let set = try await run(bench, at: portal, configuration: configuration)
        #expect(set.records.map { $0.fields.map(\.value.text) } == [["7@portal", "Essay due"]], "\(set.records)")
        let sent = portal.requests.map { "\($0.method) \($0.path)" }
        #expect(sent == ["GET /form", "POST /form", "GET /cal/export?userid=5&authtoken=\(Self.token)&what=all"], "\(sent)")
        let har = String(decoding: try trace.har(), as: UTF8.self)
        #expect(har.contains("/cal/export") && !har.contains(Self.token), "the token in the trace")
        let token = Self.token
        #expect(!bench.log.messages.contains { $0.contains(token) }, "\(bench.log.messages)")
    }

    @Test("a token in the address's path is kept out of the trace and the log too")
    func tokenInPath() async throws {
        let portal = try Self.exportPortal(showing: "/cal/feed/\(Self.token)/basic.ics")
        defer { portal.stop() }
        let (bench, recipes) = try bench(for: portal, recipe: Self.exportRecipe())
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let trace = HTTPTrace(includeBodies: true)
        var configuration = HTTPSession.Configuration()
        configuration.trace = trace
        let set = try await run(bench, at: portal, configuration: configuration)
        #expect(set.records.count == 1)
        #expect(portal.requests.last?.path == "/cal/feed/\(Self.token)/basic.ics")
        let har = String(decoding: try trace.har(), as: UTF8.self)
        #expect(trace.entryCount >= 3 && !har.contains(Self.token))
        let token = Self.token
        #expect(!bench.log.messages.contains { $0.contains(token) }, "\(bench.log.messages)")
    }

    @Test("an address whose page is gone: the error names the page without the token in its path")
    func goneAddressError() async throws {
        let portal = try Self.exportPortal(showing: "/cal/gone/\(Self.token)/basic.ics")
        defer { portal.stop() }
        let (bench, recipes) = try bench(for: portal, recipe: Self.exportRecipe())
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let error = await #expect(throws: UniToolError.self) { try await run(bench, at: portal) }
        let text = error?.description ?? ""
        #expect(text.contains("404") && !text.contains(Self.token), "\(text)")
    }

    @Test("an address on another origin is refused before anything is sent there, and the message does not quote it")
    func foreignAddressIsRefused() async throws {
        let elsewhere = try RecordingHTTPServer { _ in .status(200, headers: ["Content-Type": "text/calendar"], body: Self.calendar) }
        defer { elsewhere.stop() }
        let portal = try Self.exportPortal(showing: elsewhere.url("/cal/export?authtoken=\(Self.token)"))
        defer { portal.stop() }
        let (bench, recipes) = try bench(for: portal, recipe: Self.exportRecipe())
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let error = await #expect(throws: UniToolError.self) { try await run(bench, at: portal) }
        #expect(error?.kind == .unsafeRequest, "\(String(describing: error))")
        let text = error?.description ?? ""
        #expect(text.contains("read: 'address'") && text.contains("nothing was fetched"), "\(text)")
        #expect(!text.contains(Self.token), "\(text)")
        #expect(elsewhere.requests.isEmpty)
        let token = Self.token
        #expect(!bench.log.messages.contains { $0.contains(token) }, "\(bench.log.messages)")
    }

    @Test("an address whose page changed its layout: the drift report saved of it does not hold the token in its path")
    func driftReportOfAddress() async throws {
        let address = "/ical/\(Self.token)/basic.ics"
        let portal = try RecordingHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/form"): .status(200, body: #"<form method="post"><input type="hidden" name="sesskey" value="k-123"></form>"#)
            case ("POST", "/form"): .status(200, body: #"<form><input id="exporturl" type="text" value="\#(address)"></form>"#)
            // A calendar no longer: the export now answers with a page.
            case ("GET", address): .status(200, body: "<html><body><p>The export moved</p></body></html>")
            default: .status(404, body: "<p>no such page</p>")
            }
        }
        defer { portal.stop() }
        let recipe = Self.exportRecipe().replacingOccurrences(of: "parse: ics\nrows: //vevent", with: "rows: //li[@class='event']")
        let (bench, recipes) = try bench(for: portal, recipe: recipe)
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let error = await #expect(throws: UniToolError.self) { try await run(bench, at: portal) }
        #expect(error?.kind == .layoutChanged, "\(String(describing: error))")
        let text = error?.description ?? ""
        #expect(!text.contains(Self.token), "\(text)")
        let files = try FileManager.default.contentsOfDirectory(at: bench.driftReports, includingPropertiesForKeys: nil)
        let report = try String(contentsOf: try #require(files.first), encoding: .utf8)
        #expect(report.contains("unitool drift report") && report.contains("The export moved"), "\(report)")
        #expect(!report.contains(Self.token), "\(report)")
    }

    @Test("a read after the address whose page is sent on to the address's path: its error does not quote the token")
    func laterReadErrorIsScrubbed() async throws {
        let feed = "/cal/feed/\(Self.token)/basic.ics"
        let portal = try RecordingHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/form"): .status(200, body: #"<form method="post"><input type="hidden" name="sesskey" value="k-123"></form>"#)
            case ("POST", "/form"): .status(200, body: #"<form><input id="exporturl" type="text" value="\#(feed)"></form>"#)
            // The page the later read fetches sends it on to the address's own path.
            case ("GET", "/check"): .status(302, headers: ["Location": feed + "?view=page"], body: "")
            case ("GET", _): .status(200, body: "<p>a page without what the read looks for</p>")
            default: .status(404, body: "<p>no such page</p>")
            }
        }
        defer { portal.stop() }
        let recipe = Self.exportRecipe().replacingOccurrences(
            of: "fetch: \"{{address}}\"", with: "  check: { fetch: /check, xpath: \"//p[@id='x']\" }\nfetch: \"{{address}}\"")
        let (bench, recipes) = try bench(for: portal, recipe: recipe)
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let error = await #expect(throws: UniToolError.self) { try await run(bench, at: portal) }
        let text = error?.description ?? ""
        #expect(text.contains("read: 'check' found nothing") && !text.contains(Self.token), "\(text)")
    }

    // MARK: The demo's Moodle-shaped export page

    @Test(
        "the demo LMS's calendar export page: the sesskey read off the form, 'Get calendar URL' posted, the address shown read and fetched")
    func demoExportPage() async throws {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        try await DemoUniversity.withRunning { demo in
            let folder = try recipes.installPortalCopy("campus", at: demo.baseURL, commands: ["deadlines"])
            try """
            command: events
            read:
              sesskey: { fetch: "/lms/calendar/export.php?course=1", xpath: "//input[@name='sesskey']/@value" }
              address:
                fetch: /lms/calendar/export.php
                method: post
                form: { course: "1", sesskey: "{{sesskey}}", _qf__core_calendar_export_form: "1", "events[exportevents]": all, "period[timeperiod]": recentupcoming, generateurl: "Get calendar URL" }
                xpath: "//input[@id='calendarexporturl']/@value"
                type: url
            fetch: "{{address}}"
            parse: ics
            rows: //vevent
            empty_when: "/icalendar/vcalendar[not(vevent)]"
            fields:
              what: { xpath: summary, required: true }
              uid: { xpath: uid, key: true, priority: hidden }

            """.write(to: folder.appendingPathComponent("events.yaml"), atomically: true, encoding: .utf8)
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            try bench.sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let trace = HTTPTrace(includeBodies: true)
            var configuration = HTTPSession.Configuration()
            configuration.trace = trace
            func run(_ command: String) async throws -> [[String]] {
                let recipe = try bench.recipe(command, portal: "campus")
                let request = try bench.request(command, [:], portal: "campus")
                return try await bench.withService(
                    on: demo, portal: "campus", configuration: configuration, userValues: ["userid": "2", "authtoken": "demo"]
                ) {
                    service, _ in
                    try await service.execute(request, of: recipe, interaction: Unattended()).records.records.map { record in
                        record.fields.filter { ["what", "uid"].contains($0.name) }.map(\.value.text)
                    }
                }
            }
            let events = try await run("events")
            let deadlines = try await run("deadlines")
            #expect(!events.isEmpty && Set(events.map { $0.joined(separator: "|") }) == Set(deadlines.map { $0.joined(separator: "|") }))
            let requests = await demo.requests
            let fetched = requests.firstIndex { $0.method == "GET" && $0.path.hasPrefix("/lms/calendar/export_execute.php") }
            let postedAt = requests.firstIndex { $0.method == "POST" && $0.path == "/lms/calendar/export.php" }
            #expect(fetched != nil && postedAt != nil && fetched! > postedAt!, "\(requests)")
            // The address's token (40 hexadecimal digits) reaches no trace and no log line.
            let har = String(decoding: try trace.har(), as: UTF8.self)
            #expect(har.contains("export_execute.php"))
            let token = #/authtoken=[0-9a-f]{40}/#
            #expect(har.firstMatch(of: token) == nil)
            #expect(!bench.log.messages.contains { $0.firstMatch(of: token) != nil }, "\(bench.log.messages)")
        }
    }
}
