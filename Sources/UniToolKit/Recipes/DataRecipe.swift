import Foundation
import WebEncoding

/// A recipe that reads records from portal pages: `Recipes/<portal>/<command>.yaml`.
///
/// Each data recipe becomes a command (`unitool grades`), and its options become that
/// command's options. Everything a university does differently lives here, not in Swift code.
public struct DataRecipe: Sendable {
    public var command: String
    public var summary: String
    public var discussion: String?
    public var options: [OptionSpec]
    /// Where the records come from. Usually one; several (an RSS feed and an HTML list of the same
    /// news) make a `--source` option, the first being the default.
    public var sources: [Source]
    /// Totals over the records (`--summary`): credits earned, a GPA.
    public var totals: Totals?
    /// Forms the recipe can fill and submit: `unitool loans renew <barcode>`.
    public var actions: [ActionSpec]
    public var file: String
    public var portal: String
    /// False for a public command (`login: false`, a news feed): it needs no user and never logs
    /// in; a portal that asks for a login is an error, not a password prompt.
    public var login = true
    /// The order records come in unless the user asks for another (`sort: due`, `sort: -date`).
    public var sort: [SortKey] = []
    /// How records become calendar events (`calendar:`), for `--format ics`, `unitool calendar`
    /// and `unitool today`. Nil: the command has no calendar.
    public var calendar: CalendarSpec? = nil
    /// The portal's service the command reads (`service: lms`): its paths are relative to that
    /// service's `base_url`. Nil: the portal's own.
    public var service: String? = nil
    /// The platform recipe this one builds on (`use: koha/loans`), if any.
    public var platform: RecipeComposer.Composition? = nil
    /// The most records one run may read, over all its pages (`max_records`): more is an error,
    /// not an answer, so that a page of half a million rows cannot make a run, the history or a
    /// watch cost gigabytes.
    public var maxRecords = DataRecipe.defaultMaxRecords
    /// Request headers of this command's own requests (`headers:`), after the portal's and its
    /// service's; sent only to the portal's own origins (`RecipeHeaders`).
    public var headers: [RecipeHeaders.Header] = []
    /// Values each user keeps in their own settings (`user_values:`, or a platform's `per_user`
    /// parameters the folder left open): `{{authtoken}}` in a Moodle calendar export address.
    /// Filled in at run time, never stored in the university's folder.
    public var userValues: [String] = []
    /// Values unitool fills in itself: `{{today_epoch}}`, the first second of today in the
    /// user's zone as seconds since 1970 (an API that asks "from when", as Moodle's timeline does).
    public static let builtInValues = ["today_epoch"]
    public static let defaultMaxRecords = 10_000
    public static let maxRecordsRange = 1...1_000_000

    /// The recipe without its default order: for an action's result, which has fields of its own.
    public var withoutDefaultSort: DataRecipe {
        var copy = self
        copy.sort = []
        return copy
    }

    /// Whether `unitool COMMAND` runs as it is: every option it must have has a default (a
    /// filter option may be left out).
    public var runsWithoutArguments: Bool { options.allSatisfy { $0.filter != nil || $0.defaultValue != nil } }

    /// The first source: the one used when the recipe has only one, or no `--source` is given.
    public var primary: Source { sources[0] }
    /// Output columns, the same for every source.
    public var columns: [String] { primary.fields.map(\.name) }
    /// How each field that is not compared in full is compared, by name (`compare:`).
    public var comparisons: [String: FieldSpec.Comparison] {
        var comparisons: [String: FieldSpec.Comparison] = [:]
        for field in primary.fields where field.comparison != .full { comparisons[field.name] = field.comparison }
        return comparisons
    }

    /// Whose answers these are in the history: the user's, or for a public command (`login:
    /// false`), everyone's, kept under no user. One rule for every front end and the service.
    public func historyUser(_ user: String) -> String { login ? user : "" }

    /// The fields marked `key: true`: what identifies a record, and what a table never cuts.
    public var keyFields: [String] { primary.fields.filter(\.display.key).map(\.name) }
    /// What `recipes lint` points out without refusing the recipe.
    public var warnings: [String] {
        var warnings: [String] = []
        if keyFields.isEmpty {
            warnings.append(
                "\(file): no field has 'key: true', so history and watch match records by their whole content (a changed grade shows as removed and added); mark the fields that identify a record"
            )
        }
        return warnings
    }

    /// The columns a table shows when `--fields` does not choose: all but `priority: hidden`.
    public var tableColumns: [String] { primary.fields.filter { $0.display.priority != .hidden }.map(\.name) }

    /// How a table shows each column, the totals' columns included, by column name.
    public var columnDisplay: [String: ColumnDisplay] {
        var display: [String: ColumnDisplay] = [:]
        for field in primary.fields { display[field.name] = field.display }
        for aggregate in totals?.fields ?? [] { display[aggregate.name] = ColumnDisplay(decimals: aggregate.decimals) }
        return display
    }

    /// Where one page of records is and how its rows and fields are read.
    public struct Source: Sendable {
        public enum Parser: String, Sendable, CaseIterable {
            case html, xml
            /// JSON, read as XML (`StructuredText`): an AJAX endpoint's answer.
            case json
            /// iCalendar, read as XML (`StructuredText`): a calendar export's VEVENTs as rows.
            case ics
        }

        /// Nil for a recipe's only source; the `--source` value otherwise.
        public var name: String?
        /// The page to read, relative to the portal, with `{{option}}` placeholders.
        public var fetch: Template
        /// `html` (forgiving, as browsers parse) or `xml` (RSS, Atom).
        public var parser: Parser
        /// Prefixes for XPath, such as `atom: http://www.w3.org/2005/Atom`.
        public var namespaces: [String: String]
        /// Selects one node per record.
        public var rows: String
        /// When `rows` matches nothing, the page must match this to count as "no records";
        /// otherwise an empty match means the page changed and is reported as such.
        public var emptyWhen: String?
        /// The link to the next page of records, if the portal splits them into pages.
        public var next: String?
        /// How many pages `next` is followed for at most.
        public var maxPages: Int
        public var fields: [FieldSpec]
        /// The encoding label to read this source's pages in, whatever the server says: for a
        /// portal that labels a page wrongly. A byte order mark still wins.
        public var charset: String? = nil
        /// `method: post`: the first page is asked for with a POST of `form` or `json`, as a
        /// page's script asks an AJAX endpoint. Later pages (`next`) are links, so GETs.
        public var post = false
        /// The POST's form fields, `{{option}}` and `{{read}}` values filled in.
        public var form: [(name: String, value: Template)] = []
        /// The POST's JSON body; values are filled in JSON-escaped.
        public var json: Template? = nil
        /// Values read from a page before the fetch (`read:`): a `sesskey` the endpoint wants.
        public var reads: [Read] = []

        /// `read: { sesskey: { fetch: /my/, xpath: "//script[contains(., 'sesskey')]", regex: '"sesskey":"([^"]+)"' } }`
        public struct Read: Sendable {
            public var name: String
            public var fetch: Template
            public var xpath: String
            public var regex: String?
            /// `method: post`: the page is asked for with a POST of `form` or `json`, as a
            /// source's first page may be (a token that only an AJAX call hands out).
            public var post = false
            public var form: [(name: String, value: Template)] = []
            public var json: Template? = nil
            /// How the answer is read (`parse: json` for an AJAX answer); HTML by default.
            public var parser: Parser = .html

            /// Every template of the read, with the key it stands under, for the checks of its values.
            var templates: [(key: String, template: Template)] {
                [("fetch", fetch)] + form.map { ("form", $0.value) } + (json.map { [("json", $0)] } ?? [])
            }
        }
    }

    /// The options a run really has: those given, and the defaults of the rest. The history keys
    /// runs by them, so that `grades` and `grades --term current` are the same question.
    public func effectiveOptions(_ given: [String: String]) -> [String: String] {
        var options = given
        for option in self.options where options[option.name] == nil {
            if let value = option.defaultValue { options[option.name] = value }
        }
        return options
    }

    /// The source that `--source NAME` chooses, or the first.
    public func source(named name: String?) -> Source? {
        guard let name else { return primary }
        return sources.first { $0.name == name }
    }
}

/// A command-line option declared by a recipe.
public struct OptionSpec: Sendable {
    public var name: String
    public var help: String?
    public var defaultValue: String?
    /// When non-empty, the only values accepted (besides those in `resolve`).
    public var allowedValues: [String]
    /// Symbolic values looked up on a portal page, such as `current` for the term that the
    /// portal's own term selector marks as selected, or `all` for every term it offers.
    public var resolve: [String: Resolution]
    /// When set, the option does not change what is fetched; it keeps only matching records.
    public var filter: Filter?

    public struct Resolution: Sendable {
        public var fetch: Template
        public var xpath: String
        /// Every match, not just the first: the recipe then runs once for each value.
        public var many: Bool
        /// The page that resolves the value already shows the records for it (a grades page
        /// opens on the term its selector marks as selected), so it is read as the source's
        /// first page instead of being fetched again under the resolved address.
        public var showsRecords: Bool = false
    }

    /// Keeps the records whose `field` passes the test against the option's value.
    public struct Filter: Sendable {
        public enum Test: String, Sendable, CaseIterable {
            /// Text equal, ignoring case.
            case equals
            /// Text contains the value, ignoring case.
            case contains
            /// A weekday: `mon`..`sun` or `today`; the field is a weekday name or a date.
            case weekday
            /// A date field on or after the value: `2026-11-01`, `today`, or `7d` (7 days ago).
            case since
            /// A date field on or before the value.
            case until
        }

        public var field: String
        public var test: Test
    }
}

/// One column of the output: where its value is on the page and what type it has.
public struct FieldSpec: Sendable {
    public enum FieldType: String, Sendable, CaseIterable {
        case string, integer, number, date, datetime, bool, url
    }

    public var name: String
    /// Relative to the row node: `td[2]`. An absolute path (`//h1`) reads the page instead.
    /// Nil for a computed field.
    public var xpath: String?
    public var type: FieldType
    /// A required field that matches nothing, or matches only empty text, is an error.
    public var required: Bool
    /// For dates and times: the page's format in Unicode notation (`dd.MM.yyyy`), or `iso8601`,
    /// or `rfc822` (RSS's `Tue, 17 Nov 2026 09:30:00 +0100`).
    public var format: String?
    /// For dates and times without a zone of their own: the portal's time zone (`Europe/Budapest`).
    public var timeZone: String?
    /// A regular expression applied to the text before typing; its first capture group (or the
    /// whole match) is kept.
    public var regex: String?
    /// Regular-expression replacements, in order, applied before `regex`.
    public var replacements: [(pattern: String, with: String)]
    public var defaultValue: String?
    /// A string field whose XPath matched but found no text is `""` rather than null
    /// (`keep_empty: true`): for a script, "the portal shows this cell empty" is not "no cell".
    public var keepEmpty = false
    /// The portal's words for values, read before typing (`map: { Erledigt: yes, Offen: no }`):
    /// a text equal to one, in any case, is read as its value.
    public var valueMap: [(text: String, value: String)] = []
    /// A list inside each record: a course's several meetings.
    public var list: NestedList?
    /// A value unitool works out from the record instead of reading it from the page.
    public var compute: Computation?
    /// The matched text is HTML (`html: true`): a feed item's `content:encoded`, a JSON field
    /// with markup. The field is its text, without tags.
    public var html = false
    /// How history, watch and `today` compare the field from one answer to the next.
    public var comparison = Comparison.full
    /// How a table shows the field: `key: true` (never cut: what the user types back),
    /// `priority: low` (left out first on a narrow terminal), `decimals: 2`.
    public var display = ColumnDisplay()

    public struct NestedList: Sendable {
        public var rows: String
        public var fields: [FieldSpec]
    }

    /// `compare:` on a field: whether a change in it alone is a change of the record.
    public enum Comparison: String, Sendable, CaseIterable {
        /// Every change counts (the default).
        case full
        /// Never compared (`compare: false`): a link that carries a session id, or anything
        /// else that changes on every visit without meaning anything.
        case ignored
        /// For a URL: only its path and query are compared (`compare: path`), so that a portal
        /// that answers from several host names, or the demo on a new port, is not a change.
        case path
    }

    public enum Computation: Sendable {
        /// True when the named date field is before today: a loan that is overdue.
        case beforeToday(String)
    }
}

/// Sums and averages over the records, per group: what `--summary` prints.
public struct Totals: Sendable {
    /// Fields whose values make one summary row each (`term`); none means one row for all.
    public var groupBy: [String]
    public var fields: [Aggregate]

    public struct Aggregate: Sendable {
        public enum Kind: Sendable {
            case count
            case sum(String)
            case mean(String)
            /// A mean weighted by another field: grade points weighted by credits is a GPA.
            case weightedMean(String, weight: String)
        }

        public var name: String
        public var kind: Kind
        /// Only records where this field has a value count (grades that are in).
        public var whereField: String?
        /// Digits after the point in a table: a GPA as `3.60` beside `3.49`.
        public var decimals: Int? = nil
    }
}

/// A form the recipe fills and submits on the user's behalf, such as renewing a loan.
public struct ActionSpec: Sendable {
    public var name: String
    public var summary: String
    /// The positional argument: `unitool loans renew <barcode>`; empty for an action that takes
    /// none (`unitool loans renew-all`).
    public var argument: String
    public var takesArgument: Bool { !argument.isEmpty }
    /// The page says there is nothing to do (`nothing_when`): no loan due, nothing to confirm.
    /// That is an answer, not a changed page: the action ends there, successfully.
    public var nothingWhen: String? = nil
    /// Form fields whose values are read off the page by XPath (`fill_from_page`), `{{argument}}`
    /// quoted as an XPath string: the item number of the row with that barcode, for a form that
    /// wants the portal's own number.
    public var fillFromPage: [(name: String, xpath: String)] = []
    /// The page that carries the form, with `{{argument}}` placeholders.
    public var fetch: Template
    /// The form to submit; `{{argument}}` is allowed, quoted as an XPath string.
    public var form: String
    public var fill: [(name: String, value: Template)]
    public var submit: String?
    /// The result page says the portal did it.
    public var successWhen: String
    /// The result page says the portal refused; the matched text is its reason.
    public var refusedWhen: String?
    /// What to report from the result page.
    public var fields: [FieldSpec]
}

extension DataRecipe {
    /// Built-in commands: no recipe may take their names.

    static let sourceKeys = [
        "fetch", "parse", "namespaces", "rows", "empty_when", "next", "max_pages", "fields", "charset", "method", "form", "json", "read",
    ]

    /// Reads and validates a data recipe. Every problem names the file, line and key.
    ///
    /// - Parameter reserved: command names a recipe may not take: the front end's own commands
    ///   (the CLI passes its built-in commands, which it owns).
    public static func load(
        file: String, text: String, portal: String, reserved: Set<String> = [], platforms: URL = RecipeComposer.bundledPlatforms
    ) throws -> DataRecipe {
        let (node, platform) = try RecipeComposer.compose(RecipeReader(file: file, text: text), platforms: platforms, kind: .data)
        let top = try RecipeReader(file: platform.map { "\(file) (on platform \($0.platform))" } ?? file, root: node).top
        try top.allowOnly(
            [
                "command", "summary", "description", "options", "sources", "totals", "actions", "login", "sort", "calendar", "service",
                "max_records", "headers", "user_values",
            ] + sourceKeys)
        let command = try top.requiredString("command")
        guard NameSyntax.isCommandName(command) else {
            throw top.error("command", "'\(command)' must be lowercase letters, digits and dashes")
        }
        guard !reserved.contains(command) else {
            throw top.error(
                "command", "'\(command)' is a built-in command of unitool, and a recipe cannot replace it",
                hint: "choose another name, such as '\(command)-\(portal)'")
        }
        var options: [OptionSpec] = []
        if let optionsReader = try top.mappingReader("options") {
            for name in optionsReader.keys {
                guard name != "source", name != "summary" else {
                    throw optionsReader.error(name, "'--\(name)' is unitool's own option and cannot be declared")
                }
                options.append(try OptionSpec.load(name: name, reader: try optionsReader.entry(name)))
            }
        }
        var sources: [Source] = []
        if let sourcesReader = try top.mappingReader("sources") {
            for key in sourceKeys where top.child(key) != nil {
                throw top.error(key, "belongs inside each of 'sources' when a recipe has sources")
            }
            for name in sourcesReader.keys {
                let reader = try sourcesReader.entry(name)
                try reader.allowOnly(sourceKeys)
                sources.append(try Source.load(name: name, reader: reader))
            }
            guard !sources.isEmpty else { throw top.error("sources", "must name at least one source") }
        } else {
            sources.append(try Source.load(name: nil, reader: top))
        }
        let columns = sources[0].fields.map(\.name)
        for source in sources.dropFirst() where source.fields.map(\.name) != columns {
            throw top.error(
                "sources",
                "source '\(source.name ?? "")' has the fields \(source.fields.map(\.name)), but '\(sources[0].name ?? "")' has \(columns); every source must give the same fields in the same order"
            )
        }
        let userValues = try top.stringList("user_values") ?? []
        let builtIn = Set(DataRecipe.builtInValues)
        for name in userValues where !NameSyntax.isValueName(name) {
            throw top.error("user_values", "'\(name)' must be lowercase letters, digits and underscores")
        }
        for source in sources {
            let known = Set(options.map(\.name)).union(source.reads.map(\.name)).union(userValues).union(builtIn)
            let templates = [("fetch", source.fetch)] + source.form.map { ("form", $0.value) } + (source.json.map { [("json", $0)] } ?? [])
            for (key, template) in templates {
                for variable in template.variables where !known.contains(variable) {
                    throw top.error(key, "uses {{\(variable)}}, but no option or read: value of that name is declared")
                }
            }
            for read in source.reads {
                for (key, template) in read.templates {
                    for variable in template.variables
                    where !options.contains(where: { $0.name == variable }) && !userValues.contains(variable) && !builtIn.contains(variable)
                    {
                        throw top.error("read", "'\(read.name)' uses {{\(variable)}} in its \(key), but no option of that name is declared")
                    }
                }
            }
        }
        for option in options {
            if let filter = option.filter, !sources[0].hasField(path: filter.field) {
                throw top.error(
                    "options",
                    "option '\(option.name)' filters on '\(filter.field)', which is not a field (fields: \(columns.joined(separator: ", ")))"
                )
            }
        }
        let totals = try top.mappingReader("totals").map { try Totals.load(reader: $0, columns: columns) }
        var actions: [ActionSpec] = []
        if let actionsReader = try top.mappingReader("actions") {
            for name in actionsReader.keys {
                actions.append(try ActionSpec.load(name: name, reader: try actionsReader.entry(name)))
            }
        }
        var recipe = DataRecipe(
            command: command, summary: try top.string("summary") ?? command,
            discussion: try top.string("description"), options: options, sources: sources, totals: totals,
            actions: actions, file: file, portal: portal)
        recipe.login = try top.bool("login") ?? true
        recipe.headers = try top.headers()
        recipe.userValues = userValues
        if let maxRecords = try top.integer("max_records") {
            guard maxRecordsRange.contains(maxRecords) else {
                throw top.error("max_records", "must be from 1 to 1000000 (the default is \(defaultMaxRecords))")
            }
            recipe.maxRecords = maxRecords
        }
        recipe.service = try top.string("service")
        recipe.platform = platform
        recipe.sort = SortKey.parse(try top.string("sort") ?? "")
        for key in recipe.sort where !columns.contains(key.field) {
            throw top.error("sort", "'\(key.field)' is not a field (fields: \(columns.joined(separator: ", ")))")
        }
        recipe.calendar = try top.mappingReader("calendar").map { try CalendarSpec.load(reader: $0, fields: sources[0].fields) }
        if !recipe.login, !recipe.actions.isEmpty {
            throw top.error("login", "a public command (login: false) cannot have actions: changing something needs a login")
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
            throw reader.error("fields", "missing: a data recipe needs at least one field")
        }
        let fields = try fieldsReader.keys.map { name in
            try FieldSpec.load(name: name, reader: try fieldsReader.entry(name))
        }
        for field in fields {
            if case .beforeToday(let other) = field.compute,
                !fields.contains(where: { $0.name == other && ($0.type == .date || $0.type == .datetime) })
            {
                throw fieldsReader.error(field.name, "compute: before_today needs a date field, and '\(other)' is not one")
            }
        }
        let maxPages = try reader.integer("max_pages") ?? 20
        guard maxPages >= 1 else { throw reader.error("max_pages", "must be at least 1") }
        var source = Self(
            name: name, fetch: Template(try reader.requiredString("fetch")),
            parser: try reader.choice("parse", of: Parser.self) ?? .html,
            namespaces: Dictionary(uniqueKeysWithValues: try reader.stringMap("namespaces") ?? []),
            rows: try reader.requiredXPath("rows"), emptyWhen: try reader.xpath("empty_when"),
            next: try reader.xpath("next"), maxPages: maxPages, fields: fields, charset: try reader.charsetLabel("charset"))
        switch try reader.string("method")?.lowercased() {
        case nil, "get": source.post = false
        case "post": source.post = true
        case let other?: throw reader.error("method", "'\(other)' is not a method a recipe may use; use get or post")
        }
        source.form = (try reader.stringMapAllowingEmpty("form") ?? []).map { ($0.0, Template($0.1)) }
        source.json = try reader.string("json").map(Template.init)
        if !source.post, !source.form.isEmpty || source.json != nil {
            throw reader.error(source.json != nil ? "json" : "form", "a body is sent with method: post only")
        }
        if !source.form.isEmpty, source.json != nil { throw reader.error("json", "a POST sends form or json, not both") }
        if let readsReader = try reader.mappingReader("read") {
            for name in readsReader.keys {
                let entry = try readsReader.entry(name)
                try entry.allowOnly(["fetch", "xpath", "regex", "method", "form", "json", "parse"])
                let regex = try entry.string("regex")
                if let regex, (try? Regex(regex)) == nil { throw entry.error("regex", "'\(regex)' is not a valid regular expression") }
                var read = Read(
                    name: name, fetch: Template(try entry.requiredString("fetch")), xpath: try entry.requiredXPath("xpath"),
                    regex: regex)
                switch try entry.string("method")?.lowercased() {
                case nil, "get": read.post = false
                case "post": read.post = true
                case let other?: throw entry.error("method", "'\(other)' is not a method a recipe may use; use get or post")
                }
                read.form = (try entry.stringMapAllowingEmpty("form") ?? []).map { ($0.0, Template($0.1)) }
                read.json = try entry.string("json").map(Template.init)
                if !read.post, !read.form.isEmpty || read.json != nil {
                    throw entry.error(read.json != nil ? "json" : "form", "a body is sent with method: post only")
                }
                if !read.form.isEmpty, read.json != nil { throw entry.error("json", "a POST sends form or json, not both") }
                read.parser = try entry.choice("parse", of: Parser.self) ?? .html
                guard read.parser == .html || read.parser == .json else {
                    throw entry.error("parse", "a read: value is taken from an HTML page or a JSON answer: use html or json")
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
                "'\(label)' is not an encoding label browsers know; use one such as Shift_JIS, EUC-JP, UTF-8, windows-1252 or ISO-8859-2")
        }
        return label
    }
}

extension OptionSpec {
    static func load(name: String, reader: MappingReader) throws -> OptionSpec {
        try reader.allowOnly(["default", "help", "values", "resolve", "filter"])
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
                        "'shows_records' is for a value that resolves to one page's records; with 'many: true' every value is fetched")
                }
                resolve[symbol] = Resolution(
                    fetch: Template(try entry.requiredString("fetch")), xpath: try entry.requiredXPath("xpath"),
                    many: many, showsRecords: showsRecords)
            }
        }
        var filter: Filter?
        if let filterReader = try reader.mappingReader("filter") {
            try filterReader.allowOnly(["field", "test"])
            filter = Filter(
                field: try filterReader.requiredString("field"),
                test: try filterReader.choice("test", of: Filter.Test.self) ?? .equals)
        }
        return OptionSpec(
            name: name, help: try reader.string("help"), defaultValue: try reader.string("default"),
            allowedValues: try reader.stringList("values") ?? [], resolve: resolve, filter: filter)
    }
}

extension FieldSpec {
    static func load(name: String, reader: MappingReader) throws -> FieldSpec {
        try reader.allowOnly(
            [
                "xpath", "type", "required", "format", "timezone", "regex", "replace", "default", "keep_empty", "list", "compute",
                "key", "priority", "decimals", "flag", "compare", "html", "map",
            ])
        let regex = try reader.string("regex")
        if let regex, (try? Regex(regex)) == nil {
            throw reader.error("regex", "'\(regex)' is not a valid regular expression")
        }
        var replacements: [(pattern: String, with: String)] = []
        for (pattern, replacement) in try reader.stringMapAllowingEmpty("replace") ?? [] {
            guard (try? Regex(pattern)) != nil else {
                throw reader.error("replace", "'\(pattern)' is not a valid regular expression")
            }
            replacements.append((pattern, replacement))
        }
        let type = try reader.choice("type", of: FieldType.self) ?? .string
        let format = try reader.string("format")
        if type == .date || type == .datetime, format == nil {
            throw reader.error("format", "a \(type.rawValue) field needs a format, such as yyyy-MM-dd, iso8601 or rfc822")
        }
        let timeZone = try reader.string("timezone")
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw reader.error("timezone", "'\(timeZone)' is not a time zone; use a name such as Europe/Budapest or Asia/Tokyo")
        }
        var list: NestedList?
        if let listReader = try reader.mappingReader("list") {
            try listReader.allowOnly(["rows", "fields"])
            guard let fieldsReader = try listReader.mappingReader("fields"), !fieldsReader.keys.isEmpty else {
                throw listReader.error("fields", "missing: a list needs at least one field")
            }
            list = NestedList(
                rows: try listReader.requiredXPath("rows"),
                fields: try fieldsReader.keys.map { try FieldSpec.load(name: $0, reader: try fieldsReader.entry($0)) })
        }
        var compute: Computation?
        if let computeReader = try reader.mappingReader("compute") {
            try computeReader.allowOnly(["before_today"])
            compute = .beforeToday(try computeReader.requiredString("before_today"))
        }
        let xpath = try reader.xpath("xpath")
        if xpath == nil, list == nil, compute == nil {
            throw reader.error("xpath", "missing: a field needs an xpath, a list or a compute")
        }
        let keepEmpty = try reader.bool("keep_empty") ?? false
        if keepEmpty, type != .string || list != nil || compute != nil {
            throw reader.error(
                "keep_empty", "only a string field read by xpath can keep empty text; a \(type.rawValue) without text is null")
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
                throw reader.error("compare", "compare: path is for a url field; this is a \(field.type.rawValue)")
            }
            field.comparison = .path
        case let other?:
            throw reader.error("compare", "'\(other)' is not a way to compare; use true, false or path")
        }
        field.display = try ColumnDisplay.load(reader: reader, numeric: field.type == .integer || field.type == .number)
        if try reader.bool("flag") == true {
            guard field.type == .bool else {
                throw reader.error("flag", "only a bool field (or a compute:) is a flag; this is a \(field.type.rawValue)")
            }
            guard !field.display.key else { throw reader.error("flag", "a key field cannot be a flag") }
            field.display.flag = true
        }
        if field.display.key, field.comparison != .full {
            throw reader.error("compare", "a key field identifies the record, so it is always compared")
        }
        return field
    }
}

extension Totals {
    static func load(reader: MappingReader, columns: [String]) throws -> Totals {
        try reader.allowOnly(["group_by", "fields"])
        let groupBy = try reader.stringList("group_by") ?? []
        for name in groupBy where !columns.contains(name) {
            throw reader.error("group_by", "'\(name)' is not a field of the recipe")
        }
        guard let fieldsReader = try reader.mappingReader("fields"), !fieldsReader.keys.isEmpty else {
            throw reader.error("fields", "missing: totals need at least one field")
        }
        var aggregates: [Aggregate] = []
        for name in fieldsReader.keys {
            let entry = try fieldsReader.entry(name)
            try entry.allowOnly(["count", "sum", "mean", "weighted_mean", "weight", "where", "decimals"])
            func field(_ key: String) throws -> String? {
                guard let value = try entry.string(key) else { return nil }
                guard columns.contains(value) else { throw entry.error(key, "'\(value)' is not a field of the recipe") }
                return value
            }
            let kind: Aggregate.Kind
            if let summed = try field("sum") {
                kind = .sum(summed)
            } else if let averaged = try field("mean") {
                kind = .mean(averaged)
            } else if let averaged = try field("weighted_mean") {
                guard let weight = try field("weight") else { throw entry.error("weight", "missing: weighted_mean needs a weight field") }
                kind = .weightedMean(averaged, weight: weight)
            } else if entry.child("count") != nil {
                kind = .count
            } else {
                throw entry.error("sum", "missing: say count, sum, mean or weighted_mean")
            }
            var aggregate = Aggregate(name: name, kind: kind, whereField: try field("where"))
            aggregate.decimals = try ColumnDisplay.load(reader: entry, numeric: true, allowing: ["decimals"]).decimals
            aggregates.append(aggregate)
        }
        return Totals(groupBy: groupBy, fields: aggregates)
    }
}

extension ActionSpec {
    static func load(name: String, reader: MappingReader) throws -> ActionSpec {
        try reader.allowOnly([
            "summary", "argument", "fetch", "form", "fill", "submit", "success_when", "refused_when", "fields", "nothing_when",
            "fill_from_page",
        ])
        let argument = try reader.string("argument") ?? ""
        let fetch = Template(try reader.requiredString("fetch"))
        for variable in fetch.variables where variable != argument || argument.isEmpty {
            throw reader.error(
                "fetch",
                argument.isEmpty
                    ? "uses {{\(variable)}}, but the action takes no argument"
                    : "uses {{\(variable)}}; an action knows only {{\(argument)}}")
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
            name: name, summary: try reader.string("summary") ?? name, argument: argument, fetch: fetch, form: form,
            fill: (try reader.stringMapAllowingEmpty("fill") ?? []).map { ($0.0, Template($0.1)) },
            submit: try reader.xpath("submit"), successWhen: try reader.requiredXPath("success_when"),
            refusedWhen: try reader.string("refused_when"), fields: fields)
        action.nothingWhen = try reader.xpath("nothing_when")
        if let refusedWhen = action.refusedWhen {
            do {
                try XPathSyntax.check(Template(refusedWhen).render([argument: "x"], encode: Template.xpathLiteral))
            } catch {
                throw reader.error("refused_when", "\(error)")
            }
            for variable in Template(refusedWhen).variables where variable != argument || argument.isEmpty {
                throw reader.error("refused_when", "uses {{\(variable)}}; an action knows only {{\(argument)}}")
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
    /// Reads `key`, `priority` and `decimals` from a field's mapping.
    static func load(reader: MappingReader, numeric: Bool, allowing keys: Set<String> = ["key", "priority", "decimals"]) throws
        -> ColumnDisplay
    {
        var display = ColumnDisplay()
        if keys.contains("key") { display.key = try reader.bool("key") ?? false }
        if keys.contains("priority") { display.priority = try reader.choice("priority", of: Priority.self) ?? .normal }
        // A hidden key identifies records without being shown (a calendar's UID); a key that is
        // shown is never the first column to go.
        if display.key, display.priority == .low {
            throw reader.error("priority", "a key field is never left out of a table, so it cannot have priority: low (hidden is allowed)")
        }
        if let decimals = try reader.string("decimals") {
            guard let digits = Int(decimals), (0...9).contains(digits) else {
                throw reader.error("decimals", "'\(decimals)' is not a number of digits from 0 to 9")
            }
            guard numeric else { throw reader.error("decimals", "only an integer or number field has decimals") }
            display.decimals = digits
        }
        return display
    }
}
