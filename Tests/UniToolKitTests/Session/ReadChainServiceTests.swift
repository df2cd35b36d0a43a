import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Chained `read:` values through the service against a real HTTP server (issue 48): a session
/// key read off a form page is posted in the form whose answer holds the next value, in the
/// order the recipe writes them.
@Suite("read: values in a chain, through the service")
struct ReadChainServiceTests {
    /// A portal pack in a directory of its own, with `recipe` as its `export` command.
    func bench(for portal: RecordingHTTPServer, recipe: String) throws -> (DemoServiceBench, URL) {
        let recipes = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-recipes-\(UUID().uuidString)")
        let pack = recipes.appendingPathComponent("chain")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try
            "portal: chain\nbase_url: \(portal.baseURL.absoluteString)\nlogin: { pages: [{ name: never, when: \"//form[@id='never']\", auto_submit: true }] }\n"
            .write(to: pack.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try recipe.write(to: pack.appendingPathComponent("export.yaml"), atomically: true, encoding: .utf8)
        return (try DemoServiceBench(recipes: [recipes]), recipes)
    }

    func run(_ bench: DemoServiceBench, at portal: RecordingHTTPServer, configuration: HTTPSession.Configuration = .init())
        async throws -> RecordSet
    {
        let recipe = try bench.recipe("export", portal: "chain")
        let request = try bench.request("export", [:], portal: "chain")
        return try await bench.withService(at: portal.baseURL, portal: "chain", configuration: configuration) { service, _ in
            try await service.execute(request, of: recipe, interaction: Unattended()).records
        }
    }

    @Test("a later read posts an earlier read's value (a session key) and the fetch uses the later one")
    func laterReadPostsEarlierValue() async throws {
        let portal = try RecordingHTTPServer { request in
            switch (request.method, request.path) {
            case ("GET", "/form"): .status(200, body: #"<form method="post"><input type="hidden" name="sesskey" value="k-123"></form>"#)
            case ("POST", "/form"):
                request.body.contains("sesskey=k-123")
                    ? .status(200, body: #"<input id="token" value="t-9">"#) : .status(403, body: "<p>bad session key</p>")
            default: .status(200, body: "<ul><li>listed</li></ul>")
            }
        }
        defer { portal.stop() }
        let (bench, recipes) = try bench(
            for: portal,
            recipe: """
                command: export
                login: false
                read:
                  sesskey: { fetch: /form, xpath: "//input[@name='sesskey']/@value" }
                  token: { fetch: /form, method: post, form: { sesskey: "{{sesskey}}", go: "1" }, xpath: "//input[@id='token']/@value" }
                fetch: /list?token={{token}}
                rows: //li
                fields: { name: { xpath: ".", required: true } }

                """)
        defer {
            bench.remove()
            try? FileManager.default.removeItem(at: recipes)
        }
        let set = try await run(bench, at: portal)
        #expect(set.records.count == 1)
        let sent = portal.requests.map { "\($0.method) \($0.path) \($0.body)" }
        #expect(sent == ["GET /form ", "POST /form sesskey=k-123&go=1", "GET /list?token=t-9 "], "\(sent)")
    }
}
