/// What a front end asks of a data recipe, checked once against the recipe before anything is
/// asked of the portal: the options, the source, and the shape of the answer (summary, fields,
/// sort). The command line builds it from argv, JSON-RPC from `recipes.run`'s params, MCP from a
/// tool's arguments; each gets the same checks and only words its messages its own way
/// (`ArgumentNaming`). The schema front ends publish comes from the same description
/// (``schema(for:shaping:)``), so a schema never promises what the check does not hold.
public struct RecipeRequest: Sendable, Equatable {
    /// Option values by name, as text (a recipe's options are text).
    public var options: [String: String]
    public var source: String?
    /// The source chosen by an option (`--search` reads the search source) rather than named.
    /// The options say it already, so the history keys the answer without it, as watch and
    /// `today`, which know only the options, look it up.
    public var sourceChosenByOption = false
    /// The source as the history keys the answer.
    public var historySource: String? { sourceChosenByOption ? nil : source }
    public var summary: Bool
    /// `["due", "-title"]` as sort keys; nil keeps the recipe's order.
    public var sort: [SortKey]?
    /// The fields to keep, in this order; nil for all.
    public var fields: [String]?
    /// How the front end that asked names its arguments, for a mistake found only at the portal
    /// (a term it does not offer): named as the front end's own argument, never another's flag.
    public var naming: ArgumentNaming = .commandLine

    public var shape: RecordShape { RecordShape(summary: summary, sort: sort, fields: fields) }

    /// The recipe's options alone (JSON-RPC's `optionsSchema`): a closed list where the recipe
    /// gives `values:` (with the symbolic values it resolves, such as `current`), those symbolic
    /// values as examples otherwise, and each option without a default or a filter required.
    public static func optionsSchema(for recipe: DataRecipe) -> ArgumentSchema {
        var properties: [ArgumentSchema.Property] = []
        var required: [String] = []
        for option in recipe.options {
            let symbolic = option.resolve.keys.sorted()
            var property = ArgumentSchema.Property(
                option.name, isYesNo(option, of: recipe) ? .boolean : .string, description: option.help,
                allowed: option.allowedValues.isEmpty ? nil : option.allowedValues + symbolic,
                examples: option.allowedValues.isEmpty ? symbolic : [], defaultValue: option.defaultValue)
            if let filter = option.filter { property.filter = .init(field: filter.field, test: filter.test.rawValue) }
            properties.append(property)
            if option.filter == nil, option.defaultValue == nil, option.source == nil,
                recipe.sources.allSatisfy({ neededOptions(of: $0, in: recipe).contains(option.name) })
            {
                required.append(option.name)
            }
        }
        var schema = ArgumentSchema(properties: properties, required: required)
        // Sources that each need options of their own (a course's page its code, the search its
        // words): one of those sets must be given, which a schema says with anyOf.
        let needs = recipe.sources.map { Set(neededOptions(of: $0, in: recipe)).subtracting(required) }
        if needs.count > 1, needs.allSatisfy({ !$0.isEmpty }), Set(needs).count > 1 {
            var seen: Set<Set<String>> = []
            schema.requiredOneOf = needs.filter { seen.insert($0).inserted }.map { $0.sorted() }
        }
        return schema
    }

    /// Whether the option keeps the records whose yes/no field is what it says (`warning:
    /// { filter: { field: warning, test: equals } }` on a `type: bool` field): its value is a
    /// boolean in a schema, and the command line's `true`, `yes` or `1` is read as one.
    static func isYesNo(_ option: OptionSpec, of recipe: DataRecipe) -> Bool {
        guard let filter = option.filter, filter.test == .equals else { return false }
        return recipe.primary.fields.first { $0.name == filter.field }?.type == .bool
    }

    /// The options without a default that a source's requests name (`{{code}}` in its fetch):
    /// what must be given when that source is read. An option used by some sources only is
    /// required only for those (a course code for the course's page, not for the search).
    static func neededOptions(of source: DataRecipe.Source, in recipe: DataRecipe) -> [String] {
        let named = readOptions(of: source, in: recipe)
        return recipe.options.filter { $0.defaultValue == nil && $0.filter == nil && named.contains($0.name) }.map(\.name)
    }

    /// Every value a source's requests name: its fetch, form, JSON body and `read:` values, and
    /// the pages options resolve their symbolic values on (`{{year}}` in a term's lookup), which
    /// every source's run goes through.
    static func readOptions(of source: DataRecipe.Source, in recipe: DataRecipe) -> Set<String> {
        var named = Set(source.fetch.variables)
        for (_, template) in source.form { named.formUnion(template.variables) }
        if let json = source.json { named.formUnion(json.variables) }
        for read in source.reads { for (_, template) in read.templates { named.formUnion(template.variables) } }
        for option in recipe.options { for resolution in option.resolve.values { named.formUnion(resolution.fetch.variables) } }
        return named
    }

    /// Everything a run of the recipe takes, flat (MCP's tool schema): its options, `source`
    /// when it has several, `summary` when it has totals and, with `shaping`, `fields` and `sort`.
    public static func schema(for recipe: DataRecipe, shaping: Bool = false) -> ArgumentSchema {
        var schema = optionsSchema(for: recipe)
        schema.properties += shapeProperties(for: recipe, shaping: shaping)
        return schema
    }

    static func shapeProperties(for recipe: DataRecipe, shaping: Bool) -> [ArgumentSchema.Property] {
        var properties: [ArgumentSchema.Property] = []
        if recipe.sources.count > 1 {
            properties.append(.init("source", .string, description: "Where to read from", allowed: recipe.sources.compactMap(\.name)))
        }
        if let totals = recipe.totals {
            properties.append(
                .init(
                    "summary", .boolean, description: "Totals instead of the records: \(totals.fields.map(\.name).joined(separator: ", "))")
            )
        }
        if shaping {
            properties.append(.init("fields", .strings, description: "Only these fields, in this order"))
            properties.append(.init("sort", .strings, description: "Sort by these fields; -field for descending"))
        }
        return properties
    }

    /// Checks a request against the recipe.
    ///
    /// - Parameters:
    ///   - options: the recipe's options (JSON-RPC's `options` object, the option arguments of an
    ///     MCP tool, the command line's `--name value`), each a string.
    ///   - shape: `source`, `summary`, `fields`, `sort`.
    ///   - naming: how the front end names a parameter in its messages.
    public init(
        recipe: DataRecipe, options: [(String, ArgumentValue)], shape: [(String, ArgumentValue)] = [], naming: ArgumentNaming
    ) throws(ArgumentProblem) {
        // An unknown option in the recipe's own words, naming the options it has.
        if let (name, _) = options.first(where: { name, _ in !recipe.options.contains { $0.name == name } }) {
            let known = recipe.options.map { naming.option($0.name) }.joined(separator: ", ")
            throw ArgumentProblem(
                path: naming.option(name),
                message: recipe.options.isEmpty
                    ? localized("'\(naming.option(name))' is not an option of '\(recipe.command)'; it takes none")
                    : localized("'\(naming.option(name))' is not an option of '\(recipe.command)' (its options: \(known))"))
        }
        // A yes/no option given as text (the command line's `--warning yes`) is the boolean it says.
        var options = options
        for (index, (name, value)) in options.enumerated() {
            guard case .string(let text) = value, let option = recipe.options.first(where: { $0.name == name }),
                Self.isYesNo(option, of: recipe)
            else { continue }
            guard let flag = PortalLanguage.bool(text, language: nil) else {
                throw ArgumentProblem(
                    path: naming.option(name),
                    message: localized("'\(text)' is not yes or no for \(naming.option(name)); use true or false (yes/no, 1/0)"))
            }
            options[index].1 = .bool(flag)
        }
        let checkedOptions = try Self.optionsSchema(for: recipe).check(options, path: naming.option)
        var values: [String: String] = [:]
        for option in recipe.options {
            let value: String
            switch checkedOptions[option.name] {
            case .string(let text)?: value = text
            case .bool(let flag)?: value = flag ? "true" : "false"
            default: continue
            }
            if option.filter != nil {
                // A filter's value (a date, a weekday, a number of days within range) is read
                // by the one parser the filter itself uses, before anything is asked of the portal.
                do {
                    _ = try RecordFilter(option: option, value: value)
                    // A yes/no field matches only yes or no: a misspelt `--warning ture` would
                    // match nothing, and an empty answer is not what was asked.
                    if let filter = option.filter, filter.test == .equals,
                        recipe.primary.fields.first(where: { $0.name == filter.field })?.type == .bool,
                        PortalLanguage.bool(value, language: nil) == nil
                    {
                        throw UniToolError(
                            .usage, localized("'\(value)' is not yes or no for \(naming.option(option.name))"),
                            hint: localized("use true or false (yes/no, 1/0)"))
                    }
                } catch let error as UniToolError {
                    // The filter's own message names the option as the command line does.
                    let path = naming.option(option.name)
                    let message = error.message.contains(path) ? error.message : "'\(path)': \(error.message)"
                    throw ArgumentProblem(path: path, message: message + (error.hint.map { "; \($0)" } ?? ""))
                } catch {
                    throw ArgumentProblem(path: naming.option(option.name), message: "'\(naming.option(option.name))': \(error)")
                }
            }
            values[option.name] = value
        }
        self.options = values
        self.naming = naming

        // The source first, in the recipe's words: which sources it has, or that it has one.
        var shape = shape
        source = nil
        if let index = shape.firstIndex(where: { $0.0 == "source" }) {
            let (_, value) = shape.remove(at: index)
            if value != .null {
                let path = naming.parameter("source")
                guard case .string(let name) = value else {
                    throw ArgumentProblem(path: path, message: localized("'\(path)' must be a string, not \(value.typeName)"))
                }
                guard recipe.source(named: name) != nil else {
                    let names = recipe.sources.compactMap(\.name)
                    let listed = names.joined(separator: ", ")
                    throw ArgumentProblem(
                        path: path,
                        message: names.isEmpty
                            ? localized("'\(path)' \"\(name)\" is not a source of '\(recipe.command)'; it has only one")
                            : localized("'\(path)' \"\(name)\" is not a source of '\(recipe.command)' (its sources: \(listed))"))
                }
                source = name
            }
        }
        // An option that reads from a source of its own (`--search` reads the search page)
        // chooses it; naming another source as well is a contradiction.
        for option in recipe.options where values[option.name] != nil {
            guard let chosen = option.source else { continue }
            if let source, source != chosen {
                throw ArgumentProblem(
                    path: naming.option(option.name),
                    message: localized(
                        "'\(naming.option(option.name))' reads from source '\(chosen)', not '\(source)'; give one or the other"))
            }
            source = chosen
            sourceChosenByOption = true
        }
        // What the chosen source needs: said with the options that would choose another. An
        // option only another source reads is a contradiction (a course code and --search).
        if let chosen = recipe.source(named: source), recipe.sources.count > 1 {
            let read = Self.readOptions(of: chosen, in: recipe)
            for option in recipe.options where values[option.name] != nil && option.filter == nil && !read.contains(option.name) {
                let chosenName = chosen.name ?? ""
                throw ArgumentProblem(
                    path: naming.option(option.name),
                    message: localized(
                        "'\(naming.option(option.name))' is not read by source '\(chosenName)' of '\(recipe.command)'; give it or what chose that source, not both"
                    ))
            }
            for name in Self.neededOptions(of: chosen, in: recipe) where values[name] == nil {
                let others = recipe.options.filter { $0.source != nil && $0.source != chosen.name }.map { naming.option($0.name) }
                let alternatives = others.map { "'\($0)'" }.joined(separator: " or ")
                throw ArgumentProblem(
                    path: naming.option(name),
                    message: others.isEmpty
                        ? localized("'\(recipe.command)' needs '\(naming.option(name))'")
                        : localized("'\(recipe.command)' needs '\(naming.option(name))', or \(alternatives) instead"))
            }
        }
        let shapeSchema = ArgumentSchema(properties: Self.shapeProperties(for: recipe, shaping: true).filter { $0.name != "source" })
        let checkedShape = try shapeSchema.check(shape, path: naming.parameter)
        if case .bool(let flag)? = checkedShape["summary"] { summary = flag } else { summary = false }
        func strings(_ name: String) -> [String]? {
            guard case .array(let items)? = checkedShape[name] else { return nil }
            return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        try applyShape(fields: strings("fields"), sort: strings("sort").map { $0.flatMap(SortKey.parse) }, of: recipe, naming: naming)
    }

    /// The same request with `fields` and `sort` (the command line's global `--fields` and
    /// `--sort`, given apart from the command's own options), checked against what it answers.
    public func shaped(fields: [String]?, sort: [SortKey]?, of recipe: DataRecipe, naming: ArgumentNaming) throws(ArgumentProblem)
        -> RecipeRequest
    {
        var request = self
        try request.applyShape(fields: fields, sort: sort, of: recipe, naming: naming)
        return request
    }

    /// Sets `fields` and `sort` once each names only what the answer has: the recipe's columns,
    /// or the summary's.
    private mutating func applyShape(fields: [String]?, sort: [SortKey]?, of recipe: DataRecipe, naming: ArgumentNaming)
        throws(ArgumentProblem)
    {
        let columns: [String]
        if summary, let totals = recipe.totals {
            columns = totals.groupBy + totals.fields.map(\.name)
        } else {
            columns = recipe.columns
        }
        let summary = self.summary
        func unknownField(_ parameter: String, _ field: String) -> ArgumentProblem {
            let path = naming.parameter(parameter)
            let known = columns.joined(separator: ", ")
            return ArgumentProblem(
                path: path,
                message: summary
                    ? localized("'\(path)' names '\(field)', which the summary of '\(recipe.command)' does not have (fields: \(known))")
                    : localized("'\(path)' names '\(field)', which '\(recipe.command)' does not have (fields: \(known))"))
        }
        for key in sort ?? [] where !columns.contains(key.field) { throw unknownField("sort", key.field) }
        for name in fields ?? [] where !name.isEmpty && !columns.contains(name) { throw unknownField("fields", name) }
        self.sort = sort
        self.fields = fields
    }
}

extension RecipeRequest {
    /// A request for a caller with options of its own (a watch, the day's views, a test), checked
    /// as every front end's is and named in the command line's words: a mistake is a usage error.
    public static func commandLine(_ recipe: DataRecipe, options: [String: String], source: String? = nil) throws -> RecipeRequest {
        do {
            return try RecipeRequest(
                recipe: recipe, options: options.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) },
                shape: source.map { [("source", .string($0))] } ?? [], naming: .commandLine)
        } catch {
            throw UniToolError(.usage, error.message, hint: localized("see 'unitool \(recipe.command) --help'"))
        }
    }
}
