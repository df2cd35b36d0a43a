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
}
