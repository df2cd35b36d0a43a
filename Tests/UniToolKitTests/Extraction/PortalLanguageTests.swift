import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// `type: bool` in the portal's language, `map:` for anything else, and the portal's zone for
/// date-times without an offset (issue 34, parts 7 and 8).
@Suite("Values in the portal's language and zone")
struct PortalLanguageTests {
    @Test(
        "yes and no in English, Japanese, German, French and Hungarian; another language's words are not read",
        arguments: [
            ("en", "Yes", true), ("en", "no", false), ("en", "TRUE", true),
            ("ja", "はい", true), ("ja", "いいえ", false), ("ja", "済", true), ("ja", "×", false),
            ("de", "Ja", true), ("de", "nein", false), ("de-AT", "wahr", true),
            ("fr", "oui", true), ("fr", "Non", false), ("fr", "vrai", true),
            ("hu", "igen", true), ("hu", "nem", false), ("hu", "Hamis", false),
        ])
    func words(language: String, text: String, expected: Bool) {
        #expect(PortalLanguage.bool(text, language: language) == expected)
    }

    @Test("the universal words hold in every language; a language's own words only in it")
    func scope() {
        for language in [nil, "en", "ja", "de", "fr", "hu", "xx"] as [String?] {
            #expect(PortalLanguage.bool("1", language: language) == true)
            #expect(PortalLanguage.bool(" off ", language: language) == false)
        }
        #expect(PortalLanguage.bool("oui", language: nil) == nil)
        #expect(PortalLanguage.bool("oui", language: "de") == nil)
        #expect(PortalLanguage.bool("igen", language: "fr") == nil)
        #expect(PortalLanguage.bool("maybe", language: "en") == nil)
        #expect(PortalLanguage.knownLanguages == ["de", "en", "fr", "hu", "ja"])
    }

    @Test("a word it cannot read names the languages' words and map:")
    func message() {
        #expect {
            try FieldTyper.convert("peut-être", to: .bool, format: nil, language: "fr", baseURL: nil) { UniToolError(.layoutChanged, $0) }
        } throws: { error in
            let message = (error as? UniToolError)?.message ?? ""
            return message.contains("yes/no") && message.contains("language fr") && message.contains("map:")
        }
    }

    static let portalText = """
        portal: uni
        base_url: https://portal.example.edu
        language: fr
        timezone: Europe/Paris
        login: { pages: [{ when: "//form", auto_submit: true }] }

        """

    static let recipeText = """
        command: tasks
        fetch: /tasks
        rows: //tr
        fields:
          done:    { xpath: "td[1]", type: bool }
          graded:  { xpath: "td[2]", type: bool, map: { "Noté": "yes", "En attente": "no" } }
          due:     { xpath: "td[3]", type: datetime, format: iso8601 }
          posted:  { xpath: "td[4]", type: datetime, format: rfc822 }
          tokyo:   { xpath: "td[3]", type: datetime, format: iso8601, timezone: Asia/Tokyo }

        """

    @Test("a French portal's oui/non, a map: of its own words, and its zone for times without an offset")
    func extraction() throws {
        let portal = try PortalRecipe.load(file: "portal.yaml", text: Self.portalText)
        let recipe = try DataRecipe.load(file: "tasks.yaml", text: Self.recipeText, portal: "uni")
        let html = """
            <html><body><table>
            <tr><td>oui</td><td>noté</td><td>2026-11-30T23:59:00</td><td>Tue, 17 Nov 2026 09:30:00 +0000</td></tr>
            <tr><td>Non</td><td>En attente</td><td>2026-07-01T08:00:00</td><td>Wed, 01 Jul 2026 12:00:00 GMT</td></tr>
            </table></body></html>
            """
        let document = try Document(html: html, url: "https://portal.example.edu/tasks")
        let records = try RecordExtractor(recipe: recipe, today: "2026-11-26", portal: portal).extract(from: document).records
        #expect(records.count == 2)
        #expect(records[0]["done"] == .bool(true) && records[1]["done"] == .bool(false))
        #expect(records[0]["graded"] == .bool(true) && records[1]["graded"] == .bool(false))
        // No offset in the text, none on the field: the portal's zone (CET in November, CEST in July).
        #expect(records[0]["due"] == .datetime("2026-11-30T23:59:00+01:00"))
        #expect(records[1]["due"] == .datetime("2026-07-01T08:00:00+02:00"))
        // An instant with an offset keeps its instant, shown in the portal's zone.
        #expect(records[0]["posted"] == .datetime("2026-11-17T10:30:00+01:00"))
        #expect(records[1]["posted"] == .datetime("2026-07-01T14:00:00+02:00"))
        // A field's own zone still wins.
        #expect(records[0]["tokyo"] == .datetime("2026-11-30T23:59:00+09:00"))

        // Without the portal, as before: English words only, UTC.
        let plain = try RecordExtractor(recipe: recipe, today: "2026-11-26")
        #expect {
            try plain.extract(from: document)
        } throws: { error in
            (error as? UniToolError)?.kind == .layoutChanged && (error as? UniToolError)?.message.contains("\"oui\"") == true
        }
    }
}
