import Foundation
import LibXML
import Synchronization

/// Turns a parsed page into typed records, as a data recipe's source describes them.
///
/// An empty result is only ever returned when the recipe's `empty_when` test says the page
/// really has no records; a page that changed shape is an error that names the recipe, the
/// field and the XPath.
public struct RecordExtractor: Sendable {
    public let recipe: DataRecipe
    public let source: DataRecipe.Source
    /// Today's date as `yyyy-MM-dd`, for computed fields such as `overdue`. Fixed in recipe tests.
    public let today: String
    /// The records this extractor may still hand out: one extractor serves one run, every page
    /// and every value of a `many` option, so `max_records` holds for the whole answer.
    let budget: RecordBudget
    /// The portal's zone (`timezone:`), for dates and times that name none of their own and
    /// whose field names none either; the zone tables show them in.
    public let portalTimeZone: String?
    /// The portal's language (`language:`), whose words for yes and no a `bool` field reads.
    public let language: String?

    public init(
        recipe: DataRecipe, source: DataRecipe.Source? = nil, today: String = RecordExtractor.localToday(), portal: PortalRecipe? = nil
    ) {
        self.recipe = recipe
        self.source = source ?? recipe.primary
        self.today = today
        self.budget = RecordBudget(limit: recipe.maxRecords)
        self.portalTimeZone = portal?.timeZone?.identifier
        self.language = portal?.language
    }

    /// Today in the user's time zone, as ISO 8601. By calendar arithmetic: a `DateFormatter`
    /// made for it was a sixteenth of a JSON-RPC `recipes.run`.
    public static func localToday(_ date: Date = Date()) -> String {
        Civil.iso(epoch: Int(date.timeIntervalSince1970.rounded(.down)), zone: .current, withTime: false)
    }

    /// Parses a page the way the source says (forgiving HTML, or strict XML for feeds), decoded
    /// as a browser would: `charset` is the HTTP header's label, `charsetOverride` the portal's
    /// `charset:` (the source's own `charset:` beats both).
    /// A fetched page as this source reads it: an HTML page's tree is the one the login check
    /// parsed already (`Page.document`), not a second parse of the same bytes.
    public func document(of page: Page, charsetOverride: String? = nil) throws -> Document {
        guard source.parser == .html else {
            return try parse(page.body, url: page.url, charset: page.charset, charsetOverride: charsetOverride)
        }
        do {
            return try page.document(charsetOverride: source.charset ?? charsetOverride)
        } catch {
            throw notParsed(page.url, error)
        }
    }

    /// A page the source's parser could not read: a layout change, with the parser's reason.
    private func notParsed(_ url: URL, _ error: any Error) -> UniToolError {
        let expected = Self.expected(source.parser)
        let reason = (error as? UniToolError)?.message ?? "\(error)"
        return UniToolError(
            .layoutChanged,
            localized("recipe \(recipe.portal)/\(recipe.command): the page at \(url.redactedForLog) is not \(expected): \(reason)"),
            hint: localized("the portal may have moved or broken this page; check 'fetch' in \(recipe.file)"))
    }

    public func parse(_ bytes: [UInt8], url: URL, charset: String?, charsetOverride: String? = nil) throws -> Document {
        let override = source.charset ?? charsetOverride
        do {
            switch source.parser {
            case .html: return try Document(html: bytes, url: url.absoluteString, encoding: charset, charsetOverride: override)
            case .xml: return try Document(xml: bytes, url: url.absoluteString, encoding: charset, charsetOverride: override)
            case .json:
                return try Document(xml: Array(StructuredText.xml(fromJSON: bytes).utf8), url: url.absoluteString, encoding: "utf-8")
            case .ics:
                return try Document(xml: Array(StructuredText.xml(fromICalendar: bytes).utf8), url: url.absoluteString, encoding: "utf-8")
            }
        } catch {
            throw notParsed(url, error)
        }
    }

    /// The text an HTML fragment shows: tags gone, entities decoded, blocks apart.
    static func plainText(ofHTML html: String) -> String {
        // A space after each block's end, so that paragraphs and list items do not run together;
        // inline markup (<strong>) adds none, so "<strong>Szabó</strong>." stays "Szabó.".
        // Script and style are not text a reader sees.
        let spaced = html.replacing(Self.scriptOrStyle, with: "").replacing(Self.blockEnd) { $0.output + " " }
        let wrapped = "<html><head><meta charset=\"utf-8\"></head><body>" + spaced + "</body></html>"
        guard let document = try? Document(html: Array(wrapped.utf8), url: nil, encoding: "utf-8"),
            case .string(let text)? = try? document.evaluate("string(/html/body)")
        else { return html }
        return text
    }

    nonisolated(unsafe) static let scriptOrStyle = #/(?is)<(script|style)\b.*?</\1\s*>/#
    nonisolated(unsafe) static let blockEnd = #/(?i)<(?:br|/p|/li|/div|/h[1-6]|/tr|/td|/th|/dd|/dt|/blockquote)\b[^>]*>/#

    /// What a source expects a page to be, for a message.
    static func expected(_ parser: DataRecipe.Source.Parser) -> String {
        switch parser {
        case .html: return "HTML"
        case .xml: return localized("well-formed XML")
        case .json: return "JSON"
        case .ics: return localized("an iCalendar file")
        }
    }

    public func extract(from document: Document) throws -> RecordSet {
        let pageValues = PageValues()
        do {
            return try extract(from: document, pageValues: pageValues)
        } catch LibXMLError.xpathTooCostly(let expression, let limit) {
            let page = document.url ?? localized("the page")
            throw UniToolError(
                .recipeInvalid,
                localized(
                    "recipe \(recipe.file): the XPath \"\(expression)\" was stopped after \(limit) steps on \(page): it costs too much"),
                hint: localized(
                    "avoid '//' inside a predicate that is itself under '//'; select the rows first, then fields relative to them"))
        }
    }

    /// What one extraction reuses from row to row. Found by the benchmarks: evaluating a
    /// whole-page XPath (`//select[@id='term']/...`) for every row made extraction quadratic
    /// (27 s for a 1 MB page), and compiling a regular expression or making a `DateFormatter`
    /// per value cost far more than the XPath itself.
    final class PageValues {
        /// Fields whose XPath reads the whole page: the same for every row.
        var values: [String: XPathValue] = [:]
        var regexes: [String: Regex<AnyRegexOutput>] = [:]
        let dates = FieldTyper.DateCache()
        /// How each field's XPath is read, decided once per page rather than once per row.
        var readings: [String: Reading] = [:]

        enum Reading {
            /// An absolute path: the same for every row, evaluated once.
            case wholePage
            /// A path down the row's children (`td[@class='x']`), walked without XPath.
            case children(ChildPath)
            /// Anything else, evaluated as XPath with the row as context.
            case xpath
        }

        func reading(_ xpath: String) -> Reading {
            if let known = readings[xpath] { return known }
            let reading: Reading =
                RecordExtractor.readsWholePage(xpath) ? .wholePage : ChildPath(xpath).map(Reading.children) ?? .xpath
            readings[xpath] = reading
            return reading
        }

        /// A field's `regex:` result per text. Table columns repeat their values (grades, a
        /// status, a unit), and a Swift `Regex` match costs some microseconds, which the
        /// benchmarks found to be a quarter of an extraction. Capped, so a column of distinct
        /// values costs only the look-ups.
        private var matches: [String: [String: String?]] = [:]
        private var matchCount = 0
        static let matchCap = 4096

        func match(_ pattern: String, in text: String) throws -> String? {
            if let known = matches[pattern]?[text] { return known }
            let result = try RecordExtractor.applyRegex(try regex(pattern), to: text)
            if matchCount < Self.matchCap {
                matches[pattern, default: [:]][text] = .some(result)
                matchCount += 1
            }
            return result
        }

        func regex(_ pattern: String) throws -> Regex<AnyRegexOutput> {
            if let regex = regexes[pattern] { return regex }
            let regex = try CompiledPatterns.regex(pattern)
            regexes[pattern] = regex
            return regex
        }
    }

    static func readsWholePage(_ xpath: String) -> Bool {
        xpath.hasPrefix("/") && !xpath.contains("|")
    }

    private func extract(from document: Document, pageValues: PageValues) throws -> RecordSet {
        let rows = try select(source.rows, in: document, key: "rows")
        if rows.isEmpty {
            if let emptyWhen = source.emptyWhen, try evaluate(emptyWhen, on: document, key: "empty_when").booleanValue {
                return RecordSet(columns: recipe.columns, records: [])
            }
            let hint: String
            if let emptyWhen = source.emptyWhen {
                hint = localized("the page layout may have changed, and it does not match empty_when \"\(emptyWhen)\" either")
            } else {
                hint = localized("the page layout may have changed; if the page can legitimately be empty, add 'empty_when' to the recipe")
            }
            throw UniToolError(
                .layoutChanged,
                localized(
                    "recipe \(recipe.portal)/\(recipe.command) (\(recipe.file)): rows \"\(source.rows)\" matched nothing on \(pageName(document))"
                ),
                hint: hint)
        }
        // Counted before a single record is made: a page of half a million rows is refused for
        // the cost of its row count, not of half a million records.
        if let total = budget.take(rows.count) {
            throw UniToolError(
                .portalError,
                localized(
                    "recipe \(recipe.portal)/\(recipe.command) (\(recipe.file)): the portal's answer has more than \(budget.limit) records (\(rows.count) rows on \(pageName(document)), \(total) in all); the recipe allows at most max_records: \(budget.limit)"
                ),
                hint: localized(
                    "if the portal really lists that many, raise 'max_records' in \(recipe.file) (at most \(DataRecipe.maxRecordsRange.upperBound)); otherwise ask for less, such as one term"
                )
            )
        }
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            records.append(
                try record(of: source.fields, row: row, rowNumber: index + 1, document: document, path: "", pageValues: pageValues))
        }
        return RecordSet(columns: recipe.columns, records: records)
    }

    /// The next page of records, if the source has a `next` link and the page carries one.
    public func nextPage(in document: Document) throws -> URL? {
        guard let next = source.next else { return nil }
        let href: String
        switch try evaluate(next, on: document, key: "next") {
        case .nodes(let nodes): href = nodes.first.map { $0.attribute("href") ?? $0.text } ?? ""
        case let value: href = value.stringValue
        }
        let trimmed = href.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { return nil }
        return URL(string: trimmed, relativeTo: document.url.flatMap { URL(string: $0) })?.absoluteURL
    }

    private func record(
        of fields: [FieldSpec], row: Node, rowNumber: Int, document: Document, path: String, pageValues: PageValues
    ) throws -> Record {
        var values: [(name: String, value: FieldValue)] = []
        values.reserveCapacity(fields.count)
        // By index, and the field lent to `value(of:)`: `for field in fields` copied every field
        // (retaining each of its strings) once per row.
        for index in fields.indices {
            let value: FieldValue
            if let list = fields[index].list {
                let field = fields[index]
                let nested = try select(list.rows, in: row, key: "fields.\(path)\(field.name).list.rows")
                value = .list(
                    try nested.enumerated().map { index, node in
                        try record(
                            of: list.fields, row: node, rowNumber: index + 1, document: document, path: "\(path)\(field.name).",
                            pageValues: pageValues)
                    })
            } else if case .beforeToday(let dateField) = fields[index].compute {
                let date = values.first { $0.name == dateField }?.value
                switch date {
                case .date(let text), .datetime(let text): value = .bool(String(text.prefix(10)) < today)
                default: value = .null
                }
            } else if case .atMost(let numberField, let limit) = fields[index].compute {
                switch values.first(where: { $0.name == numberField })?.value {
                case .integer(let number): value = .bool(Double(number) <= limit)
                case .number(let number): value = .bool(number <= limit)
                default: value = .null
                }
            } else {
                value = try self.value(
                    of: fields[index], row: row, rowNumber: rowNumber, document: document, path: path, pageValues: pageValues)
            }
            values.append((fields[index].name, value))
        }
        return Record(fields: values)
    }

    private func value(
        of field: borrowing FieldSpec, row: Node, rowNumber: Int, document: Document, path: String, pageValues: PageValues
    ) throws -> FieldValue {
        let xpath = field.xpath ?? "."
        let raw: String?
        switch pageValues.reading(xpath) {
        case .wholePage:
            if let cached = pageValues.values[xpath] {
                raw = Self.text(of: cached)
            } else {
                let result = try evaluate(xpath, on: document, key: "fields.\(path)\(field.name).xpath")
                pageValues.values[xpath] = result
                raw = Self.text(of: result)
            }
        case .children(let childPath):
            raw = childPath.text(from: row)
        case .xpath:
            raw = Self.text(of: try evaluate(xpath, on: row, key: "fields.\(path)\(field.name).xpath"))
        }
        // HTML inside text (a feed's content:encoded, a JSON field's "summary"): its text, as a
        // browser would show it, never its markup.
        var text = (field.html ? raw.map(Self.plainText(ofHTML:)) : raw)?.collapsingWhitespace()
        for replacement in field.replacements {
            let regex = try pageValues.regex(replacement.pattern)
            text = text.map { $0.replacing(regex, with: replacement.with).collapsingWhitespace() }
        }
        if let pattern = field.regex, let current = text {
            text = try pageValues.match(pattern, in: current)
        }
        // `map:`, last: the portal's own words for a value (`Erledigt: yes`), whole and in any case.
        if !field.valueMap.isEmpty, let current = text,
            let mapped = field.valueMap.first(where: { $0.text.caseInsensitiveCompare(current) == .orderedSame })
        {
            text = mapped.value
        }
        let matched = text != nil
        if text?.isEmpty ?? true { text = field.defaultValue }
        guard let text, !text.isEmpty else {
            // An explicit `default: ""`, or a matched but empty cell under keep_empty, is "".
            if !field.required, field.type == .string, text != nil || (matched && field.keepEmpty) { return .string("") }
            if field.required {
                throw UniToolError(
                    .layoutChanged,
                    localized(
                        "recipe \(recipe.portal)/\(recipe.command) (\(recipe.file)): required field '\(path)\(field.name)' (XPath \"\(xpath)\") matched nothing in row \(rowNumber) on \(pageName(document))"
                    ),
                    hint: localized("the portal's page layout has probably changed; update the XPath in the recipe"))
            }
            return .null
        }
        do {
            // A closure that captures nothing: one that captured the field, the extractor or its
            // recipe to word the message copied them for every value (found with perf).
            return try FieldTyper.convert(
                text, to: field.type, format: field.format, timeZone: field.timeZone ?? portalTimeZone, language: language,
                baseURL: document.url, dates: pageValues.dates
            ) { UniToolError(.layoutChanged, $0) }
        } catch let invalid as UniToolError {
            throw UniToolError(
                .layoutChanged,
                localized(
                    "recipe \(recipe.portal)/\(recipe.command): field '\(path)\(field.name)' in row \(rowNumber) is \"\(text)\", which is not a valid \(invalid.message)"
                ),
                hint: localized("the portal may have changed how it shows this value; check 'type' and 'format' in \(recipe.file)"))
        }
    }

    private func select(_ xpath: String, in node: Node, key: String) throws -> [Node] {
        guard case .nodes(let nodes) = try evaluate(xpath, on: node, key: key) else {
            throw UniToolError(
                .recipeInvalid, localized("recipe \(recipe.file): \(key): \"\(xpath)\" must select nodes, not compute a value"))
        }
        return nodes
    }

    private func select(_ xpath: String, in document: Document, key: String) throws -> [Node] {
        guard case .nodes(let nodes) = try evaluate(xpath, on: document, key: key) else {
            throw UniToolError(
                .recipeInvalid, localized("recipe \(recipe.file): \(key): \"\(xpath)\" must select nodes, not compute a value"))
        }
        return nodes
    }

    private func evaluate(_ xpath: String, on node: Node, key: @autoclosure () -> String) throws -> XPathValue {
        do {
            return try node.evaluate(xpath, namespaces: source.namespaces)
        } catch {
            throw UniToolError(.recipeInvalid, localized("recipe \(recipe.file): \(key()): \(error)"))
        }
    }

    private func evaluate(_ xpath: String, on document: Document, key: @autoclosure () -> String) throws -> XPathValue {
        do {
            return try document.evaluate(xpath, namespaces: source.namespaces)
        } catch {
            throw UniToolError(.recipeInvalid, localized("recipe \(recipe.file): \(key()): \(error)"))
        }
    }

    /// A field's text from an XPath result: the nodes' texts joined by a space, or the value;
    /// nil when no node matched.
    static func text(of result: XPathValue) -> String? {
        switch result {
        case .nodes(let nodes): return nodes.isEmpty ? nil : nodes.count == 1 ? nodes[0].text : nodes.map(\.text).joined(separator: " ")
        case .string(let text): return text
        case .number(let number): return XPathValue.number(number).stringValue
        case .boolean(let flag): return flag ? "true" : "false"
        }
    }

    private func pageName(_ document: Document) -> String {
        document.url.flatMap { URL(string: $0)?.redactedForLog } ?? localized("the page")
    }

    static func applyRegex(_ regex: Regex<AnyRegexOutput>, to text: String) throws -> String? {
        guard let match = try regex.firstMatch(in: text) else { return nil }
        if match.output.count > 1, let capture = match.output[1].substring {
            return String(capture)
        }
        return String(match.output[0].substring ?? "")
    }
}

/// How many records one run has read, against its recipe's `max_records`. A class, shared by
/// the copies of one extractor: a run's pages and its concurrent runs (`--term all`) all count.
final class RecordBudget: Sendable {
    let limit: Int
    private let taken = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Counts `count` more records. Nil while the run stays within the limit; otherwise the
    /// total it would have reached, and nothing is counted.
    func take(_ count: Int) -> Int? {
        taken.withLock { taken in
            let total = taken + count
            guard total <= limit else { return total }
            taken = total
            return nil
        }
    }
}

/// Regular expressions compiled once per process, as XPath expressions are: a recipe has a few,
/// and compiling them for every page was a twentieth of a JSON-RPC `recipes.run`.
enum CompiledPatterns {
    /// `Regex` is not `Sendable` (its output type may not be); a compiled one is never changed.
    private struct Compiled: @unchecked Sendable { let regex: Regex<AnyRegexOutput> }
    private static let cache = Mutex<[String: Compiled]>([:])

    static func regex(_ pattern: String) throws -> Regex<AnyRegexOutput> {
        if let known = cache.withLock({ $0[pattern] }) { return known.regex }
        let regex = try Regex(pattern)
        cache.withLock { cache in
            if cache.count > 512 { cache.removeAll() }
            cache[pattern] = Compiled(regex: regex)
        }
        return regex
    }
}
