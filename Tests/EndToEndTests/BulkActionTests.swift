import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Bulk actions ask (issue 50): `loans renew-all` on the demo lists what it will renew (title,
/// due date, renewals left, and which loan a renewal leaves overdue) before anything is sent.
/// From a pipe without `--yes` it renews nothing and exits 26; `--dry-run` lists and exits 0;
/// `--yes` renews and says which. Every command here runs with stdin not a terminal.
@Suite("Bulk actions list what they will change and ask (the demo's renew-all)")
struct BulkActionTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--portal", "demo"] + arguments, demo: demo.baseURL)
    }

    /// The loans as `loans --json` gives them, by barcode: each one's due date.
    func dues(_ demo: DemoUniversity) async throws -> [String: String] {
        let outcome = try await run(["loans", "--json"], demo: demo)
        let loans = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
        return Dictionary(
            uniqueKeysWithValues: loans.compactMap { loan in
                (loan["barcode"] as? String).map { ($0, loan["due"] as? String ?? "") }
            })
    }

    func list(_ outcome: UniToolProcess.Outcome) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
    }

    @Test("from a pipe without --yes: the list on stdout, exit 26, nothing renewed; --dry-run the same with exit 0")
    func pipeWithoutYesRenewsNothing() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let before = try await dues(demo)
            for (flags, code) in [([String](), Int32(26)), (["--dry-run"], 0)] {
                let outcome = try await run(["loans", "renew-all", "--json"] + flags, demo: demo)
                #expect(outcome.exitCode == code, "\(flags): \(outcome)")
                let rows = try list(outcome)
                #expect(
                    Set(rows.compactMap { $0["barcode"] as? String }) == ["31000101", "31000103", "31000112"],
                    "the three loans due within a week or overdue that can be renewed: \(outcome.stdout)")
                let knuth = try #require(rows.first { $0["barcode"] as? String == "31000112" })
                #expect(knuth["title"] as? String == "The Art of Computer Programming, Vol. 1" && knuth["renewals_left"] as? Int == 1)
                #expect(knuth["due"] as? String == before["31000112"], "the due date now: \(knuth)")
                // Overdue by 30 days: a renewal's 14 days leave it overdue, and the list says so;
                // overdue by 12, the renewal ends the overdue and nothing is said.
                #expect((knuth["note"] as? String ?? "").contains("stays overdue"), "\(knuth)")
                let probability = try #require(rows.first { $0["barcode"] as? String == "31000101" })
                #expect(probability["note"] is NSNull, "\(probability)")
                #expect(outcome.stderr.contains(code == 26 ? "--yes" : "nothing was sent"), "\(outcome.stderr)")
            }
            let posts = await demo.requests.filter { $0.method == "POST" && $0.path == "/library/renew-all" }
            #expect(posts.isEmpty, "nothing was sent: \(posts)")
            #expect(try await dues(demo) == before, "the demo's loans are as they were")
        }
    }

    @Test("--yes renews and says which: each title, its new due date and the renewals left")
    func yesRenewsAndSaysWhich() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let before = try await dues(demo)
            let outcome = try await run(["loans", "renew-all", "--yes", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let renewed = try list(outcome)
            let after = try await dues(demo)
            #expect(renewed.count == 3, "\(outcome.stdout)")
            let knuth = try #require(renewed.first { $0["title"] as? String == "The Art of Computer Programming, Vol. 1" })
            #expect(knuth["renewals_left"] as? Int == 0 && knuth["due"] as? String == after["31000112"], "\(knuth)")
            #expect((after["31000112"] ?? "") > (before["31000112"] ?? "~"), "the demo renewed it")
            let table = try await run(["loans", "renew-all", "--dry-run"], demo: demo)
            #expect(table.exitCode == 0 && table.stderr.contains("0 rows listed"), "renewed once, none is due now: \(table)")
        }
    }

    @Test("loans renew BARCODE says the title, the new due date and the renewals left")
    func renewSaysWhatIsLeft() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let outcome = try await run(["loans", "renew", "31000103", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let record = try #require(try list(outcome).first)
            let after = try await dues(demo)
            #expect(record["title"] as? String == "Operating Systems: Three Easy Pieces", "\(record)")
            #expect(record["due"] as? String == after["31000103"] && record["renewals_left"] as? Int == 2, "\(record)")
        }
    }
}
