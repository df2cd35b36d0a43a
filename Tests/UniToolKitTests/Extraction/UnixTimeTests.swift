import Foundation
import Testing

@testable import UniToolKit

/// `format: unix` for a JSON API's timestamps (Moodle's `timesort`), and `{{today_epoch}}`,
/// the value a timeline asks "from when" with (issue 35).
@Suite("Seconds since 1970, read and written")
struct UnixTimeTests {
    func convert(_ text: String, zone: String? = nil) throws -> FieldValue {
        try FieldTyper.convert(text, to: .datetime, format: "unix", timeZone: zone, baseURL: nil) { UniToolError(.layoutChanged, $0) }
    }

    @Test("a timestamp is the instant it counts, shown in the field's zone")
    func reading() throws {
        #expect(try convert("1796079540") == .datetime("2026-11-30T22:59:00Z"))
        #expect(try convert("1796079540", zone: "Europe/Budapest") == .datetime("2026-11-30T23:59:00+01:00"))
        #expect(try convert(" 1796079540.9 ") == .datetime("2026-11-30T22:59:00Z"))
    }

    @Test(
        "text that is no timestamp, or one past the year 9999, is no date", arguments: ["", "soon", "1e400", "-inf", "253402300800", "nan"])
    func refused(text: String) {
        #expect {
            try convert(text)
        } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
    }

    @Test("a recipe may use {{today_epoch}} without declaring it; an unknown value is still refused")
    func builtIn() throws {
        let recipe = "command: timeline\nfetch: /events?from={{today_epoch}}\nrows: //li\nfields: { what: { xpath: \".\" } }\n"
        #expect(throws: Never.self) { try DataRecipe.load(file: "t.yaml", text: recipe, portal: "uni") }
        #expect {
            try DataRecipe.load(
                file: "t.yaml", text: recipe.replacingOccurrences(of: "today_epoch", with: "yesterday_epoch"), portal: "uni")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }
}
