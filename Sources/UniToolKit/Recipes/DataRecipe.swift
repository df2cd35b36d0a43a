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
    /// Whether the recipe came from the bundled recipes (`RecipeCatalog.bundledDirectory()`),
    /// not from the user's folder or a pack: only such a recipe's word that a POST only reads
    /// (`safe: true`) is passed on to an assistant, since a pack could say it of a renewal form.
    public var bundled = false
    /// False for a public command (`login: false`, a news feed): it needs no user and never logs
    /// in; a portal that asks for a login is an error, not a password prompt.
    public var login = true
    /// The order records come in unless the user asks for another (`sort: due`, `sort: -date`).
    public var sort: [SortKey] = []
    /// How records become calendar events (`calendar:`), for `--format ics`, `unitool calendar`
    /// and `unitool today`. Nil: the command has no calendar.
    public var calendar: CalendarSpec? = nil
    /// How a watch's events read for people (`watch:`): summaries per event kind, the due date.
    public var watch: WatchSummaries? = nil
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
        var warnings = (platform?.warnings ?? []).map { "\(file): \($0)" }
        if keyFields.isEmpty {
            warnings.append(
                localized(
                    "\(file): no field has 'key: true', so history and watch match records by their whole content (a changed grade shows as removed and added); mark the fields that identify a record"
                )
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
        /// `safe: true` beside `method: post`: the recipe says its POST only reads (a search form),
        /// which an assistant is told only of a bundled recipe (`DataRecipe.bundled`).
        public var postIsSafe = false
        /// The POST's form fields, `{{option}}` and `{{read}}` values filled in.
        public var form: [(name: String, value: Template)] = []
        /// The POST's JSON body; values are filled in JSON-escaped.
        public var json: Template? = nil
        /// Values read from a page before the fetch (`read:`): a `sesskey` the endpoint wants.
        public var reads: [Read] = []

        /// The `type: url` read whose address the fetch is, when `fetch:` is exactly `"{{name}}"`:
        /// that address is fetched as it was found, not percent-encoded as a value inside a path.
        public var fetchedAddress: String? {
            let names = fetch.variables
            guard names.count == 1, fetch.source.trimmingWhitespace() == "{{\(names[0])}}" else { return nil }
            return reads.contains { $0.name == names[0] && $0.isAddress } ? names[0] : nil
        }

        /// `read: { sesskey: { fetch: /my/, xpath: "//script[contains(., 'sesskey')]", regex: '"sesskey":"([^"]+)"' } }`
        public struct Read: Sendable {
            public var name: String
            public var fetch: Template
            public var xpath: String
            public var regex: String?
            /// `method: post`: the page is asked for with a POST of `form` or `json`, as a
            /// source's first page may be (a token that only an AJAX call hands out).
            public var post = false
            /// `safe: true`: this POST only reads, as the source's own `safe:` says.
            public var postIsSafe = false
            public var form: [(name: String, value: Template)] = []
            public var json: Template? = nil
            /// How the answer is read (`parse: json` for an AJAX answer); HTML by default.
            public var parser: Parser = .html
            /// `type: url`: the value is an address, resolved against the page it was read from
            /// (an iCal link a form's answer shows). It is the user's capability (a calendar
            /// address carries their token), so it is kept out of every log and message, and a
            /// `fetch: "{{name}}"` fetches it as it is, on the portal's own origins only.
            public var isAddress = false

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
    /// Given without its name (`positional: true`): `unitool syllabus CS-320`. At most one
    /// option of a recipe is positional.
    public var positional = false
    /// The source this option reads from (`source: search`): giving it chooses that source, as
    /// `--search WORDS` reads the search page where a course code reads the course's own page.
    public var source: String? = nil

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
            /// A date within the record's span: `field` its first day, `end_field` its last
            /// (co-op hours from one date until another). A record without an end is open-ended.
            case covers
        }

        public var field: String
        public var test: Test
        /// For `covers`: the date field of the span's last day.
        public var endField: String? = nil
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
        /// True when the named number field is at most the limit: one absence or fewer left.
        /// Null when the field is.
        case atMost(String, Double)
    }
}

/// Sums and averages over the records, per group: what `--summary` prints.
public struct Totals: Sendable {
    /// Fields whose values make one summary row each (`term`); none means one row for all.
    public var groupBy: [String]
    public var fields: [Aggregate]
    /// `overall: all terms`: a last row over every record (a transcript's cumulative credits and
    /// GPA), its group values this label. Only where there are groups and more than one.
    public var overall: String? = nil

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
    /// Named values the user gives (`--title`, `--isbn`): `{{title}}` in `fill`, beside the
    /// positional argument. A form the person fills in, such as a purchase request.
    public var parameters: [Parameter] = []
    /// `ask: true`: before anything is sent, the person sees what will be submitted and says yes
    /// (the command line asks; `--yes` answers for a script). For an action whose effect a
    /// librarian or an office acts on, unlike a renewal the command line itself names.
    public var ask = false
    /// The portal's own confirmation page (`confirm_page:`): the first submit shows what it
    /// received and a second form sends it, as Japanese portals' 入力 → 確認 → 完了 forms do.
    public var confirmPage: ConfirmPage? = nil
    /// `preview:`: what the action will change, read off the page before the form is sent, one
    /// record per row. An action that changes several things (renew every loan) shows it and asks
    /// first, as `ask: true` does; `--dry-run` shows it and sends nothing.
    public var preview: Preview? = nil
    /// `result_rows:`: the rows of the result page `fields` are read from (the loans just
    /// renewed), one record each; without it, the page as one record.
    public var resultRows: String? = nil
    /// Whether the person says yes before anything is sent: `ask: true`, or a preview to show.
    public var asks: Bool { ask || preview != nil }

    public struct Preview: Sendable, Equatable {
        /// The rows the action will change, on the page it fetches (`rows:`).
        public var rows: String
        /// The recipe's own fields to show for each row (`fields:`); empty: all of them.
        public var fields: [String]
        /// A field of the recipe (`flag: { when: overdue }`) that marks a row whose change may not
        /// do what the person expects; `says` is the note shown beside it. A boolean field flags
        /// where it is true; a date field where that date plus `days` is still before today (a
        /// renewal that adds 14 days to a loan overdue by more than that leaves it overdue).
        public var flagWhen: String? = nil
        public var flagSays: String? = nil
        public var flagDays = 0

        public init(rows: String, fields: [String], flagWhen: String? = nil, flagSays: String? = nil, flagDays: Int = 0) {
            self.rows = rows
            self.fields = fields
            self.flagWhen = flagWhen
            self.flagSays = flagSays
            self.flagDays = flagDays
        }
    }

    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var help: String?
        public var required: Bool
    }

    public struct ConfirmPage: Sendable, Equatable {
        /// The form on the page the first submit answers with.
        public var form: String
        /// Its button that sends.
        public var submit: String?
    }

    /// Names unitool's own options take, which no parameter may (`--yes`, `--format`, …).
    public static let reservedParameterNames: Set<String> = [
        "yes", "help", "portal", "user", "format", "json", "fields", "sort", "recipes", "verbose", "quiet", "offline", "timeout",
        "trace", "source", "summary", "insecure",
    ]

    /// The required parameters that `given` leaves out or leaves empty, in the recipe's order.
    public func missingParameters(_ given: [String: String]) -> [String] {
        parameters.filter { $0.required && (given[$0.name] ?? "").isEmpty }.map(\.name)
    }

    /// The names in `given` that are no parameter of the action, sorted.
    public func unknownParameters(_ given: [String: String]) -> [String] {
        given.keys.filter { name in !parameters.contains { $0.name == name } }.sorted()
    }

    /// Every value the action's templates may use, by name: the argument and each parameter
    /// (those not given are empty).
    public func values(argument: String, parameters given: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for parameter in parameters { values[parameter.name] = given[parameter.name] ?? "" }
        if takesArgument { values[self.argument] = argument }
        return values
    }
}
