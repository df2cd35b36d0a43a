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
        let session = "unitool-\(UUID().uuidString.prefix(8))"
        let environment = sandbox.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        // The password comes from a pipe; the code is asked for on the terminal (yuki has no stored secret).
        let script =
            "printf sakura-2026 | env \(environment) '\(UniToolProcess.executable.path)' --portal demo --user yuki --password-stdin grades; "
            + "echo EXIT=$?; sleep 30"
        try tmux(["new-session", "-d", "-s", session, "-x", "120", "-y", "30", "sh", "-c", script])
        defer { try? tmux(["kill-server"]) }
        var screen = ""
        for _ in 0..<300 {
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains("One-time code for yuki") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(screen.contains("One-time code for yuki"), "\(screen)")
        try tmux(["send-keys", "-t", session, "987654", "Enter"])
        for _ in 0..<300 {
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains("EXIT=") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(screen.contains("EXIT=18"), "a wrong code is refused by the portal: \(screen)")
        #expect(!screen.contains("987654"), "the code was echoed: \(screen)")
    }

    @Test("Ctrl-C at the password prompt ends unitool and leaves the terminal echoing again")
    func interruptRestoresEcho() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let session = "unitool-\(UUID().uuidString.prefix(8))"
        let settings = sandbox.root.appendingPathComponent("stty.txt")
        let environment = sandbox.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        // `trap : INT` keeps the shell alive to record the terminal's settings after unitool ends
        // (a handler, not SIG_IGN, which unitool would inherit).
        let script =
            "trap : INT; env \(environment) '\(UniToolProcess.executable.path)' auth login --portal demo --user alice; "
            + "stty -a > '\(settings.path)'; sleep 30"
        try tmux(["new-session", "-d", "-s", session, "-x", "120", "-y", "30", "sh", "-c", script])
        defer { try? tmux(["kill-server"]) }
        var screen = ""
        for _ in 0..<200 {
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen.contains("Password for") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
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
