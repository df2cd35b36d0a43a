import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Daily use that never breaks (issue 36): what a new user meets on the demo in the first days.
@Suite("Daily use: an overview whose next step runs, and what a new user meets first")
struct DailyUseTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    @Test("the overview's Next: names a command that runs as shown")
    func nextRuns() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let overview = try await sandbox.run(["--portal", "demo"], demo: demo.baseURL)
            let line = try #require(
                (overview.stdout + overview.stderr).split(separator: "\n").first { $0.contains("Next: unitool") }, "\(overview)")
            let shown = try #require(line.range(of: "Next: unitool "), "\(line)")
            let words = line[shown.upperBound...].split(separator: " ").map(String.init)
            #expect(!words.isEmpty, "\(line)")
            let next = try await sandbox.run(words, demo: demo.baseURL)
            #expect(next.exitCode == 0, "'\(line)': \(next)")
        }
    }

    @Test("watch status with no watches says how to add one (exit 0); --json is an empty list")
    func watchStatusWithoutWatches() async throws {
        defer { sandbox.remove() }
        let plain = try await sandbox.run(["watch", "status"])
        #expect(plain.exitCode == 0, "\(plain)")
        #expect(plain.stderr.contains("no watches yet") && plain.stderr.contains("watches.yaml"), "\(plain)")
        let json = try await sandbox.run(["watch", "status", "--json"])
        #expect(json.exitCode == 0 && json.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(json)")
    }

    @Test("history with no command lists the commands it has, each with its last run")
    func historyCommands() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let empty = try await sandbox.run(["--portal", "demo", "history"], demo: demo.baseURL)
            #expect(empty.exitCode == 0 && empty.stdout.contains("no history yet"), "\(empty)")
            let grades = try await sandbox.run(["--portal", "demo", "grades"], demo: demo.baseURL)
            #expect(grades.exitCode == 0, "\(grades)")
            let listed = try await sandbox.run(["--portal", "demo", "history", "--json"], demo: demo.baseURL)
            #expect(listed.exitCode == 0, "\(listed)")
            let records = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed)")
            #expect(records.map { $0["command"] as? String } == ["grades"], "\(records)")
        }
    }

    @Test("demo users is a table with a header that says what each user shows; --json has the same")
    func demoUsers() async throws {
        defer { sandbox.remove() }
        let table = try await sandbox.run(["demo", "users"])
        #expect(table.exitCode == 0, "\(table)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("user") == true && lines.first?.contains("shows") == true, "\(table)")
        #expect(lines.contains { $0.contains("laszlo") && $0.contains("locked account") }, "\(table)")
        #expect(lines.contains { $0.contains("yuki") && $0.contains("one-time code") }, "\(table)")
        let json = try await sandbox.run(["demo", "users", "--json"])
        let users = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json)")
        #expect(users.contains { $0["user"] as? String == "alice" && $0["shows"] as? String == "a plain login" }, "\(users)")
    }

    @Test("the config block of docs/USING.md works as written once the university is installed; before, a user never lands on the demo")
    func readmeConfigBlock() async throws {
        defer { sandbox.remove() }
        let readme = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/USING.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n").filter { $0.hasPrefix("unitool config set ") }.map {
            String($0.split(separator: "#").first ?? "").trimmingCharacters(in: .whitespaces)
        }
        try #require(lines.count >= 3, "\(lines)")
        // Copied before the university is installed: the user does not go to the demo.
        let early = try await sandbox.run(["config", "set", "user", "jdoe"])
        #expect(early.exitCode == 64 && early.stderr.contains("demo"), "\(early)")
        let settings = sandbox.root.appendingPathComponent("config/unitool/config.yaml")
        let before = (try? String(contentsOf: settings, encoding: .utf8)) ?? ""
        #expect(!before.contains("jdoe"), "\(before)")
        // With the university installed, each line as the README writes it.
        try sandbox.installPortalCopy("myuni", at: URL(string: "https://portal.example.edu")!)
        for line in lines {
            let words = line.split(separator: " ").dropFirst().map(String.init)
            let outcome = try await sandbox.run(words)
            #expect(outcome.exitCode == 0, "\(line): \(outcome)")
        }
        let text = try String(contentsOf: settings, encoding: .utf8)
        #expect(text.contains("portal: myuni") && text.contains("myuni: jdoe") && !text.contains("demo: jdoe"), "\(text)")
        // --portal demo still sets the demo's user, when that is what is asked.
        let demo = try await sandbox.run(["--portal", "demo", "config", "set", "user", "bence"])
        #expect(demo.exitCode == 0, "\(demo)")
    }

    /// The due date of a loan in `loans --json`.
    func due(_ barcode: String, in outcome: UniToolProcess.Outcome) throws -> String? {
        let loans = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
        return loans.first { $0["barcode"] as? String == barcode }?["due"] as? String
    }

    @Test("the demo remembers a renewal across commands, and demo serve shares that memory and keeps printed links alive")
    func demoRemembers() async throws {
        defer { sandbox.remove() }
        let before = try due("31000103", in: try await sandbox.run(["--portal", "demo", "loans", "--json"]))
        let renewed = try await sandbox.run(["--portal", "demo", "loans", "renew", "31000103"])
        #expect(renewed.exitCode == 0, "\(renewed)")
        let after = try due("31000103", in: try await sandbox.run(["--portal", "demo", "loans", "--json"]))
        #expect(
            before != nil && after != nil && after! > before!,
            "the next command sees the renewal: \(String(describing: before)) → \(String(describing: after))")

        // demo serve: the same user's commands find it (its rendezvous file), with the same memory.
        let (server, address) = try await DemoServeTests.serve(in: sandbox)
        defer { server.terminate() }
        let news = try await sandbox.run(["-v", "--portal", "demo", "news", "--json"])
        #expect(news.stderr.contains("\(DemoServeTests.usedServed) \(address.absoluteString)"), "\(news)")
        #expect(news.exitCode == 0, "\(news)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(news.stdout.utf8)) as? [[String: Any]])
        let link = try #require(items.compactMap { $0["link"] as? String }.first, "\(news.stdout)")
        #expect(link.hasPrefix(address.absoluteString), "\(link)")
        // The command has ended; the link it printed still answers.
        let (_, response) = try await uncachedURLSession.data(from: try #require(URL(string: link)))
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(link)")
        let servedDue = try due("31000103", in: try await sandbox.run(["--portal", "demo", "loans", "--json"]))
        #expect(servedDue == after, "demo serve remembers the renewal made before it started")
    }

    @Test("demo serve takes its faults from UNITOOL_DEMO_FAULTS, as every command's own demo does; --faults wins over it")
    func demoServeFaultsFromTheEnvironment() async throws {
        defer { sandbox.remove() }
        for (arguments, version) in [([String](), "2031-01"), (["--faults", "terms-version=2032-02"], "2032-02")] {
            let server = try await RPCClientProcess.start(
                command: "demo", arguments: ["serve", "--port", "0"] + arguments,
                environment: sandbox.environment.merging(["UNITOOL_DEMO_FAULTS": "terms-version=2031-01"]) { $1 })
            defer { server.terminate() }
            var address: String { server.stdout.split(separator: "\n").first.map(String.init) ?? "" }
            await eventually { !address.isEmpty }
            let base = try #require(URL(string: address), "no address printed: \(server.stderr)")
            let url = base.appendingPathComponent("api/terms/version")
            let (data, _) = try await uncachedURLSession.data(from: url)
            #expect(String(decoding: data, as: UTF8.self).contains("\"\(version)\""), "\(arguments)")
        }
    }

    @Test("one style: --help lists only the options that apply, doctor login --json is one line, history --json keeps types")
    func oneStyle() async throws {
        defer { sandbox.remove() }
        let help = try await sandbox.run(["auth", "login", "--help"])
        #expect(help.exitCode == 0 && help.stdout.contains("--password-stdin"), "\(help)")
        for option in ["--fields", "--sort", "--offline"] {
            #expect(!help.stdout.contains(option), "auth login --help lists \(option)")
        }
        let refused = try await sandbox.run(["auth", "login", "--sort", "due"])
        #expect(refused.exitCode == 64 && refused.stderr.contains("--sort does not apply to 'unitool auth login'"), "\(refused)")
        #expect(try await sandbox.run(["grades", "--help"]).stdout.contains("--fields"), "a records command keeps them")

        try await DemoUniversity.withRunning { demo in
            let doctor = try await sandbox.run(["--portal", "demo", "doctor", "login", "--json"], demo: demo.baseURL)
            #expect(doctor.exitCode == 0 && doctor.stdout.split(separator: "\n").count == 1, "compact, one line: \(doctor)")

            _ = try await sandbox.run(["--portal", "demo", "grades", "--term", "2026-fall"], demo: demo.baseURL)
            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-24")
            _ = try await sandbox.run(["--portal", "demo", "grades", "--term", "2026-fall"], demo: demo.baseURL)
            let history = try await sandbox.run(["--portal", "demo", "history", "grades", "--json"], demo: demo.baseURL)
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], "\(history)")
            let points = try #require(rows.first { $0["field"] as? String == "points" }, "\(rows)")
            #expect(points["new"] as? Double == 3 && !(points["new"] is String), "typed as the recipe types it: \(points)")
            #expect(points["old"] is NSNull, "\(points)")

            // A saved session that is still valid needs no password: the one given is not checked, and that is said.
            let unneeded = try await sandbox.run(
                ["--portal", "demo", "--user", "alice", "--password-stdin", "grades", "--term", "2026-fall"], demo: demo.baseURL,
                stdin: "not-the-password")
            #expect(unneeded.exitCode == 0, "\(unneeded)")
            #expect(unneeded.stderr.contains("--password-stdin was not needed"), "\(unneeded)")
            #expect(unneeded.stderr.split(separator: "\n").filter { $0.contains("--password-stdin") }.count == 1)
        }
    }

    @Test("mcp is listed once, as the built-in, with unitool's folder on PATH; help auth's secret-tool command is whole")
    func mcpOnceAndWholeCommands() async throws {
        defer { sandbox.remove() }
        let folder = UniToolProcess.executable.deletingLastPathComponent().path
        let path = ["PATH": folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        let overview = try await sandbox.run([], extra: path)
        #expect(overview.stdout.split(separator: "\n").filter { $0.hasPrefix("  mcp ") }.count == 1, "\(overview)")
        let plugins = try await sandbox.run(["plugins", "list"], extra: path)
        #expect(plugins.exitCode == 0 && !plugins.stdout.contains("mcp"), "\(plugins)")
        let auth = try await sandbox.run(["help", "auth"], extra: ["COLUMNS": "80"])
        let lines = auth.stdout.split(separator: "\n")
        #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "secret-tool lookup service unitool \\" }, "\(auth)")
        #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "portal <portal> username <user> kind password" }, "\(auth)")
    }

    @Test("one zone rule: with the machine in UTC, deadlines shows the portal's times as today does, and says so once")
    func oneZoneRule() async throws {
        defer { sandbox.remove() }
        let utc = ["TZ": "UTC"]
        let json = try await sandbox.run(["--portal", "demo", "deadlines", "--json"], extra: utc)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json)")
        let due = try #require(rows.first?["due"] as? String)
        // 23:59 in Budapest is 22:59 in UTC: the table shows the portal's 11:59 PM (or 23:59).
        #expect(due.contains("T23:59:00+01:00"), "\(due)")
        let table = try await sandbox.run(["--portal", "demo", "deadlines"], extra: utc.merging(["COLUMNS": "200"]) { $1 })
        #expect(table.exitCode == 0, "\(table)")
        #expect(table.stdout.contains("11:59") || table.stdout.contains("23:59"), "\(table)")
        #expect(!table.stdout.contains("10:59") && !table.stdout.contains("22:59"), "not the machine's UTC: \(table)")
        let notes = table.stderr.split(separator: "\n").filter { $0.contains("the portal's time zone") }
        #expect(notes.count == 1 && notes[0].contains("Europe/Budapest"), "\(table)")
        // In the portal's zone itself, nothing needs saying.
        let local = try await sandbox.run(["--portal", "demo", "deadlines"], extra: ["TZ": "Europe/Budapest"])
        #expect(!local.stderr.contains("time zone"), "\(local)")
    }
}
