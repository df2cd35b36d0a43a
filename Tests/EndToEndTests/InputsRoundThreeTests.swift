import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// The command line's inputs and what it prints from a pack, through the real executable: huge
/// durations and counts, a pack's text in help, the overview and lists, CSV on a terminal,
/// completion values that look like globs, and `recipes new` with hostile values.
@Suite("Inputs, round three: bounds, a pack's text, CSV on a terminal, completion, recipes new")
struct InputsRoundThreeTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    /// ESC with an OSC window title ended by BEL, CSI (U+009B) clearing the screen, and BEL alone,
    /// as a YAML double-quoted scalar writes them.
    static let hostileYAML = #"\e]0;owned\a \u009b2J \a"#

    /// A pack (`--recipes DIR`) that adds a portal of its own, `hostile`, whose name, command
    /// summary, description and option help hold terminal controls, and whose option offers the
    /// value `/*/*`.
    func hostilePack() throws -> URL {
        let pack = sandbox.root.appendingPathComponent("pack")
        let folder = pack.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portal = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "portal: demo\n", with: "portal: hostile\n")
            .replacingOccurrences(of: "demo: true\n", with: "")
            .replacingOccurrences(of: "name: Demo University\n", with: "name: \"Hostile U \(Self.hostileYAML)\"\n")
        try portal.write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try """
        command: notices
        summary: "Notices \(Self.hostileYAML)"
        description: "First line \(Self.hostileYAML)\\nsecond line \\e[31mred"
        options:
          kind:
            help: "which notices \(Self.hostileYAML)"
            default: all
            values: ["/*/*", all]
        fetch: /news/{{kind}}
        rows: "//li"
        fields:
          title: { xpath: "." }

        """.write(to: folder.appendingPathComponent("notices.yaml"), atomically: true, encoding: .utf8)
        return pack
    }

    /// The terminal controls in `text`, except line feeds.
    static func controls(in text: String) -> [String] {
        text.unicodeScalars.filter { TerminalText.isControl($0) && $0 != "\n" }.map { String(format: "U+%04X", $0.value) }
    }

    // MARK: Bounds

    @Test("a huge --since is a usage error (exit 64) naming the allowed range, not a crash, for news and history")
    func hugeSince() async throws {
        for arguments in [
            ["--portal", "demo", "news", "--since", "9999999999999999d"],
            ["--portal", "demo", "news", "--since=99999999999999999999d"],
            ["--portal", "demo", "history", "news", "--since", "9999999999999999d"],
        ] {
            let outcome = try await sandbox.run(arguments)
            #expect(outcome.exitCode == 64, "\(arguments): \(outcome)")
            #expect(outcome.stderr.contains("from 0 to 36500"), "\(arguments): \(outcome)")
        }
        let fine = try await sandbox.run(["--portal", "demo", "news", "--since", "36500d", "--json"])
        #expect(fine.exitCode == 0, "\(fine)")
    }

    @Test("counts out of range are usage errors naming the range: search --limit, rpc --max-message-bytes and --max-unread-bytes")
    func countsOutOfRange() async throws {
        for (arguments, range) in [
            (["--portal", "demo", "search", "grades", "--limit", "0"], "from 1 to 10000"),
            (["--portal", "demo", "search", "grades", "--limit", "9223372036854775807"], "from 1 to 10000"),
            (["rpc", "--max-message-bytes", "0"], "from 256 to 1073741824"),
            (["rpc", "--max-message-bytes=-5"], "from 256 to 1073741824"),
            (["rpc", "--max-unread-bytes", "9223372036854775807"], "from 4096 to 4294967296"),
        ] {
            let outcome = try await sandbox.run(arguments, stdin: "")
            #expect(outcome.exitCode == 64, "\(arguments): \(outcome)")
            #expect(outcome.stderr.contains(range), "\(arguments): \(outcome)")
        }
    }

    @Test("MCP: a tool call with a huge since is an error, and the server goes on answering")
    func mcpHugeSince() async throws {
        let client = try await RPCClientProcess.start(command: "mcp", arguments: ["--portal", "demo"], environment: sandbox.environment)
        defer { client.terminate() }
        var seen: [JSONValue] = []
        #expect(await client.initializeMCP(seen: &seen) != nil, "\(client.stderr)")
        client.sendLine(
            #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"news","arguments":{"since":"9999999999999999d"}}}"#)
        let refused = await client.response(id: .number(2), seen: &seen)
        let failed = refused?["error"] != nil || refused?["result"]?["isError"] == .bool(true)
        #expect(failed, "\(String(describing: refused)) \(client.stderr)")
        #expect("\(String(describing: refused))".contains("from 0 to 36500"), "\(String(describing: refused))")
        client.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"grades"}}}"#)
        let next = await client.response(id: .number(3), seen: &seen)
        #expect(next?["result"] != nil, "the server answers the next call: \(String(describing: next)) \(client.stderr)")
    }

    // MARK: A pack's text

    @Test("a pack's name, summary, description and option help reach neither stdout nor stderr raw: help, overview, recipes list")
    func packTextEscaped() async throws {
        let pack = try hostilePack()
        let global = ["--recipes", pack.path, "--portal", "hostile"]
        for arguments in [
            global, global + ["--help"], global + ["notices", "--help"],
            ["--recipes", pack.path, "help", "notices", "--portal", "hostile"],
            ["--recipes", pack.path, "recipes", "list"],
        ] {
            let outcome = try await sandbox.run(arguments)
            #expect(outcome.exitCode == 0, "\(arguments): \(outcome)")
            #expect(Self.controls(in: outcome.stdout).isEmpty, "\(arguments): stdout \(outcome.stdout.debugDescription)")
            #expect(Self.controls(in: outcome.stderr).isEmpty, "\(arguments): stderr \(outcome.stderr.debugDescription)")
            // What was there is still shown, escaped.
            #expect(outcome.stdout.contains("\\x1b]0;owned\\x07") && outcome.stdout.contains("\\u009b2J"), "\(arguments): \(outcome)")
        }
        let help = try await sandbox.run(global + ["notices", "--help"])
        #expect(help.stdout.contains("second line \\x1b[31mred"), "the description keeps its lines, escaped: \(help)")
        #expect(help.stdout.contains("which notices \\x1b]0;owned"), "\(help)")
    }

    @Test(
        "CSV on a real terminal (tmux) shows a pack's controls escaped; to a pipe it keeps them",
        .enabled(if: Needs.program("/usr/bin/tmux")))
    func csvOnATerminal() async throws {
        let pack = try hostilePack()
        let piped = try await sandbox.run(["--recipes", pack.path, "recipes", "list", "--format", "csv"])
        #expect(piped.exitCode == 0, "\(piped)")
        #expect(piped.stdout.contains("Notices \u{1B}]0;owned\u{07} \u{9B}2J"), "a pipe gets the data as it is: \(piped)")

        let terminal = TmuxTerminal()
        defer { terminal.stop() }
        let raw = sandbox.root.appendingPathComponent("terminal.log")
        let session = try terminal.startSession(
            "sleep 1; \(terminal.unitool(in: sandbox)) --recipes '\(pack.path)' recipes list --format csv; echo EXIT=$?; sleep 300")
        try terminal.tmux(["pipe-pane", "-t", session, "cat >> '\(raw.path)'"])
        let screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 400)
        #expect(screen.contains("EXIT=0"), "\(screen)")
        #expect(screen.contains("Notices \\x1b]0;owned\\x07 \\u009b2J"), "\(screen)")
        let written = try String(contentsOf: raw, encoding: .utf8)
        #expect(written.contains("hostile,notices"), "the log holds the CSV: \(written.debugDescription)")
        let controls = Self.controls(in: written.replacingOccurrences(of: "\r", with: ""))
        #expect(controls.isEmpty, "raw controls reached the terminal: \(controls) in \(written.debugDescription)")
    }

    // MARK: Completion

    @Test("bash: a value '/*/*' is offered as itself, neither globbed nor split, and reads back as itself")
    func bashCompletionDoesNotGlob() async throws {
        let pack = try hostilePack()
        let bin = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("unitool"), withDestinationURL: UniToolProcess.executable)
        let script = """
            source <(unitool completions bash)
            COMP_WORDS=(unitool --recipes '\(pack.path)' --portal hostile notices --kind ''); COMP_CWORD=7; _unitool
            printf 'reply:%s\\n' "${COMPREPLY[@]}"
            for word in "${COMPREPLY[@]}"; do eval "set -- $word"; printf 'word:%s:%d\\n' "$1" "$#"; done
            """
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let outcome = try await UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/bash"), ["--norc", "--noprofile", "-c", script],
            environment: sandbox.environment.merging(["PATH": path]) { $1 })
        let replies = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("reply:") }
        #expect(replies.count == 2, "exactly the two values, nothing globbed: \(outcome)")
        let words = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("word:") }.map(String.init)
        #expect(words.contains("word:/*/*:1"), "the word on the line reads back as /*/*: \(outcome)")
        #expect(words.contains("word:all:1"), "\(outcome)")
    }

    // MARK: recipes new

    @Test("recipes new writes a hostile --title as a YAML string that reads back as itself; a --news-feed that is no path is refused")
    func recipesNewTitleIsSafe() async throws {
        let title = "Evil\"\n  base_url: https://evil.example\nidp_url: \"https://evil.example/idp\n# \u{1B}[2J"
        let feed = "/news/rss?lang=en&x={a}#top"
        let output = sandbox.root.appendingPathComponent("new")
        let common = [
            "recipes", "new", "myuni", "--idp", "shibboleth", "--idp-url", "https://idp.example.edu/idp", "--base-url",
            "https://campus.example.edu", "-o", output.path,
        ]
        let refused = try await sandbox.run(common + ["--title", title, "--news-feed", "/news.rss\"}\nbase_url: https://evil.example"])
        #expect(refused.exitCode == 64, "\(refused)")
        #expect(refused.stderr.contains("--news-feed") && refused.stderr.contains("nothing was written"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "\(refused)")

        let outcome = try await sandbox.run(common + ["--title", title, "--news-feed", feed])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let folder = output.appendingPathComponent("myuni")
        let portal = try PortalRecipe.load(
            file: "portal.yaml", text: String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8))
        #expect(portal.name == title)
        #expect(portal.baseURL.absoluteString == "https://campus.example.edu")
        #expect(portal.idpURL.absoluteString == "https://idp.example.edu/idp")
        #expect(portal.credentialOrigins == ["https://idp.example.edu"])
        let catalog = try RecipeCatalog(directories: [output])
        let news = try catalog.recipe(portal: "myuni", command: "news")
        #expect(news.primary.fetch.source == feed, "\(news.primary.fetch)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == ["myuni"], "no staging folder is left")
    }

    @Test("recipes new with a bundled portal's name (demo) is a usage error saying what to do, unless --replace-bundled")
    func recipesNewRefusesBundledName() async throws {
        let output = sandbox.root.appendingPathComponent("bundled-name")
        let common = [
            "recipes", "new", "demo", "--idp", "shibboleth", "--idp-url", "https://idp.example.edu/idp", "--base-url",
            "https://campus.example.edu", "-o", output.path,
        ]
        let refused = try await sandbox.run(common)
        #expect(refused.exitCode == 64, "\(refused)")
        #expect(refused.stderr.contains("--replace-bundled") && refused.stderr.contains("choose another name"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "\(refused)")
        let replaced = try await sandbox.run(common + ["--replace-bundled"])
        #expect(replaced.exitCode == 0, "\(replaced)")
    }

    @Test("a recipes new that fails leaves no folder behind")
    func recipesNewFailureLeavesNothing() async throws {
        let output = sandbox.root.appendingPathComponent("new/deeper")
        // A feed the news recipe cannot use: its address is a placeholder the recipe does not define.
        let outcome = try await sandbox.run([
            "recipes", "new", "myuni", "--idp", "cas", "--idp-url", "https://cas.example.edu/cas", "--base-url",
            "https://campus.example.edu", "--news-feed", "/{{nothing}}", "-o", output.path,
        ])
        #expect(outcome.exitCode != 0 && outcome.exitCode != 1, "\(outcome)")
        #expect(outcome.stderr.contains("nothing was written"), "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("new").path), "\(outcome)")
    }
}
