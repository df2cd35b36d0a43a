import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("Recipe tests offline: saved pages against the records expected")
struct RecipeTesterTests {
    /// A portal folder with the demo's grades recipe and one saved page, in a folder of its own.
    func folder(page: [UInt8], expectation: String?) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-tester-\(UUID().uuidString)")
        let portal = root.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: portal.appendingPathComponent("Fixtures/grades"), withIntermediateDirectories: true)
        for name in ["portal.yaml", "grades.yaml"] {
            try FileManager.default.copyItem(
                at: Fixtures.recipes.appendingPathComponent("demo/\(name)"), to: portal.appendingPathComponent(name))
        }
        try Data(page).write(to: portal.appendingPathComponent("Fixtures/grades/case.html"))
        if let expectation {
            try expectation.write(to: portal.appendingPathComponent("Fixtures/grades/case.json"), atomically: true, encoding: .utf8)
        }
        return root
    }

    func cases(in root: URL) throws -> [RecipeTester.Case] {
        RecipeTester.cases(in: try RecipeCatalog(directories: [root]))
    }

    var page: [UInt8] { (try? Fixtures.bytes("../Recipes/demo/Fixtures/grades/2026-spring.html")) ?? [] }

    @Test("--update writes the records, the next run passes, and a changed record is named with its field")
    func updateThenCompare() throws {
        let root = try folder(page: page, expectation: nil)
        defer { try? FileManager.default.removeItem(at: root) }
        let testCase = try #require(try cases(in: root).first)
        #expect(RecipeTester.run(testCase, update: false).passed == false)
        let update = RecipeTester.run(testCase, update: true)
        #expect(update.passed, "\(update.detail ?? "")")
        #expect(RecipeTester.run(testCase, update: false).passed)
        let file = root.appendingPathComponent("demo/Fixtures/grades/case.json")
        let written = try String(contentsOf: file, encoding: .utf8)
        try written.replacingOccurrences(of: "Analysis II", with: "Analysis III").write(to: file, atomically: true, encoding: .utf8)
        let changed = RecipeTester.run(testCase, update: false)
        #expect(!changed.passed)
        #expect(changed.detail?.contains("field 'course'") == true, "\(changed.detail ?? "")")
    }

    @Test("the recorded Content-Type decodes the saved page; without it, --update refuses a page that does not decode")
    func contentType() throws {
        let sjis =
            Array("<html><body><select id='term'><option value='2026-spring' selected>x</option></select><table id='grades'><tbody>".utf8)
            + Array("<tr><td class='course'>".utf8) + [0x87, 0x54]
            + Array(
                "</td><td class='code'>C-1</td><td class='credits'>5</td><td class='grade'>A</td><td class='points'>4.0</td><td class='date'>01.07.2026</td></tr></tbody></table></body></html>"
                    .utf8)
        let json =
            #"{"url": "https://portal.example.edu/grades?term=2026-spring", "content_type": "text/html; charset=Shift_JIS", "source": null, "today": "2026-11-23", "records": null}"#
        let root = try folder(page: sjis, expectation: json)
        defer { try? FileManager.default.removeItem(at: root) }
        let testCase = try #require(try cases(in: root).first)
        let update = RecipeTester.run(testCase, update: true)
        #expect(update.passed, "\(update.detail ?? "")")
        let written = try String(contentsOf: root.appendingPathComponent("demo/Fixtures/grades/case.json"), encoding: .utf8)
        #expect(written.contains("Ⅰ") && written.contains("\"content_type\": \"text/html; charset=Shift_JIS\""))

        let bare = try folder(page: sjis, expectation: json.replacingOccurrences(of: "\"text/html; charset=Shift_JIS\"", with: "null"))
        defer { try? FileManager.default.removeItem(at: bare) }
        let misread = RecipeTester.run(try #require(try cases(in: bare).first), update: true)
        #expect(!misread.passed && misread.detail?.contains("not valid UTF-8") == true, "\(misread.detail ?? "")")
    }

    @Test("the bundled recipes pass their offline tests, every command with a case")
    func bundledRecipes() throws {
        let cases = try cases(in: Fixtures.recipes)
        let outcomes = cases.map { RecipeTester.run($0, update: false) }
        #expect(outcomes.filter { !$0.passed }.map { "\($0.name): \($0.detail ?? "")" } == [])
        for command in [
            "courses", "grades", "loans", "news", "library-calendar", "attendance", "syllabus", "menu", "menu-pdf", "coop-hours", "library",
            "links", "study-support",
        ] {
            #expect(outcomes.contains { $0.name.hasPrefix("demo/\(command)/") }, "\(command) has no case")
        }
    }

    @Test("a saved page with one column renamed fails its case, naming the field and the XPath")
    func renamedColumnFails() throws {
        let renamed = String(decoding: page, as: UTF8.self).replacingOccurrences(of: "class=\"credits\"", with: "class=\"ects\"")
        let expected = try String(
            contentsOf: Fixtures.recipes.appendingPathComponent("demo/Fixtures/grades/2026-spring.json"), encoding: .utf8)
        let root = try folder(page: Array(renamed.utf8), expectation: expected)
        defer { try? FileManager.default.removeItem(at: root) }
        let outcomes = try cases(in: root).map { RecipeTester.run($0, update: false) }
        #expect(outcomes.count == 1)
        let outcome = try #require(outcomes.first)
        #expect(!outcome.passed)
        #expect(outcome.name == "demo/grades/case")
        #expect(outcome.detail?.contains("required field 'credits'") == true, "\(outcome.detail ?? "")")
        #expect(outcome.detail?.contains("td[@class='credits']") == true, "\(outcome.detail ?? "")")
    }
}
