import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// `unitool doctor login` against a demo the test starts, so it can see what reached the server.
@Suite("doctor login explains the login page by page, end to end")
struct DoctorCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func run(_ arguments: [String], demo: DemoUniversity, stdin: String? = nil) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, demo: demo.baseURL, stdin: stdin)
    }

    struct Report: Decodable {
        struct Step: Decodable {
            struct Field: Decodable {
                let name: String
                let source: String
            }
            let url: String
            let status: Int
            let matchedRule: String?
            let action: String
            let submitted: String?
            let filled: [Field]
            let keptFromPage: [String]
            let arrivedAt: String?
            let error: String?
        }
        let ok: Bool
        let requests: Int?
        let steps: [Step]
    }

    func report(_ outcome: UniToolProcess.Outcome) throws -> Report {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Report.self, from: Data(outcome.stdout.utf8))
    }

    @Test("each page names the rule it matched, the form sent, the fields set and where it led; no value is shown")
    func explainsEveryPage() async throws {
        var faults = try DemoFaults(parsing: "login=discovery")
        faults.latencyMilliseconds = 0
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let password = DemoData.defaultUser.password
            let outcome = try await run(
                ["--portal", "demo", "--user", DemoData.defaultUser.username, "--password-stdin", "doctor", "login"], demo: demo,
                stdin: password)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let text = outcome.stdout
            for rule in ["where are you from", "user id", "password", "saml post"] {
                #expect(text.contains("matched: page rule '\(rule)'"), "\(text)")
            }
            let lines = text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            #expect(lines.contains("j_password set to the password (redacted)"), "\(text)")
            #expect(lines.contains("j_username set to the user name"), "\(text)")
            #expect(lines.contains("SAMLResponse kept from the page"), "\(text)")
            #expect(text.contains("logged in"))
            #expect(text.contains("The login works"))
            #expect(!text.contains(password) && !outcome.stderr.contains(password))
        }
    }

    @Test("--json gives the steps for scripts; the saved session is neither used nor written")
    func jsonAndNoSavedSession() async throws {
        try await DemoUniversity.withRunning { demo in
            let outcome = try await run(["--portal", "demo", "doctor", "login", "--json"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let report = try report(outcome)
            #expect(report.ok)
            #expect(report.steps.map(\.matchedRule) == ["user id", "password", "saml post", nil])
            #expect(report.steps.map(\.action) == ["filled form", "filled form", "auto-submitted form", "logged in"])
            #expect(report.steps[1].filled.map(\.source) == ["the password (redacted)"])
            #expect(report.steps[1].submitted?.hasPrefix("POST ") == true)
            #expect(report.steps[2].arrivedAt?.hasPrefix(demo.baseURL.absoluteString.trimmingCharacters(in: ["/"])) == true)
            #expect(report.requests == (await demo.requests.filter { !$0.isTermsCheck }.count))
            #expect(!sandbox.allFiles().contains { $0.path.contains("/state/") }, "doctor must not write a session")
        }
    }

    @Test("a wrong password stops at the page that says so, with the portal's words and exit 10")
    func wrongPassword() async throws {
        try await DemoUniversity.withRunning { demo in
            let outcome = try await run(
                ["--portal", "demo", "--user", "alice", "--password-stdin", "doctor", "login", "--json"], demo: demo, stdin: "not-it")
            #expect(outcome.exitCode == 10, "\(outcome)")
            let report = try report(outcome)
            #expect(!report.ok)
            let last = try #require(report.steps.last)
            #expect(last.matchedRule == "wrong password")
            #expect(last.action == "failed")
            #expect(last.error?.contains("wrong user name or password") == true)
            #expect(outcome.stderr.contains("\"hint\": \"check the user name"))
            #expect(!outcome.stdout.contains("not-it"))
        }
    }

    @Test("a page no rule knows is shown with its title and forms, and the run fails with exit 30")
    func unknownPage() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=redesigned")) { demo in
            let outcome = try await run(["--portal", "demo", "doctor", "login"], demo: demo)
            #expect(outcome.exitCode == 30, "\(outcome)")
            #expect(outcome.stdout.contains("matched: no page rule"), "\(outcome)")
            #expect(outcome.stdout.contains("stopped: "))
            // Form actions and addresses with their query values hidden, as -v shows them: the
            // IdP's execution state (Keycloak's session_code, elsewhere) is nobody's business.
            #expect(outcome.stdout.contains("SSO?execution=…"), "\(outcome)")
            #expect(!outcome.stdout.contains("execution=e") && !outcome.stderr.contains("execution=e"), "\(outcome)")
            #expect(try await run(["--portal", "demo", "terms", "accept"], demo: demo).exitCode == 0)
            let data = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(data.exitCode == 30 && data.stderr.contains("action=\"http://127.0.0.1"), "\(data)")
            #expect(!data.stderr.contains("execution=e"), "\(data)")
        }
    }
}
