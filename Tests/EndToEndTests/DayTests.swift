import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `--format ics` and the overview's pins, with the clock fixed by `UNITOOL_NOW`. `today` and
/// `calendar` themselves are tested in process (UniToolKitTests/Service/DailyCommandsServiceTests).
@Suite("Your day: the calendar export and today, end to end")
struct DayTests {
    let sandbox: Sandbox
    /// A Wednesday morning, campus time: Magyar irodalom (08:15) is over, Operating Systems
    /// (15:00) is next.
    static let wednesday = "2026-11-25T10:00:00+01:00"

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], now: String = wednesday) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--portal", "demo"] + arguments, extra: ["UNITOOL_NOW": now])
    }

    @Test("--format ics on one command, and a clear refusal for a command without a calendar")
    func formatICS() async throws {
        let exams = try await run(["exams", "--format", "ics"])
        #expect(exams.exitCode == 0, "\(exams)")
        #expect(exams.stdout.hasPrefix("BEGIN:VCALENDAR\r\n") && exams.stdout.contains("SUMMARY:Midterm: 情報理論 (Information Theory)\r\n"))
        let grades = try await run(["grades", "--format=ics"])
        #expect(grades.exitCode == 64, "\(grades)")
        #expect(grades.stderr.contains("'grades' has no calendar") && grades.stderr.contains("courses, exams, loans"), "\(grades)")
    }

    @Test("the overview lists pinned commands first, then the recent ones; a pin with a mistyped option is refused")
    func pinsAndRecents() async throws {
        #expect(try await run(["loans", "--json"]).exitCode == 0)
        let pinned = try await run(["pin", "grades", "--term", "current"])
        #expect(pinned.exitCode == 0 && pinned.stderr.contains("pinned: unitool grades --term current"), "\(pinned)")
        let typo = try await run(["pin", "grades", "--trem", "current"])
        #expect(typo.exitCode == 64 && typo.stderr.contains("did you mean '--term'"), "\(typo)")
        let overview = try await run([])
        let text = overview.stdout
        let pins = try #require(text.range(of: "PINNED (unitool pin):\n  unitool grades --term current\n"), "\(overview)")
        let recent = try #require(text.range(of: "RECENT:\n  unitool loans\n"), "\(overview)")
        #expect(pins.lowerBound < recent.lowerBound)
        #expect(try await run(["pin", "--json"]).stdout == "[\"unitool grades --term current\"]\n")
        #expect(try await run(["pin", "--remove", "grades", "--term", "current"]).exitCode == 0)
        #expect(!(try await run([])).stdout.contains("PINNED"))
    }

    /// The grades section of one `today --json`: whether it marked, whether it is the first
    /// look, and its change rows as "code: change".
    static func grades(_ outcome: UniToolProcess.Outcome) throws -> (markedSeen: Bool, firstLook: Bool, changes: [String]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome)")
        let sections = try #require(object["sections"] as? [String: [String: Any]], "\(outcome)")
        let section = try #require(sections.values.first { $0["command"] as? String == "grades" }, "no grades part: \(outcome)")
        let rows = try #require(section["changes"] as? [[String: Any]], "\(section)")
        return (
            try #require(object["marked_seen"] as? Bool), try #require(section["first_look"] as? Bool),
            rows.map { "\($0["code"] as? String ?? "?"): \($0["change"] as? String ?? "?")" }
        )
    }

    @Test("a status-bar script polling 'today --refresh --json' leaves a new grade new for the person's today (issue 50)")
    func scriptDoesNotUseUpWhatIsNew() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            func today(_ arguments: [String]) async throws -> UniToolProcess.Outcome {
                let outcome = try await sandbox.run(
                    ["--portal", "demo", "today"] + arguments, demo: demo.baseURL, extra: ["COLUMNS": "200"])
                #expect(outcome.exitCode == 0, "\(arguments): \(outcome)")
                return outcome
            }
            // Never looked: a script sees no start, and does not make one.
            let before = try Self.grades(try await today(["--refresh", "--json"]))
            #expect(!before.markedSeen && before.firstLook, "\(before)")
            // The person looks (through a pipe here, so by saying so).
            let first = try await today(["--mark-seen"])
            #expect(first.stdout.contains("(first look: from now on, what is new shows here)"), "\(first)")
            for _ in 0..<3 {
                let poll = try Self.grades(try await today(["--refresh", "--json"]))
                #expect(!poll.markedSeen && !poll.firstLook && poll.changes.isEmpty, "\(poll)")
            }
            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-24")
            // The script sees the grade every minute, and so does a plain 'today' into a pipe.
            for _ in 0..<3 {
                let poll = try Self.grades(try await today(["--refresh", "--json"]))
                #expect(!poll.markedSeen && poll.changes.count == 1 && poll.changes[0].hasPrefix("HUN-250: "), "\(poll)")
                #expect(poll.changes.first?.contains("→ B") == true, "\(poll)")
            }
            let piped = try await today(["--refresh"])
            #expect(piped.stdout.contains("HUN-250") && piped.stdout.contains("→ B"), "\(piped)")
            // The person's today still shows it as new; having seen it, the next one does not.
            let seen = try await today(["--mark-seen"])
            #expect(seen.stdout.contains("HUN-250") && seen.stdout.contains("→ B"), "\(seen)")
            let after = try Self.grades(try await today(["--json", "--mark-seen"]))
            #expect(after.markedSeen && !after.firstLook && after.changes.isEmpty, "\(after)")
        }
    }

    @Test("history prints plain values, never a field's enum case (issue 50: 'unitool history string(\"attendance\")')")
    func historyPrintsPlainValues() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            #expect(try await sandbox.run(["--portal", "demo", "attendance"], demo: demo.baseURL).exitCode == 0)
            #expect(try await sandbox.run(["--portal", "demo", "grades", "--term", "2026-fall"], demo: demo.baseURL).exitCode == 0)
            for arguments in [["history"], ["history", "grades"], ["history", "attendance"]] {
                let outcome = try await sandbox.run(["--portal", "demo"] + arguments, demo: demo.baseURL)
                #expect(outcome.exitCode == 0, "\(arguments): \(outcome)")
                let all = outcome.stdout + outcome.stderr
                for name in ["string(", "integer(", "number(", "date(", "datetime(", "bool(", "url(", "list(", ".null"] {
                    #expect(!all.contains(name), "\(arguments) prints \(name): \(outcome)")
                }
                if arguments == ["history"] {
                    #expect(outcome.stderr.contains("see what changed in one: unitool history attendance\n"), "\(outcome)")
                }
            }
        }
    }
}

/// The person's own look, in a real terminal (tmux): `today` on a terminal marks by itself, and
/// shows a grade that a polling script has already seen as new.
@Suite("today on a real terminal moves 'since you last looked' (tmux)", .enabled(if: Needs.program("/usr/bin/tmux")))
struct TodayTerminalTests {
    let terminal = TmuxTerminal()

    @Test("the terminal's today marks; a script's --json in between does not, and the new grade shows on the terminal")
    func lookingAtTheTerminal() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        defer { terminal.stop() }
        try await DemoUniversity.withRunning { demo in
            let unitool = "UNITOOL_DEMO_URL='\(demo.baseURL.absoluteString)' \(terminal.unitool(in: sandbox))"
            func look() async throws -> String {
                let session = try terminal.startSession(
                    "\(unitool) --portal demo today --refresh; echo EXIT=$?; sleep 300", columns: 200, rows: 80)
                let screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 600)
                try terminal.tmux(["kill-session", "-t", session])
                #expect(screen.contains("EXIT=0"), "\(screen)")
                return screen
            }
            func poll() async throws -> (markedSeen: Bool, firstLook: Bool, changes: [String]) {
                try DayTests.grades(try await sandbox.run(["--portal", "demo", "today", "--refresh", "--json"], demo: demo.baseURL))
            }
            let first = try await look()
            #expect(first.contains("(first look: from now on, what is new shows here)"), "\(first)")
            let before = try await poll()
            #expect(!before.markedSeen && !before.firstLook && before.changes.isEmpty, "the terminal's look marked: \(before)")
            await demo.postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B", points: 3.0, date: "2026-11-24")
            let seenByScript = try await poll()
            #expect(seenByScript.changes.count == 1 && seenByScript.changes[0].contains("→ B"), "\(seenByScript)")
            let second = try await look()
            #expect(second.contains("HUN-250") && second.contains("→ B"), "\(second)")
            let after = try await poll()
            #expect(after.changes.isEmpty, "the terminal's look marked the grade as seen: \(after)")
        }
    }
}
