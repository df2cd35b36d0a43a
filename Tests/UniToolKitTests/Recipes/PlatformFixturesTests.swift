import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Every platform recipe against its products' own page structures, per version (issue 35):
/// `Fixtures/platforms/<product>/<version>/` holds a page per state, rebuilt from the product's
/// templates with text of our own, and `expected.json` names the rule that must match first; a
/// data platform's `<command>/` folder holds a recipe built on it and cases in `recipes test`'s
/// format.
@Suite("Platform recipes on their products' own pages, version by version")
struct PlatformFixturesTests {
    static let root = Fixtures.root.appendingPathComponent("Fixtures/platforms")

    /// The products and versions universities run, as the issue lists them.
    static let versions: [String: [String]] = [
        "keycloak": ["26-v1", "26-v2"], "cas": ["6.6", "7.1", "django-cas-server-3.1"], "shibboleth-idp": ["4.3", "5.1"],
        "simplesamlphp": ["1.19", "2.3"], "moodle": ["4.1", "4.5"], "koha": ["23.11", "24.05"],
    ]

    struct LoginPage: Sendable, CustomTestStringConvertible {
        var folder: URL
        var state: String
        var platform: String
        var with: [String: String]
        var rule: String?
        var fields: [String]
        var message: String?
        var template: String
        var testDescription: String {
            "\(folder.deletingLastPathComponent().lastPathComponent) \(folder.lastPathComponent): \(state) → \(rule ?? "no rule")"
        }
    }

    static func folders() -> [URL] {
        let manager = FileManager.default
        let products = (try? manager.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? []
        return products.flatMap { (try? manager.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)) ?? [] }
            .filter { $0.hasDirectoryPath }.sorted { $0.path < $1.path }
    }

    static func loginPages() -> [LoginPage] {
        folders().flatMap { folder -> [LoginPage] in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("expected.json")),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let platform = object["platform"] as? String, let pages = object["pages"] as? [String: [String: Any]]
            else { return [] }
            return pages.keys.sorted().map { state in
                let page = pages[state] ?? [:]
                return LoginPage(
                    folder: folder, state: state, platform: platform, with: object["with"] as? [String: String] ?? [:],
                    rule: page["rule"] as? String, fields: page["fields"] as? [String] ?? [], message: page["message"] as? String,
                    template: page["template"] as? String ?? "")
            }
        }
    }

    /// The data platforms' cases, as `recipes test --platforms` runs them (a recipe that does not
    /// load fails `coverage`, so none is left out unseen).
    static func dataPages() -> [RecipeTester.Case] { (try? RecipeTester.platformCases(in: root)) ?? [] }

    @Test("every product has fixtures for every version universities run, with a page per state and a template named for each")
    func coverage() throws {
        for (product, wanted) in Self.versions {
            for version in wanted {
                let folder = Self.root.appendingPathComponent(product).appendingPathComponent(version)
                #expect(FileManager.default.fileExists(atPath: folder.path), "no fixtures for \(product) \(version)")
            }
        }
        // Every data platform's recipes load: a case that cannot is a failure, never a case less.
        #expect(try RecipeTester.platformCases(in: Self.root).count >= 20)
        for page in Self.loginPages() {
            #expect(!page.template.isEmpty, "\(page.testDescription): name the template it follows")
            #expect(
                FileManager.default.fileExists(atPath: page.folder.appendingPathComponent("\(page.state).html").path),
                "\(page.testDescription): no \(page.state).html")
        }
    }

    static func loginRecipe(_ page: LoginPage) throws -> LoginRecipe {
        var text =
            "portal: fixtures\nbase_url: https://portal.example.edu\nidp_url: https://idp.example.edu/\nlogin:\n  use: \(page.platform)\n"
        if !page.with.isEmpty {
            text += "  with:\n" + page.with.sorted { $0.key < $1.key }.map { "    \($0.key): \"\($0.value)\"\n" }.joined()
        }
        return try PortalRecipe.load(file: "fixtures/portal.yaml", text: text).login
    }

    @Test(
        "each login page is known by the rule written for it, and the rule finds what it fills, submits and quotes", arguments: loginPages()
    )
    func loginPage(_ page: LoginPage) throws {
        let recipe = try Self.loginRecipe(page)
        let bytes = Array(try Data(contentsOf: page.folder.appendingPathComponent("\(page.state).html")))
        let document = try Document(html: bytes, url: "https://idp.example.edu/login", charsetOverride: "UTF-8")
        let matched = try recipe.pages.first { try document.evaluate($0.when).booleanValue }
        #expect(matched?.name == page.rule, "rules tried in order: \(recipe.pages.map(\.name))")
        guard let matched, matched.name == page.rule else { return }
        let present = Set(
            try document.select("//input[@name] | //select[@name] | //textarea[@name] | //button[@name]").compactMap {
                $0.attribute("name")
            })
        for field in page.fields { #expect(present.contains(field), "the page has no field \(field)") }
        switch matched.action {
        case .fill(let values, let submit):
            for (name, _) in values { #expect(present.contains(name), "rule '\(matched.name)' fills \(name), which the page lacks") }
            let anchor = try document.select(matched.when).first
            let form =
                try matched.form.flatMap { try document.select($0).first } ?? anchor?.select("ancestor-or-self::form").first
                ?? document.select("//form").first
            let found = try #require(form, "rule '\(matched.name)' has no form to fill")
            if let submit { #expect(try !found.select(submit).isEmpty, "rule '\(matched.name)': submit \(submit) selects nothing") }
        case .fail(_, let messageXPath):
            guard let message = page.message else { break }
            let value = try document.evaluate(messageXPath ?? matched.when)
            let text: String
            switch value {
            case .nodes(let nodes): text = nodes.first?.normalizedText ?? ""
            default: text = value.stringValue.collapsingWhitespace()
            }
            #expect(text == message)
        case .follow(let xpath):
            #expect(try !document.select(xpath).isEmpty || !document.evaluate(xpath).stringValue.isEmpty, "follow \(xpath) finds nothing")
        case .autoSubmit, .restart:
            break
        }
    }

    @Test("each data page gives the records expected of the platform's recipe", arguments: dataPages())
    func dataPage(_ testCase: RecipeTester.Case) {
        let outcome = RecipeTester.run(testCase, update: false)
        #expect(outcome.passed, "\(outcome.detail ?? "")")
    }
}

extension RecipeTester.Case: CustomTestStringConvertible {
    /// `moodle 4.5/timeline/upcoming`, as `recipes test` names it.
    public var testDescription: String { name }
}
