import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Issue 47's "done when": a recording that passes through a third-party page (a survey a portal
/// page posted `passthrough=1` to, showing a table) makes a folder whose commands never send the
/// password outside the identity provider the recorded password went to. The HAR is the demo's
/// recording (Fixtures/har/playwright-chromium-reminder.har), moved to a running demo, with the
/// survey's exchanges appended; the survey is a listener on 127.0.0.10 that shows a password form
/// to whatever asks it.
@Suite("Security round four: a recording's third-party page gets no password", .serialized)
struct RecordedThirdPartyTests {
    static let password = "wonderland"

    /// A listener on another loopback address that asks for a password on every page.
    static func survey() throws -> RecordingHTTPServer {
        try RecordingHTTPServer(host: "127.0.0.10") { _ in
            .status(
                200,
                body:
                    "<html><body><h1>Survey</h1><form method='post' action='/collect'><input name='username'><input type='password' name='password'><button>Sign in</button></form></body></html>"
            )
        }
    }

    /// The demo's recording, its addresses moved to `demo`, then the portal's home posting itself
    /// to `survey` with `passthrough=1`, and the survey's page of results (a table) after the 303.
    static func recording(demo: URL, survey: RecordingHTTPServer, into folder: URL) throws -> URL {
        let fixture = Fixtures.root.appendingPathComponent("Fixtures/har/playwright-chromium-reminder.har")
        let port = try #require(demo.port)
        let moved = try String(contentsOf: fixture, encoding: .utf8).replacingOccurrences(
            of: "127.0.0.1:28391", with: "\(demo.host ?? "127.0.0.1"):\(port)")
        var root = try #require(try JSONSerialization.jsonObject(with: Data(moved.utf8)) as? [String: Any])
        var log = try #require(root["log"] as? [String: Any])
        let home = "http://\(demo.host ?? "127.0.0.1"):\(port)/home"
        let referer: [[String: String]] = [["name": "referer", "value": home]]
        let table = "<h1>Results</h1><table><tr><th>Question</th><th>Answer</th></tr><tr><td>Q1</td><td>yes</td></tr></table>"
        let extra: [[String: Any]] = [
            [
                "_resourceType": "document",
                "request": [
                    "method": "POST", "url": survey.url("/survey"), "headers": referer,
                    "postData": ["mimeType": "application/x-www-form-urlencoded", "params": [["name": "passthrough", "value": "1"]]],
                ],
                "response": ["status": 303, "redirectURL": survey.url("/survey/results"), "headers": [], "content": ["size": 0]],
            ],
            [
                "_resourceType": "document",
                "request": ["method": "GET", "url": survey.url("/survey/results"), "headers": referer],
                "response": ["status": 200, "headers": [], "content": ["mimeType": "text/html", "text": table]],
            ],
        ]
        log["entries"] = (log["entries"] as? [[String: Any]] ?? []) + extra
        root["log"] = log
        let har = folder.appendingPathComponent("with-survey.har")
        try JSONSerialization.data(withJSONObject: root).write(to: har)
        return har
    }

    /// Makes the folder and checks its definition: the password goes to the IdP alone, and the
    /// survey is no service. Returns the commands written.
    static func makeFolder(_ portal: String, har: URL, in home: Sandbox, demo: URL) async throws -> [String] {
        let made = try await home.run(["recipes", "new", portal, "--from-har", har.path])
        #expect(made.exitCode == 0, "\(made)")
        #expect(
            made.stdout.contains("127.0.0.10") && made.stdout.contains("skipped"), "the report says why the survey was left out: \(made)")
        let folder = home.root.appendingPathComponent("config/unitool/recipes/\(portal)")
        let portalYAML = try String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)
        #expect(portalYAML.contains("credentials_may_go_to: [idp]\n"), "\(portalYAML)")
        #expect(!portalYAML.contains("127.0.0.10") && !portalYAML.contains("services:"), "\(portalYAML)")
        try home.acceptTerms(portal: portal, version: DemoUniversity.initialTermsVersion)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        return files.filter { $0.hasSuffix(".yaml") && $0 != "portal.yaml" }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Every command of the folder, and the survey's page's own name (which no command may have).
    static func commandsToTry(_ written: [String]) -> [String] { written + (written.contains("results") ? [] : ["results"]) }

    /// Runs `body` with the demo and the folder `portal` made from the recording with the survey in it (its
    /// commands given), against a running demo; then the survey must have received nothing: no
    /// password, and not one connection.
    static func withSurveyFolder(
        _ portal: String, _ body: (Sandbox, DemoUniversity, [String]) async throws -> Void
    ) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let survey = try Self.survey()
        defer { survey.stop() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=reminder-link")) { demo in
            let har = try Self.recording(demo: demo.baseURL, survey: survey, into: sandbox.root)
            try await body(sandbox, demo, try await Self.makeFolder(portal, har: har, in: sandbox, demo: demo.baseURL))
        }
        #expect(survey.requests.allSatisfy { !$0.body.contains(Self.password) }, "\(survey.requests)")
        #expect(survey.connections == 0, "nothing was sent to the survey's address: \(survey.requests)")
    }

    @Test("CLI with UNITOOL_PASSWORD_COMMAND: no command of the folder sends the password to the survey's address")
    func passwordCommand() async throws {
        try await Self.withSurveyFolder("rec-survey") { sandbox, demo, commands in
            #expect(commands.contains("grades"), "\(commands)")
            for command in Self.commandsToTry(commands) {
                let outcome = try await sandbox.run(
                    ["--portal", "rec-survey", "--user", "alice", command, "--json"],
                    extra: ["UNITOOL_PASSWORD_COMMAND": "echo \(Self.password)"])
                if command == "grades" { #expect(outcome.exitCode == 0, "the folder logs in through the IdP: \(outcome)") }
            }
            let received = await demo.passwordsReceived
            #expect(received >= 1, "the IdP had the password")
        }
    }

    @Test(
        "CLI with the keyring: the stored password is released to no command that would reach the survey",
        .enabled(if: Needs.testSandbox, "needs the keyring: run through Scripts/test.sh"))
    func keyring() async throws {
        try await Self.withSurveyFolder("rec-survey-keyring") { sandbox, demo, commands in
            let stored = try await sandbox.run(
                ["--portal", "rec-survey-keyring", "--user", "alice", "--password-stdin", "auth", "login"], stdin: Self.password)
            #expect(stored.exitCode == 0, "\(stored)")
            // A fresh state: no saved session, so every command needs the password from the keyring.
            let state = sandbox.root.appendingPathComponent("state/unitool/sessions")
            for command in Self.commandsToTry(commands) {
                try? FileManager.default.removeItem(at: state)
                let outcome = try await sandbox.run(["--portal", "rec-survey-keyring", "--user", "alice", command, "--json"])
                if command == "grades" { #expect(outcome.exitCode == 0, "\(outcome)") }
            }
            let logout = try await sandbox.run(["auth", "logout", "--portal", "rec-survey-keyring", "--user", "alice"])
            #expect(logout.exitCode == 0, "\(logout)")
        }
    }

    @Test("MCP with UNITOOL_PASSWORD_COMMAND: no tool of the folder sends the password to the survey's address")
    func mcp() async throws {
        try await Self.withSurveyFolder("rec-survey-mcp") { sandbox, demo, commands in
            var environment = sandbox.environment
            environment["UNITOOL_PASSWORD_COMMAND"] = "echo \(Self.password)"
            let client = try await RPCClientProcess.start(
                command: "mcp", arguments: ["--portal", "rec-survey-mcp", "--user", "alice"], environment: environment)
            defer { client.terminate() }
            var seen: [JSONValue] = []
            #expect(await client.initializeMCP(seen: &seen) != nil, "\(client.stderr)")
            client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
            let listed = await client.response(id: .number(2), seen: &seen)
            let tools: [String] = listed?["result"]?["tools"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            for command in commands { #expect(tools.contains(command), "every command is a tool: \(tools)") }
            for (offset, tool) in (tools + ["results"]).enumerated() {
                let id = 10 + offset
                client.sendLine(
                    #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(tool)","arguments":{}}}"#)
                let answer = await client.response(id: .number(Double(id)), seen: &seen)
                #expect(answer != nil, "\(tool) is answered: \(client.stderr)")
                if tool == "grades" { #expect(answer?["result"]?["isError"] != .bool(true), "\(String(describing: answer))") }
            }
        }
    }
}
