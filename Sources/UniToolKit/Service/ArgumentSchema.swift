/// An argument as a front end received it, whatever its wire format: a JSON-RPC param, an MCP
/// tool argument, or a command-line option (always text).
public enum ArgumentValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case array([ArgumentValue])
    case null
    /// An object, whose members the method reads itself (JSON-RPC's `options`).
    case object

    /// The JSON type's name, for messages: "a string, not a number".
    public var typeName: String {
        switch self {
        case .string: return localized("a string")
        case .integer, .number: return localized("a number")
        case .bool: return localized("a boolean")
        case .array: return localized("an array")
        case .null: return "null"
        case .object: return localized("an object")
        }
    }
}

/// A mistake in a request, with the parameter it is about as the front end's user wrote it
/// (`options.trem` in JSON-RPC, `trem` in MCP, `--trem` on the command line). Each front end
/// turns it into its own error: -32602, MCP's invalid params, exit 64.
public struct ArgumentProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    /// What to give instead, when there is more to say than the message (the values the portal offers).
    public var hint: String?
    public var description: String { message }

    public init(path: String, message: String, hint: String? = nil) {
        self.path = path
        self.message = message
        self.hint = hint
    }
}

/// How a front end names a parameter in its messages.
public enum ArgumentNaming: Sendable {
    /// JSON-RPC: options inside `options` (`options.term`), the rest at the top (`summary`).
    case rpc
    /// MCP: every argument at the top (`term`, `summary`).
    case mcp
    /// The command line: `--term`, `--summary`.
    case commandLine

    public func option(_ name: String) -> String {
        switch self {
        case .rpc: return "options.\(name)"
        case .mcp: return name
        case .commandLine: return "--\(name)"
        }
    }

    public func parameter(_ name: String) -> String {
        self == .commandLine ? "--\(name)" : name
    }
}

/// The arguments a tool or method takes, described once: the JSON Schema that JSON-RPC's
/// `recipes.describe` and MCP's `tools/list` publish, and the check every front end runs, so
/// that what a schema says (`additionalProperties: false`, a type, `required`) is what is
/// enforced. A pure value.
public struct ArgumentSchema: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case string, boolean, integer
        /// An array of strings.
        case strings
        /// An object, whose members the method checks itself (JSON-RPC's `options`, `parameters`).
        case object
        /// A string or a number: an id the client chose (`progressToken`).
        case stringOrNumber
    }

    public struct Property: Sendable, Equatable {
        public var name: String
        public var kind: Kind
        public var description: String?
        /// The only values accepted, when set.
        public var allowed: [String]?
        /// Values that are suggestions, not a closed list (a term's `current`).
        public var examples: [String] = []
        public var defaultValue: String?
        public var minimum: Int?
        public var maximum: Int?
        /// `x-unitool-filter`: the field and test of a filtering option, for front ends that build forms.
        public var filter: Filter?

        public struct Filter: Sendable, Equatable {
            public var field: String
            public var test: String
        }

        public init(
            _ name: String, _ kind: Kind, description: String? = nil, allowed: [String]? = nil, examples: [String] = [],
            defaultValue: String? = nil, minimum: Int? = nil, maximum: Int? = nil
        ) {
            self.name = name
            self.kind = kind
            self.description = description
            self.allowed = allowed
            self.examples = examples
            self.defaultValue = defaultValue
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    public var properties: [Property]
    public var required: [String]
    /// Sets of which one must be given whole (JSON Schema's `anyOf` of `required`): a course's
    /// `code`, or `search` words instead. The request model (`RecipeRequest`) enforces it, with
    /// a message that says which source each reads.
    public var requiredOneOf: [[String]] = []

    public init(properties: [Property], required: [String] = []) {
        self.properties = properties
        self.required = required
    }

    /// The schema as a JSON value, in a neutral form each front end converts to its own type.
    public var json: SchemaJSON {
        var members: [(String, SchemaJSON)] = []
        for property in properties {
            var schema: [(String, SchemaJSON)] = []
            switch property.kind {
            case .string: schema.append(("type", .string("string")))
            case .boolean: schema.append(("type", .string("boolean")))
            case .integer: schema.append(("type", .string("integer")))
            case .strings: schema += [("type", .string("array")), ("items", .object([("type", .string("string"))]))]
            case .object: schema.append(("type", .string("object")))
            case .stringOrNumber: schema.append(("type", .array([.string("string"), .string("number")])))
            }
            if let description = property.description { schema.append(("description", .string(description))) }
            if let defaultValue = property.defaultValue {
                switch property.kind {
                case .integer: schema.append(("default", .integer(Int(defaultValue) ?? 0)))
                case .boolean: schema.append(("default", .bool(["true", "yes", "1"].contains(defaultValue.lowercased()))))
                default: schema.append(("default", .string(defaultValue)))
                }
            }
            if let allowed = property.allowed { schema.append(("enum", .array(allowed.map(SchemaJSON.string)))) }
            if !property.examples.isEmpty { schema.append(("examples", .array(property.examples.map(SchemaJSON.string)))) }
            if let minimum = property.minimum { schema.append(("minimum", .integer(minimum))) }
            if let maximum = property.maximum { schema.append(("maximum", .integer(maximum))) }
            if let filter = property.filter {
                schema.append(("x-unitool-filter", .object([("field", .string(filter.field)), ("test", .string(filter.test))])))
            }
            members.append((property.name, .object(schema)))
        }
        var object: [(String, SchemaJSON)] = [("type", .string("object")), ("properties", .object(members))]
        if !required.isEmpty { object.append(("required", .array(required.map(SchemaJSON.string)))) }
        if !requiredOneOf.isEmpty {
            object.append(
                ("anyOf", .array(requiredOneOf.map { .object([("required", .array($0.map(SchemaJSON.string)))]) })))
        }
        object.append(("additionalProperties", .bool(false)))
        return .object(object)
    }

    /// The arguments checked against the schema: each name known, each value of its kind and
    /// within its bounds and list, each required one given. A null is as if not given. Returns
    /// the arguments by name; `path` names a parameter in the front end's words.
    public func check(_ arguments: [(String, ArgumentValue)], path: (String) -> String) throws(ArgumentProblem)
        -> [String: ArgumentValue]
    {
        var checked: [String: ArgumentValue] = [:]
        for (name, value) in arguments {
            guard let property = properties.first(where: { $0.name == name }) else {
                let known = properties.map(\.name).map(path).joined(separator: ", ")
                throw ArgumentProblem(
                    path: path(name),
                    message: properties.isEmpty
                        ? localized("'\(path(name))' is not an argument here; none is taken")
                        : localized("'\(path(name))' is not an argument here (the arguments: \(known))"))
            }
            if value == .null { continue }
            try Self.check(value, against: property, path: path(name))
            checked[name] = value
        }
        for name in required where checked[name] == nil {
            throw ArgumentProblem(path: path(name), message: localized("'\(path(name))' is required"))
        }
        return checked
    }

    static func check(_ value: ArgumentValue, against property: Property, path: String) throws(ArgumentProblem) {
        func wrong(_ message: String) -> ArgumentProblem {
            ArgumentProblem(path: path, message: message)
        }
        switch (property.kind, value) {
        case (.string, .string(let text)):
            if let allowed = property.allowed, !allowed.contains(text) {
                let values = allowed.joined(separator: ", ")
                throw ArgumentProblem(path: path, message: localized("'\(path)' must be one of: \(values)"))
            }
        case (.boolean, .bool):
            break
        case (.integer, .integer(let number)):
            if let minimum = property.minimum, number < minimum {
                throw ArgumentProblem(path: path, message: localized("'\(path)' must be at least \(minimum)"))
            }
            if let maximum = property.maximum, number > maximum {
                throw ArgumentProblem(path: path, message: localized("'\(path)' must be at most \(maximum)"))
            }
        case (.strings, .array(let items)):
            for item in items {
                guard case .string = item else {
                    throw ArgumentProblem(path: path, message: localized("'\(path)' must hold strings, not \(item.typeName)"))
                }
            }
        case (.string, _): throw wrong(localized("'\(path)' must be a string, not \(value.typeName)"))
        case (.boolean, _): throw wrong(localized("'\(path)' must be true or false, not \(value.typeName)"))
        case (.integer, _): throw wrong(localized("'\(path)' must be an integer, not \(value.typeName)"))
        case (.object, .object), (.stringOrNumber, .string), (.stringOrNumber, .integer), (.stringOrNumber, .number):
            break
        case (.strings, _): throw wrong(localized("'\(path)' must be an array of strings, not \(value.typeName)"))
        case (.object, _): throw wrong(localized("'\(path)' must be an object, not \(value.typeName)"))
        case (.stringOrNumber, _): throw wrong(localized("'\(path)' must be a string or a number, not \(value.typeName)"))
        }
    }
}

/// JSON, as a schema is written: converted by each front end to its own JSON type.
public indirect enum SchemaJSON: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case array([SchemaJSON])
    case object([(String, SchemaJSON)])

    public static func == (lhs: SchemaJSON, rhs: SchemaJSON) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

extension ArgumentSchema.Property {
    /// search's `limit`, as the JSON-RPC method and the MCP tool take it (the command line's `--limit`).
    public static let searchLimit = ArgumentSchema.Property(
        "limit", .integer, description: "At most this many results", defaultValue: String(Search.defaultLimit),
        minimum: InputBounds.searchResults.lowerBound, maximum: InputBounds.searchResults.upperBound)

    /// history's `since`, as the JSON-RPC method and the MCP tool take it (the command line's `--since`).
    public static let historySince = ArgumentSchema.Property(
        "since", .string, description: "Only runs since then: 30d (the default), 12h, today or a date such as 2026-11-01",
        defaultValue: HistoryReport.defaultSince)
}
