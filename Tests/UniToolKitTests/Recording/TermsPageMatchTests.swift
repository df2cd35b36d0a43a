import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A recorded terms page that shows its version becomes `terms: { version_page, … }` (issue 48):
/// portals without a terms API print the version on the page, in their own language.
@Suite("Recording: a terms page that shows its version is the terms: section")
struct TermsPageMatchTests {
    static func match(_ html: String) throws -> TermsPageMatch? {
        TermsPageMatch.match(try Document(html: Array(html.utf8), url: "https://portal.example.edu/terms"))
    }

    @Test("the heading says terms of use in any language, the version as it is written; the XPath holds no number")
    func recognisesTermsPages() throws {
        let japanese = try Self.match(
            "<html><head><title>利用規約 第3.2版</title></head><body><h1>学務情報システム 利用規約</h1><p class='version' data-ver='3.2'>第3.2版</p><ol><li>本システムは…</li></ol></body></html>"
        )
        #expect(japanese?.version == "3.2" && japanese?.xpath == "//p[@class='version']", "\(String(describing: japanese))")
        let german = try Self.match(
            "<html><body><nav><a href='/'>Start</a></nav><h1>Nutzungsbedingungen</h1><p>Version 3.2 vom 1. April 2026</p><p>§1 Geltungsbereich</p></body></html>"
        )
        #expect(german?.version == "3.2" && german?.xpath == "//p[text()[contains(., 'Version')]]", "\(String(describing: german))")
        let english = try Self.match("<html><body><h1>Terms of Use (version 4, 2026)</h1><p>1. Be kind.</p></body></html>")
        #expect(english?.version == "4" && english?.xpath == "//h1[text()[contains(., 'version')]]", "\(String(describing: english))")
        let hungarian = try Self.match(
            "<html><body><h2 id='cim'>Felhasználási feltételek</h2><div id='ver'>v 2.1</div></body></html>")
        #expect(hungarian?.version == "2.1" && hungarian?.xpath == "//*[@id='ver']", "\(String(describing: hungarian))")
        let japaneseSuffix = try Self.match("<html><body><h1>利用条件</h1><span>2.0版（2026年4月1日）</span></body></html>")
        #expect(japaneseSuffix?.version == "2.0", "\(String(describing: japaneseSuffix))")
    }

    @Test("a page that does not say terms of use, or shows no version, is no terms page")
    func leavesOtherPages() throws {
        #expect(try Self.match("<html><body><h1>Release notes</h1><p>Version 3.2</p></body></html>") == nil)
        #expect(try Self.match("<html><body><h1>Terms of use</h1><p>1. Be kind.</p></body></html>") == nil)
        #expect(try Self.match("<html><body><h1>Grades</h1><p>See the terms of use, version 3</p></body></html>") == nil)
    }

    static let termsPage =
        "<html><head><title>利用規約 第3.2版</title></head><body><h1>利用規約</h1><p class='version'>第3.2版</p><ol><li>本システムは…</li></ol></body></html>"

    @Test(
        "recipes new: the terms page is the terms: section (version_page, version_xpath, version_regex) and no command; the report says so")
    func draftWritesTermsPage() throws {
        let base = "https://portal.example.edu"
        let archive = try RecordingBoundariesTests.login(pages: [
            RecordingBoundariesTests.entry("GET", "\(base)/campus/terms.html", html: Self.termsPage),
            RecordingBoundariesTests.entry("GET", "\(base)/grades", html: RecordingBoundariesTests.table),
        ])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let portalYAML = RecordingBoundariesTests.text(draft, "portal.yaml")
        #expect(portalYAML.contains("  version_page: \"/campus/terms.html\"\n"), "\(portalYAML)")
        #expect(portalYAML.contains("  version_xpath: \"//p[@class='version']\"\n"), "\(portalYAML)")
        #expect(!portalYAML.contains("version_api"), "\(portalYAML)")
        #expect(draft.commands == ["grades"], "\(draft.commands)")
        #expect(
            draft.recognised.contains { $0.contains("/campus/terms.html is the terms of use") && $0.contains("version '3.2'") },
            "\(draft.recognised)")
        let terms = try #require(try PortalRecipe.load(file: "portal.yaml", text: portalYAML).terms)
        guard case .page(let path, let xpath, let regex) = terms.version else {
            Issue.record("\(terms.version)")
            return
        }
        #expect(path == "/campus/terms.html")
        let document = try Document(html: Array(Self.termsPage.utf8), url: "\(base)/campus/terms.html")
        let read = try CurrentTerms.read(
            page: document, from: URL(string: "\(base)/campus/terms.html")!, xpath: xpath, regex: regex, textXPath: nil)
        #expect(read.version == "3.2")
    }

    @Test("recipes new: with a JSON terms API in the recording, the API gives the version, and the terms page is still no command")
    func draftPrefersTheAPI() throws {
        let base = "https://portal.example.edu"
        let archive = try RecordingBoundariesTests.login(pages: [
            RecordingBoundariesTests.entry("GET", "\(base)/campus/terms.html", html: Self.termsPage),
            RecordingBoundariesTests.entry("GET", "\(base)/api/terms", json: #"{"version": "3.2"}"#, type: "fetch"),
            RecordingBoundariesTests.entry("GET", "\(base)/grades", html: RecordingBoundariesTests.table),
        ])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        let portalYAML = RecordingBoundariesTests.text(draft, "portal.yaml")
        #expect(portalYAML.contains("version_api: \"/api/terms\"") && !portalYAML.contains("version_page"), "\(portalYAML)")
        #expect(draft.commands == ["grades"], "\(draft.commands)")
        #expect(draft.recognised.contains { $0.contains("the terms API's JSON gives the version") }, "\(draft.recognised)")
    }
}
