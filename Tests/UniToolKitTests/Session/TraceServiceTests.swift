import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The HAR trace of a whole run, in process: the service with a trace as `--trace FILE
/// --trace-bodies` makes one (`HTTPTrace` in the HTTP settings; the login registers the password
/// with it before sending it), written with `HTTPTrace.write(to:)` into the sandbox, on failure
/// too, as the CLI writes it. Every field of a HAR entry one by one is in HTTPTraceTests; that
/// the CLI wires the options and writes the file on failure is in EndToEndTests
/// (LemonLDAPInteropTests, UserValuesTests).
@Suite("HTTP traces of real logins, through the service: no secret in any field, and errors without the password")
struct TraceServiceTests {
    /// `grades` (the current term) for `user` with `password`, traced as `--trace FILE
    /// --trace-bodies` traces it; the trace is written to `file` whatever happens, as the CLI
    /// writes it, then the outcome is returned or thrown.
    func tracedGrades(
        _ bench: DemoServiceBench, on demo: DemoUniversity, user: String, password: String, to file: URL, includeBodies: Bool = true
    ) async throws -> RecordSet {
        let trace = HTTPTrace(includeBodies: includeBodies)
        var configuration = HTTPSession.Configuration()
        configuration.trace = trace
        let recipe = try bench.recipe("grades")
        let request = try bench.request("grades")
        let result = await Result {
            try await bench.withService(on: demo, user: user, password: password, configuration: configuration) { service, _ in
                try await service.execute(request, of: recipe, interaction: Unattended()).records
            }
        }
        try trace.write(to: file)
        return try result.get()
    }

    /// Every `postData` parameter of every entry of a HAR file.
    func postedParameters(_ file: URL) throws -> [[String: String]] {
        let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        return entries.flatMap { entry -> [[String: String]] in
            let postData = (entry["request"] as? [String: Any])?["postData"] as? [String: Any]
            return postData?["params"] as? [[String: String]] ?? []
        }
    }

    // MARK: From EndToEndTests/LoginPagesTests

    @Test("a trace is a HAR file of the whole run, bodies included on request, with no secret in it, readable by the user only")
    func traceHasNoSecrets() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let trace = bench.sandbox.root.appendingPathComponent("run.har")
            let set = try await tracedGrades(bench, on: demo, user: "bence", password: "Kaland-2026", to: trace)
            #expect(!set.records.isEmpty)
            let failedTrace = bench.sandbox.root.appendingPathComponent("failed.har")
            let error = await #expect(throws: UniToolError.self) {
                try await tracedGrades(bench, on: demo, user: "dora", password: "Wrong-Canary-77", to: failedTrace)
            }
            #expect(error?.kind == .wrongCredentials, "\(String(describing: error))")

            for file in [trace, failedTrace] {
                let data = try Data(contentsOf: file)
                let har = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let log = try #require(har["log"] as? [String: Any])
                #expect(log["version"] as? String == "1.2")
                let entries = try #require(log["entries"] as? [[String: Any]])
                #expect(entries.count >= 5, "the login's requests should all be there")
                let text = String(decoding: data, as: UTF8.self)
                for secret in [
                    "Kaland-2026", "Wrong-Canary-77", "demo_sp_session=bence", "demo_sp_session=dora", "PHNhbWxwOlJlc3BvbnNl", "PD94bWwg",
                ] {
                    #expect(!text.contains(secret), "\(file.lastPathComponent) contains \(secret)")
                }
                #expect(text.contains("<redacted>"))
            }
            let text = try String(contentsOf: trace, encoding: .utf8)
            #expect(text.contains("Számítógépes hálózatok"), "bodies on request should keep the page bodies")
            let attributes = try FileManager.default.attributesOfItem(atPath: trace.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test(
        "a portal that echoes secrets: the trace holds neither the password it repeats in a hidden field nor its unquoted or textarea SAML values, and the error quotes the portal without the password, however short"
    )
    func echoedSecretsStayOutOfTracesAndErrors() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "echo-secrets")) { demo in
            let trace = bench.sandbox.root.appendingPathComponent("echo.har")
            _ = try await tracedGrades(bench, on: demo, user: "bence", password: "Kaland-2026", to: trace)
            let text = try String(contentsOf: trace, encoding: .utf8)
            for secret in ["Kaland-2026", "PHNhbWxwOlJlc3BvbnNl", "PD94bWwg", "demo_sp_session=bence"] {
                #expect(!text.contains(secret), "the trace contains \(secret)")
            }
            #expect(text.contains("<textarea name=RelayState hidden><redacted></textarea>"), "the RelayState textarea was not scrubbed")
            let echoed = try postedParameters(trace).filter { $0["name"] == "typed" }
            #expect(echoed.count == 1, "the SAML POST form should carry the echoed password")
            #expect(echoed.allSatisfy { $0["value"] == "<redacted>" })

            for password in ["Zq", "Wrong-Canary-77"] {
                // End the session the first run saved, so that the next one must log in.
                try bench.sessions.remove(portal: "demo", user: "bence")
                let wrongTrace = bench.sandbox.root.appendingPathComponent("wrong-\(password.count).har")
                let error = await #expect(throws: UniToolError.self) {
                    try await tracedGrades(bench, on: demo, user: "bence", password: password, to: wrongTrace)
                }
                #expect(error?.kind == .wrongCredentials, "\(String(describing: error))")
                let shown = error?.description ?? ""
                #expect(shown.contains("the portal says"), "\(shown)")
                #expect(shown.contains("you typed '<redacted>'"), "\(shown)")
                #expect(!shown.contains(password), "\(password) in the error")
                let wrongText = try String(contentsOf: wrongTrace, encoding: .utf8)
                #expect(!wrongText.contains("&#39;\(password)&#39;") && !wrongText.contains("'\(password)'"), "\(password) in the trace")
                #expect(!wrongText.contains("\"\(password)\""), "\(password) as a whole value in the trace")
            }
        }
    }

    @Test("a recipe that must not consent for the user fails with 'consent required'")
    func consentRefusedByRecipe() async throws {
        // The bundled portal recipe, as a portal of its own, with its consent rule turned into a failure.
        let acceptRule =
            #"      fill: { _shib_idp_consentOptions: "_shib_idp_doNotRememberConsent" }"# + "\n"
            + #"      submit: ".//button[@name='_eventId_proceed']""# + "\n"
            // What it says when it accepts goes with it: a fail rule has its own message.
            + #"      tell: "accepted the release of your details to the portal for this login only; the login service asks again next time""#
            + "\n"
        let bundled = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
        try #require(bundled.contains(acceptRule))
        let recipes = try Sandbox()
        defer { recipes.remove() }
        try await DemoUniversity.withRunning { demo in
            try recipes.installPortalCopy("campus", at: demo.baseURL) { portal in
                portal.replacingOccurrences(of: acceptRule, with: "      fail: consent_required\n")
            }
            let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
            defer { bench.remove() }
            try bench.sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let recipe = try bench.recipe("grades", portal: "campus")
            let request = try bench.request("grades", portal: "campus")
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo, user: "dora", password: "explorer-2026", portal: "campus") { service, _ in
                    try await service.execute(request, of: recipe, interaction: Unattended()).records
                }
            }
            #expect(error?.kind == .consentRequired, "\(String(describing: error))")
            let shown = error?.description ?? ""
            #expect(shown.contains("consent required"), "\(shown)")
            #expect(shown.contains("open the portal once in a browser"), "\(shown)")
        }
    }

    // MARK: From EndToEndTests/RealPagesTests

    @Test("a HAR of a cold login holds no SAML message, RelayState, cookie value or password in any field, and no size that tells one")
    func traceByteScan() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let trace = bench.sandbox.root.appendingPathComponent("login.har")
            _ = try await tracedGrades(bench, on: demo, user: "bence", password: "Kaland-2026", to: trace)
            let data = try Data(contentsOf: trace)
            let har = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let fields = jsonStrings(in: har)
            // The cookie values the portal set, as the saved session holds them.
            let saved = try Data(contentsOf: bench.sessions.file(portal: "demo", user: "bence"))
            let session = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
            let cookieValues = ((session["cookies"] as? [[String: Any]]) ?? []).compactMap { $0["value"] as? String }.filter {
                $0.count >= 8
            }
            #expect(!cookieValues.isEmpty)
            let protocolValue = try Regex(
                #"(?i)(SAMLRequest|SAMLResponse|RelayState|ticket|SAMLart)(=|%3D)(?!<redacted>|%3Credacted%3E)[^&"\s]"#)
            var samlParameters = 0
            for field in fields {
                #expect(!field.contains("Kaland-2026"), "the password in \(field.prefix(200))")
                for value in cookieValues { #expect(!field.contains(value), "a cookie value in \(field.prefix(200))") }
                #expect(field.firstMatch(of: protocolValue) == nil, "a protocol value in \(field.prefix(300))")
                #expect(!field.contains("PHNhbWxw") && !field.contains("PD94bWwg"), "a SAML message in \(field.prefix(200))")
                if field.contains("SAMLRequest=<redacted>") { samlParameters += 1 }
            }
            #expect(samlParameters > 0, "the trace should show where the SAML request went, redacted")
            // The password's POST is sized as shown, so its size does not tell the password's length.
            let entries = try #require((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            let passwordPost = try #require(
                entries.first { entry in
                    let params = ((entry["request"] as? [String: Any])?["postData"] as? [String: Any])?["params"] as? [[String: String]]
                    return params?.contains { $0["name"] == "j_password" } == true
                })
            let request = try #require(passwordPost["request"] as? [String: Any])
            let text = try #require((request["postData"] as? [String: Any])?["text"] as? String)
            #expect(request["bodySize"] as? Int == text.utf8.count)
        }
    }
}
