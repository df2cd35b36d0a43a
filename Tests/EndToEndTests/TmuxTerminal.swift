import Foundation
import UniToolTestSupport

/// A real terminal for end-to-end tests: tmux runs a command in a window of a chosen size,
/// types into it, and reads the screen back with `capture-pane`.
struct TmuxTerminal {
    /// The shell command that runs unitool with the sandbox's environment.
    func unitool(in sandbox: Sandbox) -> String {
        let environment = sandbox.environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        return "env \(environment) '\(UniToolProcess.executable.path)'"
    }

    /// Runs `command` with `sh -c` in a new tmux session of `columns`×`rows` cells, and returns
    /// the session's name. The tests' commands end in `sleep 300`: the screen must stay to be
    /// read however slowly a busy machine runs the command (with `sleep 30`, a run of the whole
    /// suite once lost three sessions before their screens were read); each test ends its server.
    func startSession(_ command: String, columns: Int = 120, rows: Int = 30) throws -> String {
        let session = "unitool-\(UUID().uuidString.prefix(8))"
        let arguments = ["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)", "sh", "-c", command]
        // Starting a tmux server can fail on a machine busy with the rest of the suite (seen once
        // in about twenty runs, exit 1); a second try, a moment later, is what a person would do.
        do {
            try tmux(arguments)
        } catch {
            Thread.sleep(forTimeInterval: 0.2)
            try tmux(arguments)
        }
        return session
    }

    /// Ends the test's tmux server and every session in it.
    func stop() { try? tmux(["kill-server"]) }

    /// The screen of `session` once it shows `text`, or as it is after `attempts` looks 50 ms apart.
    /// The screen once it differs from `before` (or after `attempts` looks): what a key
    /// changed, waited for instead of a fixed delay.
    func screen(of session: String, changedFrom before: String, attempts: Int) async throws -> String {
        var screen = before
        for _ in 0..<attempts {
            screen = try tmux(["capture-pane", "-p", "-t", session])
            if screen != before { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return screen
    }

    func screen(of session: String, once text: String, attempts: Int) async throws -> String {
        var screen = ""
        for _ in 0..<attempts {
            // -S -: from the start of the history, for output taller than the window.
            screen = try tmux(["capture-pane", "-p", "-S", "-", "-t", session])
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
        let errors = output.appendingPathExtension("err")
        defer { try? FileManager.default.removeItem(at: errors) }
        let status = system(quoted.joined(separator: " ") + " </dev/null >'\(output.path)' 2>'\(errors.path)'")
        guard status == 0 else {
            throw TmuxFailed(arguments: arguments, status: status, stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
        }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    struct TmuxFailed: Error {
        let arguments: [String]
        let status: Int32
        let stderr: String
    }
}
