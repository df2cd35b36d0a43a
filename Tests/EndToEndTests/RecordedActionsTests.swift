import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// A student's own recording of the demo in which they renew a loan and send a purchase request
/// through the library's confirmation page: the folder `recipes new --from-har` writes has an
/// action for each, which asks first. From a script without `--yes` it sends nothing (exit 26,
/// not even the login); with `--yes` it renews another loan and files another request.
@Suite(
    "A recording's forms become actions that ask first (chromium + Playwright)",
    .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright: run through Scripts/test.sh"))
struct RecordedActionsTests {
    @Test("renew and a purchase request, recorded: exit 26 and nothing sent without --yes; with --yes the demo renews and files")
    func recordedFormsAskFirst() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let har = sandbox.root.appendingPathComponent("actions.har")
            try await BrowserRecorder.record(
                start: demo.baseURL.appendingPathComponent("home"), user: "alice", password: "wonderland", done: "a#logout",
                steps: [
                    .open("/library/loans"), .click("a.renew"), .click("form#renew button[name=confirm]"),
                    .open("/library/request"), .fill("#title", "Gödel, Escher, Bach"), .fill("#isbn", "978-0-465-02656-2"),
                    .fill("#reason", "For the logic seminar"), .click("form#purchase-request button[name=confirm]"),
                    .click("form#purchase-confirm button[name=send]"),
                ], to: har)
            let made = try await sandbox.run(["recipes", "new", "rec-act", "--from-har", har.path])
            try #require(made.exitCode == 0, "\(made)")
            #expect(made.stdout.contains("asks before it sends"), "the report says each action asks: \(made.stdout)")
            let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/rec-act")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
            let texts = try files.map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
            let loans = try #require(texts.first { $0.1.contains("\n  renew:\n") }, "\(made.stdout)")
            let request = try #require(texts.first { $0.1.contains("\n  purchase-request:\n") }, "\(made.stdout)")
            let requestCommand = String(request.0.dropLast(".yaml".count))
            #expect(loans.0 == "loans.yaml", "the renewal belongs to the loans it was chosen on: \(loans.0)")
            let run = { (arguments: [String]) async throws -> UniToolProcess.Outcome in
                try await sandbox.run(["--portal", "rec-act", "--user", "alice", "--password-stdin"] + arguments, stdin: "wonderland")
            }
            let renew = ["loans", "renew", "31000103"]
            let send = [requestCommand, "purchase-request", "--title", "Structure and Interpretation", "--isbn", "978-0-262-51087-5"]

            // (a) From a script, without --yes: nothing is sent, not even the login.
            let before = await demo.requests.count
            for arguments in [renew, send] {
                let unasked = try await run(arguments)
                #expect(unasked.exitCode == 26, "\(unasked)\n--- \(loans.1)\n--- \(request.1)")
                #expect(unasked.stderr.contains("--yes"), "\(unasked)")
            }
            #expect(await demo.requests.count == before, "nothing was sent")

            // (b) With --yes: the demo renews the loan (its new due date read off the result), and files the request.
            let renewed = try await run(renew + ["--yes", "--json"])
            #expect(renewed.exitCode == 0, "\(renewed)\n--- \(loans.1)")
            #expect(renewed.stdout.contains("Renewed") && renewed.stdout.contains("/20"), "\(renewed)")
            let filed = try await run(send + ["--yes", "--json"])
            #expect(filed.exitCode == 0, "\(filed)\n--- \(request.1)")
            #expect(filed.stdout.range(of: #"R\d{4}-\d{4}"#, options: .regularExpression) != nil, "the request number: \(filed)")
        }
    }
}
