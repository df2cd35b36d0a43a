import DemoUniversity
import Foundation
import LibXML
import Testing
import UniToolKit
import UniToolTestSupport

/// `terms: { version_page, version_xpath, version_regex }`: the version read where the terms page
/// shows it, for portals that have no terms API.
@Suite("The terms version read from the terms page")
struct TermsPageTests {
    static let base = "portal: p\nbase_url: https://portal.example.edu\nlogin: { pages: [{ when: \"//form\", auto_submit: true }] }\n"

    static func load(_ terms: String) throws -> TermsRecipe? {
        try PortalRecipe.load(file: "p.yaml", text: base + "terms:\n" + terms).terms
    }

    static func problem(_ terms: String) -> String? {
        do {
            _ = try load(terms)
            return nil
        } catch let error as UniToolError {
            return error.kind == .recipeInvalid ? error.message + " " + (error.hint ?? "") : "\(error.kind)"
        } catch {
            return "\(error)"
        }
    }

    @Test("version_page with version_xpath and version_regex is read; the API's way is still read as before")
    func readsBothWays() throws {
        let page = try Self.load(
            "  version_page: /campus/terms.html\n  version_xpath: \"//p[@class='version']\"\n  version_regex: \"第([0-9.]+)版\"\n")
        #expect(page?.version == .page(path: "/campus/terms.html", xpath: "//p[@class='version']", regex: "第([0-9.]+)版"))
        #expect(page?.versionPath == "/campus/terms.html")
        let api = try Self.load("  version_api: /api/terms\n  version_field: data.version\n")
        #expect(api?.version == .api(path: "/api/terms", field: "data.version"))
    }

    @Test("exactly one way to the version: both, neither, the other way's keys, a regex without a group and unknown keys are refused")
    func refusesMixedOrBroken() {
        #expect(
            Self.problem("  version_api: /api\n  version_page: /terms\n  version_xpath: //p\n")?.contains("not both") == true)
        #expect(Self.problem("  version_page: /terms\n  version_xpath: //p\n  url_field: url\n")?.contains("url_field") == true)
        #expect(Self.problem("  version_api: /api\n  version_xpath: //p\n")?.contains("version_xpath") == true)
        #expect(Self.problem("  text_xpath: //main\n")?.contains("version_page") == true)
        #expect(Self.problem("  version_page: /terms\n")?.contains("version_xpath") == true)
        #expect(
            Self.problem("  version_page: /terms\n  version_xpath: //p\n  version_regex: \"Version [0-9.]+\"\n")?.contains("no group")
                == true)
        #expect(
            Self.problem("  version_page: /terms\n  version_xpath: //p\n  version_regex: \"(\"\n")?.contains("not a regular expression")
                == true)
        #expect(Self.problem("  version_page: /terms\n  version_xpath: \"//p[\"\n") != nil)
        #expect(Self.problem("  version_page: /terms\n  version_xpath: //p\n  version_regx: \"(.*)\"\n")?.contains("version_regex") == true)
    }

    static func read(_ html: String, xpath: String, regex: String?, text: String? = nil) throws -> CurrentTerms {
        let url = URL(string: "https://portal.example.edu/terms")!
        let document = try Document(html: Array(html.utf8), url: url.absoluteString)
        return try CurrentTerms.read(page: document, from: url, xpath: xpath, regex: regex, textXPath: text)
    }

    @Test(
        "the version as pages print it: 第3.2版, 'Version 3.2 vom …', '(version 4, 2026)', or an XPath string; the page is the terms' text and address"
    )
    func readsVersions() throws {
        let japanese = try Self.read(
            "<html><body><h1>利用規約</h1><p class='version'>第3.2版</p><ol><li>本システムは…</li></ol></body></html>",
            xpath: "//p[@class='version']", regex: "第([0-9.]+)版")
        #expect(japanese.version == "3.2")
        #expect(japanese.url?.absoluteString == "https://portal.example.edu/terms")
        #expect(japanese.text?.contains("本システムは") == true)
        let german = try Self.read(
            "<html><body><h1>Nutzungsbedingungen</h1><p id='stand'>Version 3.2 vom 1. April 2026</p><main><p>§1</p></main></body></html>",
            xpath: "//*[@id='stand']", regex: "Version ([0-9.]+)", text: "//main")
        #expect(german.version == "3.2" && german.text == "§1")
        let english = try Self.read(
            "<html><body><h1>Terms of Use (version 4, 2026)</h1></body></html>", xpath: "//h1", regex: "(?i)version ([0-9.]+)")
        #expect(english.version == "4")
        let attribute = try Self.read(
            "<html><body><p class='version' data-ver='3.2'>第3.2版</p></body></html>", xpath: "string(//p/@data-ver)", regex: nil)
        #expect(attribute.version == "3.2")
    }

    @Test("no readable version fails closed as terms_unavailable, naming the key to check")
    func failsClosed() {
        let html = "<html><body><h1>Terms of use</h1><p class='version'>Version 3.2</p></body></html>"
        #expect {
            try Self.read(html, xpath: "//p[@class='stand']", regex: nil)
        } throws: { ($0 as? UniToolError)?.kind == .termsUnavailable && ($0 as? UniToolError)?.hint?.contains("version_xpath") == true }
        #expect {
            try Self.read(html, xpath: "//p[@class='version']", regex: "第([0-9.]+)版")
        } throws: { ($0 as? UniToolError)?.kind == .termsUnavailable && ($0 as? UniToolError)?.hint?.contains("version_regex") == true }
        #expect {
            try Self.read(html, xpath: "string(//p/@data-ver)", regex: nil)
        } throws: { ($0 as? UniToolError)?.kind == .termsUnavailable }
    }

    /// The demo's recipe, its terms read from the demo's own terms page ("Version 2026-09").
    static func demoReadingPage(_ bench: DemoServiceBench, on demo: DemoUniversity, xpath: String) throws -> PortalRecipe {
        var portal = try bench.catalog.portal("demo").relocated(to: demo.baseURL, hosts: demo.serviceHosts)
        portal.terms = TermsRecipe(
            versionPage: "/terms", versionXPath: xpath, versionRegex: "Version (\\S+)", textXPath: "//main[@id='terms']")
        return portal
    }

    @Test("against the demo's terms page: the version, a new one published while it runs, and the page's text for 'terms show'")
    func demoTermsPage() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let portal = try Self.demoReadingPage(bench, on: demo, xpath: "//p[@class='terms-version']")
            let (current, text) = try await bench.withService(for: portal) { _, connection in
                (try await connection.currentTerms(), try await connection.termsText())
            }
            #expect(current?.version == DemoUniversity.initialTermsVersion)
            #expect(text.url?.path == "/terms")
            #expect(text.text?.contains("Demo University is a demonstration portal") == true)
            await demo.publishTerms(version: "2027-02")
            let status = try await bench.withService(for: portal) { _, connection in try await connection.termsStatus(bench.acceptedTerms) }
            #expect(status.current?.version == "2027-02" && status.refusal?.kind == .termsNotAccepted)
            let requests = await demo.requests
            #expect(requests.map(\.path).allSatisfy { $0 == "/terms" }, "\(requests)")
        }
    }

    @Test("against the demo: a terms page whose version is not where the recipe says refuses data calls (terms_unavailable)")
    func demoFailsClosed() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let portal = try Self.demoReadingPage(bench, on: demo, xpath: "//p[@class='moved']")
            let request = try bench.request("grades")
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(for: portal, password: "unused") { service, _ in
                    try await service.execute(request, of: try bench.recipe("grades"), interaction: Unattended()).records
                }
            }
            #expect(error?.kind == .termsUnavailable, "\(String(describing: error))")
            // As with the API: the first page may be asked for beside the check, but the login it
            // meets waits for the verdict, and nothing is handed out.
            let requests = await demo.requests
            #expect(requests.contains { $0.path == "/terms" } && requests.allSatisfy { $0.method == "GET" }, "\(requests)")
        }
    }
}
