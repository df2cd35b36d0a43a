import ArgumentParser
import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolCLI

/// What a new user meets first: help for every command, the overview, errors in one style,
/// settings that can always be read back.
@Suite("First contact: help, the overview, errors and settings")
struct FirstContactTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, extra: extra)
    }

    /// Every built-in command and subcommand, as the words that name it.
    static var commandPaths: [[String]] {
        func paths(_ type: any ParsableCommand.Type, _ prefix: [String]) -> [[String]] {
            [prefix]
                + type.configuration.subcommands.flatMap { sub in
                    paths(sub, prefix + [sub.configuration.commandName ?? String(describing: sub).lowercased()])
                }
        }
        return Dispatcher.builtins.sorted { $0.key < $1.key }.flatMap { paths($0.value, [$0.key]) }
    }

    @Test("--help, -h and 'help' print each command's help on stdout, exit 0, naming its options")
    func helpEverywhere() async throws {
        #expect(Self.commandPaths.count > 20)
        for path in Self.commandPaths {
            let outcome = try await run(path + ["--help"])
            #expect(outcome.exitCode == 0, "\(path): \(outcome)")
            #expect(outcome.stdout.contains("USAGE:"), "\(path) printed no help: \(outcome)")
            // The global options are part of every command that takes them; a group lists its subcommands.
            #expect(outcome.stdout.contains("OPTIONS:") || outcome.stdout.contains("SUBCOMMANDS:"), "\(path)")
        }
        let short = try await run(["terms", "accept", "-h"])
        #expect(short.exitCode == 0 && short.stdout.contains("--version"), "\(short)")
        let topic = try await run(["help", "config"])
        #expect(topic.exitCode == 0 && topic.stdout.contains("USAGE:"), "\(topic)")
    }

    @Test("unitool alone prints the overview on stdout, exit 0; an unknown option is named; unitool version answers")
    func overviewAndVersion() async throws {
        let overview = try await run([])
        #expect(overview.exitCode == 0, "\(overview)")
        #expect(overview.stdout.hasPrefix("unitool "), "\(overview)")
        let bogus = try await run(["--bogus"])
        #expect(bogus.exitCode == 64, "\(bogus)")
        #expect(bogus.stderr.contains("unknown option '--bogus'"), "\(bogus)")
        let version = try await run(["version"])
        let flag = try await run(["--version"])
        #expect(version.exitCode == 0 && version.stdout == flag.stdout && !version.stdout.isEmpty, "\(version)")
        for component in ["unitool 0.", "swift 6.", "libxml2 2.", "libsecret 0."] {
            #expect(version.stdout.contains(component), "\(version)")
        }
        let json = try await run(["version", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String])
        #expect(Set(object.keys) == ["unitool", "swift", "libxml2", "libsecret"])
    }

    @Test("one error style for built-in commands, and JSON errors whenever the format is JSON, whatever set it")
    func errors() async throws {
        let text = try await run(["config", "set", "colour", "blue"])
        #expect(text.exitCode == 64, "\(text)")
        #expect(text.stderr.hasPrefix("unitool: error: "), "\(text)")
        let json = try await run(["auth", "status", "--bogus"], extra: ["UNITOOL_FORMAT": "json"])
        #expect(json.exitCode == 64, "\(json)")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any]
        #expect((parsed?["error"] as? [String: Any])?["kind"] as? String == "usage", "\(json)")
        // A recipe's command reports the same way.
        let recipeJSON = try await run(["--portal", "demo", "grades", "--bogus"], extra: ["UNITOOL_FORMAT": "json"])
        #expect(recipeJSON.exitCode == 64, "\(recipeJSON)")
        let recipeParsed = try JSONSerialization.jsonObject(with: Data(recipeJSON.stderr.utf8)) as? [String: Any]
        #expect((recipeParsed?["error"] as? [String: Any])?["kind"] as? String == "usage", "\(recipeJSON)")
    }

    @Test("config unset of every key in turn leaves settings every command can read; an unknown portal is refused")
    func unsetEverything() async throws {
        for (key, value) in [("portal", "demo"), ("user", "alice"), ("format", "csv")] {
            #expect(try await run(["config", "set", key, value]).exitCode == 0)
        }
        for key in ["portal", "user", "format"] {
            let unset = try await run(["config", "unset", key])
            #expect(unset.exitCode == 0, "\(unset)")
            let get = try await run(["config", "get", key])
            #expect(get.exitCode != 64 || !get.stderr.contains("not valid"), "\(key): \(get)")
            let set = try await run(["config", "set", "format", "table"])
            #expect(set.exitCode == 0, "after unsetting \(key): \(set)")
            _ = try await run(["config", "unset", "format"])
        }
        let overview = try await run([])
        #expect(overview.exitCode == 0, "\(overview)")
        // A default portal that does not exist would break every later command: refused, naming the installed ones.
        let refused = try await run(["config", "set", "portal", "myuni"])
        #expect(refused.exitCode == 32, "the one unknown-portal error: \(refused)")
        #expect(refused.stderr.contains("there is no portal 'myuni'") && refused.stderr.contains("demo"), "\(refused)")
        #expect(refused.stderr.contains("unitool recipes new myuni"), "says how to add one: \(refused)")
        #expect(try await run(["config", "set", "portal", "demo"]).exitCode == 0)
    }

    @Test("grades --term fall exits 64 and names the terms the portal offers")
    func unknownTerm() async throws {
        try sandbox.acceptTerms(portal: "demo", version: "2026-09")
        let outcome = try await run(["--portal", "demo", "grades", "--term", "fall"])
        #expect(outcome.exitCode == 64, "\(outcome)")
        #expect(outcome.stderr.contains("2025-fall, 2026-spring, 2026-fall"), "\(outcome)")
        #expect(outcome.stdout.isEmpty)
        // With the portal out of reach, the list it offered last time still names the typo;
        // a value it did offer is an outage, reported as such.
        let offline = ["UNITOOL_DEMO_URL": "http://127.0.0.1:9"]
        let typo = try await run(["--portal", "demo", "grades", "--term", "fall"], extra: offline)
        #expect(typo.exitCode == 64, "\(typo)")
        #expect(typo.stderr.contains("when it was last reached") && typo.stderr.contains("2026-spring"), "\(typo)")
        let outage = try await run(["--portal", "demo", "grades", "--term", "2026-spring"], extra: offline)
        #expect(outage.exitCode == 20, "\(outage)")
    }

    @Test(
        "typos are named with what was meant: an option of the recipe, a global option, a command",
        arguments: [
            (["--portal", "demo", "grades", "--trem", "current"], "unknown option '--trem' for 'grades'", "did you mean '--term'?"),
            (["--portal", "demo", "grades", "--trem"], "unknown option '--trem' for 'grades'", "did you mean '--term'?"),
            (["--portl", "demo", "grades"], "unknown option '--portl'", "did you mean '--portal'?"),
            (["--portal", "demo", "grdes"], "unknown command 'grdes'", "did you mean 'grades'?"),
            // A built-in's typo is named as one, and the hint lists the built-ins apart from the portal's.
            (["--portal", "demo", "watc"], "unknown command 'watc'", "did you mean 'watch'? built-in commands: auth, calendar,"),
            (["--portal", "demo", "todya"], "unknown command 'todya'", "'demo''s commands: attendance,"),
        ] as [([String], String, String)])
    func typoSuggestions(arguments: [String], error: String, hint: String) async throws {
        let outcome = try await sandbox.run(arguments)
        #expect(outcome.exitCode == 64, "\(outcome)")
        #expect(outcome.stderr.contains(error) && outcome.stderr.contains(hint), "\(outcome)")
        #expect(!outcome.stderr.contains("'--user'") && !outcome.stderr.contains("'--port'?"), "\(outcome)")
    }

    @Test("help exit-codes, environment, files and topics answer on stdout, exit 0, and the overview lists the topics")
    func helpTopics() async throws {
        let codes = try await sandbox.run(["help", "exit-codes"])
        #expect(codes.exitCode == 0 && codes.stdout.contains("25  channel_failed") && codes.stdout.contains("64  usage"), "\(codes)")
        let environment = try await sandbox.run(["help", "environment"])
        #expect(environment.exitCode == 0 && environment.stdout.contains("UNITOOL_PASSWORD_COMMAND"), "\(environment)")
        #expect(environment.stdout.contains("LC_ALL, LC_TIME, LANG"), "\(environment)")
        let files = try await sandbox.run(["help", "files"])
        #expect(files.exitCode == 0 && files.stdout.contains("history.sqlite"), "\(files)")
        let topics = try await sandbox.run(["help", "topics"])
        #expect(topics.exitCode == 0 && topics.stdout.contains("exit-codes") && topics.stdout.contains("files"), "\(topics)")
        let overview = try await sandbox.run(["help"])
        #expect(overview.stdout.contains("HELP TOPICS") && overview.stdout.contains("  environment "), "\(overview)")
    }
}
