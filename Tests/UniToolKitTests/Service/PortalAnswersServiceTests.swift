import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// What the portal answered is said as what it is (issue 47, item 9): a page it does not have
/// is "not found", and JSON a browser reads is read, not called "not JSON".
@Suite("The portal's answers named as they are: a bare 404, JSON as a browser reads it")
struct PortalAnswersServiceTests {
    static func recipe(_ text: String) throws -> DataRecipe {
        try DataRecipe.load(file: "pack/demo/x.yaml", text: text, portal: "demo")
    }

    @Test("a data page the portal answers with an empty 404 is 'not found' (portal_error), not a changed layout")
    func bareNotFound() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let recipe = try Self.recipe(
            """
            command: gone
            summary: A page the portal does not have
            fetch: /no-such-page
            rows: "//tr"
            fields:
              title: { xpath: "td[1]" }
            """)
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.execute(
                        try RecipeRequest(recipe: recipe, options: [], naming: .rpc), of: recipe, interaction: Unattended())
                }
            }
            #expect(error?.kind == .portalError, "\(String(describing: error))")
            #expect(error?.message.contains("answered 404") == true, "\(String(describing: error))")
        }
    }

    @Test("a portal's JSON with a lone surrogate and 1e300 is read as a browser reads it: U+FFFD, and the number")
    func browserJSON() throws {
        let recipe = try Self.recipe(
            """
            command: odd
            summary: JSON with odd corners
            fetch: /api/odd
            parse: json
            rows: "/json/items/item"
            fields:
              title: { xpath: "title" }
              size: { xpath: "size", type: number }
            """)
        let portal = try RecipeCatalog(directories: [Fixtures.recipes]).portal("demo")
        let extractor = RecordExtractor(recipe: recipe, portal: portal)
        let body = #"{"items": [{"title": "a\ud800b", "size": 1e300}, {"title": "\udc00", "size": -2.5E-3}]}"#
        let document = try extractor.parse(
            Array(body.utf8), url: URL(string: "https://portal.example.edu/api/odd")!, charset: "utf-8")
        let records = try extractor.extract(from: document).records
        #expect(records.count == 2)
        #expect(records.first?["title"] == .string("a\u{FFFD}b"))
        #expect(records.first?["size"] == .number(1e300))
        #expect(records.last?["title"] == .string("\u{FFFD}"))
        #expect(records.last?["size"] == .number(-0.0025))
    }

    @Test("an address with a scheme and no host ('http:127.0.0.10:8080/x') is refused by its own name as not a full address")
    func schemeWithoutHost() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.fetch("http:127.0.0.10:8080/x", interaction: Unattended())
                }
            }
            #expect(error?.message.contains("'http:127.0.0.10:8080/x' is not a full address") == true, "\(String(describing: error))")
            #expect(error?.message.contains("a request to http://") == false)
            let requests = await demo.requests
            #expect(requests.isEmpty, "\(requests)")
        }
    }
}
