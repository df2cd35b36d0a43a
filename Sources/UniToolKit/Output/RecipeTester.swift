import Foundation
import LibXML

/// Offline recipe tests: each recipe against saved pages, compared with the records expected.
///
/// A portal folder may hold `Fixtures/<command>/<case>.html` (or `.xml` for a feed) with
/// `<case>.json` beside it:
///
///     {"url": "https://portal.example.edu/grades?term=2026-spring", "content_type": "text/html; charset=Shift_JIS",
///      "source": null, "today": "2026-11-23", "records": [ ... ]}
///
/// `url` is where the page came from (links are resolved against it), `content_type` the HTTP
/// `Content-Type` it came with (its charset decodes the page as the live run did; `unitool page
/// --fixture` records it), `source` picks one of the recipe's sources, and `today` fixes computed
/// fields such as `overdue`. `--update` writes the records the recipe extracts now, for the author
/// to review and commit.
public enum RecipeTester {
    public struct Case: Sendable {
        public var recipe: DataRecipe
        /// The recipe's portal, for its `charset:`.
        public var portal: PortalRecipe?
        public var page: URL
        public var expected: URL
        public var name: String {
            "\(recipe.portal)/\(recipe.command)/\(RecipeTester.expectationFile(for: page).deletingPathExtension().lastPathComponent)"
        }
    }

    public struct Outcome: Sendable {
        public var name: String
        public var passed: Bool
        /// What differed, or why the recipe failed on the page.
        public var detail: String?
    }

    /// The test cases of every recipe in the catalog whose portal folder has `Fixtures/`.
    public static func cases(in catalog: RecipeCatalog) -> [Case] {
        var result: [Case] = []
        for (_, recipes) in catalog.dataRecipes.sorted(by: { $0.key < $1.key }) {
            for recipe in recipes.values.sorted(by: { $0.command < $1.command }) {
                let folder = URL(fileURLWithPath: recipe.file).deletingLastPathComponent()
                    .appendingPathComponent("Fixtures").appendingPathComponent(recipe.command)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in names.sorted() where pageSuffixes.contains(where: name.hasSuffix) {
                    let page = folder.appendingPathComponent(name)
                    result.append(
                        Case(recipe: recipe, portal: catalog.portals[recipe.portal], page: page, expected: expectationFile(for: page)))
                }
            }
        }
        return result
    }

    /// The cases of the platform recipes' own fixtures (`Fixtures/platforms` in the source tree):
    /// `<product>/<version>/<command>/recipe.yaml`, a recipe built on the platform, and its saved
    /// pages beside it, each case named `<product> <version>/<command>/<case>`.
    public static func platformCases(in root: URL, platforms: URL = RecipeComposer.bundledPlatforms) throws -> [Case] {
        let manager = FileManager.default
        func folders(_ url: URL) -> [URL] {
            ((try? manager.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? []).filter(\.hasDirectoryPath)
                .sorted { $0.path < $1.path }
        }
        var result: [Case] = []
        for product in folders(root) {
            for version in folders(product) {
                for command in folders(version) {
                    let file = command.appendingPathComponent("recipe.yaml")
                    guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                    let recipe = try DataRecipe.load(
                        file: file.path, text: text, portal: "\(product.lastPathComponent) \(version.lastPathComponent)",
                        platforms: platforms)
                    let names = (try? manager.contentsOfDirectory(atPath: command.path)) ?? []
                    for name in names.sorted() where pageSuffixes.contains(where: name.hasSuffix) {
                        let page = command.appendingPathComponent(name)
                        result.append(Case(recipe: recipe, portal: nil, page: page, expected: expectationFile(for: page)))
                    }
                }
            }
        }
        return result
    }

    /// The saved pages a case can have: a page, a feed, a calendar, or a JSON answer (named
    /// `.page.json`, since `<case>.json` holds what is expected).
    public static let pageSuffixes = [".html", ".xml", ".ics", ".page.json"]

    /// `<case>.json` beside `<case>.html`, `<case>.ics` or `<case>.page.json`.
    public static func expectationFile(for page: URL) -> URL {
        var name = page.lastPathComponent
        if let suffix = pageSuffixes.first(where: name.hasSuffix) { name = String(name.dropLast(suffix.count)) }
        return page.deletingLastPathComponent().appendingPathComponent(name + ".json")
    }

    struct Expectation {
        var url: String
        var contentType: String?
        var source: String?
        var today: String
        var records: Any?
    }

    /// Runs one case. With `update`, writes what the recipe extracts as the new expectation.
    public static func run(_ testCase: Case, update: Bool) -> Outcome {
        let expectation: Expectation
        do {
            expectation = try readExpectation(testCase, creating: update)
        } catch {
            return Outcome(name: testCase.name, passed: false, detail: "\(error)")
        }
        let extracted: RecordSet
        do {
            guard let source = testCase.recipe.source(named: expectation.source) else {
                let (file, name) = (testCase.expected.path, expectation.source ?? "")
                throw UniToolError(.recipeInvalid, localized("\(file): 'source' \(name) is not a source of the recipe"))
            }
            let extractor = RecordExtractor(recipe: testCase.recipe, source: source, today: expectation.today, portal: testCase.portal)
            let bytes = Array(try Data(contentsOf: testCase.page))
            guard let url = URL(string: expectation.url) else {
                throw UniToolError(.recipeInvalid, localized("\(testCase.expected.path): 'url' \(expectation.url) is not an address"))
            }
            let document = try extractor.parse(
                bytes, url: url, charset: Page.charset(ofContentType: expectation.contentType),
                charsetOverride: testCase.portal?.charsetOverride(for: url))
            if update, document.decodingErrors > 0 {
                // Records from a misread page would be mojibake written down as the truth.
                let (page, expectedFile) = (testCase.page.lastPathComponent, testCase.expected.lastPathComponent)
                let (encoding, chosenBy) = (document.encoding.name, document.encodingSource.rawValue)
                throw UniToolError(
                    .recipeInvalid,
                    localized(
                        "\(page): \(document.decodingErrors) byte sequence(s) are not valid \(encoding) (chosen by \(chosenBy)), so nothing was written; give the page's real encoding as 'content_type' in \(expectedFile) (as 'unitool page --fixture' saves it) or as 'charset:' in the recipe"
                    )
                )
            }
            extracted = try extractor.extract(from: document)
        } catch let error as UniToolError {
            return Outcome(name: testCase.name, passed: false, detail: error.message)
        } catch {
            return Outcome(name: testCase.name, passed: false, detail: "\(error)")
        }
        let actualText = JSONRenderer.array(extracted)
        let actual = try? JSONSerialization.jsonObject(with: Data(actualText.utf8), options: [.fragmentsAllowed])
        if update {
            let text =
                "{\n  \"url\": \(JSONString.quoted(expectation.url)),\n"
                + (expectation.contentType.map { "  \"content_type\": \(JSONString.quoted($0)),\n" } ?? "")
                + "  \"source\": \(expectation.source.map(JSONString.quoted) ?? "null"),\n  \"today\": \(JSONString.quoted(expectation.today)),\n  \"records\": "
                + actualText.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\n", with: "\n  ") + "\n}\n"
            do {
                try AtomicFile.write(Data(text.utf8), to: testCase.expected, mode: 0o644)
            } catch {
                return Outcome(name: testCase.name, passed: false, detail: localized("cannot write \(testCase.expected.path): \(error)"))
            }
            let written = extracted.records.count
            let records = localized("\(written) record", plural: "\(written) records", count: written)
            return Outcome(
                name: testCase.name, passed: true, detail: localized("updated \(testCase.expected.lastPathComponent) (\(records))"))
        }
        if expectation.records == nil || expectation.records is NSNull {
            return Outcome(
                name: testCase.name, passed: false,
                detail: localized(
                    "\(testCase.expected.lastPathComponent) has no records yet: run 'unitool recipes test --update' to write them from the page, then check them"
                )
            )
        }
        guard let expected = expectation.records as? [Any], let actualRecords = actual as? [Any] else {
            return Outcome(name: testCase.name, passed: false, detail: localized("\(testCase.expected.path): 'records' must be a list"))
        }
        if let difference = describeDifference(expected: expected, actual: actualRecords) {
            return Outcome(name: testCase.name, passed: false, detail: difference)
        }
        let count = actualRecords.count
        return Outcome(name: testCase.name, passed: true, detail: localized("\(count) record", plural: "\(count) records", count: count))
    }

    private static func readExpectation(_ testCase: Case, creating: Bool) throws -> Expectation {
        guard let data = try? Data(contentsOf: testCase.expected) else {
            guard creating else {
                throw UniToolError(
                    .recipeInvalid, localized("\(testCase.expected.path) is missing"),
                    hint: localized("run 'unitool recipes test --update' to write it from the page, then check it"))
            }
            let path = (try? testCase.recipe.primary.fetch.render([:])) ?? "/"
            return Expectation(
                url: "https://portal.example.edu" + (path.hasPrefix("/") ? path : "/" + path), contentType: nil, source: nil,
                today: RecordExtractor.localToday(), records: nil)
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw UniToolError(.recipeInvalid, localized("\(testCase.expected.path) is not a JSON object"))
        }
        guard let url = object["url"] as? String, URL(string: url) != nil else {
            throw UniToolError(.recipeInvalid, localized("\(testCase.expected.path): 'url' (where the page came from) is missing"))
        }
        return Expectation(
            url: url, contentType: object["content_type"] as? String, source: object["source"] as? String,
            today: object["today"] as? String ?? RecordExtractor.localToday(),
            records: object["records"])
    }

    /// The first record and field that differ, in words.
    static func describeDifference(expected: [Any], actual: [Any]) -> String? {
        for index in 0..<max(expected.count, actual.count) {
            let number = index + 1
            guard index < expected.count else {
                let record = render(actual[index])
                return localized("record \(number) was not expected: \(record)")
            }
            guard index < actual.count else {
                let record = render(expected[index])
                return localized("record \(number) is missing: expected \(record)")
            }
            let want = expected[index] as? [String: Any] ?? [:]
            let got = actual[index] as? [String: Any] ?? [:]
            for key in Set(want.keys).union(got.keys).sorted() {
                let wanted = want[key].map(render) ?? localized("(no field)")
                let found = got[key].map(render) ?? localized("(no field)")
                if wanted != found {
                    return localized("record \(number), field '\(key)': expected \(wanted), got \(found)")
                }
            }
        }
        return nil
    }

    private static func render(_ value: Any) -> String {
        guard JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]),
            let text = String(data: data, encoding: .utf8)
        else { return "\(value)" }
        return String(text.dropFirst().dropLast())
    }
}
