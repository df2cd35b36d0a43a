import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The second red-team round, end to end: each test is one attack that got through before. The
/// ones that need no process of their own (a trickling server, a 431, a foreign redirect) are
/// tested in process (UniToolKitTests/Session/HostilePortalServiceTests).
@Suite("Security round two: hostile packs, bounded input, time limits, process hygiene")
struct SecurityRoundTwoTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, stdin: stdin, extra: extra)
    }

    @Test("a portal id with a separator, such as demo:totp, is refused with exit 64")
    func portalIDWithColon() async throws {
        let outcome = try await run(["--portal", "demo:totp", "grades"])
        #expect(outcome.exitCode == 64, "\(outcome)")
        #expect(outcome.stderr.contains("not a portal id"))
    }

    @Test("non-finite, negative and absurd time limits are usage errors (exit 64), never a crash")
    func numericOptions() async throws {
        for arguments in [
            ["--timeout", "nan"], ["--timeout", "inf"], ["--timeout", "1e300"], ["--connect-timeout", "nan"], ["--timeout=-1"],
            ["--timeout", "0"],
        ] {
            let outcome = try await run(["--portal", "demo"] + arguments + ["grades"])
            #expect(outcome.exitCode == 64, "\(arguments): \(outcome)")
            #expect(outcome.stderr.contains("timeout"), "\(arguments): \(outcome)")
        }
    }

    @Test("unitool runs with core dumps off (RLIMIT_CORE 0), so a crash cannot write the password to disk")
    func noCoreDumps() async throws {
        // Started with posix_spawn (RPCClientProcess), not Foundation's Process (its /proc/self/fd
        // over-read); it waits on stdin until the end of the test.
        let server = try await RPCClientProcess.start(command: "rpc", environment: sandbox.environment, readsOutput: false)
        defer { server.terminate() }
        // Read until main() has set the limit (or 5 s have passed): the condition itself, not a pause.
        var line = ""
        var numbers: [Substring] = []
        for _ in 0..<250 {
            let limits = (try? String(contentsOfFile: "/proc/\(server.pid)/limits", encoding: .utf8)) ?? ""
            line = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? line
            numbers = line.split(separator: " ").filter { $0.allSatisfy(\.isNumber) }
            if numbers.prefix(2) == ["0", "0"] { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(numbers.prefix(2) == ["0", "0"], "\(line)")
    }

    @Test("a quadratic-entity feed is refused within 5 s and 200 MB")
    func quadraticEntityFeed() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "hostile-xml=quadratic")) { demo in
            // This run's own peak (`MeasuredRun`), not the largest child of the whole test process.
            let measured = try await sandbox.measured(["--portal", "demo", "news", "--source", "rss"], demo: demo.baseURL)
            let outcome = measured.outcome
            #expect(outcome.exitCode == 30, "\(outcome)")
            #expect(outcome.stderr.contains("declares entities"), "\(outcome)")
            // Its own CPU time, as its own memory: the wall clock of one run among the whole suite's
            // on two cores measures the suite (5.7 s once), not the parser.
            #expect(measured.cpuSeconds < 5, "\(measured)")
            #expect(measured.peakKiB < 200 * 1024, "\(measured)")
        }
    }

    @Test("UNITOOL_PASSWORD_COMMAND's output is capped at 64 KiB; a background child holding the pipe does not hold unitool")
    func boundedPasswordCommand() async throws {
        let flood = try await run(
            ["--portal", "demo", "--user", "dora", "grades"], extra: ["UNITOOL_PASSWORD_COMMAND": "yes | tr -d '\\n'"])
        #expect(flood.exitCode == 40, "\(flood)")
        #expect(flood.stderr.contains("64 KiB"), "\(flood)")
        let background = try await run(
            ["--portal", "demo", "--user", "dora", "grades", "--json"],
            // The child outlives the command's 120 s limit: waiting for the pipe to close would
            // end in that limit's error, not in the grades.
            extra: ["UNITOOL_PASSWORD_COMMAND": "(exec 2>/dev/null; sleep 300; echo late) & echo explorer-2026"])
        #expect(background.exitCode == 0, "\(background)")
    }

    @Test("with --password-stdin, a plugin gets an empty stdin, and its session still logs in with the password")
    func pluginNeverSeesThePassword() async throws {
        let password = "explorer-2026"
        let plugins = sandbox.root.appendingPathComponent("config/unitool/plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let seen = sandbox.root.appendingPathComponent("plugin-stdin.txt")
        let plugin = plugins.appendingPathComponent("unitool-peek")
        try """
        #!/usr/bin/env python3
        import json, os, socket, sys
        open(\(String(reflecting: seen.path)), "w").write(sys.stdin.read())
        channel = socket.socket(fileno=int(os.environ["UNITOOL_RPC_FD"]))
        reader = channel.makefile("r", encoding="utf-8")
        channel.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "recipes.run", "params": {"recipe": "grades"}}) + "\\n").encode())
        answer = json.loads(reader.readline())
        print("records" if "result" in answer else answer["error"]["message"])
        """.write(to: plugin, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugin.path)
        let outcome = try await run(["--portal", "demo", "--user", "dora", "--password-stdin", "peek"], stdin: password)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("records"), "the plugin's session logged in with the password: \(outcome)")
        #expect(try String(contentsOf: seen, encoding: .utf8).isEmpty, "the plugin read the password from its stdin")
    }

    @Test("a session copy left by a killed save is swept by the next save and by auth logout")
    func staleTemporariesAreSwept() async throws {
        let folder = sandbox.root.appendingPathComponent("state/unitool/sessions/demo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // pid 2^22 + 1 is above Linux's largest pid, so no process has it.
        let stale = folder.appendingPathComponent(".alice.json.4194305.7.tmp")
        try Data("{\"cookies\": []}".utf8).write(to: stale)
        let grades = try await run(["--portal", "demo", "grades"])
        #expect(grades.exitCode == 0, "\(grades)")
        #expect(!FileManager.default.fileExists(atPath: stale.path), "the save swept the stale copy")
        try Data("{\"cookies\": []}".utf8).write(to: stale)
        let logout = try await run(["auth", "logout", "--portal", "demo", "--keep-password"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(!FileManager.default.fileExists(atPath: stale.path), "logout swept the stale copy")
    }

    @Test("a state folder that cannot be written: a warning, and the command still works without saving")
    func unwritableStateFolder() async throws {
        // Under /proc nothing can be created, not even by root.
        let outcome = try await run(["--portal", "demo", "grades", "--json"], extra: ["XDG_STATE_HOME": "/proc/self/unitool-state"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("\"course\""), "\(outcome)")
        #expect(outcome.stderr.contains("without saving"), "\(outcome)")
    }
}

/// The attacks that need the shared test keyring, one after another (they use the same user).
@Suite(
    "Security round two: the keyring against hostile recipe packs",
    .enabled(if: Needs.testSandbox, "needs the test keyring"), .serialized)
struct PackAndKeyringTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, stdin: stdin, extra: extra)
    }

    /// A recipe pack whose demo/portal.yaml also lets the password go to another origin.
    func hostilePack() throws -> URL {
        let pack = sandbox.root.appendingPathComponent("pack-\(UUID().uuidString.prefix(8))")
        let folder = pack.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let original = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
        try original.replacingOccurrences(
            of: "credentials_may_go_to: [idp]", with: "credentials_may_go_to: [idp, \"https://collector.example\"]"
        ).write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        return pack
    }

    @Test(
        "a pack that redefines a portal never gets its password: refused untrusted; trusted, the keyring and the password command still refuse"
    )
    func packCannotTakeThePassword() async throws {
        // dora: the one demo user no other suite keeps in the keyring (the tests share it).
        let password = "explorer-2026"
        let login = try await run(["auth", "login", "--portal", "demo", "--user", "dora", "--password-stdin"], stdin: password)
        #expect(login.exitCode == 0, "\(login)")
        let pack = try hostilePack()

        let untrusted = try await run(["--recipes", pack.path, "--portal", "demo", "--user", "dora", "grades"])
        #expect(untrusted.exitCode == 23, "\(untrusted)")
        #expect(untrusted.stderr.contains("redefines portal 'demo'"), "\(untrusted)")
        let lint = try await run(["--recipes", pack.path, "recipes", "lint"])
        #expect(lint.exitCode == 23, "lint must not call the pack ok: \(lint)")

        let trust = try await run(["recipes", "trust", pack.path])
        #expect(trust.exitCode == 0, "\(trust)")
        #expect(trust.stderr.contains("https://collector.example"), "trust names where passwords would go: \(trust)")
        let list = try await run(["--recipes", pack.path, "recipes", "list", "--json"])
        #expect(list.stdout.contains("Recipes/demo/portal.yaml"), "list names what the pack replaced: \(list)")

        // A fresh session folder, so that a login is needed.
        let fresh = sandbox.root.appendingPathComponent("state-fresh")
        for extra in [["XDG_STATE_HOME": fresh.path], ["XDG_STATE_HOME": fresh.path, "UNITOOL_PASSWORD_COMMAND": "echo \(password)"]] {
            let grades = try await run(["--recipes", pack.path, "--portal", "demo", "--user", "dora", "grades"], extra: extra)
            #expect(grades.exitCode == 40, "\(grades)")
            #expect(grades.stderr.contains("https://collector.example"), "\(grades)")
            #expect(grades.stderr.contains("http://127.0.0.1:0"), "the message names the old origins: \(grades)")
            #expect(!grades.stdout.contains(password) && !grades.stderr.contains(password))
        }
        // Without the pack, the password still works for the user's own definition.
        let own = try await run(["--portal", "demo", "--user", "dora", "grades", "--json"], extra: ["XDG_STATE_HOME": fresh.path])
        #expect(own.exitCode == 0, "\(own)")
        _ = try await run(["auth", "logout", "--portal", "demo", "--user", "dora"])
    }

    @Test("a password stored under the old keyring scheme is moved to the new attributes on first use")
    func legacyKeyringItemIsMigrated() async throws {
        try SecretTool.run(["store", "--label=old", "service", "unitool:demo", "username", "dora"], input: "explorer-2026")
        let grades = try await run(["--portal", "demo", "--user", "dora", "grades", "--json"])
        #expect(grades.exitCode == 0, "\(grades)")
        #expect(try SecretTool.run(["lookup", "service", "unitool:demo", "username", "dora"]).isEmpty)
        #expect(
            try SecretTool.run(["lookup", "service", "unitool", "portal", "demo", "username", "dora", "kind", "password"])
                == "explorer-2026")
        #expect(
            try SecretTool.run(["search", "service", "unitool", "portal", "demo", "username", "dora"]).contains(
                "origins = http://127.0.0.1:0"))
        _ = try await run(["auth", "logout", "--portal", "demo", "--user", "dora"])
    }

}
