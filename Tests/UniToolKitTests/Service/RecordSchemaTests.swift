import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A command's answer described as JSON Schema from its recipe (MCP's `outputSchema`): pure.
@Suite("The JSON Schema of a command's answer, from its recipe")
struct RecordSchemaTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])

    func properties(_ command: String) throws -> [(String, SchemaJSON)] {
        let schema = RecordSchema.answer(of: try Self.catalog.recipe(portal: "demo", command: command))
        guard case .object(let top) = schema, case .object(let members)? = top.first(where: { $0.0 == "properties" })?.1,
            case .object(let records)? = members.first(where: { $0.0 == "records" })?.1,
            case .object(let items)? = records.first(where: { $0.0 == "items" })?.1,
            case .object(let properties)? = items.first(where: { $0.0 == "properties" })?.1
        else {
            Issue.record("not an answer's schema: \(schema)")
            return []
        }
        return properties
    }

    func types(_ properties: [(String, SchemaJSON)], _ name: String) -> [String]? {
        guard case .object(let members)? = properties.first(where: { $0.0 == name })?.1,
            case .array(let types)? = members.first(where: { $0.0 == "type" })?.1
        else { return nil }
        return types.compactMap { if case .string(let type) = $0 { type } else { nil } }
    }

    @Test("each field by its type, null allowed; the totals' aggregates as numbers; the overall row's label in the group field")
    func grades() throws {
        let grades = try properties("grades")
        #expect(types(grades, "credits") == ["number", "null"])
        #expect(types(grades, "date") == ["string", "null"])
        #expect(types(grades, "gpa") == ["number", "null"])
        #expect(types(grades, "credits_earned") == ["number", "null"])
        // `overall: all terms` puts its label in `term`, a string already.
        #expect(types(grades, "term") == ["string", "null"])
    }

    @Test("a yes/no field is a boolean; a recipe with several sources lists the fields of each")
    func booleansAndSources() throws {
        let attendance = try properties("attendance")
        #expect(attendance.contains { $0.0 == "warning" })
        #expect(types(attendance, "warning") == ["boolean", "null"], "\(attendance)")
        let news = try Self.catalog.recipe(portal: "demo", command: "news")
        let names = Set(try properties("news").map(\.0))
        #expect(names == Set(news.sources.flatMap(\.fields).map(\.name)))
    }
}
