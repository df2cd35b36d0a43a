/// The JSON Schema of a command's answer as the front ends give it, `{columns, records}`, made
/// from its recipe's fields: what MCP calls a tool's `outputSchema`, so that a client gets typed
/// records rather than untyped maps.
///
/// The schema covers every shape the one request may ask for: all fields or some (`fields`), and
/// the totals (`summary`), whose rows carry the aggregates and whose `overall` row puts a label
/// in the group fields. No property is required, and every value may be null (a cell left empty).
public enum RecordSchema {
    /// `{columns: [string], records: [record]}`, each record's properties typed by the recipe.
    /// The fields of every source count, since the `source` argument may choose any of them; a
    /// name two sources type differently takes either type.
    public static func answer(of recipe: DataRecipe) -> SchemaJSON {
        answer(records: record(fields: recipe.sources.flatMap(\.fields), totals: recipe.totals))
    }

    /// The same envelope for records of no fixed shape (`search`, `history`).
    public static var anyAnswer: SchemaJSON { answer(records: .object([("type", .string("object"))])) }

    static func answer(records: SchemaJSON) -> SchemaJSON {
        .object([
            ("type", .string("object")),
            (
                "properties",
                .object([
                    ("columns", .object([("type", .string("array")), ("items", .object([("type", .string("string"))]))])),
                    ("records", .object([("type", .string("array")), ("items", records)])),
                ])
            ),
            ("required", .array([.string("columns"), .string("records")])),
        ])
    }

    /// One record: each field by its type, the totals' aggregates as numbers.
    static func record(fields: [FieldSpec], totals: Totals?) -> SchemaJSON {
        var types: [(name: String, types: [String], items: SchemaJSON?)] = []
        for field in fields {
            let type: String
            switch field.type {
            case .string, .date, .datetime, .url: type = "string"
            case .integer: type = "integer"
            case .number: type = "number"
            case .bool: type = "boolean"
            }
            let entry =
                field.list.map { (field.name, ["array"], Optional(record(fields: $0.fields, totals: nil))) } ?? (field.name, [type], nil)
            if let index = types.firstIndex(where: { $0.name == field.name }) {
                // Another source's field of the same name: either type, and no item schema to hold it to.
                if types[index].types != entry.1 || types[index].items != nil || entry.2 != nil {
                    types[index].types = Array(Set(types[index].types + entry.1)).sorted()
                    types[index].items = nil
                }
            } else {
                types.append(entry)
            }
        }
        for aggregate in totals?.fields ?? [] {
            if let index = types.firstIndex(where: { $0.name == aggregate.name }) {
                // A sum or mean under a field's own name: a number, whatever the field was.
                types[index].types = types[index].types.contains("integer") ? ["number"] : types[index].types + ["number"]
                types[index].items = nil
            } else {
                types.append((aggregate.name, ["number"], nil))
            }
        }
        if let totals, totals.overall != nil {
            // The overall row's group values are its label ("all terms").
            for group in totals.groupBy {
                if let index = types.firstIndex(where: { $0.name == group }), !types[index].types.contains("string") {
                    types[index].types.append("string")
                }
            }
        }
        let properties = types.map { entry -> (String, SchemaJSON) in
            var members: [(String, SchemaJSON)] = [("type", .array((entry.types + ["null"]).map(SchemaJSON.string)))]
            if let items = entry.items { members.append(("items", items)) }
            return (entry.name, .object(members))
        }
        return .object([("type", .string("object")), ("properties", .object(properties))])
    }
}
