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
    /// The other elements of the page that could have been its records ("the list #news (4
    /// items)"), best first: when there are any, the choice is a guess, for the report.
    public var alternatives: [String] = []
    /// The YAML lines a POST's source needs after its `fetch:` (`method: post`, the body, its
    /// `read:`s), for a script's call (`RecordedAjax`); nil for a page fetched with GET.
    public var request: String? = nil
}

/// Reads recorded pages into data recipes. Pure: the page in, the draft out.
public enum RecordedPage {
    /// Words a cell shows for "no value" (a dash, n/a), which typed fields read as empty.
    static let placeholders: Set<String> = ["-", "–", "—", "n/a", "N/A", "n.a.", "k.A.", "/", "?", "－", "ー"]

    /// The page's records as a recipe: its subject (`PageSubject`: a table, a list or repeated
    /// blocks, chosen by evidence, not by size), or nil when the page has none (an empty-state
    /// page, a menu). When other candidates were passed over, they are named in `alternatives`.
    static func htmlRecipe(
        _ document: Document, command: String, fetch: String, url: URL, contentType: String?, body: [UInt8], tablesOnly: Bool = false
    ) -> DraftDataRecipe? {
        let candidates = PageSubject.candidates(document, tablesOnly: tablesOnly)
        for (index, subject) in candidates.enumerated() {
            var draft: DraftDataRecipe?
            switch subject.kind {
            case .table:
                draft = tableRecipe(
                    subject.node, in: document, command: command, fetch: fetch, url: url, contentType: contentType, body: body)
            case .list:
                draft = listRecipe(
                    subject.node, in: document, command: command, fetch: fetch, url: url, contentType: contentType, body: body)
            case .blocks:
                draft = blocksRecipe(
                    subject.rows, parent: subject.node, in: document, command: command, fetch: fetch, url: url, contentType: contentType,
                    body: body)
            }
            guard var draft else { continue }
            draft.document = document
            draft.alternatives = candidates.enumerated().filter { $0.offset != index }.map(\.element.described)
            return draft
        }
        return nil
    }

    /// A row that carries no record: every cell empty (a spacer, a padding row), or one cell
    /// spanning a wider table ("No entries", a group's title).
    static func isPadding(_ row: Node, width: Int) -> Bool {
        let cells = row.elementChildren.filter { ["td", "th"].contains($0.name) }
        if cells.allSatisfy({ $0.normalizedText.isEmpty && ((try? $0.select(".//img | .//input")) ?? []).isEmpty }) { return true }
        return cells.count == 1 && (width > 1 || Int(cells[0].attribute("colspan") ?? "") ?? 1 > 1)
    }

    /// How many columns a table has: its widest row, or its header when that is wider.
    static func tableWidth(_ table: Node, rows: [Node]) -> Int {
        let header = (try? table.select("./thead/tr[last()]/* | (./tbody/tr | ./tr)[th][1]/th")) ?? []
        return max(rows.map(\.elementChildren.count).max() ?? 0, header.count)
    }

    /// The predicate that leaves a table's padding rows out of `rows:`: the class every padding
    /// row has and no data row has (learned from the page), else what padding looks like (no
    /// words; a single cell).
    static func paddingPredicate(padding: [Node], data: [Node]) -> String {
        guard !padding.isEmpty else { return "" }
        func tokens(_ row: Node) -> Set<String> { Set((row.attribute("class") ?? "").split(separator: " ").map(String.init)) }
        var shared = tokens(padding[0])
        for row in padding.dropFirst() { shared.formIntersection(tokens(row)) }
        for row in data { shared.subtract(tokens(row)) }
        if let name = shared.sorted().first {
            return "[not(contains(concat(' ', normalize-space(@class), ' '), \(Template.xpathLiteral(" \(name) "))))]"
        }
        var predicate = ""
        if padding.contains(where: { $0.normalizedText.isEmpty }) { predicate += "[normalize-space()]" }
        if padding.contains(where: { !$0.normalizedText.isEmpty }) { predicate += "[count(td) > 1]" }
        return predicate
    }

    /// A table's data rows: those with cells, not its header rows, and not those of a table inside it.
    static func rowsOf(_ table: Node) throws -> [Node] {
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
        let allRows = (try? rowsOf(table)) ?? []
        let hasBody =
            allRows.isEmpty
            ? ((try? table.select("./tbody")) ?? []).isEmpty == false : ((try? table.select("./tbody/tr[td]")) ?? []).isEmpty == false
        // Rows that carry no record (padding, a "no entries" row) are left out of `rows:` by
        // what they share, so another user's page with more or fewer of them reads the same.
        let allWidth = tableWidth(table, rows: allRows)
        let rows = allRows.filter { !isPadding($0, width: allWidth) }
        let rowStep =
            (hasBody ? "tbody/tr[td]" : "tr[td]") + paddingPredicate(padding: allRows.filter { isPadding($0, width: allWidth) }, data: rows)
        let rowsXPath = tableXPath + "/" + rowStep
        let headerCells =
            ((try? table.select("./thead/tr[last()]/th | ./thead/tr[last()]/td")) ?? []).nilIfEmpty
            ?? ((try? table.select("(./tbody/tr | ./tr)[th][1]/th")) ?? [])
        if rows.isEmpty {
            return headerOnlyRecipe(
                headerCells.map(\.normalizedText), tableXPath: tableXPath, rowStep: rowStep, in: document, command: command, fetch: fetch,
                url: url, contentType: contentType, body: body)
        }
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
            var values = cells.map { $0?.normalizedText ?? "" }
            var readNote: String?
            if cells.contains(where: { $0.map(mixesControls) ?? false }) {
                // "Renew (1 of 3 renewals used)": the data is beside a link or button. Read the
                // element every cell has for it, else say the control's words are in the value.
                if let child = dataChild(cells.compactMap { $0 }), cells.allSatisfy({ $0 != nil }) {
                    cellXPath += "//" + child.step
                    values = child.values
                    readNote = "read from each cell's \(child.step), without the cell's link or button"
                } else {
                    readNote = "its cells hold a link or button too; their words are part of the value"
                }
            }
            // "Barcode: 39020004417" on a page, "39020004417" in the record: a cell's label for
            // narrow screens or screen readers is not its value.
            if readNote == nil, cells.allSatisfy({ $0 != nil }), let unlabelled = labelFree(cells.compactMap { $0 }) {
                cellXPath += unlabelled.step
                values = unlabelled.values
                readNote = "read without the cells' labels (\(unlabelled.labels)), which say the column's name, not the value"
            }
            // A cell built of classed parts (a title and its subtitle): a field for each part.
            if readNote == nil, let parts = cellParts(cells.compactMap { $0 }), cells.allSatisfy({ $0 != nil }) {
                let columnName = columnFieldName(
                    header: header, cellClass: classes.count == cells.count ? classes.first : nil, column: column)
                for (index, part) in parts.enumerated() {
                    var name = index == 0 ? columnName : fieldName(header: part.name, cellClass: nil, column: column)
                    while taken.contains(name) { name += "_\(column + 1)" }
                    taken.insert(name)
                    var field = typed(
                        DraftDataRecipe.Field(name: name, xpath: cellXPath + "//" + part.step), values: part.values, header: header)
                    field.guesses.insert("one of the cell's parts (\(part.step)), apart from the others", at: 0)
                    fields.append(field)
                    columnValues.append(part.values)
                }
                continue
            }
            // A column of the same link or button in every row ("Renew") is an action, not data.
            let isAction =
                rows.count > 1 && Set(values).count == 1
                && cells.allSatisfy { cell in ((try? cell?.select(".//a | .//button | .//input")) ?? []).isEmpty == false }
            if isAction || values.allSatisfy(\.isEmpty) && header.isEmpty { continue }
            var name = columnFieldName(header: header, cellClass: classes.count == cells.count ? classes.first : nil, column: column)
            while taken.contains(name) { name += "_\(column + 1)" }
            taken.insert(name)
            var field = typed(DraftDataRecipe.Field(name: name, xpath: cellXPath), values: values, header: header)
            if name.hasPrefix("column_"), !header.isEmpty { field.guesses.insert("named by position; its header is '\(header)'", at: 0) }
            if let readNote { field.guesses.insert(readNote, at: 0) }
            fields.append(field)
            columnValues.append(values)
        }
        guard !fields.isEmpty else { return nil }
        markKey(&fields, columns: columnValues)
        var draft = DraftDataRecipe(
            command: command, summary: summary(document, fallback: command), fetch: fetch, rows: rowsXPath,
            emptyWhen: "\(tableXPath)[not(\(rowStep))]", fields: fields,
            reading: "the table \(tableXPath) (\(Plural.count(rows.count, "row")), \(Plural.count(fields.count, "column")))",
            sourceURL: url, contentType: contentType, body: body)
        draft.next = nextLink(document)
        draft.option = selectorOption(document, url: url)
        return draft
    }

    static func listRecipe(
        _ list: Node, in document: Document, command: String, fetch: String, url: URL, contentType: String?, body: [UInt8]
    ) -> DraftDataRecipe? {
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

    /// A table that had no rows when recorded, read from its header: each header a text field
    /// (no values to guess a type from), and `empty_when` for the page as recorded.
    static func headerOnlyRecipe(
        _ headers: [String], tableXPath: String, rowStep: String, in document: Document, command: String, fetch: String, url: URL,
        contentType: String?, body: [UInt8]
    ) -> DraftDataRecipe? {
        var fields: [DraftDataRecipe.Field] = []
        var taken: Set<String> = []
        for (column, header) in headers.enumerated() where !header.isEmpty {
            var name = columnFieldName(header: header, cellClass: nil, column: column)
            while taken.contains(name) { name += "_\(column + 1)" }
            taken.insert(name)
            var field = DraftDataRecipe.Field(name: name, xpath: "td[\(column + 1)]")
            field.guesses.append(
                "from the header '\(header)' only: the recorded table had no rows, so the type is text and the cell is by position")
            fields.append(field)
        }
        guard fields.count >= 2 else { return nil }
        var draft = DraftDataRecipe(
            command: command, summary: summary(document, fallback: command), fetch: fetch, rows: tableXPath + "/" + rowStep,
            emptyWhen: "\(tableXPath)[not(\(rowStep))]", fields: fields,
            reading: "the table \(tableXPath) (no rows in the recording; \(Plural.count(fields.count, "column")) from its header)",
            sourceURL: url, contentType: contentType, body: body)
        draft.next = nextLink(document)
        draft.option = selectorOption(document, url: url)
        return draft
    }

    /// Links, buttons and form controls: what a cell offers to do, not what it says.
    static let controls = ".//a | .//button | .//input | .//select | .//textarea"

    /// A cell whose words are more than its controls' ("Renew (1 of 3 renewals used)"), while a
    /// cell that is one link (a title linking to its page) is that link's words.
    static func mixesControls(_ cell: Node) -> Bool {
        let controlText = ((try? cell.select(controls)) ?? []).map(\.normalizedText).filter { !$0.isEmpty }.joined(separator: " ")
        return !controlText.isEmpty && controlText != cell.normalizedText
    }

    /// What marks an element as a cell's label rather than its value: Koha's `span.tdlabel`
    /// (the column's name, shown where a narrow screen hides the header), and the text only a
    /// screen reader reads, Bootstrap 5's `.visually-hidden` and 3/4's `.sr-only`.
    static let cellLabel =
        "contains(concat(' ', normalize-space(@class), ' '), ' tdlabel ') or contains(concat(' ', normalize-space(@class), ' '), ' visually-hidden ') or contains(concat(' ', normalize-space(@class), ' '), ' sr-only ')"

    /// The step that reads a column's cells without their labels (`cellLabel`), the values it
    /// reads, and the labels' words: when some cell has a label beside words of its own. Nil
    /// when none has one, or when a label is all a cell says (an icon's screen-reader text is
    /// then its value). Pure.
    static func labelFree(_ cells: [Node]) -> (step: String, values: [String], labels: String)? {
        let step = "//text()[not(ancestor::*[\(cellLabel)])]"
        var labelled = false
        var values: [String] = []
        var labels: [String] = []
        for cell in cells {
            let found = ((try? cell.select(".//*[\(cellLabel)][normalize-space()]")) ?? []).map(\.normalizedText)
            let value = ((try? cell.select("." + step)) ?? []).map(\.text).joined(separator: " ").collapsingWhitespace()
            if !found.isEmpty {
                guard !value.isEmpty else { return nil }
                labelled = true
                for label in found where !labels.contains(label) { labels.append(label) }
            }
            values.append(value)
        }
        guard labelled else { return nil }
        return (step, values, labels.prefix(3).map { "'\($0)'" }.joined(separator: ", "))
    }

    /// The element with a class that every cell has exactly once, with words, outside any control:
    /// where the data of a cell that also holds a control is.
    static func dataChild(_ cells: [Node]) -> (step: String, values: [String])? {
        guard let first = cells.first else { return nil }
        let outside =
            ".//*[@class][normalize-space()][not(ancestor-or-self::a or ancestor-or-self::button or ancestor-or-self::label)][not(.//a or .//button or .//input)]"
        for element in (try? first.select(outside)) ?? [] {
            guard let cls = element.attribute("class") else { continue }
            let step = "\(element.name)[@class=\(Template.xpathLiteral(cls))]"
            let found = cells.map { (try? $0.select(".//" + step)) ?? [] }
            if found.allSatisfy({ $0.count == 1 && !$0[0].normalizedText.isEmpty }) { return (step, found.map { $0[0].normalizedText }) }
        }
        return nil
    }

    /// The parts of a column's cells when each cell is made of elements with a class of their own
    /// (Koha's title cell: `span.biblio-title` and `span.subtitle`): a part is a leaf with words
    /// and a class, at most once in every cell and in at least half of them, and the parts carry
    /// all of the cell's words. Nil unless some cell has two or more: then the cell's whole text
    /// mixes values the page keeps apart, and each part is a field (the first one the column's).
    static func cellParts(_ cells: [Node]) -> [(name: String, step: String, values: [String])]? {
        guard !cells.isEmpty else { return nil }
        let leaves = ".//*[@class][normalize-space()][not(.//*[@class][normalize-space()])]"
        var steps: [(name: String, step: String)] = []
        var someCellHasTwo = false
        for cell in cells {
            let found = (try? cell.select(leaves)) ?? []
            // The parts carry the whole cell: no words outside them.
            let partsText = found.map(\.normalizedText).joined(separator: " ")
            guard partsText.filter({ !$0.isWhitespace }) == cell.normalizedText.filter({ !$0.isWhitespace }) else { return nil }
            if found.count >= 2 { someCellHasTwo = true }
            for element in found {
                guard let cls = element.attribute("class") else { continue }
                let step = "\(element.name)[@class=\(Template.xpathLiteral(cls))]"
                if !steps.contains(where: { $0.step == step }) {
                    steps.append((String(cls.split(separator: " ").first ?? ""), step))
                }
            }
        }
        guard someCellHasTwo else { return nil }
        var parts: [(name: String, step: String, values: [String])] = []
        for (name, step) in steps {
            let found = cells.map { (try? $0.select(".//" + step)) ?? [] }
            guard found.allSatisfy({ $0.count <= 1 }) else { return nil }
            guard found.filter({ !$0.isEmpty }).count * 2 >= cells.count else { continue }
            parts.append((name, step, found.map { $0.first?.normalizedText ?? "" }))
        }
        return parts.count >= 2 ? parts : nil
    }

    /// The fields of repeated blocks: each labelled element (a heading, an element with a class)
    /// that holds words of its own and appears at most once in every block and in at least half
    /// of them; then the first link. Named from the class, or the heading's level.
    static func blockFields(_ blocks: [Node]) -> [(name: String, step: String, values: [String])] {
        var steps: [String] = []
        for block in blocks {
            let labelled =
                (try? block.select(
                    ".//*[@class or self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6][normalize-space()]")) ?? []
            for element in labelled {
                // Only leaves: an element whose labelled children carry its words is read through them.
                let inner = (try? element.select(".//*[@class][normalize-space()]")) ?? []
                guard inner.isEmpty else { continue }
                let step = element.attribute("class").map { "\(element.name)[@class=\(Template.xpathLiteral($0))]" } ?? element.name
                if !steps.contains(step) { steps.append(step) }
            }
        }
        var fields: [(name: String, step: String, values: [String])] = []
        var taken: Set<String> = []
        for step in steps {
            let found = blocks.map { (try? $0.select(".//" + step)) ?? [] }
            guard found.allSatisfy({ $0.count <= 1 }), found.filter({ !$0.isEmpty }).count * 2 >= blocks.count else { continue }
            let values = found.map { $0.first?.normalizedText ?? "" }
            guard Set(values).count > 1 || blocks.count == 1 else { continue }
            let cls = step.firstIndex(of: "[").map { _ in
                String(step.split(separator: "'").dropFirst().first ?? "").split(separator: " ").first.map(String.init) ?? ""
            }
            var name = fieldName(header: cls ?? "", cellClass: nil, column: fields.count)
            if cls == nil { name = "heading" }
            while taken.contains(name) { name += "_\(fields.count + 1)" }
            taken.insert(name)
            fields.append((name, ".//" + step, values))
        }
        // Label and value pairs (an icon titled "Course" beside a link to the course, <dt>/<dd>,
        // <th>/<td>): a field for each label that blocks show at most once.
        for pair in labelledPairs(blocks) {
            let found = blocks.map { (try? $0.select(pair.step)) ?? [] }
            // A label says what its value is: one two blocks show is a field, however many lack it.
            guard found.allSatisfy({ $0.count <= 1 }), found.filter({ !$0.isEmpty }).count >= min(2, blocks.count) else { continue }
            let values = found.map { $0.first?.normalizedText ?? "" }
            guard !fields.contains(where: { $0.values == values }) else { continue }
            var name = pairName(label: pair.label, values: values, elements: found.compactMap(\.first), column: fields.count)
            while taken.contains(name) { name += "_\(fields.count + 1)" }
            taken.insert(name)
            fields.append((name, pair.step, values))
        }
        if blocks.allSatisfy({ ((try? $0.select(".//a[@href]")) ?? []).isEmpty == false }), !taken.contains("link") {
            fields.append(("link", "(.//a/@href)[1]", blocks.map { (try? $0.evaluate("string((.//a/@href)[1])").stringValue) ?? "" }))
        }
        return fields
    }

    /// The labels of a block's label and value pairs, and the XPath (from the block) of the value
    /// each names: an element of two, the first the label (its words, or an icon's title,
    /// aria-label or alt when it has none) and the second the value with words; a `<dt>` and its
    /// `<dd>`; a `<th>` and its `<td>`. Labels are in first-seen order.
    static func labelledPairs(_ blocks: [Node]) -> [(label: String, step: String)] {
        var pairs: [(label: String, step: String)] = []
        func add(_ label: String, _ step: String) {
            guard !label.isEmpty, label.count <= 40, !pairs.contains(where: { $0.step == step }) else { return }
            pairs.append((label, step))
        }
        for block in blocks {
            for element in (try? block.select(".//*[count(*) = 2][*[2][normalize-space()]]")) ?? [] {
                let children = element.elementChildren
                guard children.count == 2, !["dl", "tr", "table", "tbody", "ul", "ol"].contains(element.name) else { continue }
                let label = children[0]
                let text = label.normalizedText
                // The label's words are all its own: not a value split in two elements.
                if !text.isEmpty {
                    guard ((try? label.select(".//a")) ?? []).isEmpty, text.count <= 40 else { continue }
                    add(text, ".//*[count(*) = 2][*[1][normalize-space()=\(Template.xpathLiteral(text))]]/*[2]")
                } else if let named = try? label.select("descendant-or-self::*[@title or @aria-label or @alt]").first {
                    let word = named.attribute("title") ?? named.attribute("aria-label") ?? named.attribute("alt") ?? ""
                    let literal = Template.xpathLiteral(word)
                    add(
                        word,
                        ".//*[count(*) = 2][*[1][not(normalize-space())][descendant-or-self::*[@title=\(literal) or @aria-label=\(literal) or @alt=\(literal)]]]/*[2]"
                    )
                }
            }
            for term in (try? block.select(".//dt[normalize-space()] | .//th[normalize-space()][following-sibling::td]")) ?? [] {
                let text = term.normalizedText
                let value = term.name == "dt" ? "dd" : "td"
                add(text, ".//\(value)[preceding-sibling::\(term.name)[1][normalize-space()=\(Template.xpathLiteral(text))]]")
            }
        }
        return pairs
    }

    /// A pair's field name: its label in ASCII letters; else, for a label in another script
    /// (`日時`, `コース`), what the values are: `when` for values that begin with a date, else the
    /// first word of the address they link to (`/course/view.php` → `course`), else by position.
    static func pairName(label: String, values: [String], elements: [Node], column: Int) -> String {
        let fromLabel = fieldName(header: label, cellClass: nil, column: column)
        if !fromLabel.hasPrefix("column_") { return fromLabel }
        let datePattern = #"^[0-9]{4}\s*[年/.\-]\s*[0-9]{1,2}|^[0-9]{1,2}[./][0-9]{1,2}[./][0-9]{4}"#
        let present = values.filter { !$0.isEmpty }
        if !present.isEmpty, present.allSatisfy({ $0.range(of: datePattern, options: .regularExpression) != nil }) { return "when" }
        let words = elements.compactMap { element -> String? in
            guard let href = try? element.select("descendant-or-self::a[@href]").first?.attribute("href"),
                let url = URL(string: href, relativeTo: URL(string: "https://x.invalid/"))
            else { return nil }
            return url.path.split(separator: "/").first.map(String.init)
        }
        if let word = words.first, words.count == elements.count, words.allSatisfy({ $0 == word }) {
            let name = fieldName(header: word, cellClass: nil, column: column)
            if !name.hasPrefix("column_") { return name }
        }
        return fromLabel
    }

    /// Records laid out as repeated blocks (a card per course, an event per day).
    static func blocksRecipe(
        _ blocks: [Node], parent: Node, in document: Document, command: String, fetch: String, url: URL, contentType: String?,
        body: [UInt8]
    ) -> DraftDataRecipe? {
        guard let first = blocks.first, let cls = first.attribute("class") else { return nil }
        let found = blockFields(blocks)
        guard found.count >= 2 else { return nil }
        var fields = found.map { item -> DraftDataRecipe.Field in
            if item.name == "link", item.step.hasSuffix("/@href)[1]") {
                var link = DraftDataRecipe.Field(name: "link", xpath: item.step, type: "url")
                link.guesses.append("each block's first link")
                return link
            }
            return typed(DraftDataRecipe.Field(name: item.name, xpath: item.step), values: item.values, header: item.name)
        }
        markKey(&fields, columns: found.map(\.values))
        let step = "\(first.name)[@class=\(Template.xpathLiteral(cls))]"
        let parentXPath = locator(for: parent, in: document)
        var draft = DraftDataRecipe(
            command: command, summary: summary(document, fallback: command), fetch: fetch, rows: parentXPath + "/" + step,
            emptyWhen: "\(parentXPath)[not(\(step))]", fields: fields,
            reading: "the blocks \(parentXPath)/\(step) (\(Plural.count(blocks.count, "block")), \(Plural.count(fields.count, "field")))",
            sourceURL: url, contentType: contentType, body: body)
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
                // A boolean reads as `true`/`false` in the XML a recipe reads, never as 1 or 0.
                case let number as NSNumber where number === NSNumber(value: true) || number === NSNumber(value: false):
                    return number.boolValue ? "true" : "false"
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

    /// A column's field name: its header's own letters (`Due date` → `due_date`), else the
    /// English word for a header in another script that ``HeaderWords`` knows (`科目コード` →
    /// `code`), else the cells' class, else its position.
    static func columnFieldName(header: String, cellClass: String?, column: Int) -> String {
        let own = fieldName(header: header, cellClass: nil, column: column)
        if !own.hasPrefix("column_") { return own }
        return HeaderWords.name(for: header) ?? fieldName(header: header, cellClass: cellClass, column: column)
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
        // Values before words: a column whose every value is a date is dates, whatever its header
        // says ('評価日', the day a grade was given, has 評価 in it; 'Note vom' is German).
        if let (type, format) = dateFormat(present) {
            field.type = type
            field.format = format
            field.guesses.append("\(type == "date" ? "dates" : "dates and times") written \(format)" + placeholderNote)
            return field
        }
        if isGradeHeader(header) {
            // One student's grades are numbers (`64.00`) where another's are letters (`B+`) or
            // words (`履修中`): a number type read from one student's rows would empty the
            // others'. The grade words apply only when they accept every value recorded.
            let others = Set(present.filter { $0.range(of: gradePattern, options: .regularExpression) == nil })
            if others.isEmpty {
                field.regex = gradePattern
                field.guesses.append("grades" + placeholderNote)
            } else {
                field.guesses.append(
                    "grades kept as text: " + others.sorted().prefix(3).map { "'\($0)'" }.joined(separator: ", ")
                        + " are outside the usual grade words, and another student's grades may be written otherwise")
            }
            return field
        }
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
        } else if isGradeColumn(present, header: header) {
            // A vocabulary applies only when it accepts every value the recording shows (`S`,
            // `履修中` are grades too where they are written); else the column stays text.
            let others = Set(present.filter { $0.range(of: gradePattern, options: .regularExpression) == nil })
            if others.isEmpty {
                field.regex = gradePattern
                field.guesses.append("grades")
            } else {
                field.guesses.append(
                    "grades kept as text: " + others.sorted().prefix(3).map { "'\($0)'" }.joined(separator: ", ")
                        + " are grades outside the usual words")
            }
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
        return !grades.isEmpty && (grades.count * 2 >= values.count || isGradeHeader(header))
    }

    /// A header that names a grade, in the languages portals are written in.
    static func isGradeHeader(_ header: String) -> Bool {
        ["grade", "note", "jegy", "成績", "評価", "評点", "mark", "result", "bewertung", "score"].contains { header.lowercased().contains($0) }
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
            // A grade names nothing, however different the recorded ones are.
            if field.guesses.contains(where: { $0.hasPrefix("grades") }) { return false }
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
        let title = document.title?.components(separatedBy: CharacterSet(charactersIn: "–|-")).first?.trimmingWhitespace()
        return title.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    }
}

extension Array {
    fileprivate var nilIfEmpty: [Element]? { isEmpty ? nil : self }
}
