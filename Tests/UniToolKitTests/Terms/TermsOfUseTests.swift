import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

@Suite("Terms of use: the version API's answer, and the accepted version on disk")
struct TermsOfUseTests {
    let api = URL(string: "https://portal.example.edu/api/terms/version")!

    func recipe(version: String = "version", url: String? = nil, text: String? = nil) -> TermsRecipe {
        TermsRecipe(versionAPI: "/api/terms/version", versionField: version, textField: text, urlField: url)
    }

    func decode(_ json: String, _ recipe: TermsRecipe) throws -> CurrentTerms {
        try CurrentTerms.decode(Array(json.utf8), from: api, recipe: recipe)
    }

    @Test("too-deep JSON gets its own message, not 'not JSON'; brackets inside strings do not count")
    func tooDeepJSON() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        do {
            _ = try decode(deep, recipe())
            Issue.record("a 600-level answer was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .termsUnavailable)
            #expect(error.message.contains("nested 600 levels deep"), "\(error.message)")
            #expect(!error.message.contains("did not answer with JSON"))
        }
        let bracketsInText = #"{"version": "v1", "note": ""# + String(repeating: "[{", count: 100) + #""}"#
        #expect(try decode(bracketsInText, recipe()).version == "v1")
    }

    @Test("JSON with trailing commas is read as portals mean it; commas inside strings are left alone")
    func trailingCommas() throws {
        #expect(try decode(#"{"currentTermVersion": "3.1.0",}"#, recipe(version: "currentTermVersion")).version == "3.1.0")
        #expect(try decode("{\"a\": [1, 2,\n ],\n \"version\": \"v2\" ,\t}", recipe()).version == "v2")
        #expect(try decode(#"{"version": "x,}", }"#, recipe()).version == "x,}")
        #expect(String(decoding: CurrentTerms.withoutTrailingCommas(Array(#"{"v": "a,]",}"#.utf8)), as: UTF8.self) == #"{"v": "a,]"}"#)
        // Still not JSON: a comma with nothing before it is not forgiven.
        #expect { try decode(#"{,"version": "v1"}"#, recipe()) } throws: { ($0 as? UniToolError)?.kind == .termsUnavailable }
    }

    @Test("the version, a URL resolved against the API and the text are read from the fields the recipe names")
    func readsFields() throws {
        let terms = try decode(
            #"{"data": {"terms": [{"version": "v7", "link": "/legal/terms", "body": "Be nice."}]}}"#,
            recipe(version: "data.terms.0.version", url: "data.terms.0.link", text: "data.terms.0.body"))
        #expect(terms.version == "v7")
        #expect(terms.url?.absoluteString == "https://portal.example.edu/legal/terms")
        #expect(terms.text == "Be nice.")
    }

    @Test(
        "an answer unitool cannot read as a version is terms_unavailable, naming what was wrong",
        arguments: [
            ("<html><body>Maintenance</body></html>", "did not answer with JSON"),
            (#"{"updated": "2026-09-01"}"#, "without the field 'version'"),
            (#"{"version": 202609}"#, "as a number or boolean"),
            (#"{"version": true}"#, "as a number or boolean"),
            (#"{"version": null}"#, "without the field 'version'"),
            (#"{"version": ""}"#, "an empty text"),
            (#"{"version": ["2026"]}"#, "as a list"),
            (#"["2026-09"]"#, "without the field 'version'"),
        ])
    func unreadableAnswers(body: String, cause: String) throws {
        do {
            let terms = try decode(body, recipe())
            Issue.record("read \(terms) from \(body)")
        } catch let error as UniToolError {
            #expect(error.kind == .termsUnavailable)
            #expect(error.message.contains(cause), "\(error.message)")
            #expect(error.message.contains("portal.example.edu/api/terms/version"))
        }
    }

    @Test("a field path with an empty step is rejected when the recipe loads")
    func badFieldPathInRecipe() throws {
        let text = """
            portal: x
            base_url: https://portal.example.edu
            login:
              pages:
                - { when: "//form", auto_submit: true }
            terms:
              version_api: /api/terms
              version_field: data..version
            """
        #expect { try PortalRecipe.load(file: "x/portal.yaml", text: text) } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
        do {
            _ = try PortalRecipe.load(file: "x/portal.yaml", text: text)
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains("x/portal.yaml:8"), "\(error.message)")
            #expect(error.message.contains("terms.version_field"))
        }
    }

    @Test("the refusal names both versions once some version was accepted, and the two commands to run")
    func refusalMessage() {
        let portal = TermsStatus.PortalIdentity(id: "demo", name: "Demo University")
        let current = CurrentTerms(version: "2027-02")
        let first = TermsStatus(portal: portal, current: current, accepted: nil)
        #expect(first.refusal?.kind == .termsNotAccepted)
        #expect(first.refusal?.message.contains("you have not accepted") == true)
        let bumped = TermsStatus(portal: portal, current: current, accepted: AcceptedTerms(portal: "demo", version: "2026-09"))
        #expect(bumped.refusal?.message.contains("you accepted version 2026-09, the portal now has version 2027-02") == true)
        #expect(bumped.refusal?.hint?.contains("unitool terms accept --portal demo") == true)
        #expect(bumped.refusal?.hint?.contains("unitool terms show --portal demo") == true)
        let current2 = TermsStatus(portal: portal, current: current, accepted: AcceptedTerms(portal: "demo", version: "2027-02"))
        #expect(current2.isUpToDate && current2.refusal == nil)
        let none = TermsStatus(portal: portal, current: nil, accepted: nil)
        #expect(none.isUpToDate, "a portal without a terms API has nothing to accept")
    }

    @Test("versions compare by exact code points: an NFD 'é' accepted is not the NFC 'é' served, in either direction")
    func exactCodePoints() throws {
        let nfc = "2026-\u{E9}t\u{E9}"
        let nfd = "2026-e\u{301}te\u{301}"
        #expect(nfc == nfd, "Swift's == is canonical equivalence; that is why unitool does not use it here")
        #expect(!TermsVersion.same(nfd, nfc))
        #expect(!TermsVersion.same(nfc, nfd))
        #expect(TermsVersion.same(nfc, "2026-\u{E9}t\u{E9}"))
        let portal = TermsStatus.PortalIdentity(id: "demo", name: "Demo University")
        for (accepted, served) in [(nfd, nfc), (nfc, nfd)] {
            let status = TermsStatus(
                portal: portal, current: CurrentTerms(version: served), accepted: AcceptedTerms(portal: "demo", version: accepted))
            #expect(!status.isUpToDate)
            #expect(status.refusal?.kind == .termsNotAccepted)
        }
        // The accepted version keeps its code points through the file on disk.
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = AcceptedTermsStore(directory: sandbox.root.appendingPathComponent("terms"))
        try store.save(AcceptedTerms(portal: "demo", version: nfd))
        let loaded = try #require(try store.load(portal: "demo"))
        #expect(Array(loaded.version.unicodeScalars) == Array(nfd.unicodeScalars))
    }

    @Test("accepted terms survive a save and load; a damaged file is an error, never 'not accepted'")
    func storeRoundTripAndDamage() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let store = AcceptedTermsStore(directory: sandbox.root.appendingPathComponent("terms"))
        #expect(try store.load(portal: "demo") == nil)
        let accepted = AcceptedTerms(portal: "demo", version: "2026-09", acceptedAt: Date(timeIntervalSince1970: 1_790_000_000))
        try store.save(accepted)
        #expect(try store.load(portal: "demo") == accepted)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(leftovers == ["demo.json"], "the atomic write left a temporary file behind")

        try Data("{\"portal\": \"demo\", \"vers".utf8).write(to: store.file(portal: "demo"))
        #expect {
            try store.load(portal: "demo")
        } throws: { error in
            (error as? UniToolError)?.kind == .stateCorrupt
                && (error as? UniToolError)?.hint?.contains("unitool terms accept --portal demo") == true
        }
    }
}
