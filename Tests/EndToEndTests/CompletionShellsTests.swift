import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The completion scripts in the shells themselves: bash runs its completion function, fish its
/// own completion engine (`complete -C`), and zsh completes at an interactive prompt in tmux.
@Suite("Shell completion in bash, zsh and fish")
struct CompletionShellsTests {
    /// What each test completes, and candidates the answer must (and must not) hold. The
    /// grades run before them has shown the portal's term selector, so terms complete offline.
    static let cases: [(line: String, expected: [String], unexpected: [String])] = [
        ("unitool --portal ", ["demo"], []),
        ("unitool terms accept --v", ["--version", "--verbose"], []),
        ("unitool demo serve --p", ["--port"], ["--portal"]),
        ("unitool recipes test --u", ["--update"], []),
        ("unitool config set ", ["portal", "user", "format"], []),
        ("unitool grades --fields course,c", ["course,code", "course,credits"], []),
        ("unitool grades --term ", ["current", "all", "2025-fall", "2026-spring"], []),
    ]

    @Test("bash: the completion function fills COMPREPLY")
    func bash() async throws {
        let shell = try await ShellSandbox()
        defer { shell.sandbox.remove() }
        for (line, expected, unexpected) in Self.cases {
            // COMP_WORDS as bash splits the line, the last word being the one under the cursor.
            var words = line.split(separator: " ").map { "'\($0)'" }
            if line.hasSuffix(" ") { words.append("''") }
            let script = """
                source <(unitool completions bash)
                COMP_WORDS=(\(words.joined(separator: " "))); COMP_CWORD=\(words.count - 1); _unitool
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let outcome = try await shell.run("/usr/bin/bash", ["--norc", "--noprofile", "-c", script])
            let candidates = outcome.stdout.split(separator: "\n").map(String.init)
            #expect(Set(expected).isSubset(of: candidates), "\(line): \(outcome)")
            #expect(Set(unexpected).isDisjoint(with: candidates), "\(line): \(outcome)")
        }
    }

    @Test("fish: its completion engine asks unitool", .enabled(if: Needs.program("/usr/bin/fish")))
    func fish() async throws {
        let shell = try await ShellSandbox()
        defer { shell.sandbox.remove() }
        for (line, expected, unexpected) in Self.cases {
            let script = "unitool completions fish | source; complete -C '\(line)'"
            let outcome = try await shell.run("/usr/bin/fish", ["--no-config", "-c", script])
            // fish prints "candidate<TAB>description"; unitool gives no descriptions.
            let candidates = outcome.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
            #expect(Set(expected).isSubset(of: candidates), "\(line): \(outcome)")
            #expect(Set(unexpected).isDisjoint(with: candidates), "\(line): \(outcome)")
        }
    }

    @Test(
        "zsh: Tab at an interactive prompt lists the candidates",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")
        ))
    func zsh() async throws {
        let shell = try await ShellSandbox()
        defer { shell.sandbox.remove() }
        let functions = shell.sandbox.root.appendingPathComponent("zsh")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        let script = try await shell.run(UniToolProcess.executable, ["completions", "zsh"])
        try script.stdout.write(to: functions.appendingPathComponent("_unitool"), atomically: true, encoding: .utf8)
        try """
        fpath=('\(functions.path)' $fpath)
        autoload -U compinit
        compinit -u -D
        PS1='READY%% '
        """.write(to: functions.appendingPathComponent(".zshrc"), atomically: true, encoding: .utf8)

        let terminal = TmuxTerminal()
        defer { terminal.stop() }
        let environment = shell.environment.merging(["ZDOTDIR": functions.path]) { $1 }.map { "\($0.key)='\($0.value)'" }
        for (line, expected, unexpected) in Self.cases {
            let session = try terminal.startSession("env \(environment.joined(separator: " ")) zsh -i", columns: 200, rows: 20)
            _ = try await terminal.screen(of: session, once: "READY%", attempts: 200)
            // Two Tabs: the first completes what all candidates share, the second lists them.
            try terminal.tmux(["send-keys", "-t", session, line])
            _ = try await terminal.screen(of: session, once: line, attempts: 100)
            // The second Tab only once zsh has answered the first: it draws the line again.
            let typed = try terminal.tmux(["capture-pane", "-p", "-t", session])
            try terminal.tmux(["send-keys", "-t", session, "Tab"])
            _ = try await terminal.screen(of: session, changedFrom: typed, attempts: 20)
            try terminal.tmux(["send-keys", "-t", session, "Tab"])
            let screen = try await terminal.screen(of: session, once: expected.last!, attempts: 100)
            let shown = Set(screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
            let completedLine = screen.split(separator: "\n").first { $0.hasPrefix("READY%") }.map(String.init) ?? ""
            for candidate in expected {
                // A single candidate is completed on the line; several are listed below it.
                #expect(shown.contains(candidate) || completedLine.hasSuffix(candidate + " "), "\(line): \(screen)")
            }
            #expect(Set(unexpected).isDisjoint(with: shown), "\(line): \(screen)")
            try terminal.tmux(["kill-session", "-t", session])
        }
    }
}

/// A sandbox whose demo terms are accepted and whose grades ran once, with unitool on PATH as
/// the completion scripts expect.
struct ShellSandbox {
    let sandbox: Sandbox

    init() async throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let grades = try await sandbox.run(["grades"])
        #expect(grades.exitCode == 0, "\(grades)")
    }

    var environment: [String: String] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return sandbox.environment.merging(["PATH": UniToolProcess.executable.deletingLastPathComponent().path + ":" + path]) { $1 }
    }

    func run(_ program: String, _ arguments: [String]) async throws -> UniToolProcess.Outcome {
        try await run(URL(fileURLWithPath: program), arguments)
    }

    func run(_ program: URL, _ arguments: [String]) async throws -> UniToolProcess.Outcome {
        let environment = self.environment
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try UniToolProcess.run(program, arguments, environment: environment) })
            }
        }
    }
}
