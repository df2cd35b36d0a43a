import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The password prompt in a real terminal: tmux runs unitool, types into it and reads the screen.
@Suite("The password prompt in a real terminal (tmux)", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct TerminalPromptTests {
    @Test("a one-time code typed at the terminal is not echoed")
    func codeNotEchoed() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        // The password comes from a pipe; the code is asked for on the terminal (yuki has no stored secret).
        let session = try startSession(
            "printf sakura-2026 | \(unitool(in: sandbox)) --portal demo --user yuki --password-stdin grades; echo EXIT=$?; sleep 30")
        defer { try? tmux(["kill-server"]) }
        var screen = try await self.screen(of: session, once: "One-time code for yuki", attempts: 300)
        #expect(screen.contains("One-time code for yuki"), "\(screen)")
        try tmux(["send-keys", "-t", session, "987654", "Enter"])
        screen = try await self.screen(of: session, once: "EXIT=", attempts: 300)
        #expect(screen.contains("EXIT=18"), "a wrong code is refused by the portal: \(screen)")
        #expect(!screen.contains("987654"), "the code was echoed: \(screen)")
    }

    @Test("Ctrl-C at the password prompt ends unitool and leaves the terminal echoing again")
    func interruptRestoresEcho() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let settings = sandbox.root.appendingPathComponent("stty.txt")
        // `trap : INT` keeps the shell alive to record the terminal's settings after unitool ends
        // (a handler, not SIG_IGN, which unitool would inherit).
        let session = try startSession(
            "trap : INT; \(unitool(in: sandbox)) auth login --portal demo --user alice; stty -a > '\(settings.path)'; sleep 30")
        defer { try? tmux(["kill-server"]) }
        let screen = try await self.screen(of: session, once: "Password for", attempts: 200)
        #expect(screen.contains("Password for alice"), "\(screen)")
        try tmux(["send-keys", "-t", session, "C-c"])
        var recorded = ""
        for _ in 0..<200 {
            recorded = (try? String(contentsOf: settings, encoding: .utf8)) ?? ""
            if !recorded.isEmpty { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let flags = recorded.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(flags.contains("echo"), "echo is on again: \(recorded)")
        #expect(!flags.contains("-echo"), "\(recorded)")
    }

    /// The shell command that runs unitool with the sandbox's environment.
    func unitool(in sandbox: Sandbox) -> String {
        let environment = sandbox.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        return "env \(environment) '\(UniToolProcess.executable.path)'"
    }

    /// Runs `command` with `sh -c` in a new 120×30 tmux session, and returns the session's name.
    func startSession(_ command: String) throws -> String {
        let session = "unitool-\(UUID().uuidString.prefix(8))"
        try tmux(["new-session", "-d", "-s", session, "-x", "120", "-y", "30", "sh", "-c", command])
        return session
    }

    /// The screen of `session` once it shows `text`, or as it is after `attempts` looks 50 ms apart.
    func screen(of session: String, once text: String, attempts: Int) async throws -> String {
        var screen = ""
        for _ in 0..<attempts {
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains(text) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return screen
    }

    /// A tmux server of the test's own (`-L`), with no configuration file, so that nothing else's
    /// sessions or settings are touched.
    let socket = "unitool-test-\(UUID().uuidString.prefix(8))"

    /// Runs tmux through `system(3)`, which waits for the client alone. Foundation's `Process`
    /// learns that a child ended when a socket it hands down closes, and the tmux server that
    /// new-session starts inherits that socket and keeps it open for as long as it runs.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString.prefix(6)).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let quoted = (["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        let status = system(quoted.joined(separator: " ") + " </dev/null >'\(output.path)' 2>/dev/null")
        guard status == 0 else { throw TmuxFailed(arguments: arguments, status: status) }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    struct TmuxFailed: Error {
        let arguments: [String]
        let status: Int32
    }
}
