import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Issue 50, deliverable 7: `links` exists to give addresses, so a table never breaks one. Read
/// back from a real terminal (tmux) of 40 and 80 columns, as a person would copy them.
@Suite("URLs stay whole in tables", .enabled(if: Needs.program("/usr/bin/tmux")))
struct WholeURLsTests {
    let terminal = TmuxTerminal()

    /// The addresses `links` gives, as a script reads them; the demo's own ones by their path,
    /// since each command's demo has a port of its own.
    func addresses(in sandbox: Sandbox) async throws -> [(pattern: Regex<Substring>, width: Int)] {
        let json = try await sandbox.run(["--portal", "demo", "links", "--json"])
        #expect(json.exitCode == 0, "\(json)")
        let records = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let urls = records.compactMap { $0["url"] as? String }
        #expect(urls.count > 5 && urls.contains { !$0.hasPrefix("http://127.0.0.1:") }, "\(urls)")
        return try urls.map { url in
            let pattern = NSRegularExpression.escapedPattern(for: url)
                .replacing(try Regex(#"127\\\.0\\\.0\\\.1:[0-9]+"#), with: #"127\.0\.0\.1:[0-9]+"#)
            // The whole address and nothing glued to it: it ends the line or a space follows.
            return (try Regex<Substring>("(?:^|\\s)\(pattern)(?:\\s|$)"), url.count)
        }
    }

    @Test("at 40 and 80 columns every address of 'links' is on one line, whole, and nothing is left out", arguments: [40, 80])
    func links(columns: Int) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let addresses = try await addresses(in: sandbox)
        defer { terminal.stop() }
        let session = try terminal.startSession(
            "\(terminal.unitool(in: sandbox)) --portal demo links; echo EXIT=$?; sleep 300", columns: columns, rows: 120)
        let screen = try await terminal.screen(of: session, once: "EXIT=", attempts: 300)
        #expect(screen.contains("EXIT=0") && !screen.contains("left out"), "\(screen)")
        // -J joins the lines the terminal wrapped itself: an address wider than the window is
        // still one line to copy, which the table never broke.
        let joined = try terminal.tmux(["capture-pane", "-p", "-J", "-S", "-", "-t", session]).split(separator: "\n")
        let physical = screen.split(separator: "\n")
        for address in addresses {
            #expect(joined.contains { $0.contains(address.pattern) }, "an address is broken at \(columns) columns:\n\(screen)")
            // One that fits the window beside its indent is on one line of the screen as well.
            if address.width + 2 <= columns {
                #expect(physical.contains { $0.contains(address.pattern) }, "an address is wrapped at \(columns) columns:\n\(screen)")
            }
        }
        try terminal.tmux(["kill-session", "-t", session])
    }
}
