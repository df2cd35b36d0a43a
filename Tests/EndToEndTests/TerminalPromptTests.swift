import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The password prompt in a real terminal: tmux runs unitool, types into it and reads the screen.
@Suite("The password prompt in a real terminal (tmux)", .enabled(if: Needs.program("/usr/bin/tmux")))
struct TerminalPromptTests {
    let terminal = TmuxTerminal()

    @Test("a one-time code typed at the terminal is not echoed")
    func codeNotEchoed() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        // The password comes from a pipe; the code is asked for on the terminal (yuki has no stored secret).
        let session = try terminal.startSession(
            "printf sakura-2026 | \(terminal.unitool(in: sandbox)) --portal demo --user yuki --password-stdin grades; echo EXIT=$?; sleep 300"
        )
        defer { terminal.stop() }
        var screen = try await terminal.screen(of: session, once: "One-time code for yuki", attempts: 300)
        #expect(screen.contains("One-time code for yuki"), "\(screen)")
        try terminal.tmux(["send-keys", "-t", session, "987654", "Enter"])
        screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 300)
        #expect(screen.contains("EXIT=18"), "a wrong code is refused by the portal: \(screen)")
        #expect(!screen.contains("987654"), "the code was echoed: \(screen)")
    }

    @Test("a data command with no password given or stored asks for it on the terminal, without echo, and signs in with it")
    func passwordAskedForADataCommand() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            // A university of the user's own (no demo user's password is known for it), served by the demo.
            try sandbox.installPortalCopy("myuni", at: demo.baseURL)
            try sandbox.acceptTerms(portal: "myuni", version: DemoUniversity.initialTermsVersion)
            let session = try terminal.startSession(
                "\(terminal.unitool(in: sandbox)) --portal myuni --user alice grades --term 2026-spring; echo EXIT=$?; sleep 300")
            defer { terminal.stop() }
            var screen = try await terminal.screen(of: session, once: "Password for alice", attempts: 300)
            #expect(screen.contains("Password for alice on "), "\(screen)")
            try terminal.tmux(["send-keys", "-t", session, "wonderland", "Enter"])
            screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 300)
            #expect(screen.contains("EXIT=0"), "\(screen)")
            #expect(screen.contains("Analysis II"), "\(screen)")
            #expect(!screen.contains("wonderland"), "the password was echoed: \(screen)")
        }
    }

    @Test("Ctrl-C at the password prompt ends unitool and leaves the terminal echoing again")
    func interruptRestoresEcho() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let settings = sandbox.root.appendingPathComponent("stty.txt")
        // `trap : INT` keeps the shell alive to record the terminal's settings after unitool ends
        // (a handler, not SIG_IGN, which unitool would inherit).
        let session = try terminal.startSession(
            "trap : INT; \(terminal.unitool(in: sandbox)) auth login --portal demo --user alice; stty -a > '\(settings.path)'; sleep 300")
        defer { terminal.stop() }
        let screen = try await terminal.screen(of: session, once: "Password for", attempts: 200)
        #expect(screen.contains("Password for alice"), "\(screen)")
        try terminal.tmux(["send-keys", "-t", session, "C-c"])
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
}
