import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The password prompt in a real terminal: tmux runs unitool, types into it and reads the screen.
@Suite("The password prompt in a real terminal (tmux)", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
struct TerminalPromptTests {
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
        defer { try? tmux(["kill-session", "-t", session]) }
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

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
