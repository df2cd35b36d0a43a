import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// `unitool mcp` driven by the official MCP SDK for Python (`mcp` from PyPI, installed by
/// Scripts/interop-venv.sh), as an AI assistant's client drives it.
@Suite(
    "MCP: unitool as a Model Context Protocol server, with the official Python client",
    .enabled(if: Needs.check(InteropPython.isAvailableOrRequired, "the interop Python"), "UNITOOL_SKIP_INTEROP=1 and no interop venv"))
struct MCPInteropTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// The client script's report, or nil (with the reason recorded) when there is no client.
    func drive(_ scenario: String, _ arguments: [String], demo: DemoUniversity, sdk: String = "1.x") async throws -> [String: Any]? {
        let environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }.merging([
            "UNITOOL_DEMO_URL": demo.baseURL.absoluteString, "NO_COLOR": "1",
        ]) { $1 }
        guard InteropPython.isInstalled else {
            Issue.record(Comment(rawValue: InteropPython.missing))
            return nil
        }
        let python = sdk == "2.x" ? InteropPython.mcp2Path : InteropPython.path
        let script = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/mcp_client.py").path
        // On a thread of its own: the demo serving the server runs on this process's cooperative pool.
        let outcome = try await UniToolProcess.run(
            URL(fileURLWithPath: python), [script, scenario, UniToolProcess.executable.path] + arguments, environment: environment,
            timeout: 120)
        #expect(outcome.exitCode == 0, "\(outcome)")
        return try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
    }

    @Test(
        "the client (the SDK's 1.x and 2.x) lists the demo's tools with schemas, gets the grades with progress, renews a loan, and reads a resource",
        arguments: ["1.x", "2.x"])
    func session(sdk: String) async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            guard let report = try await drive("session", ["--portal", "demo", "mcp"], demo: demo, sdk: sdk) else { return }
            #expect(report["server"] as? String == "unitool")
            let tools = try #require(report["tools"] as? [String: [String: Any]])
            let term = ((tools["grades"]?["schema"] as? [String: Any])?["properties"] as? [String: Any])?["term"] as? [String: Any]
            #expect(term?["default"] as? String == "current", "\(tools["grades"] ?? [:])")
            #expect(tools["grades"]?["read_only"] as? Bool == true)
            #expect(tools["loans_renew"]?["destructive"] as? Bool == true)
            #expect(Set(tools.keys).isSuperset(of: ["courses", "loans", "today", "search", "history"]))

            let grades = try #require(report["grades"] as? [String: Any])
            #expect(grades["ok"] as? Bool == true, "\(grades)")
            let records = (grades["structured"] as? [String: Any])?["records"] as? [[String: Any]] ?? []
            #expect(records.contains { $0["code"] as? String == "CS-320" }, "\(grades)")
            #expect((report["progress"] as? [String] ?? []).contains { $0.contains("signing in to Demo University") }, "\(report)")

            let renew = try #require(report["renew"] as? [String: Any])
            let renewed = (renew["structured"] as? [String: Any])?["records"] as? [[String: Any]]
            #expect(renewed?.first?["barcode"] as? String == "31000103", "\(renew)")
            #expect((report["resources"] as? [String] ?? []).contains("unitool://demo/records/grades"))
            #expect((report["resource_text"] as? String ?? "").contains("\"as_of\""))
        }
    }

    @Test(
        "fastmcp's client, started with the SDK's default environment and the documented entries, gets the grades and a refused renewal as a tool error"
    )
    func fastmcp() async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            guard InteropPython.isInstalled else {
                Issue.record(Comment(rawValue: InteropPython.missing))
                return
            }
            let environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }.merging([
                "UNITOOL_DEMO_URL": demo.baseURL.absoluteString
            ]) { $1 }
            let script = Fixtures.root.appendingPathComponent("Tests/EndToEndTests/Interop/fastmcp_client.py").path
            let outcome = try await UniToolProcess.run(
                URL(fileURLWithPath: InteropPython.fastmcpPath), [script, UniToolProcess.executable.path, "--portal", "demo", "mcp"],
                environment: environment, timeout: 120)
            #expect(outcome.exitCode == 0, "\(outcome)")
            let report = try JSONParser.parse(Array(outcome.stdout.utf8))
            #expect(report["tools"]?.arrayValue?.contains(.string("loans_renew")) == true, "\(outcome.stdout)")
            let courses = report["grades"]?["records"]?.arrayValue?.compactMap { $0["course"]?.stringValue } ?? []
            #expect(courses.contains("Analysis II"), "\(outcome.stdout)")
            #expect(report["refused"]?.stringValue?.contains("[action_refused]") == true, "\(outcome.stdout)")
        }
    }

    @Test(
        "the SDK's client hears notifications/resources/list_changed for the grades' first answer, and updated for each answer of the resource it subscribed to"
    )
    func resourceNotifications() async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            guard let report = try await drive("resources", ["--portal", "demo", "mcp"], demo: demo) else { return }
            let grades = "unitool://demo/records/grades"
            #expect(!(report["before"] as? [String] ?? []).contains(grades), "\(report)")
            #expect((report["after"] as? [String] ?? []).contains(grades), "\(report)")
            // The notifications arrive before the call's answer, so the first call's are all in.
            #expect(
                report["after_first"] as? [String] == [
                    "notifications/resources/list_changed", "notifications/resources/updated \(grades)",
                ],
                "\(report)")
            let all = report["notifications"] as? [String] ?? []
            #expect(all.filter { $0 == "notifications/resources/list_changed" }.count == 1, "\(all)")
            #expect(all.filter { $0 == "notifications/resources/updated \(grades)" }.count == 2, "\(all)")
        }
    }

    /// What the model is told, checked over every tool the demo offers: descriptions without
    /// command-line syntax, annotations from what each recipe sends, and every answer valid
    /// against the tool's outputSchema (jsonschema, Draft 2020-12), grades' totals included.
    @Test(
        "tools/list: no description has '--'; catalogue and lms-courses are read-only, actions destructive; every structuredContent is valid against its outputSchema"
    )
    func typedAnswers() async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            guard let report = try await drive("typed", ["--portal", "demo", "mcp"], demo: demo) else { return }
            let tools = try #require(report["tools"] as? [String: [String: Any]])
            for (name, tool) in tools {
                #expect(!(tool["description"] as? String ?? "").contains("--"), "\(name): \(tool["description"] ?? "")")
            }
            for name in ["catalogue", "lms-courses", "grades", "today"] {
                #expect(tools[name]?["read_only"] as? Bool == true && tools[name]?["destructive"] as? Bool == false, "\(name)")
            }
            for name in ["loans_renew", "loans_renew-all", "library_request"] {
                #expect(tools[name]?["destructive"] as? Bool == true && tools[name]?["read_only"] as? Bool == false, "\(name)")
            }
            #expect(tools["grades"]?["open_world"] as? Bool == true && tools["search"]?["open_world"] as? Bool == false)
            let recipeTools = tools.filter { $0.value["read_only"] as? Bool == true && !["today"].contains($0.key) }
            for (name, tool) in recipeTools {
                #expect(tool["has_output_schema"] as? Bool == true, "\(name) has no outputSchema")
            }
            let checks = try #require(report["checks"] as? [[String: Any]])
            let answered = checks.filter { $0["valid"] != nil }
            for check in answered {
                #expect(check["valid"] as? Bool == true, "\(check)")
            }
            // Every read-only recipe tool was called and answered, not skipped.
            let called = Set(answered.compactMap { $0["tool"] as? String })
            let expected = Set(recipeTools.keys).subtracting(["today"])
            #expect(called == expected, "called \(called.sorted()); skipped or failed: \(checks.filter { $0["valid"] == nil })")
            #expect(answered.contains { $0["tool"] as? String == "grades" && ($0["records"] as? Int ?? 0) > 0 })
            #expect(answered.filter { $0["tool"] as? String == "grades" }.count == 3, "grades: current, all terms, and their totals")
        }
    }

    /// An action that asks first, put to the user by the server through elicitation when the
    /// client has it: the SDK's callback answers accept, decline or cancel; a client without
    /// one gets what would be sent, and its host confirms with `confirm: true`.
    @Test(
        "library_request asks the user through the client: decline and cancel send nothing, accept sends exactly one request; without elicitation nothing is sent until confirm: true",
        arguments: ["accept", "decline", "cancel", "none"])
    func confirmation(answer: String) async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            guard let report = try await drive("confirm-\(answer)", ["--portal", "demo", "mcp"], demo: demo) else { return }
            let request = try #require(report["request"] as? [String: Any])
            let asked = report["asked"] as? [[String: Any]] ?? []
            let sent = await demo.requests.filter { $0.method == "POST" && $0.path.hasPrefix("/library/request") }
            let filed = sent.filter { $0.path == "/library/request/send" }
            let text = request["text"] as? String ?? ""
            if answer != "none" {
                let modelConfirms = try #require(report["model_confirms"] as? [String: Any])
                #expect(modelConfirms["is_error"] as? Bool == true, "\(modelConfirms)")
                #expect((modelConfirms["text"] as? String ?? "").contains("'confirm' is not an argument"), "\(modelConfirms)")
            }
            switch answer {
            case "accept":
                #expect(request["is_error"] as? Bool == false, "\(request)")
                #expect(filed.count == 1, "one request filed: \(sent)")
                let question = asked.first?["message"] as? String ?? ""
                #expect(question.contains("title: Gödel, Escher, Bach") && question.contains("isbn: 978-0-465-02656-2"), "\(asked)")
                // renew-all lists the loans it renews in its question, then renews them.
                let renewAll = try #require(report["renew_all"] as? [String: Any])
                #expect(renewAll["is_error"] as? Bool == false, "\(renewAll)")
                #expect(asked.count == 2 && (asked.last?["message"] as? String ?? "").contains("barcode: "), "\(asked)")
            case "decline", "cancel":
                #expect(request["is_error"] as? Bool == true, "\(request)")
                #expect(text.contains("[declined]") && text.contains("nothing was sent"), "\(text)")
                #expect(text.contains(answer == "decline" ? "declined" : "dismissed"), "\(text)")
                #expect(sent.isEmpty, "nothing reached the library: \(sent)")
                let renewAll = try #require(report["renew_all"] as? [String: Any])
                #expect(renewAll["is_error"] as? Bool == true, "\(renewAll)")
                let renewals = await demo.requests.filter { $0.method == "POST" && $0.path == "/library/renew-all" }
                #expect(renewals.isEmpty, "\(renewals)")
            default:
                #expect(asked.isEmpty)
                #expect(request["is_error"] as? Bool == true, "\(request)")
                #expect(text.contains("title: Gödel, Escher, Bach") && text.contains("confirm: true"), "\(text)")
                // The host asked its person and calls again with confirm: true.
                let confirmed = try #require(report["confirmed"] as? [String: Any])
                #expect(confirmed["is_error"] as? Bool == false, "\(confirmed)")
                #expect(filed.count == 1, "the confirmed call filed one request: \(sent)")
            }
        }
    }

    @Test(
        "terms not accepted and a needed login are tool errors (isError) that name the command to run; no tool takes a password")
    func refusals() async throws {
        try await DemoUniversity.withRunning { demo in
            guard let terms = try await drive("refusals", ["--portal", "demo", "mcp"], demo: demo) else { return }
            let refusal = try #require(terms["grades"] as? [String: Any])
            #expect(refusal["ok"] as? Bool == true && refusal["is_error"] as? Bool == true, "\(refusal)")
            #expect((refusal["text"] as? String ?? "").contains("unitool --portal demo terms accept"), "\(refusal)")
            #expect((refusal["text"] as? String ?? "").contains("[terms_not_accepted]"), "\(refusal)")
            let password = try #require(terms["with_password"] as? [String: Any])
            #expect(
                password["is_error"] as? Bool == true && (password["text"] as? String ?? "").contains("'password' is not an argument"),
                "\(password)")

            try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
            // A user with no stored password: the server does not ask, it names the command.
            guard let login = try await drive("refusals", ["--portal", "demo", "--user", "zed", "mcp"], demo: demo) else { return }
            let needed = try #require(login["grades"] as? [String: Any])
            #expect(needed["is_error"] as? Bool == true, "\(needed)")
            #expect((needed["text"] as? String ?? "").contains("unitool --portal demo auth login --user zed"), "\(needed)")
            #expect(await demo.passwordsReceived == 0, "no password reached the IdP")
        }
    }

    @Test("a cancelled call stops asking the portal, and the server goes on to answer the next call")
    func cancellation() async throws {
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "latency=700")) { demo in
            let client = try await RPCClientProcess.start(
                command: "mcp", arguments: ["--portal", "demo"],
                environment: sandbox.environment.merging(["UNITOOL_DEMO_URL": demo.baseURL.absoluteString]) { $1 })
            defer { client.terminate() }
            var seen: [JSONValue] = []
            #expect(await client.initializeMCP(seen: &seen) != nil, "\(client.stderr)")
            let before = await demo.requestCount
            client.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grades","arguments":{}}}"#)
            // Cancelled once the call is at the portal (the demo answers each request after 700 ms).
            await eventually { await demo.requestCount != before }
            client.sendLine(
                #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user changed their mind"}}"#)
            client.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"grades"}}}"#)
            let next = await client.response(id: .number(3), seen: &seen)
            #expect(next?["result"] != nil, "\(String(describing: next)) \(client.stderr)")
            // The login the cancelled call was in the middle of goes no further: the server ends
            // once its work has (the end of input waits for every call), so whatever the
            // cancelled call still sent is counted by then, without a clock deciding it.
            let settled = await demo.requestCount
            client.closeInput()
            #expect(await client.waitForExit(timeout: 60) != nil, "the server did not end")
            let later = await demo.requestCount
            #expect(later <= settled + 1, "requests went on after the cancellation: \(settled) then \(later)")
            #expect(!seen.contains { $0["id"] == .number(2) }, "a cancelled call is not answered at all (MCP): \(seen)")
        }
    }
}
