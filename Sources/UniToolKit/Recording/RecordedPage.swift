import Foundation
import LibXML

/// A data recipe as a recorded page suggests it: the page's main table (or list, or JSON array),
/// its rows, a field for each column named from its header, and a type guessed from the values.
/// Every guess is kept with the field, for a comment beside it in the YAML.
public struct DraftDataRecipe: Sendable {
    public struct Field: Sendable {
        public var name: String
        public var xpath: String
        public var type: String?
        public var format: String?
        public var regex: String?
        public var key = false
        /// What was guessed about this field, for its comment.
        public var guesses: [String] = []
    }

    /// The option a page's own selector offers (a term), read the way the page reads it.
    public struct SelectorOption: Sendable {
        public var name: String
        /// The XPath of the selected value and of every value.
        public var selected: String
        public var every: String
        public var label: String
    }

    public var command: String
    public var summary: String
    /// The page, relative to the portal or service.
    public var fetch: String
    public var service: String?
    public var parseJSON = false
    public var rows: String
    public var emptyWhen: String?
    public var next: String?
    public var option: SelectorOption?
    public var fields: [Field]
    /// What the recipe was made from, for the report ("the table #grades, 4 rows").
    public var reading: String
    /// The recorded answer it was made from, for the fixture.
    public var sourceURL: URL
    public var contentType: String?
    public var body: [UInt8]
    /// The page as parsed, for its fixture (nil for a JSON answer).
    public var document: Document? = nil
}

/// Reads recorded pages into data recipes. Pure: the page in, the draft out.
public enum RecordedPage {
    /// Words a cell shows for "no value" (a dash, n/a), which typed fields read as empty.
    static let placeholders: Set<String> = ["-", "–", "—", "n/a", "N/A", "n.a.", "k.A.", "/", "?", "－", "ー"]

    /// The main table or list of an HTML page as a recipe, or nil when it has neither.
    static func htmlRecipe(
        _ document: Document, command: String, fetch: String, url: URL, contentType: String?, body: [UInt8], tablesOnly: Bool = false
    ) -> DraftDataRecipe? {
        let tables = ((try? document.select("//table[.//td]")) ?? []).filter { ((try? rowsOf($0)) ?? []).count > 0 }
        var draft: DraftDataRecipe?
        if let table = tables.max(by: { size($0) < size($1) }) {
            draft = tableRecipe(table, in: document, command: command, fetch: fetch, url: url, contentType: contentType, body: body)
        } else if !tablesOnly {
            draft = listRecipe(document, command: command, fetch: fetch, url: url, contentType: contentType, body: body)
        }
        draft?.document = document
        return draft
    }

    private static func size(_ table: Node) -> Int {
        let rows = (try? rowsOf(table)) ?? []
        return rows.count * max(1, rows.first?.elementChildren.count ?? 1)
    }

    /// A table's data rows: those with cells, not its header rows, and not those of a table inside it.
    private static func rowsOf(_ table: Node) throws -> [Node] {
        try table.select("./tbody/tr[td] | ./tr[td]")
    }

    /// How to find one element again on the page: by its id, by a class no other such element
    /// has, else by its position.
    static func locator(for node: Node, in document: Document) -> String {
        let tag = node.name
        if let id = node.attribute("id"), !id.isEmpty { return "//\(tag)[@id=\(Template.xpathLiteral(id))]" }
        if let classes = node.attribute("class")?.split(separator: " ").map(String.init) {
            for name in classes where !name.isEmpty {
                let xpath = "//\(tag)[contains(concat(' ', normalize-space(@class), ' '), \(Template.xpathLiteral(" \(name) ")))]"
                if (try? document.select(xpath).count) == 1 { return xpath }
            }
        }
        let all = (try? document.select("//\(tag)")) ?? []
        let position = (all.firstIndex(of: node) ?? 0) + 1
        return "(//\(tag))[\(position)]"
    }

    static func tableRecipe(
        _ table: Node, in document: Document, command: String, fetch: String, url: URL, contentType: String?, body: [UInt8]
    ) -> DraftDataRecipe? {
        let tableXPath = locator(for: table, in: document)
        let hasBody = ((try? table.select("./tbody/tr[td]")) ?? []).isEmpty == false
        let rowsXPath = tableXPath + (hasBody ? "/tbody/tr[td]" : "/tr[td]")
        guard let rows = try? rowsOf(table), !rows.isEmpty else { return nil }
        let headerCells =
            ((try? table.select("./thead/tr[last()]/th | ./thead/tr[last()]/td")) ?? []).nilIfEmpty
            ?? ((try? table.select("(./tbody/tr | ./tr)[th][1]/th")) ?? [])
        // Each row's cells, and how many of its children carry each class, read once: per
        // column, reading them again made a wide table cost its width squared.
        let rowCells = rows.map { row in row.elementChildren.filter { ["td", "th"].contains($0.name) } }
        let rowClassCounts = rows.map { row -> [String: Int] in
            var counts: [String: Int] = [:]
            for child in row.elementChildren { if let name = child.attribute("class") { counts[name, default: 0] += 1 } }
            return counts
        }
        let rowsStartWithHeader = rows.allSatisfy { $0.elementChildren.first?.name == "th" }
        let width = rowCells.map(\.count).max() ?? 0
        var fields: [DraftDataRecipe.Field] = []
        var columnValues: [[String]] = []
        var taken: Set<String> = []
        for column in 0..<width {
            let cells = rowCells.map { cells -> Node? in column < cells.count ? cells[column] : nil }
            let header = column < headerCells.count ? headerCells[column].normalizedText : ""
            // A class that this column's cells share and no other cell of their rows has.
            let classes = cells.compactMap { $0?.attribute("class") }
            var cellXPath = "td[\(column + 1)]"
            if classes.count == cells.count, let first = classes.first, !first.isEmpty, classes.allSatisfy({ $0 == first }),
                rowClassCounts.allSatisfy({ $0[first] == 1 }),
                cells.allSatisfy({ $0?.name == "td" })
            {
                cellXPath = "td[@class=\(Template.xpathLiteral(first))]"
            } else if cells.allSatisfy({ $0?.name == "th" }) {
                cellXPath = "th"
            } else if rowsStartWithHeader {
                // A row headed by a <th>: td[n] counts only the data cells.
                cellXPath = "td[\(column)]"
                if column == 0 { cellXPath = "th" }
            }
            let values = cells.map { $0?.normalizedText ?? "" }
            // A column of the same link or button in every row ("Renew") is an action, not data.
            let isAction =
                rows.count > 1 && Set(values).count == 1
                && cells.allSatisfy { cell in ((try? cell?.select(".//a | .//button | .//input")) ?? []).isEmpty == false }
            if isAction || values.allSatisfy(\.isEmpty) && header.isEmpty { continue }
            var name = fieldName(header: header, cellClass: classes.count == cells.count ? classes.first : nil, column: column)
            while taken.contains(name) { name += "_\(column + 1)" }
            taken.insert(name)
            var field = typed(DraftDataRecipe.Field(name: name, xpath: cellXPath), values: values, header: header)
            if name.hasPrefix("column_"), !header.isEmpty { field.guesses.insert("named by position; its header is '\(header)'", at: 0) }
            fields.append(field)
            columnValues.append(values)
        }
        guard !fields.isEmpty else { return nil }
        markKey(&fields, columns: columnValues)
        var draft = DraftDataRecipe(
            command: command, summary: summary(document, fallback: command), fetch: fetch, rows: rowsXPath,
            emptyWhen: "\(tableXPath)[not(\(hasBody ? "tbody/tr[td]" : "tr[td]"))]", fields: fields,
            reading: "the table \(tableXPath) (\(Plural.count(rows.count, "row")), \(Plural.count(fields.count, "column")))",
            sourceURL: url, contentType: contentType, body: body)
        draft.next = nextLink(document)
        draft.option = selectorOption(document, url: url)
        return draft
    }

    static func listRecipe(_ document: Document, command: String, fetch: String, url: URL, contentType: String?, body: [UInt8])
        -> DraftDataRecipe?
    {
        let lists = ((try? document.select("//ul[count(li) >= 2] | //ol[count(li) >= 2]")) ?? []).filter {
            (try? $0.select("ancestor::nav | ancestor::header | ancestor::footer").isEmpty) == true
        }
        guard let list = lists.max(by: { $0.elementChildren.count < $1.elementChildren.count }) else { return nil }
        let listXPath = locator(for: list, in: document)
        let items = (try? list.select("./li")) ?? []
        var fields = [typed(DraftDataRecipe.Field(name: "text", xpath: "."), values: items.map(\.normalizedText), header: "")]
        if items.allSatisfy({ ((try? $0.select(".//a[@href]")) ?? []).isEmpty == false }) {
            var link = DraftDataRecipe.Field(name: "link", xpath: "(.//a/@href)[1]", type: "url")
            link.guesses.append("each item's first link")
            fields.append(link)
        }
        markKey(
            &fields,
            columns: fields.map { field in
                field.name == "text"
                    ? items.map(\.normalizedText) : items.map { (try? $0.evaluate("string((.//a/@href)[1])").stringValue) ?? "" }
            })
        var draft = DraftDataRecipe(
            command: command, summary: summary(document, fallback: command), fetch: fetch, rows: listXPath + "/li",
            emptyWhen: "\(listXPath)[not(li)]", fields: fields,
            reading: "the list \(listXPath) (\(Plural.count(items.count, "item")))", sourceURL: url, contentType: contentType, body: body)
        draft.next = nextLink(document)
        return draft
    }

    /// The largest array of objects in a JSON answer as a `parse: json` recipe.
    static func jsonRecipe(_ json: Any, command: String, fetch: String, url: URL, contentType: String?, body: [UInt8]) -> DraftDataRecipe? {
        var best: (path: String, items: [[String: Any]])?
        func visit(_ value: Any, path: String) {
            if let array = value as? [Any] {
                let objects = array.compactMap { $0 as? [String: Any] }
                if !objects.isEmpty, objects.count == array.count, objects.count > (best?.items.count ?? 0) {
                    best = (path + "/item", objects)
                }
                for item in array.prefix(1) { visit(item, path: path + "/item") }
            } else if let object = value as? [String: Any] {
                for (key, member) in object.sorted(by: { $0.key < $1.key }) { visit(member, path: path + "/" + elementName(key)) }
            }
        }
        visit(json, path: "/json")
        guard let best else { return nil }
        var keys: [String] = []
        for item in best.items { for key in item.keys.sorted() where !keys.contains(key) && isScalar(item[key]) { keys.append(key) } }
        var taken: Set<String> = []
        var fields: [DraftDataRecipe.Field] = []
        for key in keys {
            var name = fieldName(header: key, cellClass: nil, column: fields.count)
            while taken.contains(name) { name += "_\(fields.count + 1)" }
            taken.insert(name)
            let values = best.items.map { item -> String in
                switch item[key] {
                case let string as String: return string
                case let number as NSNumber: return number.stringValue
                default: return ""
                }
            }
            fields.append(typed(DraftDataRecipe.Field(name: name, xpath: elementName(key)), values: values, header: key))
        }
        guard !fields.isEmpty else { return nil }
        markKey(&fields, columns: keys.map { key in best.items.map { item in item[key].map { "\($0)" } ?? "" } })
        var draft = DraftDataRecipe(
            command: command, summary: "\(command) (from \(url.path))", fetch: fetch, rows: best.path, fields: fields,
            reading: "the JSON array \(best.path) (\(Plural.count(best.items.count, "item")))", sourceURL: url, contentType: contentType,
            body: body)
        draft.parseJSON = true
        return draft
    }

    private static func isScalar(_ value: Any?) -> Bool { value is String || value is NSNumber }

    /// A JSON key as unitool's JSON-to-XML mapping names its element (docs/RECIPES.md, "JSON and iCalendar sources").
    static func elementName(_ key: String) -> String {
        let isName =
            key.first.map { $0.isLetter || $0 == "_" } == true
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." } && !key.lowercased().hasPrefix("xml")
        return isName ? key : "_[@key=\(Template.xpathLiteral(key))]"
    }

    /// A field's name from its header in any language: lowercase ASCII letters, digits and
    /// underscores, accents folded (`Tárgy` → `targy`); a header with no such letters (`科目`)
    /// takes the cells' class, else its position.
    static func fieldName(header: String, cellClass: String?, column: Int) -> String {
        func clean(_ text: String) -> String? {
            let folded = text.folding(
                options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: Locale(identifier: "en")
            )
            .lowercased()
            var name = ""
            var gap = false
            for scalar in folded.unicodeScalars {
                if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                    if gap, !name.isEmpty { name += "_" }
                    name.unicodeScalars.append(scalar)
                    gap = false
                } else {
                    gap = true
                }
            }
            while let first = name.first, !first.isLetter { name.removeFirst() }
            guard !name.isEmpty else { return nil }
            return String(name.prefix(40))
        }
        // camelCase keys (dueDate) become due_date.
        var spaced = ""
        for character in header {
            if character.isUppercase, let last = spaced.last, last.isLowercase { spaced += " " }
            spaced.append(character)
        }
        return clean(spaced) ?? cellClass.flatMap(clean) ?? "column_\(column + 1)"
    }

    /// The type the values suggest, with its format and what stands for "none".
    static func typed(_ field: DraftDataRecipe.Field, values: [String], header: String) -> DraftDataRecipe.Field {
        var field = field
        let present = values.filter { !$0.isEmpty && !placeholders.contains($0) }
        guard !present.isEmpty else { return field }
        let hasPlaceholders = values.contains { placeholders.contains($0) }
        let placeholderNote =
            hasPlaceholders
            ? "; " + Set(values.filter { placeholders.contains($0) }).sorted().map { "'\($0)'" }.joined(separator: ", ")
                + " is read as empty" : ""
        if present.allSatisfy({ $0.range(of: #"^[0-9]{6,}$|^0[0-9]+$"#, options: .regularExpression) != nil }) {
            // A barcode, a student number: digits that name something, not a quantity, and
            // whose leading zeros count.
            field.guesses.append("digits kept as text (an identifier, not a number)")
            return field
        } else if present.allSatisfy({ $0.range(of: #"^[+-]?[0-9]{1,9}$"#, options: .regularExpression) != nil }) {
            field.type = "integer"
            field.guesses.append("whole numbers" + placeholderNote)
        } else if present.allSatisfy({ $0.range(of: #"^[+-]?[0-9]+([.,][0-9]+)?$"#, options: .regularExpression) != nil }) {
            field.type = "number"
            let comma = present.contains { $0.contains(",") }
            field.guesses.append((comma ? "numbers with a decimal comma" : "numbers") + placeholderNote)
        } else if let (type, format) = dateFormat(present) {
            field.type = type
            field.format = format
            field.guesses.append("\(type == "date" ? "dates" : "dates and times") written \(format)" + placeholderNote)
            return field
        } else if isGradeColumn(present, header: header) {
            field.regex = gradePattern
            let others = Set(present.filter { $0.range(of: gradePattern, options: [.regularExpression, .caseInsensitive]) == nil })
            field.guesses.append(
                "grades"
                    + (others.isEmpty
                        ? ""
                        : "; other text (" + others.sorted().prefix(3).map { "'\($0)'" }.joined(separator: ", ") + ") is read as no grade"))
            return field
        } else {
            return field
        }
        if hasPlaceholders { field.regex = #"^[+-]?[0-9][0-9.,]*$"# }
        return field
    }

    /// Grades as portals write them: A–F with + or −, 1–5 (with a decimal), pass/fail, and their
    /// words in a few languages. Case does not matter (the regex is applied as written, so the
    /// letters come in both cases).
    static let gradePattern =
        #"^([A-Fa-f][+-]?|[1-5]([.,][0-9]{1,2})?|[Pp]ass|[Ff]ail|[Ee]légséges|[Jj]ó|[Jj]eles|[Kk]özepes|[Ee]légtelen|[Ss]ehr gut|[Gg]ut|[Bb]efriedigend|[Aa]usreichend|[Bb]estanden|秀|優|良|可|不可)$"#

    static func isGradeColumn(_ values: [String], header: String) -> Bool {
        let grades = values.filter { $0.range(of: gradePattern, options: .regularExpression) != nil }
        let named = ["grade", "note", "jegy", "成績", "評価", "mark", "result"].contains { header.lowercased().contains($0) }
        return !grades.isEmpty && (grades.count * 2 >= values.count || named)
    }

    /// The date (or date-and-time) pattern every value fits, if one does.
    static func dateFormat(_ values: [String]) -> (String, String)? {
        let candidates: [(String, String, String)] = [
            (#"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}"#, "datetime", "iso8601"),
            (#"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#, "date", "yyyy-MM-dd"),
            (#"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{1,2}:[0-9]{2}$"#, "datetime", "yyyy-MM-dd HH:mm"),
            (#"^[0-9]{2}\.[0-9]{2}\.[0-9]{4}$"#, "date", "dd.MM.yyyy"),
            (#"^[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{4}$"#, "date", "d.M.yyyy"),
            (#"^[0-9]{2}\.[0-9]{2}\.[0-9]{4},? [0-9]{1,2}:[0-9]{2}$"#, "datetime", "dd.MM.yyyy HH:mm"),
            (#"^[0-9]{4}\. ?[0-9]{2}\. ?[0-9]{2}\.$"#, "date", "yyyy. MM. dd."),
            (#"^[0-9]{4}\.[0-9]{2}\.[0-9]{2}\.?$"#, "date", "yyyy.MM.dd"),
            (#"^[0-9]{4}/[0-9]{2}/[0-9]{2}$"#, "date", "yyyy/MM/dd"),
            (#"^[0-9]{4}/[0-9]{1,2}/[0-9]{1,2}$"#, "date", "yyyy/M/d"),
            (#"^[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{1,2}:[0-9]{2}$"#, "datetime", "yyyy/MM/dd HH:mm"),
            (#"^[0-9]{4}年[0-9]{1,2}月[0-9]{1,2}日$"#, "date", "yyyy年M月d日"),
        ]
        for (pattern, type, format) in candidates where values.allSatisfy({ $0.range(of: pattern, options: .regularExpression) != nil }) {
            if format == "yyyy. MM. dd.", values.contains(where: { !$0.contains(" ") }) { continue }
            if format == "yyyy.MM.dd" { return (type, values.allSatisfy { $0.hasSuffix(".") } ? "yyyy.MM.dd." : "yyyy.MM.dd") }
            return (type, format)
        }
        // 11/24/2026 or 24/11/2026: the day is the part that goes above 12.
        let slashed = #"^[0-9]{1,2}/[0-9]{1,2}/[0-9]{4}$"#
        if values.allSatisfy({ $0.range(of: slashed, options: .regularExpression) != nil }) {
            let firsts = values.compactMap { Int($0.split(separator: "/")[0]) }
            let padded = values.allSatisfy { $0.range(of: #"^[0-9]{2}/[0-9]{2}/"#, options: .regularExpression) != nil }
            if firsts.contains(where: { $0 > 12 }) { return ("date", padded ? "dd/MM/yyyy" : "d/M/yyyy") }
            return ("date", padded ? "MM/dd/yyyy" : "M/d/yyyy")
        }
        return nil
    }

    /// The key: a column whose values are all present, all different and code-like (no spaces),
    /// preferring one named like an id or a code.
    static func markKey(_ fields: inout [DraftDataRecipe.Field], columns: [[String]]) {
        let candidates = fields.indices.filter { index in
            let field = fields[index]
            guard field.type == nil || field.type == "integer" || field.type == "url", index < columns.count else { return false }
            let column = columns[index]
            guard !column.isEmpty else { return false }
            return Set(column).count == column.count && column.allSatisfy { !$0.isEmpty && !$0.contains(" ") && $0.count <= 64 }
                && !placeholders.contains(column[0])
        }
        let named = candidates.first { index in
            ["code", "id", "barcode", "number", "nr", "no", "kod", "key"].contains { fields[index].name.contains($0) }
        }
        guard let chosen = named ?? candidates.first else { return }
        fields[chosen].key = true
        fields[chosen].guesses.append("the key: every row's value differs")
    }

    /// A link to the next page: rel=next, or a link whose words say "next".
    static func nextLink(_ document: Document) -> String? {
        if ((try? document.select("//a[@rel='next'][@href]")) ?? []).isEmpty == false { return "//a[@rel='next']/@href" }
        for word in ["Next", "next", "›", "»", "Weiter", "Suivant", "Következő", "次へ", "Nächste"] {
            let xpath = "//a[normalize-space()=\(Template.xpathLiteral(word))]/@href"
            if ((try? document.select(xpath)) ?? []).isEmpty == false { return xpath }
        }
        return nil
    }

    /// A selector that picks what the page shows (a term): a GET form back to this page with a
    /// `<select>`, one of whose options is selected.
    static func selectorOption(_ document: Document, url: URL) -> DraftDataRecipe.SelectorOption? {
        for node in (try? document.select("//form[.//select[@name]]")) ?? [] {
            guard let form = try? HTMLForm(node, pageURL: url), form.method == "GET", form.action.path == url.path,
                let select = try? node.select(".//select[@name]").first, let name = select.attribute("name"),
                NameSyntax.isValueName(name), ((try? select.select("./option[@selected]")) ?? []).isEmpty == false
            else { continue }
            let located =
                select.attribute("id").flatMap { $0.isEmpty ? nil : "//select[@id=\(Template.xpathLiteral($0))]" }
                ?? "//select[@name=\(Template.xpathLiteral(name))]"
            let label =
                (try? document.select("//label[@for=\(Template.xpathLiteral(select.attribute("id") ?? ""))]").first?.normalizedText)
                ?? name
            return DraftDataRecipe.SelectorOption(
                name: name, selected: located + "/option[@selected]/@value", every: located + "/option/@value", label: label)
        }
        return nil
    }

    static func summary(_ document: Document, fallback: String) -> String {
        let heading = (try? document.select("//main//h1 | //h1").first?.normalizedText) ?? ""
        if !heading.isEmpty, heading.count <= 60 { return heading }
        let title = document.title?.components(separatedBy: CharacterSet(charactersIn: "–|-")).first?.trimmingCharacters(in: .whitespaces)
        return title.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    }
}

extension Array {
    fileprivate var nilIfEmpty: [Element]? { isEmpty ? nil : self }
}
