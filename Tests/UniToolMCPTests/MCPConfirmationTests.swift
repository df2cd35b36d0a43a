import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

@testable import UniToolMCP

/// The question before an action that asks first, and the reading of the user's answer: pure.
@Suite("The user's confirmation of an action, asked through the client")
struct MCPConfirmationTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])

    func confirmation(title: String, listed: RecordSet? = nil) throws -> MCPConfirmation {
        let library = try Self.catalog.recipe(portal: "demo", command: "library")
        let request = try #require(library.actions.first { $0.name == "request" })
        return MCPConfirmation(
            tool: "library_request", portal: "Demo University", action: request, argument: "",
            parameters: ["title": title, "isbn": "978-0-465-02656-2"], listed: listed)
    }

    @Test("the question names every value sent, an empty one as such, without control characters")
    func question() throws {
        let asked = try confirmation(title: "Gödel\u{1B}[2J, Escher, Bach")
        #expect(asked.lines == ["title: Gödel[2J, Escher, Bach", "author: (empty)", "isbn: 978-0-465-02656-2", "reason: (empty)"])
        #expect(asked.message.hasPrefix("Demo University: Ask the library to buy a book. This will be sent on your behalf:"))
        #expect(asked.request["requestedSchema"]?["type"] == .string("object"))
    }

    @Test("a value cannot add a line, reorder the text or hide characters in the question, and a long one is cut")
    func spoofing() throws {
        let asked = try confirmation(title: "Book\u{2028}Note: nothing will be sent\u{202E}kcab\u{200B}")
        #expect(asked.lines.first == "title: BookNote: nothing will be sentkcab", "\(asked.lines)")
        #expect(asked.message.components(separatedBy: "\n").count == 6, "one line per value, and the question: \(asked.message)")
        let long = ShownValue.text(String(repeating: "x", count: 500))
        #expect(long.count == ShownValue.maximumLength + 1 && long.hasSuffix("…"))
    }

    @Test("the rows of a preview are listed, each with its fields")
    func previewRows() throws {
        let rows = RecordSet(
            columns: ["title", "barcode"],
            records: [Record(fields: [("title", .string("SICP")), ("barcode", .string("31000101"))])])
        let asked = try confirmation(title: "x", listed: rows)
        #expect(asked.lines.last == "- title: SICP, barcode: 31000101")
        #expect(asked.message.contains("(1 item)"))
    }

    @Test("only accept sends; decline, cancel and an answer without an action are 'declined' and say nothing was sent")
    func decisions() throws {
        let asked = try confirmation(title: "x")
        #expect(try asked.decision(.object([("action", .string("accept")), ("content", .object([]))])))
        for (action, words) in [("decline", "declined"), ("cancel", "dismissed"), (nil, "had no action")] {
            let answer: JSONValue = action.map { .object([("action", .string($0))]) } ?? .object([])
            let error = #expect(throws: UniToolError.self) { try asked.decision(answer) }
            #expect(error?.kind == .declined)
            #expect(
                error?.message.contains(words) == true && error?.message.contains("nothing was sent") == true,
                "\(String(describing: error))")
        }
        let unasked = asked.unasked(because: "this client cannot ask")
        #expect(unasked.message.contains("title: x") && unasked.hint?.contains("confirm: true") == true, "\(unasked)")
    }
}
