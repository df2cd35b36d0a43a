import UniToolKit

/// A tool of `tools/list` as the tests read it: its JSON, with the fields they check named.
struct ToolView {
    let json: JSONValue

    var name: String { json["name"]?.stringValue ?? "" }
    var description: String? { json["description"]?.stringValue }
    var inputSchema: JSONValue { json["inputSchema"] ?? .null }
    var annotations: Annotations { Annotations(json: json["annotations"] ?? .null) }

    struct Annotations {
        let json: JSONValue
        func flag(_ name: String) -> Bool? {
            if case .bool(let value)? = json[name] { return value }
            return nil
        }
        var readOnlyHint: Bool? { flag("readOnlyHint") }
        var destructiveHint: Bool? { flag("destructiveHint") }
        var idempotentHint: Bool? { flag("idempotentHint") }
    }
}

extension JSONValue {
    /// An object's members by name.
    var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// A tool call's `arguments` object.
    static func arguments(_ members: [String: JSONValue]) -> JSONValue {
        .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}
