import Foundation
import Testing
import UniToolKit

/// `read:` values run in the order written, and a later one may send an earlier one's value
/// (issue 48: a session key posted in the form whose answer shows an address). Loading accepts a
/// read that names an earlier read and refuses one that names a later read or itself, before any
/// request, with what to move where.
struct ReadChainLoadingTests {
    static func recipe(reads: String) -> String {
        """
        command: export
        read:
        \(reads)
        fetch: /list?token={{token}}
        rows: "//li"
        fields:
          name: { xpath: "." }
        """
    }

    @Test("a read may use an earlier read's value in its form; the reads keep the order written")
    func earlierValueIsAccepted() throws {
        let text = Self.recipe(
            reads: """
                  sesskey: { fetch: /form, xpath: "//input[@name='sesskey']/@value" }
                  token: { fetch: /form, method: post, form: { sesskey: "{{sesskey}}", go: "1" }, xpath: "//input[@id='token']/@value" }
                """)
        let recipe = try DataRecipe.load(file: "e.yaml", text: text, portal: "x")
        #expect(recipe.sources[0].reads.map(\.name) == ["sesskey", "token"])
        // Written the other way round (the token first by name order), the order is still the file's.
        let reversed = Self.recipe(
            reads: """
                  zeta: { fetch: /form, xpath: "//p" }
                  token: { fetch: "/form?z={{zeta}}", xpath: "//p" }
                """)
        #expect(try DataRecipe.load(file: "e.yaml", text: reversed, portal: "x").sources[0].reads.map(\.name) == ["zeta", "token"])
    }

    @Test("a read that uses a value read after it is refused, saying to move that read above it")
    func laterValueIsRefused() {
        let text = Self.recipe(
            reads: """
                  token: { fetch: /form, method: post, form: { sesskey: "{{sesskey}}" }, xpath: "//p" }
                  sesskey: { fetch: /form, xpath: "//p" }
                """)
        let error = #expect(throws: UniToolError.self) { try DataRecipe.load(file: "e.yaml", text: text, portal: "x") }
        #expect(error?.kind == .recipeInvalid)
        let message = error?.message ?? ""
        #expect(
            message.contains("'token'") && message.contains("read after it") && message.contains("move 'sesskey' above 'token'"),
            "\(message)")
    }

    @Test("a read that uses its own value is refused")
    func ownValueIsRefused() {
        let text = Self.recipe(reads: "  token: { fetch: \"/form?t={{token}}\", xpath: \"//p\" }")
        let error = #expect(throws: UniToolError.self) { try DataRecipe.load(file: "e.yaml", text: text, portal: "x") }
        #expect(error?.message.contains("its own value {{token}}") == true, "\(String(describing: error))")
    }

    @Test("a read that names nothing declared is refused, naming options and earlier reads")
    func unknownValueIsRefused() {
        let text = Self.recipe(reads: "  token: { fetch: \"/form?t={{nothing}}\", xpath: \"//p\" }")
        let error = #expect(throws: UniToolError.self) { try DataRecipe.load(file: "e.yaml", text: text, portal: "x") }
        #expect(error?.message.contains("no option or earlier read: value") == true, "\(String(describing: error))")
    }

    @Test("type: url marks a read as an address; fetch: \"{{name}}\" alone fetches it as it is; another type is refused")
    func addressReads() throws {
        func recipe(type: String, fetch: String) -> String {
            """
            command: export
            read:
              address: { fetch: /form, xpath: "//input/@value", type: \(type) }
            fetch: "\(fetch)"
            rows: "//li"
            fields:
              name: { xpath: "." }
            """
        }
        let whole = try DataRecipe.load(file: "e.yaml", text: recipe(type: "url", fetch: "{{address}}"), portal: "x")
        #expect(whole.sources[0].reads[0].isAddress && whole.sources[0].fetchedAddress == "address")
        // Inside a longer address it would be percent-encoded into a path and quoted by a 404: refused.
        for fetch in ["/go?to={{address}}", "{{address}}&preset_time=monthnow"] {
            let inside = #expect(throws: UniToolError.self) {
                try DataRecipe.load(file: "e.yaml", text: recipe(type: "url", fetch: fetch), portal: "x")
            }
            #expect(inside?.message.contains("may only be the whole fetch of its source") == true, "\(String(describing: inside))")
        }
        let plain = try DataRecipe.load(file: "e.yaml", text: recipe(type: "string", fetch: "{{address}}"), portal: "x")
        #expect(!plain.sources[0].reads[0].isAddress && plain.sources[0].fetchedAddress == nil)
        let error = #expect(throws: UniToolError.self) {
            try DataRecipe.load(file: "e.yaml", text: recipe(type: "link", fetch: "{{address}}"), portal: "x")
        }
        #expect(error?.message.contains("use string (the default) or url") == true, "\(String(describing: error))")
    }

    @Test("a type: url read used by a later read, or in the source's form, is refused: it may only be the whole fetch")
    func addressUsedElsewhereIsRefused() {
        let later = """
            command: export
            read:
              address: { fetch: /form, xpath: "//input/@value", type: url }
              page: { fetch: "{{address}}", xpath: "//a/@href" }
            fetch: "/list?p={{page}}"
            rows: "//li"
            fields:
              name: { xpath: "." }
            """
        let error = #expect(throws: UniToolError.self) { try DataRecipe.load(file: "e.yaml", text: later, portal: "x") }
        #expect(
            error?.message.contains("'address' is an address (type: url), used in read 'page''s fetch") == true,
            "\(String(describing: error))")
        let posted = """
            command: export
            read:
              address: { fetch: /form, xpath: "//input/@value", type: url }
            fetch: "{{address}}"
            method: post
            form: { again: "{{address}}" }
            rows: "//li"
            fields:
              name: { xpath: "." }
            """
        let form = #expect(throws: UniToolError.self) { try DataRecipe.load(file: "e.yaml", text: posted, portal: "x") }
        #expect(form?.message.contains("used in the source's form") == true, "\(String(describing: form))")
    }
}
