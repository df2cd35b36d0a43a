import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Tables and the status line as a person sees them: in a real terminal (tmux) of a given width,
/// read back with `capture-pane`.
@Suite("Tables and status in a real terminal (tmux)", .enabled(if: Needs.program("/usr/bin/tmux")))
struct TerminalTablesTests {
    let terminal = TmuxTerminal()

    @Test("at 40, 80 and 200 columns every key field is whole, and what was left out is named", arguments: [40, 80, 200])
    func keysStayWhole(columns: Int) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        defer { terminal.stop() }
        for (command, keys) in [(["loans"], ["barcode"]), (["grades", "--term", "all"], ["term", "code"])] {
            // The key values, as a script would read them.
            let json = try await sandbox.run(command + ["--json"])
            #expect(json.exitCode == 0, "\(json)")
            let records = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let values = keys.flatMap { key in records.compactMap { $0[key] as? String } }
            #expect(values.count > 10)

            let session = try terminal.startSession(
                "\(terminal.unitool(in: sandbox)) \(command.joined(separator: " ")); echo EXIT=$?; sleep 300", columns: columns, rows: 120)
            let screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 300)
            #expect(screen.contains("EXIT=0"), "\(screen)")
            let lines = screen.split(separator: "\n")
            for value in Set(values) {
                #expect(lines.contains { $0.contains(value) }, "\(command) at \(columns) columns cut '\(value)':\n\(screen)")
            }
            if columns == 40 {
                // The note is wrapped at words to the 40 columns, each line within them.
                let flat = screen.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                #expect(flat.contains("left out to fit 40 columns"), "\(screen)")
                let note = lines.drop { !$0.hasPrefix("unitool: note:") }.prefix { !$0.hasPrefix("EXIT=") }
                #expect(note.count > 1 && note.allSatisfy { $0.count <= 40 }, "\(screen)")
                #expect(note.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "continuation lines are indented:\n\(screen)")
            }
            if columns == 200 {
                #expect(!screen.contains("left out"), "nothing is left out at 200 columns:\n\(screen)")
            }
            try terminal.tmux(["kill-session", "-t", session])
        }
    }

    @Test("at 40 columns grades keep the course beside the grade, and loans mark the overdue ones with '!' in red")
    func narrowTablesKeepWhatMatters() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        defer { terminal.stop() }
        let grades = try terminal.startSession(
            "\(terminal.unitool(in: sandbox)) grades --term all; echo EXIT=$?; sleep 300", columns: 40, rows: 200)
        let screen = try await terminal.screen(of: grades, once: "EXIT=", attempts: 300)
        let header = screen.split(separator: "\n").first { $0.hasPrefix("term") } ?? ""
        #expect(header.contains("course") && header.contains("grade"), "\(screen)")
        #expect(screen.contains("Linear"), "a course's name is shown:\n\(screen)")
        try terminal.tmux(["kill-session", "-t", grades])

        let json = try await sandbox.run(["loans", "--json"])
        let records = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let overdue = Set(records.filter { $0["overdue"] as? Bool == true }.compactMap { $0["barcode"] as? String })
        #expect(!overdue.isEmpty)
        // Colour on (no NO_COLOR, a terminal), read with its escapes (capture-pane -e).
        let loans = try terminal.startSession(
            "env -u NO_COLOR \(terminal.unitool(in: sandbox)) loans; echo EXIT=$?; sleep 300", columns: 40, rows: 200)
        _ = try await terminal.screen(of: loans, once: "EXIT=", attempts: 300)
        let colored = try terminal.tmux(["capture-pane", "-p", "-e", "-t", loans, "-S", "0", "-E", "199"])
        var marked: Set<String> = []
        for line in colored.split(separator: "\n") {
            guard let barcode = line.split(separator: " ").first(where: { $0.count == 8 && $0.allSatisfy(\.isNumber) }) else { continue }
            if line.contains("!") { marked.insert(String(barcode)) }
            if overdue.contains(String(barcode)) {
                #expect(line.contains("\u{1B}[31m!"), "an overdue loan is marked in red: \(line.debugDescription)")
            } else {
                #expect(!line.contains("!"), "only overdue loans are marked: \(line.debugDescription)")
            }
        }
        #expect(marked == overdue, "every overdue loan, and only those, is marked:\n\(colored)")
        try terminal.tmux(["kill-session", "-t", loans])
    }

    @Test("watch --once on a terminal ends with one line saying what it found; in a pipe, stdout and stderr stay quiet")
    func watchSaysWhatItFound() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        defer { terminal.stop() }
        let session = try terminal.startSession(
            "\(terminal.unitool(in: sandbox)) watch grades --term 2026-fall --once; echo EXIT=$?; sleep 300", columns: 100, rows: 20)
        let screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 300)
        #expect(screen.contains("grades: nothing new") && screen.contains("EXIT=0"), "\(screen)")
        try terminal.tmux(["kill-session", "-t", session])
        let piped = try await sandbox.run(["watch", "grades", "--term", "2026-fall", "--once"])
        #expect(piped.exitCode == 0 && piped.stdout.isEmpty && !piped.stderr.contains("nothing new"), "\(piped)")
    }

    @Test("a status line is erased before a prompt and before an error: neither shares a line with it")
    func statusErasedBeforePromptAndError() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let raw = sandbox.root.appendingPathComponent("terminal.log")
        // A slow login (250 ms a response) that stops at a one-time code prompt (yuki has no
        // stored secret), answered wrongly: a status, then a prompt, then an error.
        let unitool = "UNITOOL_DEMO_FAULTS=latency=250 \(terminal.unitool(in: sandbox))"
        let session = try terminal.startSession(
            "sleep 1; printf sakura-2026 | \(unitool) --user yuki --password-stdin grades; echo EXIT=$?; sleep 300")
        defer { terminal.stop() }
        try terminal.tmux(["pipe-pane", "-t", session, "cat >> '\(raw.path)'"])
        var screen = try await terminal.screen(of: session, once: "One-time code for yuki", attempts: 600)
        try terminal.tmux(["send-keys", "-t", session, "987654", "Enter"])
        screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 600)
        #expect(screen.contains("EXIT=18"), "\(screen)")
        let lines = screen.split(separator: "\n")
        for marker in ["One-time code for yuki", "unitool: error:"] {
            let line = try #require(lines.first { $0.contains(marker) }, "\(marker):\n\(screen)")
            #expect(!line.contains("signing in") && !line.contains("…"), "a status shares the line of '\(marker)':\n\(screen)")
        }
        // The status was shown, and erased before the prompt was written.
        let written = try String(contentsOf: raw, encoding: .utf8)
        let prompt = try #require(written.range(of: "One-time code for yuki"))
        let status = try #require(
            written.range(of: "signing in to Demo University", options: .backwards, range: written.startIndex..<prompt.lowerBound),
            "no status line before the prompt:\n\(written.debugDescription)")
        let erase = try #require(written.range(of: "\r\u{1B}[K", options: .backwards, range: written.startIndex..<prompt.lowerBound))
        #expect(status.upperBound <= erase.lowerBound, "the status is erased before the prompt")
    }

    @Test("a slow login shows a status line on the terminal, erased before the table")
    func statusLineDuringSlowLogin() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let errors = sandbox.root.appendingPathComponent("stderr.txt")
        let raw = sandbox.root.appendingPathComponent("terminal.log")
        // Each response takes 250 ms, so the login takes seconds. Everything written to the
        // terminal is logged by tmux (pipe-pane), so that the status is seen however briefly it
        // shows. The second run's stderr is a file: no status line may reach it.
        let unitool = "UNITOOL_DEMO_FAULTS=latency=250 \(terminal.unitool(in: sandbox))"
        let session = try terminal.startSession(
            "sleep 1; \(unitool) grades; echo EXIT=$?; \(unitool) grades >/dev/null 2>'\(errors.path)'; echo SECOND=$?; sleep 300")
        defer { terminal.stop() }
        try terminal.tmux(["pipe-pane", "-t", session, "cat >> '\(raw.path)'"])
        let after = try await terminal.screen(of: session, once: "SECOND=", attempts: 600)
        #expect(after.contains("EXIT=0") && after.contains("SECOND=0"), "\(after)")
        #expect(!after.contains("signing in"), "the status line was erased:\n\(after)")
        #expect(after.contains("MATH-301"), "\(after)")
        let written = try String(contentsOf: raw, encoding: .utf8)
        let status = try #require(written.range(of: "signing in to Demo University: page"), "no status line:\n\(written.debugDescription)")
        let table = try #require(written.range(of: "MATH-301"))
        let erase = "\r\u{1B}[K"
        let lastErase = try #require(written.range(of: erase, options: .backwards, range: written.startIndex..<table.lowerBound))
        #expect(status.upperBound <= lastErase.lowerBound, "the status is erased before the table is written")
        #expect(try String(contentsOf: errors, encoding: .utf8).isEmpty, "stderr that is not a terminal gets no status")
    }
}
