import Foundation
import WebEncoding

// Reading a data recipe: the YAML, checked key by key, into the model of DataRecipe.swift.
// Every problem names the file, line and key.

extension DataRecipe {
    /// The keys a source may have.
    static let sourceKeys = [
        "fetch", "parse", "namespaces", "rows", "empty_when", "next", "max_pages", "fields", "charset", "method", "form", "json", "safe",
        "read",
    ]

    /// Reads and validates a data recipe. Every problem names the file, line and key.
    ///
    /// - Parameter reserved: command names a recipe may not take: the front end's own commands
    ///   (the CLI passes its built-in commands, which it owns).
    public static func load(
        file: String, text: String, portal: String, reserved: Set<String> = [], platforms: URL = RecipeComposer.bundledPlatforms
    ) throws -> DataRecipe {
        let (node, platform) = try RecipeComposer.compose(RecipeReader(file: file, text: text), platforms: platforms, kind: .data)
        let top = try RecipeReader(file: platform.map { localized("\(file) (on platform \($0.platform))") } ?? file, root: node).top
        try top.allowOnly(
            [
                "command", "summary", "description", "options", "sources", "totals", "actions", "login", "sort", "calendar", "service",
                "max_records", "headers", "user_values", "watch",
            ] + sourceKeys)
        let command = try top.requiredString("command")
        guard NameSyntax.isCommandName(command) else {
            throw top.error("command", localized("'\(command)' must be lowercase letters, digits and dashes"))
        }
        guard !reserved.contains(command) else {
            throw top.error(
                "command", localized("'\(command)' is a built-in command of unitool, and a recipe cannot replace it"),
                hint: localized("choose another name, such as '\(command)-\(portal)'"))
        }
        var options: [OptionSpec] = []
        if let optionsReader = try top.mappingReader("options") {
            for name in optionsReader.keys {
                guard name != "source", name != "summary" else {
                    throw optionsReader.error(name, localized("'--\(name)' is unitool's own option and cannot be declared"))
                }
                options.append(try OptionSpec.load(name: name, reader: try optionsReader.entry(name)))
            }
        }
        var sources: [Source] = []
        if let sourcesReader = try top.mappingReader("sources") {
            for key in sourceKeys where top.child(key) != nil {
                throw top.error(key, localized("belongs inside each of 'sources' when a recipe has sources"))
            }
            for name in sourcesReader.keys {
                let reader = try sourcesReader.entry(name)
                try reader.allowOnly(sourceKeys)
                sources.append(try Source.load(name: name, reader: reader))
            }
            guard !sources.isEmpty else { throw top.error("sources", localized("must name at least one source")) }
        } else {
            sources.append(try Source.load(name: nil, reader: top))
        }
        let columns = sources[0].fields.map(\.name)
        for source in sources.dropFirst() where source.fields.map(\.name) != columns {
            let name = source.name ?? ""
            let fields = source.fields.map(\.name)
            let first = sources[0].name ?? ""
            throw top.error(
                "sources",
                localized(
                    "source '\(name)' has the fields \(fields), but '\(first)' has \(columns); every source must give the same fields in the same order"
                )
            )
        }
        let userValues = try top.stringList("user_values") ?? []
        let builtIn = Set(DataRecipe.builtInValues)
        for name in userValues where !NameSyntax.isValueName(name) {
            throw top.error("user_values", localized("'\(name)' must be lowercase letters, digits and underscores"))
        }
        for source in sources {
            let known = Set(options.map(\.name)).union(source.reads.map(\.name)).union(userValues).union(builtIn)
            let templates = [("fetch", source.fetch)] + source.form.map { ("form", $0.value) } + (source.json.map { [("json", $0)] } ?? [])
            for (key, template) in templates {
                for variable in template.variables where !known.contains(variable) {
                    throw top.error(key, localized("uses {{\(variable)}}, but no option or read: value of that name is declared"))
                }
            }
            // Reads run in the order written, each with the values before it: a later read may
            // send an earlier one's value (a session key in the form that asks for an address).
            for (index, read) in source.reads.enumerated() {
                let earlier = Set(source.reads[..<index].map(\.name))
                for (key, template) in read.templates {
                    for variable in template.variables
                    where !options.contains(where: { $0.name == variable }) && !userValues.contains(variable) && !builtIn.contains(variable)
                        && !earlier.contains(variable)
                    {
                        guard let later = source.reads.firstIndex(where: { $0.name == variable }) else {
                            throw top.error(
                                "read",
                                localized(
                                    "'\(read.name)' uses {{\(variable)}} in its \(key), but no option or earlier read: value of that name is declared"
                                )
                            )
                        }
                        throw top.error(
                            "read",
                            later == index
                                ? localized(
                                    "'\(read.name)' uses its own value {{\(variable)}} in its \(key): a read cannot send what it is about to find"
                                )
                                : localized(
                                    "'\(read.name)' uses {{\(variable)}} in its \(key), but '\(variable)' is read after it: reads run in the order written, so move '\(variable)' above '\(read.name)'"
                                )
                        )
                    }
                }
            }
            // A `type: url` read is the user's capability: fetched as it is, as the whole `fetch:`,
            // and nowhere else. Put in a path or a form it would be percent-encoded, sent where no
            // scrubbing follows it and quoted by a 404: so any other use is refused.
            for address in source.reads where address.isAddress {
                // Where each template stands: the source's own (`read` nil) or a read's, and its key.
                let uses =
                    templates.map { (read: nil as String?, key: $0.0, template: $0.1) }
                    + source.reads.flatMap { read in
                        read.templates.map { (read: Optional(read.name), key: $0.key, template: $0.template) }
                    }
                for use in uses where use.template.variables.contains(address.name) {
                    guard use.read == nil, use.key == "fetch", source.fetchedAddress == address.name else {
                        let place = use.read.map { localized("read '\($0)''s \(use.key)") } ?? localized("the source's \(use.key)")
                        throw top.error(
                            "read",
                            localized(
                                "'\(address.name)' is an address (type: url), used in \(place): an address read off a page may only be the whole fetch of its source, fetch: \"{{\(address.name)}}\"; for another address, read that one off the page too"
                            )
                        )
                    }
                }
            }
        }
        for option in options {
            if let filter = option.filter, !sources[0].hasField(path: filter.field) {
                let list = columns.joined(separator: ", ")
                throw top.error(
                    "options", localized("option '\(option.name)' filters on '\(filter.field)', which is not a field (fields: \(list))"))
            }
            if let filter = option.filter, filter.test == .covers {
                let dates: Set<FieldSpec.FieldType> = [.date, .datetime]
                for name in [filter.field, filter.endField ?? ""]
                where !sources[0].fields.contains(where: { $0.name == name && dates.contains($0.type) }) {
                    throw top.error(
                        "options",
                        localized(
                            "option '\(option.name)': test: covers needs date fields for field: and end_field:, and '\(name)' is not one"))
                }
            }
            if let source = option.source, !sources.contains(where: { $0.name == source }) {
                let list = sources.compactMap(\.name).joined(separator: ", ")
                throw top.error(
                    "options",
                    localized("option '\(option.name)' reads from source '\(source)', which the recipe does not have (sources: \(list))")
                )
            }
        }
        let positional = options.filter(\.positional)
        if positional.count > 1 {
            let names = positional.map { "'\($0.name)'" }.joined(separator: " and ")
            throw top.error("options", localized("only one option can be positional, and \(names) both are"))
        }
        // A word after the command is an action's name or the positional value, never either.
        if let positional = positional.first, top.child("actions") != nil {
            throw top.error(
                "options",
                localized(
                    "option '\(positional.name)' cannot be positional in a recipe with actions: a word after the command names an action"))
        }
        let totals = try top.mappingReader("totals").map { try Totals.load(reader: $0, columns: columns) }
        var actions: [ActionSpec] = []
        if let actionsReader = try top.mappingReader("actions") {
            for name in actionsReader.keys {
                let action = try ActionSpec.load(name: name, reader: try actionsReader.entry(name))
                // A preview reads the recipe's own fields from the page's rows: each name it
                // shows, and the flag's field, must be one of them.
                if let preview = action.preview {
                    let known = sources.first?.fields.map(\.name) ?? []
                    for field in preview.fields + (preview.flagWhen.map { [$0] } ?? []) where !known.contains(field) {
                        let list = known.joined(separator: ", ")
                        throw try actionsReader.entry(name).error(
                            "preview", localized("'\(field)' is not a field of the recipe"), hint: localized("its fields: \(list)"))
                    }
                }
                actions.append(action)
            }
        }
        var recipe = DataRecipe(
            command: command, summary: try top.text("summary")?.text(for: Translation.current.locales, orFirst: true) ?? command,
            discussion: try top.string("description"), options: options, sources: sources, totals: totals,
            actions: actions, file: file, portal: portal)
        recipe.login = try top.bool("login") ?? true
        recipe.headers = try top.headers()
        recipe.userValues = userValues
        if let maxRecords = try top.integer("max_records") {
            guard maxRecordsRange.contains(maxRecords) else {
                throw top.error("max_records", localized("must be from 1 to 1000000 (the default is \(defaultMaxRecords))"))
            }
            recipe.maxRecords = maxRecords
        }
        recipe.service = try top.string("service")
        recipe.platform = platform
        recipe.sort = SortKey.parse(try top.string("sort") ?? "")
        for key in recipe.sort where !columns.contains(key.field) {
            let list = columns.joined(separator: ", ")
            throw top.error("sort", localized("'\(key.field)' is not a field (fields: \(list))"))
        }
        recipe.calendar = try top.mappingReader("calendar").map { try CalendarSpec.load(reader: $0, fields: sources[0].fields) }
        recipe.watch = try top.mappingReader("watch").map { try WatchSummaries.load(reader: $0, fields: sources[0].fields) }
        if !recipe.login, !recipe.actions.isEmpty {
            throw top.error("login", localized("a public command (login: false) cannot have actions: changing something needs a login"))
        }
        return recipe
    }
}

extension DataRecipe.Source {
    /// `day`, or `meetings.day` for a field of a nested list.
    func hasField(path: String) -> Bool {
        let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        guard let field = fields.first(where: { $0.name == parts[0] }) else { return false }
        if parts.count == 1 { return true }
        return field.list?.fields.contains { $0.name == parts[1] } ?? false
    }

    static func load(name: String?, reader: MappingReader) throws -> Self {
        guard let fieldsReader = try reader.mappingReader("fields"), !fieldsReader.keys.isEmpty else {
            throw reader.error("fields", localized("missing: a data recipe needs at least one field"))
        }
        let fields = try fieldsReader.keys.map { name in
            try FieldSpec.load(name: name, reader: try fieldsReader.entry(name))
        }
        for field in fields {
            if case .beforeToday(let other) = field.compute,
                !fields.contains(where: { $0.name == other && ($0.type == .date || $0.type == .datetime) })
            {
                throw fieldsReader.error(
                    field.name, localized("compute: before_today needs a date field, and '\(other)' is not one"),
                    hint:
                        localized(
                            "give '\(other)' type: date and its format; a field that gives its own xpath over a platform's gives its own type and format too, or says 'extends: true' to keep the platform's"
                        )
                )
            }
            // The value it works from is read first: fields are read in order.
            if case .atMost(let other, _) = field.compute,
                !fields.prefix(while: { $0.name != field.name }).contains(where: {
                    $0.name == other && ($0.type == .integer || $0.type == .number)
                })
            {
                throw fieldsReader.error(
                    field.name, localized("compute: at_most needs an integer or number field declared before it, and '\(other)' is not one")
                )
            }
        }
        let maxPages = try reader.integer("max_pages") ?? 20
        guard maxPages >= 1 else { throw reader.error("max_pages", localized("must be at least 1")) }
        var source = Self(
            name: name, fetch: Template(try reader.requiredString("fetch")),
            parser: try reader.choice("parse", of: Parser.self) ?? .html,
            namespaces: Dictionary(uniqueKeysWithValues: try reader.stringMap("namespaces") ?? []),
            rows: try reader.requiredXPath("rows"), emptyWhen: try reader.xpath("empty_when"),
            next: try reader.xpath("next"), maxPages: maxPages, fields: fields, charset: try reader.charsetLabel("charset"))
        (source.post, source.form, source.json, source.postIsSafe) = try reader.requestBody()
        if let readsReader = try reader.mappingReader("read") {
            for name in readsReader.keys {
                let entry = try readsReader.entry(name)
                try entry.allowOnly(["fetch", "xpath", "regex", "method", "form", "json", "safe", "parse", "type"])
                let regex = try entry.string("regex")
                if let regex, (try? Regex(regex)) == nil {
                    throw entry.error("regex", localized("'\(regex)' is not a valid regular expression"))
                }
                var read = Read(
                    name: name, fetch: Template(try entry.requiredString("fetch")), xpath: try entry.requiredXPath("xpath"),
                    regex: regex)
                (read.post, read.form, read.json, read.postIsSafe) = try entry.requestBody()
                read.parser = try entry.choice("parse", of: Parser.self) ?? .html
                guard read.parser == .html || read.parser == .json else {
                    throw entry.error("parse", localized("a read: value is taken from an HTML page or a JSON answer: use html or json"))
                }
                switch try entry.string("type") {
                case nil, "string": break
                case "url": read.isAddress = true
                case let other?:
                    throw entry.error(
                        "type",
                        localized("'\(other)' is not a type a read: value has: use string (the default) or url (an address to fetch)"))
                }
                source.reads.append(read)
            }
        }
        return source
    }
}

extension MappingReader {
    /// An encoding label (`charset:` on a portal or a source), checked against the labels
    /// browsers know, so that a typo is found before any request.
    func charsetLabel(_ key: String) throws -> String? {
        guard let label = try string(key) else { return nil }
        guard WebEncoding(label: label) != nil else {
            throw error(
                key,
                localized(
                    "'\(label)' is not an encoding label browsers know; use one such as Shift_JIS, EUC-JP, UTF-8, windows-1252 or ISO-8859-2"
                ))
        }
        return label
    }
}

extension OptionSpec {
    static func load(name: String, reader: MappingReader) throws -> OptionSpec {
        try reader.allowOnly(["default", "help", "values", "resolve", "filter", "positional", "source"])
        var resolve: [String: Resolution] = [:]
        if let resolveReader = try reader.mappingReader("resolve") {
            for symbol in resolveReader.keys {
                let entry = try resolveReader.entry(symbol)
                try entry.allowOnly(["fetch", "xpath", "many", "shows_records"])
                let many = try entry.bool("many") ?? false
                let showsRecords = try entry.bool("shows_records") ?? false
                if many && showsRecords {
                    throw entry.error(
                        "shows_records",
                        localized(
                            "'shows_records' is for a value that resolves to one page's records; with 'many: true' every value is fetched"))
                }
                resolve[symbol] = Resolution(
                    fetch: Template(try entry.requiredString("fetch")), xpath: try entry.requiredXPath("xpath"),
                    many: many, showsRecords: showsRecords)
            }
        }
        var filter: Filter?
        if let filterReader = try reader.mappingReader("filter") {
            try filterReader.allowOnly(["field", "test", "end_field"])
            filter = Filter(
                field: try filterReader.requiredString("field"),
                test: try filterReader.choice("test", of: Filter.Test.self) ?? .equals,
                endField: try filterReader.string("end_field"))
            if filter?.test == .covers, filter?.endField == nil {
                throw filterReader.error("end_field", localized("missing: test: covers needs the date field of the span's last day"))
            }
            if filter?.test != .covers, filter?.endField != nil {
                throw filterReader.error("end_field", localized("only test: covers has an end_field"))
            }
        }
        var option = OptionSpec(
            name: name, help: try reader.string("help"), defaultValue: try reader.string("default"),
            allowedValues: try reader.stringList("values") ?? [], resolve: resolve, filter: filter)
        option.positional = try reader.bool("positional") ?? false
        option.source = try reader.string("source")
        if option.source != nil, filter != nil {
            throw reader.error("source", localized("a filter option keeps records of any source, so it cannot choose one"))
        }
        return option
    }
}

extension FieldSpec {
    static func load(name: String, reader: MappingReader) throws -> FieldSpec {
        try reader.allowOnly(
            [
                "xpath", "type", "required", "format", "timezone", "regex", "replace", "default", "keep_empty", "list", "compute",
                "key", "priority", "decimals", "flag", "compare", "html", "map", "extends", "label",
            ])
        if reader.child("extends") != nil {
            throw reader.error(
                "extends", localized("'extends:' adds to the platform's field of the same name, and there is none named '\(name)'"),
                hint: localized("remove 'extends:', or check the field's name against the platform recipe's fields"))
        }
        let regex = try reader.string("regex")
        if let regex, (try? Regex(regex)) == nil {
            throw reader.error("regex", localized("'\(regex)' is not a valid regular expression"))
        }
        var replacements: [(pattern: String, with: String)] = []
        for (pattern, replacement) in try reader.stringMapAllowingEmpty("replace") ?? [] {
            guard (try? Regex(pattern)) != nil else {
                throw reader.error("replace", localized("'\(pattern)' is not a valid regular expression"))
            }
            replacements.append((pattern, replacement))
        }
        let type = try reader.choice("type", of: FieldType.self) ?? .string
        let format = try reader.string("format")
        if type == .date || type == .datetime, format == nil {
            throw reader.error("format", localized("a \(type.rawValue) field needs a format, such as yyyy-MM-dd, iso8601 or rfc822"))
        }
        let timeZone = try reader.string("timezone")
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw reader.error("timezone", localized("'\(timeZone)' is not a time zone; use a name such as Europe/Budapest or Asia/Tokyo"))
        }
        var list: NestedList?
        if let listReader = try reader.mappingReader("list") {
            try listReader.allowOnly(["rows", "fields"])
            guard let fieldsReader = try listReader.mappingReader("fields"), !fieldsReader.keys.isEmpty else {
                throw listReader.error("fields", localized("missing: a list needs at least one field"))
            }
            list = NestedList(
                rows: try listReader.requiredXPath("rows"),
                fields: try fieldsReader.keys.map { try FieldSpec.load(name: $0, reader: try fieldsReader.entry($0)) })
        }
        var compute: Computation?
        if let computeReader = try reader.mappingReader("compute") {
            try computeReader.allowOnly(["before_today", "at_most"])
            guard computeReader.keys.count == 1 else {
                throw reader.error("compute", localized("say one computation: before_today or at_most"))
            }
            if let limits = try computeReader.stringMap("at_most") {
                guard limits.count == 1, let limit = Double(limits[0].1) else {
                    throw computeReader.error(
                        "at_most", localized("name one number field and its limit, such as at_most: { absences_left: 1 }"))
                }
                compute = .atMost(limits[0].0, limit)
            } else {
                compute = .beforeToday(try computeReader.requiredString("before_today"))
            }
        }
        let xpath = try reader.xpath("xpath")
        if xpath == nil, list == nil, compute == nil {
            throw reader.error("xpath", localized("missing: a field needs an xpath, a list or a compute"))
        }
        let keepEmpty = try reader.bool("keep_empty") ?? false
        if keepEmpty, type != .string || list != nil || compute != nil {
            throw reader.error(
                "keep_empty", localized("only a string field read by xpath can keep empty text; a \(type.rawValue) without text is null"))
        }
        var field = FieldSpec(
            name: name, xpath: xpath, type: compute == nil ? type : .bool,
            required: try reader.bool("required") ?? false, format: format, timeZone: timeZone, regex: regex,
            replacements: replacements, defaultValue: try reader.string("default"), list: list, compute: compute)
        field.keepEmpty = keepEmpty
        field.valueMap = (try reader.stringMapAllowingEmpty("map") ?? []).map { (text: $0.0, value: $0.1) }
        field.html = try reader.bool("html") ?? false
        switch try reader.string("compare") {
        case nil, "true": field.comparison = .full
        case "false": field.comparison = .ignored
        case "path":
            guard field.type == .url else {
                throw reader.error("compare", localized("compare: path is for a url field; this is a \(field.type.rawValue)"))
            }
            field.comparison = .path
        case let other?:
            throw reader.error("compare", localized("'\(other)' is not a way to compare; use true, false or path"))
        }
        field.display = try ColumnDisplay.load(reader: reader, numeric: field.type == .integer || field.type == .number)
        if try reader.bool("flag") == true {
            guard field.type == .bool else {
                throw reader.error("flag", localized("only a bool field (or a compute:) is a flag; this is a \(field.type.rawValue)"))
            }
            guard !field.display.key else { throw reader.error("flag", localized("a key field cannot be a flag")) }
            field.display.flag = true
        }
        if field.display.key, field.comparison != .full {
            throw reader.error("compare", localized("a key field identifies the record, so it is always compared"))
        }
        return field
    }
}

extension Totals {
    static func load(reader: MappingReader, columns: [String]) throws -> Totals {
        try reader.allowOnly(["group_by", "fields", "overall"])
        let groupBy = try reader.stringList("group_by") ?? []
        let overall = try reader.string("overall")
        if overall != nil, groupBy.isEmpty {
            throw reader.error(
                "overall", localized("a row over every record needs groups to be the sum of: give group_by, or leave overall out"))
        }
        for name in groupBy where !columns.contains(name) {
            throw reader.error("group_by", localized("'\(name)' is not a field of the recipe"))
        }
        guard let fieldsReader = try reader.mappingReader("fields"), !fieldsReader.keys.isEmpty else {
            throw reader.error("fields", localized("missing: totals need at least one field"))
        }
        var aggregates: [Aggregate] = []
        for name in fieldsReader.keys {
            let entry = try fieldsReader.entry(name)
            try entry.allowOnly(["count", "sum", "mean", "weighted_mean", "weight", "where", "decimals"])
            func field(_ key: String) throws -> String? {
                guard let value = try entry.string(key) else { return nil }
                guard columns.contains(value) else { throw entry.error(key, localized("'\(value)' is not a field of the recipe")) }
                return value
            }
            let kind: Aggregate.Kind
            if let summed = try field("sum") {
                kind = .sum(summed)
            } else if let averaged = try field("mean") {
                kind = .mean(averaged)
            } else if let averaged = try field("weighted_mean") {
                guard let weight = try field("weight") else {
                    throw entry.error("weight", localized("missing: weighted_mean needs a weight field"))
                }
                kind = .weightedMean(averaged, weight: weight)
            } else if entry.child("count") != nil {
                kind = .count
            } else {
                throw entry.error("sum", localized("missing: say count, sum, mean or weighted_mean"))
            }
            var aggregate = Aggregate(name: name, kind: kind, whereField: try field("where"))
            aggregate.decimals = try ColumnDisplay.load(reader: entry, numeric: true, allowing: ["decimals"]).decimals
            aggregates.append(aggregate)
        }
        return Totals(groupBy: groupBy, fields: aggregates, overall: overall)
    }
}

extension ActionSpec {
    static func load(name: String, reader: MappingReader) throws -> ActionSpec {
        try reader.allowOnly([
            "summary", "argument", "fetch", "form", "fill", "submit", "success_when", "refused_when", "fields", "nothing_when",
            "fill_from_page", "parameters", "ask", "confirm_page", "preview", "result_rows",
        ])
        let argument = try reader.string("argument") ?? ""
        var parameters: [Parameter] = []
        if let parametersReader = try reader.mappingReader("parameters") {
            for parameterName in parametersReader.keys {
                let entry = try parametersReader.entry(parameterName)
                try entry.allowOnly(["help", "required"])
                guard NameSyntax.isValueName(parameterName), parameterName != argument,
                    !ActionSpec.reservedParameterNames.contains(parameterName)
                else {
                    throw parametersReader.error(
                        parameterName,
                        parameterName == argument
                            ? localized("'\(parameterName)' is already the action's argument")
                            : ActionSpec.reservedParameterNames.contains(parameterName)
                                ? localized("'--\(parameterName)' is unitool's own option; name the value otherwise")
                                : localized("'\(parameterName)' must be lowercase letters, digits and underscores"))
                }
                parameters.append(
                    Parameter(name: parameterName, help: try entry.string("help"), required: try entry.bool("required") ?? false))
            }
        }
        let fetch = Template(try reader.requiredString("fetch"))
        for variable in fetch.variables where variable != argument || argument.isEmpty {
            throw reader.error(
                "fetch",
                argument.isEmpty
                    ? localized("uses {{\(variable)}}, but the action takes no argument")
                    : localized("uses {{\(variable)}}; an action knows only {{\(argument)}}"))
        }
        let form = try reader.requiredString("form")
        do {
            try XPathSyntax.check(Template(form).render([argument: "x"]))
        } catch {
            throw reader.error("form", "\(error)")
        }
        var fields: [FieldSpec] = []
        if let fieldsReader = try reader.mappingReader("fields") {
            fields = try fieldsReader.keys.map { try FieldSpec.load(name: $0, reader: try fieldsReader.entry($0)) }
        }
        var action = ActionSpec(
            name: name, summary: try reader.text("summary")?.text(for: Translation.current.locales, orFirst: true) ?? name,
            argument: argument, fetch: fetch, form: form,
            fill: (try reader.stringMapAllowingEmpty("fill") ?? []).map { ($0.0, Template($0.1)) },
            submit: try reader.xpath("submit"), successWhen: try reader.requiredXPath("success_when"),
            refusedWhen: try reader.string("refused_when"), fields: fields)
        action.nothingWhen = try reader.xpath("nothing_when")
        action.parameters = parameters
        action.ask = try reader.bool("ask") ?? false
        let known = Set(parameters.map(\.name) + (argument.isEmpty ? [] : [argument]))
        for (field, template) in action.fill {
            for variable in template.variables where !known.contains(variable) {
                throw reader.error(
                    "fill", localized("\(field) uses {{\(variable)}}, which is neither the argument nor a parameter of '\(name)'"))
            }
        }
        if let previewReader = try reader.mappingReader("preview") {
            try previewReader.allowOnly(["rows", "fields", "flag"])
            var preview = Preview(rows: try previewReader.requiredXPath("rows"), fields: try previewReader.stringList("fields") ?? [])
            if let flagReader = try previewReader.mappingReader("flag") {
                try flagReader.allowOnly(["when", "says", "days"])
                preview.flagWhen = try flagReader.requiredString("when")
                preview.flagSays = try flagReader.requiredString("says")
                preview.flagDays = try flagReader.integer("days") ?? 0
            }
            action.preview = preview
        }
        action.resultRows = try reader.xpath("result_rows")
        if let confirmReader = try reader.mappingReader("confirm_page") {
            try confirmReader.allowOnly(["form", "submit"])
            action.confirmPage = ConfirmPage(form: try confirmReader.requiredXPath("form"), submit: try confirmReader.xpath("submit"))
        }
        if let refusedWhen = action.refusedWhen {
            do {
                try XPathSyntax.check(Template(refusedWhen).render([argument: "x"], encode: Template.xpathLiteral))
            } catch {
                throw reader.error("refused_when", "\(error)")
            }
            for variable in Template(refusedWhen).variables where variable != argument || argument.isEmpty {
                throw reader.error("refused_when", localized("uses {{\(variable)}}; an action knows only {{\(argument)}}"))
            }
        }
        for (field, xpath) in try reader.stringMap("fill_from_page") ?? [] {
            do {
                try XPathSyntax.check(Template(xpath).render([argument: "x"], encode: Template.xpathLiteral))
            } catch {
                throw reader.error("fill_from_page", "\(field): \(error)")
            }
            action.fillFromPage.append((field, xpath))
        }
        return action
    }
}

extension ColumnDisplay {
    /// Reads `key`, `priority`, `decimals` and `label` from a field's mapping.
    static func load(reader: MappingReader, numeric: Bool, allowing keys: Set<String> = ["key", "priority", "decimals", "label"]) throws
        -> ColumnDisplay
    {
        var display = ColumnDisplay()
        if keys.contains("key") { display.key = try reader.bool("key") ?? false }
        if keys.contains("priority") { display.priority = try reader.choice("priority", of: Priority.self) ?? .normal }
        if keys.contains("label") { display.label = try reader.text("label")?.text(for: Translation.current.locales, orFirst: false) }
        // A hidden key identifies records without being shown (a calendar's UID); a key that is
        // shown is never the first column to go.
        if display.key, display.priority == .low {
            throw reader.error(
                "priority", localized("a key field is never left out of a table, so it cannot have priority: low (hidden is allowed)"))
        }
        if let decimals = try reader.string("decimals") {
            guard let digits = Int(decimals), (0...9).contains(digits) else {
                throw reader.error("decimals", localized("'\(decimals)' is not a number of digits from 0 to 9"))
            }
            guard numeric else { throw reader.error("decimals", localized("only an integer or number field has decimals")) }
            display.decimals = digits
        }
        return display
    }
}

extension MappingReader {
    /// `method:`, `form:` and `json:` of a source or a `read:` entry: whether the page is asked
    /// for with a POST, and its body. A body without `method: post`, or both bodies, is an error.
    func requestBody() throws -> (post: Bool, form: [(name: String, value: Template)], json: Template?, safe: Bool) {
        let post: Bool
        switch try string("method")?.lowercased() {
        case nil, "get": post = false
        case "post": post = true
        case let other?: throw error("method", localized("'\(other)' is not a method a recipe may use; use get or post"))
        }
        let form = (try stringMapAllowingEmpty("form") ?? []).map { (name: $0.0, value: Template($0.1)) }
        let json = try string("json").map(Template.init)
        if !post, !form.isEmpty || json != nil {
            throw error(json != nil ? "json" : "form", localized("a body is sent with method: post only"))
        }
        if !form.isEmpty, json != nil { throw error("json", localized("a POST sends form or json, not both")) }
        // `safe: true`: the POST only reads (a search form), so an assistant need not ask first.
        let safe = try bool("safe") ?? false
        if safe, !post { throw error("safe", localized("safe: true is said of a POST that only reads; a GET is safe already")) }
        return (post, form, json, safe)
    }
}
