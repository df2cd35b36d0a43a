import Foundation

/// A recipe that reads records from portal pages: `Recipes/<portal>/<command>.yaml`.
///
/// Each data recipe becomes a command (`unitool grades`), and its options become that
/// command's options.
public struct DataRecipe: Sendable {
    public var command: String
    public var summary: String
    public var discussion: String?
    public var options: [OptionSpec]
    /// The page to read, relative to the portal, with `{{option}}` placeholders.
    public var fetch: Template
    /// Selects one node per record.
    public var rows: String
    /// When `rows` matches nothing, the page must match this to count as "no records";
    /// otherwise an empty match means the page changed and is reported as such.
    public var emptyWhen: String?
    public var fields: [FieldSpec]
    public var file: String
    public var portal: String
}

/// A command-line option declared by a recipe.
public struct OptionSpec: Sendable {
    public var name: String
    public var help: String?
    public var defaultValue: String?
    /// When non-empty, the only values accepted (besides those in `resolve`).
    public var allowedValues: [String]
    /// Symbolic values looked up on a portal page, such as `current` for the term that the
    /// portal's own term selector marks as selected.
    public var resolve: [String: Resolution]

    public struct Resolution: Sendable {
        public var fetch: Template
        public var xpath: String
    }
}

/// One column of the output: where its value is on the page and what type it has.
public struct FieldSpec: Sendable {
    public enum FieldType: String, Sendable, CaseIterable {
        case string, integer, number, date, bool, url
    }

    public var name: String
    /// Relative to the row node: `td[2]`. An absolute path (`//h1`) reads the page instead.
    public var xpath: String
    public var type: FieldType
    /// A required field that matches nothing, or matches only empty text, is an error.
    public var required: Bool
    /// For dates: the page's format in Unicode notation, such as `dd.MM.yyyy`.
    public var format: String?
    /// A regular expression applied to the text before typing; its first capture group (or the
    /// whole match) is kept.
    public var regex: String?
    public var defaultValue: String?
}

extension DataRecipe {
    /// Reads and validates a data recipe. Every problem names the file, line and key.
    public static func load(file: String, text: String, portal: String) throws -> DataRecipe {
        let top = try RecipeReader(file: file, text: text).top
        try top.allowOnly(["command", "summary", "description", "options", "fetch", "rows", "empty_when", "fields"])
        let command = try top.requiredString("command")
        guard command.range(of: "^[a-z][a-z0-9-]*$", options: .regularExpression) != nil else {
            throw top.error("command", "'\(command)' must be lowercase letters, digits and dashes")
        }
        var options: [OptionSpec] = []
        if let optionsReader = try top.mappingReader("options") {
            for name in optionsReader.keys {
                options.append(try OptionSpec.load(name: name, reader: try optionsReader.mappingReader(name)!))
            }
        }
        guard let fieldsReader = try top.mappingReader("fields"), !fieldsReader.keys.isEmpty else {
            throw top.error("fields", "missing: a data recipe needs at least one field")
        }
        let fields = try fieldsReader.keys.map { name in
            try FieldSpec.load(name: name, reader: try fieldsReader.mappingReader(name)!)
        }
        let fetch = Template(try top.requiredString("fetch"))
        for variable in fetch.variables where !options.contains(where: { $0.name == variable }) {
            throw top.error("fetch", "uses {{\(variable)}}, but no option of that name is declared")
        }
        return DataRecipe(
            command: command, summary: try top.string("summary") ?? command,
            discussion: try top.string("description"), options: options, fetch: fetch,
            rows: try top.requiredXPath("rows"), emptyWhen: try top.xpath("empty_when"), fields: fields,
            file: file, portal: portal)
    }
}

extension OptionSpec {
    static func load(name: String, reader: MappingReader) throws -> OptionSpec {
        try reader.allowOnly(["default", "help", "values", "resolve"])
        var resolve: [String: Resolution] = [:]
        if let resolveReader = try reader.mappingReader("resolve") {
            for symbol in resolveReader.keys {
                let entry = try resolveReader.mappingReader(symbol)!
                try entry.allowOnly(["fetch", "xpath"])
                resolve[symbol] = Resolution(
                    fetch: Template(try entry.requiredString("fetch")), xpath: try entry.requiredXPath("xpath"))
            }
        }
        return OptionSpec(
            name: name, help: try reader.string("help"), defaultValue: try reader.string("default"),
            allowedValues: try reader.stringList("values") ?? [], resolve: resolve)
    }
}

extension FieldSpec {
    static func load(name: String, reader: MappingReader) throws -> FieldSpec {
        try reader.allowOnly(["xpath", "type", "required", "format", "regex", "default"])
        let regex = try reader.string("regex")
        if let regex, (try? Regex(regex)) == nil {
            throw reader.error("regex", "'\(regex)' is not a valid regular expression")
        }
        let type = try reader.choice("type", of: FieldType.self) ?? .string
        let format = try reader.string("format")
        if type == .date, format == nil {
            throw reader.error("format", "a date field needs a format, such as yyyy-MM-dd")
        }
        return FieldSpec(
            name: name, xpath: try reader.requiredXPath("xpath"), type: type,
            required: try reader.bool("required") ?? false, format: format, regex: regex,
            defaultValue: try reader.string("default"))
    }
}
