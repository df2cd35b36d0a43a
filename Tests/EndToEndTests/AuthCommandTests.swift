import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `unitool auth` and every data command's use of the keyring, against the real gnome-keyring
/// that Scripts/test.sh starts. Serialized: the tests share that keyring. The password check
/// itself (a wrong password over a valid session keeps that session) is tested in process
/// (UniToolKitTests: PasswordCheckServiceTests).
@Suite(
    "unitool auth and the keyring, end to end",
    .enabled(if: Needs.testSandbox, "run through Scripts/test.sh"),
    .serialized)
struct AuthCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], stdin: String? = nil, extra: [String: String] = [:], removing: [String] = []) async throws
        -> UniToolProcess.Outcome
    {
        try await sandbox.run(arguments, stdin: stdin, extra: extra, removing: removing)
    }

    @Test("auth login stores a checked password; secret-tool reads it; grades then needs no password; logout removes it")
    func loginUseLogout() async throws {
        let login = try await run(["auth", "login", "--portal", "demo", "--user", "bence", "--password-stdin"], stdin: "Kaland-2026")
        #expect(login.exitCode == 0, "\(login)")
        #expect(
            try SecretTool.run(["lookup", "service", "unitool", "portal", "demo", "username", "bence", "kind", "password"]) == "Kaland-2026"
        )

        // A fresh state directory: no saved session, so the password must come from the keyring.
        let fresh = try Sandbox()
        try fresh.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        defer { fresh.remove() }
        let grades = try await UniToolProcess.run(
            ["--portal", "demo", "--user", "bence", "grades", "--term", "current", "--json"], environment: fresh.environment)
        #expect(grades.exitCode == 0, "\(grades)")
        #expect(grades.stdout.contains("Számítógépes hálózatok"))

        let status = try await run(["auth", "status", "--portal", "demo", "--user", "bence", "--json"])
        #expect(status.exitCode == 0, "\(status)")
        #expect(status.stdout.contains("\"password\": \"stored\""))
        #expect(status.stdout.contains("\"session\": \"valid\""))
        #expect(!status.stdout.contains("Kaland-2026"))

        let logout = try await run(["auth", "logout", "--portal", "demo", "--user", "bence"])
        #expect(logout.exitCode == 0, "\(logout)")
        #expect(logout.stderr.contains("the stored password"))
        #expect(try SecretTool.run(["lookup", "service", "unitool", "portal", "demo", "username", "bence", "kind", "password"]).isEmpty)
        let after = try await run(["auth", "status", "--portal", "demo", "--user", "bence", "--json"])
        #expect(after.stdout.contains("\"password\": \"not stored\""))
        #expect(after.stdout.contains("\"session\": \"none\""))
    }

    @Test(
        "with no keyring, auth login says the session was saved without suggesting a flag already given; --session-only keeps just the session"
    )
    func loginWithoutKeyring() async throws {
        let noBus = ["DBUS_SESSION_BUS_ADDRESS"]
        let failed = try await run(
            ["auth", "login", "--portal", "demo", "--user", "bence", "--password-stdin"], stdin: "Kaland-2026", removing: noBus)
        #expect(failed.exitCode == 41, "\(failed)")
        #expect(failed.stderr.contains("saved the session, but the password could not be stored"), "\(failed)")
        #expect(failed.stderr.contains("--session-only"), "\(failed)")
        #expect(!failed.stderr.contains("--password-stdin"), "a flag the user gave is suggested: \(failed)")

        try? FileManager.default.removeItem(at: sandbox.root.appendingPathComponent("state/unitool/sessions/demo/bence.json"))
        let sessionOnly = try await run(
            ["auth", "login", "--portal", "demo", "--user", "bence", "--password-stdin", "--session-only"], stdin: "Kaland-2026",
            removing: noBus)
        #expect(sessionOnly.exitCode == 0, "\(sessionOnly)")
        #expect(sessionOnly.stderr.contains("the password was not stored"))
        #expect(FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("state/unitool/sessions/demo/bence.json").path))
        let grades = try await run(["--portal", "demo", "--user", "bence", "grades", "--json"], removing: noBus)
        #expect(grades.exitCode == 0, "the saved session serves the next command: \(grades)")
    }

    @Test("a wrong password is never stored")
    func wrongPasswordIsNotStored() async throws {
        let login = try await run(["auth", "login", "--portal", "demo", "--user", "alice", "--password-stdin"], stdin: "not-her-password")
        #expect(login.exitCode == 10, "\(login)")
        #expect(try SecretTool.run(["lookup", "service", "unitool", "portal", "demo", "username", "alice", "kind", "password"]).isEmpty)
    }

    @Test("a data command with no stored password says how to store one")
    func missingPassword() async throws {
        let outcome = try await run(["--portal", "demo", "--user", "nobody-\(UUID().uuidString.prefix(8))", "grades"])
        #expect(outcome.exitCode == 40, "\(outcome)")
        #expect(outcome.stderr.contains("unitool auth login"))
    }

    @Test("UNITOOL_PASSWORD_COMMAND supplies the password when set")
    func passwordCommand() async throws {
        let outcome = try await run(
            ["--portal", "demo", "--user", "dora", "grades", "--json"],
            extra: ["UNITOOL_PASSWORD_COMMAND": "printf 'explorer-2026\\nsecond line is ignored\\n'"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.stdout.contains("Introduction to Programming"))
    }

    @Test("a refused password's hint names where that password came from: the password command, the keyring, --password-stdin")
    func refusedPasswordNamesItsSource() async throws {
        let fromCommand = try await run(
            ["--portal", "demo", "--user", "dora", "grades", "--json"], extra: ["UNITOOL_PASSWORD_COMMAND": "printf 'not-doras-password'"])
        #expect(fromCommand.exitCode == 10, "\(fromCommand)")
        #expect(fromCommand.stderr.contains("the password came from UNITOOL_PASSWORD_COMMAND"), "\(fromCommand)")
        #expect(!fromCommand.stderr.contains("--password-stdin"), "\(fromCommand)")

        // A password stored when it was right, changed at the portal since: the demo's bence
        // with an old password in the keyring.
        let stored = try await run(
            ["auth", "login", "--portal", "demo", "--user", "bence", "--password-stdin", "--no-verify"], stdin: "Kaland-2025")
        try #require(stored.exitCode == 0, "\(stored)")
        let fromKeyring = try await run(["--portal", "demo", "--user", "bence", "grades", "--json"])
        #expect(fromKeyring.exitCode == 10, "\(fromKeyring)")
        #expect(fromKeyring.stderr.contains("the password came from the keyring"), "\(fromKeyring)")
        #expect(fromKeyring.stderr.contains("unitool auth login --portal demo --user bence"), "\(fromKeyring)")

        let fromStdin = try await run(["--portal", "demo", "--user", "dora", "--password-stdin", "grades"], stdin: "wrong-again")
        #expect(fromStdin.exitCode == 10, "\(fromStdin)")
        #expect(fromStdin.stderr.contains("give the password again (--password-stdin)"), "\(fromStdin)")
        // The old password leaves the keyring the tests share.
        #expect(try await run(["auth", "logout", "--portal", "demo", "--user", "bence"]).exitCode == 0)
    }

    @Test("with no D-Bus session, a data command fails fast and names the keyring and --password-stdin")
    func noSessionBus() async throws {
        let emptyRuntime = sandbox.root.appendingPathComponent("no-bus")
        try FileManager.default.createDirectory(at: emptyRuntime, withIntermediateDirectories: true)
        let outcome = try await run(
            ["--portal", "demo", "--user", "bence", "grades"], extra: ["XDG_RUNTIME_DIR": emptyRuntime.path],
            removing: ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"])
        #expect(outcome.exitCode == 41, "\(outcome)")
        #expect(outcome.stderr.contains("keyring"))
        #expect(outcome.stderr.contains("D-Bus"))
        #expect(outcome.stderr.contains("--password-stdin"))
        #expect(outcome.stderr.contains("UNITOOL_PASSWORD_COMMAND"))
    }

    @Test("a keyring that is locked (and cannot prompt) is its own error, exit 42; auth status says unknown and why, never 'not stored'")
    func lockedKeyring() async throws {
        // A second, private D-Bus session whose gnome-keyring was started but never unlocked.
        let data = sandbox.root.appendingPathComponent("locked-keyring")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        // Output goes to a file, not a pipe: daemons started inside that session inherit the
        // descriptors and may outlive it, and a pipe would then never reach end-of-file.
        let transcript = data.appendingPathComponent("transcript.txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = [
            "60", "dbus-run-session", "--", "bash", "-c",
            // Foundation's Process learns that its child ended when an inherited socket closes;
            // close every descriptor beyond stderr so that the daemons below cannot hold it open.
            "for fd in /proc/$$/fd/*; do n=${fd##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\" 2>/dev/null; done; "
                + "exec >\"$1\" 2>&1 </dev/null; eval \"$(gnome-keyring-daemon --start --components=secrets)\"; printf Kaland-2026 | \"$0\" auth login --portal demo --user bence --password-stdin --no-verify; echo \"exit=$?\"; "
                // auth status cannot tell either, and says so rather than "not stored".
                + "\"$0\" auth status --portal demo --user bence; echo \"status-exit=$?\"; "
                // Processes spawned from a test inherit a signal mask that blocks SIGTERM, so
                // dbus-run-session cannot end its bus; end it (and with it the keyring) by force.
                + "pkill -KILL -P $PPID -x dbus-daemon",
            UniToolProcess.executable.path, transcript.path,
        ]
        var environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
        environment["XDG_DATA_HOME"] = data.path
        environment.removeValue(forKey: "DISPLAY")
        // Without these, gnome-keyring-daemon finds the suite's own unlocked daemon and reuses it.
        environment.removeValue(forKey: "GNOME_KEYRING_CONTROL")
        let runtime = data.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment["XDG_RUNTIME_DIR"] = runtime.path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = UniToolProcess.exitStatus(of: process)
        let text = (try? String(contentsOf: transcript, encoding: .utf8)) ?? ""
        #expect(text.contains("exit=42"), "\(text)")
        #expect(text.contains("keyring is locked"))
        #expect(text.contains("--password-stdin"))
        #expect(text.contains("status-exit=0") && !text.contains("not stored"), "\(text)")
        #expect(text.contains("unknown: keyring_locked") && text.contains("note: whether a password"), "\(text)")
    }

    @Test("the password appears nowhere: not in output, logs, errors or files, even with --verbose")
    func passwordNeverLeaks() async throws {
        let right = "Kaland-2026"
        let wrong = "Canary-\(UUID().uuidString)"
        var outcomes: [UniToolProcess.Outcome] = []
        outcomes.append(try await run(["auth", "login", "--portal", "demo", "--user", "bence", "--password-stdin", "-v"], stdin: right))
        outcomes.append(try await run(["--portal", "demo", "--user", "bence", "grades", "-v"]))
        outcomes.append(
            try await run(
                ["--portal", "demo", "--user", "bence", "grades", "--json", "-v"], extra: ["UNITOOL_DEMO_FAULTS": "layout-changed"]))
        outcomes.append(
            try await run(["--portal", "demo", "--user", "bence", "grades", "-v"], extra: ["UNITOOL_DEMO_FAULTS": "expire-sessions"]))
        outcomes.append(try await run(["auth", "status", "--portal", "demo", "--user", "bence", "-v"]))
        outcomes.append(try await run(["auth", "login", "--portal", "demo", "--user", "alice", "--password-stdin", "-v"], stdin: wrong))
        outcomes.append(try await run(["--portal", "demo", "--user", "alice", "--password-stdin", "grades", "-v", "--json"], stdin: wrong))
        outcomes.append(try await run(["auth", "logout", "--portal", "demo", "--user", "bence", "-v"]))
        #expect(outcomes[0].exitCode == 0, "\(outcomes[0])")
        #expect(outcomes[1].exitCode == 0, "\(outcomes[1])")
        #expect(outcomes[2].exitCode == 30)
        #expect(outcomes[5].exitCode == 10)
        #expect(outcomes[6].exitCode == 10)
        #expect(outcomes[1].stderr.contains("GET"), "--verbose should have logged the requests")

        for secret in [right, wrong] {
            for outcome in outcomes {
                #expect(!outcome.stdout.contains(secret))
                #expect(!outcome.stderr.contains(secret))
            }
            let needle = Data(secret.utf8)
            for file in sandbox.allFiles() {
                let contents = try Data(contentsOf: file)
                #expect(contents.range(of: needle) == nil, "\(file.path) contains the password")
            }
        }
    }
}
