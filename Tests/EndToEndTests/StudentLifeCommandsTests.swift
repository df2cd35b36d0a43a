import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// The campus app's other screens as a person and a script meet them: the binary's tables and
/// JSON, a purchase request that asks before it sends (a pipe, `--yes`, a real terminal through
/// tmux), `watch attendance`, `calendar --include`, JSON-RPC over stdio, and MCP with the
/// official Python client. The records themselves are tested in process
/// (UniToolKitTests/Service/StudentLifeServiceTests).
/// Serialized: each case starts demos and unitool processes, and the suite runs beside the rest;
/// one at a time keeps it from crowding the timed bounds of other suites on 2 cores.
@Suite("The campus app's other screens, end to end", .serialized)
struct StudentLifeCommandsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    /// Wednesday 25 November 2026, 10:00 in Budapest: the demo's clock in these tests, so that its
    /// dates (the co-op's holidays, the year in a request number) are the same whatever day the
    /// suite runs.
    static let wednesday = "2026-11-25T10:00:00+01:00"

    /// A demo in this process whose clock is `wednesday`.
    static func withDemo<T: Sendable>(_ body: (DemoUniversity) async throws -> T) async throws -> T {
        try await DemoUniversity.withRunning(now: { Date(timeIntervalSince1970: 1_795_597_200) }, body)
    }

    func run(_ arguments: [String], demo: DemoUniversity? = nil, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        // The command's clock is the demo's, so that `--day fri` is the Friday the demo's week has.
        let clock = demo == nil ? [:] : ["UNITOOL_NOW": Self.wednesday]
        return try await sandbox.run(["--portal", "demo"] + arguments, demo: demo?.baseURL, extra: clock.merging(extra) { $1 })
    }

    /// The JSON array a command printed, as objects.
    static func records(_ outcome: UniToolProcess.Outcome) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
    }

    @Test(
        "each command prints a table for people and JSON for scripts",
        arguments: [
            (["attendance"], "CS-320"), (["syllabus", "CS-320"], "Information Theory"), (["syllabus", "--search", "operating"], "CS-340"),
            (["syllabus", "HUN-250", "--lang", "ja"], "20世紀のハンガリー文学"), (["menu", "--day", "fri"], "天ぷらうどん Tempura udon"),
            (["menu-pdf"], "/dining/files/menu-north-"), (["coop-hours", "--on", "2026-12-24"], "年末年始休業 Winter holidays"),
            (["links", "--section", "Career"], "https://career.demo-university.invalid/jobs"),
            (["study-support", "--day", "tue"], "プログラミング Programming"),
        ] as [([String], String)])
    func tableAndJSON(arguments: [String], expected: String) async throws {
        defer { sandbox.remove() }
        try await StudentLifeCommandsTests.withDemo { demo in
            let table = try await run(arguments, demo: demo, extra: ["COLUMNS": "200"])
            #expect(table.exitCode == 0, "\(table)")
            #expect(table.stdout.contains(expected) && table.stdout.contains("──"), "\(table)")
            let json = try await run(arguments + ["--json"], demo: demo)
            #expect(json.exitCode == 0, "\(json)")
            let records = try Self.records(json)
            #expect(!records.isEmpty && json.stdout.contains(expected), "\(json)")
        }
    }

    @Test("links printed from a demo the command started for itself come with a note that they died with it; a lasting demo's do not")
    func transientDemoLinks() async throws {
        defer { sandbox.remove() }
        let own = try await run(["menu-pdf"])
        #expect(own.exitCode == 0 && own.stdout.contains("/dining/files/menu-"), "\(own)")
        #expect(own.stderr.contains("the demo's links above stopped working with this command"), "\(own)")
        #expect(own.stderr.contains("unitool demo serve"), "\(own)")
        let quiet = try await run(["menu-pdf", "--quiet"])
        #expect(quiet.exitCode == 0 && !quiet.stderr.contains("stopped working"), "\(quiet)")
        // A command without links says nothing about them.
        let grades = try await run(["attendance"])
        #expect(grades.exitCode == 0 && !grades.stderr.contains("stopped working"), "\(grades)")
        try await StudentLifeCommandsTests.withDemo { demo in
            let lasting = try await run(["menu-pdf"], demo: demo)
            #expect(lasting.exitCode == 0 && !lasting.stderr.contains("stopped working"), "\(lasting)")
        }
    }

    @Test("syllabus with neither a code nor --search, or both, is a usage error (64) that says what to give")
    func syllabusUsage() async throws {
        defer { sandbox.remove() }
        let neither = try await run(["syllabus"])
        #expect(neither.exitCode == 64 && neither.stderr.contains("'syllabus' needs '--code', or '--search' instead"), "\(neither)")
        let both = try await run(["syllabus", "CS-320", "--search", "x"])
        #expect(both.exitCode == 64 && both.stderr.contains("give it or what chose that source, not both"), "\(both)")
        let twice = try await run(["syllabus", "CS-320", "--code", "CS-340"])
        #expect(twice.exitCode == 64 && twice.stderr.contains("--code is given twice"), "\(twice)")
        let help = try await run(["syllabus", "--help"])
        #expect(help.stdout.contains("syllabus [<code>] [--search <search>]"), "\(help)")
    }

    @Test(
        "library request: from a script it sends only with --yes (exit 26, nothing sent, otherwise); then the request number; mistakes said"
    )
    func requestFromAScript() async throws {
        defer { sandbox.remove() }
        try await StudentLifeCommandsTests.withDemo { demo in
            let request = ["library", "request", "--title", "Gödel, Escher, Bach", "--isbn", "978-0-465-02656-2"]
            let unasked = try await run(request, demo: demo)
            #expect(unasked.exitCode == 26, "\(unasked)")
            #expect(unasked.stderr.contains("was not confirmed; nothing was sent") && unasked.stderr.contains("--yes"), "\(unasked)")
            #expect(await demo.requests.isEmpty, "nothing was sent, not even the login")

            let sent = try await run(request + ["--yes"], demo: demo)
            #expect(sent.exitCode == 0, "\(sent)")
            #expect(sent.stdout.contains("R2026-0042") && sent.stdout.contains("Gödel, Escher, Bach"), "\(sent)")
            let listed = try Self.records(try await run(["library", "--json"], demo: demo))
            #expect(listed.map { $0["number"] as? String } == ["R2026-0042"] && listed.first?["status"] as? String == "受付 Received")

            let badISBN = try await run(["library", "request", "--title", "X", "--isbn", "978-0-465-02656-3", "--yes"], demo: demo)
            #expect(badISBN.exitCode == 24 && badISBN.stderr.contains("The ISBN 978-0-465-02656-3 is not valid"), "\(badISBN)")
            let yesNo = try await run(request + ["--yes=no"], demo: demo)
            #expect(yesNo.exitCode == 64 && yesNo.stderr.contains("--yes takes no value"), "\(yesNo)")
            let noTitle = try await run(["library", "request", "--isbn", "1", "--yes"], demo: demo)
            #expect(noTitle.exitCode == 64 && noTitle.stderr.contains("needs --title"), "\(noTitle)")
            let typo = try await run(["library", "request", "--titel", "X"], demo: demo)
            #expect(typo.exitCode == 64 && typo.stderr.contains("did you mean '--title'?"), "\(typo)")
            let help = try await run(["library", "request", "--help"], demo: demo)
            #expect(help.stdout.contains("--title <title> [--author <author>] [--isbn <isbn>] [--reason <reason>] [--yes]"), "\(help)")
            #expect(try Self.records(try await run(["library", "--json"], demo: demo)).count == 1, "still one request")
        }
    }

    @Test("watch attendance --warning true: the course that drops to one absence left is announced once")
    func watchAttendance() async throws {
        defer { sandbox.remove() }
        try await StudentLifeCommandsTests.withDemo { demo in
            let watch = ["watch", "attendance", "--warning", "true", "--once"]
            let baseline = try await run(watch, demo: demo)
            #expect(baseline.exitCode == 0 && baseline.stdout.isEmpty, "the first run is the baseline: \(baseline)")
            await demo.recordAbsence(user: "alice", code: "CS-340")
            let dropped = try await run(watch, demo: demo)
            #expect(dropped.exitCode == 0, "\(dropped)")
            let lines = dropped.stdout.split(separator: "\n")
            #expect(lines.count == 1, "one event: \(dropped)")
            let event = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
            #expect(event["event"] as? String == "added" && event["key"] as? String == "CS-340", "\(event)")
            #expect((event["record"] as? [String: Any])?["absences_left"] as? Int == 1, "\(event)")
            let again = try await run(watch, demo: demo)
            #expect(again.exitCode == 0 && again.stdout.isEmpty, "nothing new: \(again)")
        }
    }

    @Test("calendar --include coop-hours adds the co-op's closed days; without it they are left out; a command with no calendar is refused")
    func calendarInclude() async throws {
        defer { sandbox.remove() }
        try await StudentLifeCommandsTests.withDemo { demo in
            let plain = try await run(["calendar"], demo: demo)
            #expect(plain.exitCode == 0 && !plain.stdout.contains("Closed: "), "\(plain)")
            let file = sandbox.root.appendingPathComponent("uni.ics")
            let asked = try await run(["calendar", "--include", "coop-hours", "--output", file.path], demo: demo)
            #expect(asked.exitCode == 0 && asked.stderr.contains("coop-hours"), "\(asked)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains("SUMMARY:Closed: 中央購買部 Central Store") && text.contains("CATEGORIES:coop-hours"), "\(text)")
            let refused = try await run(["calendar", "--include", "menu"], demo: demo)
            #expect(refused.exitCode == 64 && refused.stderr.contains("'menu' is not a command of 'demo' with a calendar"), "\(refused)")
        }
    }

    /// The `index`th element of a JSON array, if `value` is one that long.
    static func element(_ value: JSONValue?, _ index: Int) -> JSONValue? {
        guard case .array(let items)? = value, items.indices.contains(index) else { return nil }
        return items[index]
    }

    static func request(_ id: Int, _ method: String, _ params: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
    }

    @Test("JSON-RPC: describe names the request's parameters, perform sends them (a missing one is -32602), run reads the new commands")
    func jsonRPC() async throws {
        defer { sandbox.remove() }
        // The server's own demo, on the same Wednesday (UNITOOL_NOW is its clock too).
        let client = try await RPCClientProcess.start(environment: sandbox.environment.merging(["UNITOOL_NOW": Self.wednesday]) { $1 })
        client.sendLine(Self.request(1, "recipes.describe", #"{"portal":"demo","recipe":"library"}"#))
        client.sendLine(
            Self.request(2, "recipes.perform", #"{"portal":"demo","recipe":"library","action":"request","parameters":{"isbn":"1"}}"#))
        client.sendLine(
            Self.request(
                3, "recipes.perform",
                #"{"portal":"demo","recipe":"library","action":"request","parameters":{"title":"Concrete Mathematics","isbn":"0-201-55802-5"}}"#
            ))
        client.sendLine(Self.request(4, "recipes.run", #"{"portal":"demo","recipe":"syllabus","options":{"search":"theory"}}"#))
        client.sendLine(Self.request(5, "recipes.run", #"{"portal":"demo","recipe":"attendance","options":{"warning":"yes"}}"#))
        client.sendLine(Self.request(6, "calendar", #"{"portal":"demo","include":["coop-hours"]}"#))
        client.sendLine(Self.request(7, "calendar", #"{"portal":"demo","include":["menu"]}"#))
        // The purchase request asks first: sent once the client says its person agreed.
        client.sendLine(
            Self.request(
                8, "recipes.perform",
                #"{"portal":"demo","recipe":"library","action":"request","parameters":{"title":"Concrete Mathematics","isbn":"0-201-55802-5"},"confirm":true}"#
            ))
        var seen: [JSONValue] = []
        let describe = await client.response(id: .number(1), seen: &seen)
        let action = Self.element(describe?["result"]?["actions"], 0)
        #expect(action?["asks"] == .bool(true), "\(String(describing: describe))")
        #expect(
            Self.element(action?["parameters"], 0)?["name"] == .string("title")
                && Self.element(action?["parameters"], 0)?["required"] == .bool(true))
        let missing = await client.response(id: .number(2), seen: &seen)
        #expect(missing?["error"]?["code"] == .number(-32602), "\(String(describing: missing))")
        let unconfirmed = await client.response(id: .number(3), seen: &seen)
        #expect(unconfirmed?["error"]?["code"] == .number(-32026), "\(String(describing: unconfirmed))")
        let refusal = unconfirmed?["error"]?["message"]?.stringValue ?? ""
        #expect(refusal.contains("title: Concrete Mathematics") && refusal.contains("nothing was sent"), "\(refusal)")
        #expect(unconfirmed?["error"]?["data"]?["hint"]?.stringValue?.contains(#""confirm": true"#) == true)
        let performed = await client.response(id: .number(8), seen: &seen)
        #expect(Self.element(performed?["result"]?["records"], 0)?["number"] == .string("R2026-0042"), "\(String(describing: performed))")
        let found = await client.response(id: .number(4), seen: &seen)
        #expect(Self.element(found?["result"]?["records"], 1)?["code"] == .string("CS-320"), "\(String(describing: found))")
        let warned = await client.response(id: .number(5), seen: &seen)
        #expect(Self.element(warned?["result"]?["records"], 0)?["code"] == .string("CS-320"), "\(String(describing: warned))")
        let calendar = await client.response(id: .number(6), seen: &seen)
        #expect(calendar?["result"]?["ics"]?.stringValue?.contains("SUMMARY:Closed: ") == true, "\(String(describing: calendar))")
        let unknown = await client.response(id: .number(7), seen: &seen)
        #expect(unknown?["error"]?["code"] == .number(-32602), "\(String(describing: unknown))")
        // Every other screen through recipes.run: records, typed as JSON.
        let others = ["menu", "menu-pdf", "coop-hours", "links", "library", "study-support"]
        for (offset, recipe) in others.enumerated() {
            client.sendLine(Self.request(10 + offset, "recipes.run", #"{"portal":"demo","recipe":"\#(recipe)"}"#))
        }
        for (offset, recipe) in others.enumerated() {
            let answer = await client.response(id: .number(Double(10 + offset)), seen: &seen)
            let records = answer?["result"]?["records"]?.arrayValue ?? []
            #expect(!records.isEmpty, "\(recipe): \(String(describing: answer))")
        }
        client.closeInput()
        let exit = await client.waitForExit(timeout: 60)
        #expect(exit == 0, "exit \(String(describing: exit)); stderr: \(client.stderr.suffix(2000))")
    }
}

/// The same screens through `unitool mcp`, driven by the official MCP SDK for Python.
@Suite(
    "The campus app's other screens through MCP, with the official Python client",
    .enabled(if: Needs.check(InteropPython.isAvailableOrRequired, "the interop Python"), "UNITOOL_SKIP_INTEROP=1 and no interop venv"))
struct StudentLifeMCPTests {
    @Test("every screen is a tool; library_request is destructive and needs a title; each call answers")
    func campusTools() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        guard InteropPython.isInstalled else {
            Issue.record(Comment(rawValue: InteropPython.missing))
            return
        }
        try await StudentLifeCommandsTests.withDemo { demo in
            let environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }.merging([
                "UNITOOL_DEMO_URL": demo.baseURL.absoluteString, "NO_COLOR": "1",
            ]) { $1 }
            let script = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/mcp_client.py").path
            let outcome = try await UniToolProcess.run(
                URL(fileURLWithPath: InteropPython.path), [script, "campus", UniToolProcess.executable.path, "--portal", "demo", "mcp"],
                environment: environment, timeout: 120)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome)")
            let tools = try #require(report["tools"] as? [String: [String: Any]])
            #expect(
                Set(tools.keys).isSuperset(of: [
                    "attendance", "syllabus", "menu", "menu-pdf", "coop-hours", "library", "library_request", "links",
                ]))
            #expect(tools["library_request"]?["destructive"] as? Bool == true)
            #expect(tools["attendance"]?["read_only"] as? Bool == true)
            let schema = tools["library_request"]?["schema"] as? [String: Any]
            #expect(schema?["required"] as? [String] == ["title"], "\(String(describing: schema))")

            func records(_ key: String) -> [[String: Any]] {
                ((report[key] as? [String: Any])?["structured"] as? [String: Any])?["records"] as? [[String: Any]] ?? []
            }
            #expect(records("attendance").first?["code"] as? String == "CS-320", "\(report["attendance"] ?? "")")
            #expect(records("syllabus").first?["title"] as? String == "情報理論", "\(report["syllabus"] ?? "")")
            #expect(
                records("syllabus_search").map { $0["code"] as? String } == ["MATH-301", "CS-320"], "\(report["syllabus_search"] ?? "")")
            let neither = report["syllabus_neither"] as? [String: Any]
            #expect(
                neither?["is_error"] as? Bool == true || neither?["ok"] as? Bool == false,
                "a call without code or search fails: \(neither ?? [:])")
            #expect(!records("menu").isEmpty && records("menu").allSatisfy { ($0["cafeteria"] as? String)?.contains("North") == true })
            #expect(records("menu_pdf").count == 2)
            #expect(records("coop_hours").allSatisfy { $0["closed"] as? Bool == true } && records("coop_hours").count == 2)
            #expect(records("links").count == 2)
            #expect(records("library_request").first?["number"] as? String == "R2026-0042", "\(report["library_request"] ?? "")")
            #expect(records("library").map { $0["number"] as? String } == ["R2026-0042"])
        }
    }
}

/// The question before a purchase request is sent, in a real terminal: tmux runs unitool, reads
/// the screen and types the answer.
@Suite("A purchase request asks first, in a real terminal (tmux)", .enabled(if: Needs.program("/usr/bin/tmux")))
struct StudentLifeTerminalTests {
    let terminal = TmuxTerminal()

    @Test("the terminal shows every value it will send; n sends nothing (exit 26), y sends it and prints the request number")
    func askedAtTheTerminal() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await StudentLifeCommandsTests.withDemo { demo in
            let unitool = "UNITOOL_DEMO_URL='\(demo.baseURL.absoluteString)' \(terminal.unitool(in: sandbox))"
            let request = "--portal demo library request --title 'Concrete Mathematics' --isbn 0-201-55802-5 --reason 'for MATH-301'"
            defer { terminal.stop() }
            for (answer, exit) in [("n", "EXIT=26"), ("y", "EXIT=0")] {
                let session = try terminal.startSession("\(unitool) \(request); echo EXIT=$?; sleep 300")
                var screen = try await terminal.screen(of: session, once: "Send this? [y/N]", attempts: 300)
                #expect(screen.contains("Demo University: Ask the library to buy a book"), "\(screen)")
                #expect(screen.contains("title:  Concrete Mathematics") && screen.contains("isbn:   0-201-55802-5"), "\(screen)")
                #expect(screen.contains("author: (empty)") && screen.contains("reason: for MATH-301"), "\(screen)")
                try terminal.tmux(["send-keys", "-t", session, answer, "Enter"])
                screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 300)
                #expect(screen.contains(exit), "\(answer): \(screen)")
                let posts = await demo.requests.filter { $0.method == "POST" && $0.path.hasPrefix("/library/request") }
                if answer == "n" {
                    #expect(screen.contains("nothing was sent") && posts.isEmpty, "\(screen)")
                } else {
                    #expect(screen.contains("R2026-0042") && posts.count == 2, "\(screen) \(posts.map(\.path))")
                }
                try terminal.tmux(["kill-session", "-t", session])
            }
        }
    }
}
