import Foundation
import LibXML

/// The element of a recorded page that holds its records, chosen by evidence rather than by
/// size: the biggest list on a page is as often its menu, its tabs or its terms' clauses as its
/// data (issue 48: a portal home's menu table, a library's "Checked out (0)" tabs and a learning
/// system's user menu all became commands). A candidate counts only outside the page's chrome
/// (navigation, menus, tabs, breadcrumbs, header, footer, sidebars), only when its records carry
/// varied data (not a column of lone links, not prose clauses), and ranks higher inside the
/// page's main region and under its heading.
struct PageSubject {
    enum Kind: Equatable { case table, list, blocks }
    var kind: Kind
    /// The table or list; for repeated blocks, their parent.
    var node: Node
    /// The record elements: a table's data rows (none for a table with only its header), a
    /// list's items, the blocks.
    var rows: [Node]
    /// Rows × fields, weighted by where the candidate stands on the page.
    var score: Int
    /// How the report names it ("the table #loans, 4 rows").
    var described: String

    /// Words of a class (split at `-` and `_`) or roles that mark the page's chrome.
    static let chromeWords: Set<String> = [
        "nav", "navbar", "navigation", "menu", "menubar", "dropdown", "tabs", "tablist", "breadcrumb", "breadcrumbs",
        "pagination", "pager", "toolbar", "sidebar",
    ]
    static let chromeRoles: Set<String> = [
        "navigation", "menu", "menubar", "menuitem", "tablist", "tab", "toolbar", "banner", "contentinfo", "complementary",
    ]
    static let chromeTags: Set<String> = ["nav", "header", "footer", "aside", "menu"]

    /// True when the node or one of its ancestors is the page's chrome.
    static func isChrome(_ node: Node) -> Bool {
        let chain = (try? node.select("ancestor-or-self::*")) ?? []
        return chain.contains { element in
            if chromeTags.contains(element.name) { return true }
            if let role = element.attribute("role")?.lowercased(), chromeRoles.contains(role) { return true }
            let words = (element.attribute("class") ?? "").lowercased().split(whereSeparator: { " \t\n-_".contains($0) })
            return words.contains { chromeWords.contains(String($0)) }
        }
    }

    /// Inside the page's main region, or after its top heading: where a page puts its subject.
    static func isMain(_ node: Node) -> Bool {
        let xpath =
            "ancestor-or-self::main | ancestor-or-self::*[@role='main'] | ancestor-or-self::*[@id='content' or @id='main' or @id='region-main' or @id='main-content'] | preceding::h1"
        return ((try? node.select(xpath)) ?? []).isEmpty == false
    }

    /// The nearest heading before the records is the page's own (its h1, or the title's words).
    static func isUnderPageHeading(_ first: Node, in document: Document) -> Bool {
        guard let heading = try? first.select("preceding::*[self::h1 or self::h2 or self::h3][1]").first else { return false }
        if heading.name == "h1" { return true }
        let text = heading.normalizedText
        return !text.isEmpty && (document.title ?? "").contains(text)
    }

    /// A record that is nothing but one link ("Grades", "Checked out (0)"), or a link to nowhere.
    static func isLoneLink(_ record: Node) -> Bool {
        let links = (try? record.select(".//a")) ?? []
        if links.contains(where: { ($0.attribute("href") ?? "").hasPrefix("#") }), links.count == 1 { return true }
        return links.count == 1 && links[0].normalizedText == record.normalizedText
    }

    /// A sentence of prose (a clause of terms of use, a paragraph), not a record's values.
    static func isProse(_ record: Node) -> Bool {
        let text = record.normalizedText
        guard text.count >= 20, ((try? record.select(".//a")) ?? []).isEmpty, let last = text.last else { return false }
        return "。．.!?！？".contains(last)
    }

    /// Records that hold data: not every one a lone link or prose, not all the same words.
    static func carriesData(_ records: [Node]) -> Bool {
        guard !records.isEmpty else { return false }
        if records.allSatisfy(isLoneLink) || records.allSatisfy(isProse) { return false }
        let texts = records.map(\.normalizedText)
        return records.count == 1 || Set(texts).count > 1
    }

    /// Every candidate of the page, best first.
    static func candidates(_ document: Document, tablesOnly: Bool) -> [PageSubject] {
        var found: [PageSubject] = []
        // Records with more fields are likelier data than a longer list of one field: a
        // table's rows × its width², and double inside the main region.
        var firstAfterHeading: (index: Int, order: Double)?
        func weigh(_ rows: Int, _ fields: Int, _ node: Node, first: Node) -> Int {
            var score = rows * fields * fields * 4
            if isMain(node) { score *= 2 }
            if isUnderPageHeading(first, in: document) {
                let order = Double((try? first.evaluate("count(preceding::*)").stringValue) ?? "") ?? 0
                if firstAfterHeading == nil || order < firstAfterHeading!.order { firstAfterHeading = (found.count, order) }
            }
            return score
        }
        for table in (try? document.select("//table")) ?? [] where !isChrome(table) {
            // A table holding a table lays out the page.
            if ((try? table.select(".//table")) ?? []).isEmpty == false { continue }
            let rows = ((try? table.select("./tbody/tr[td] | ./tr[td]")) ?? [])
            let tableWidth = RecordedPage.tableWidth(table, rows: rows)
            let data = rows.filter { !RecordedPage.isPadding($0, width: tableWidth) }
            let headers = (try? table.select("./thead/tr[last()]/th | (./tbody/tr | ./tr)[th][1]/th")) ?? []
            let located = RecordedPage.locator(for: table, in: document)
            if data.isEmpty {
                // An empty table whose header says what it would hold: the page's subject when
                // nothing else is (ranked below every table with rows).
                guard headers.count >= 2 else { continue }
                let columns = headers.count
                found.append(
                    PageSubject(
                        kind: .table, node: table, rows: [], score: 0,
                        described: localized(
                            "the table \(located) (no rows; \(columns) column from its header)",
                            plural: "the table \(located) (no rows; \(columns) columns from its header)", count: columns)))
                continue
            }
            guard carriesData(data) else { continue }
            let width = data.map(\.elementChildren.count).max() ?? 1
            let rowCount = data.count
            found.append(
                PageSubject(
                    kind: .table, node: table, rows: data, score: weigh(data.count, max(1, width), table, first: table),
                    described: localized(
                        "the table \(located) (\(rowCount) row)", plural: "the table \(located) (\(rowCount) rows)", count: rowCount)))
        }
        if tablesOnly {
            if let first = firstAfterHeading { found[first.index].score *= 2 }
            return ranked(found)
        }
        for list in (try? document.select("//ul[count(li) >= 2] | //ol[count(li) >= 2]")) ?? [] where !isChrome(list) {
            let items = (try? list.select("./li")) ?? []
            guard carriesData(items) else { continue }
            let fields = items.allSatisfy { ((try? $0.select(".//a[@href]")) ?? []).isEmpty == false } ? 2 : 1
            let located = RecordedPage.locator(for: list, in: document)
            let itemCount = items.count
            found.append(
                PageSubject(
                    kind: .list, node: list, rows: items, score: weigh(items.count, fields, list, first: list),
                    described: localized(
                        "the list \(located) (\(itemCount) item)", plural: "the list \(located) (\(itemCount) items)", count: itemCount)))
        }
        for group in blockGroups(document) {
            let fields = RecordedPage.blockFields(group.blocks).count
            guard fields >= 2 else { continue }
            let located = "\(RecordedPage.locator(for: group.parent, in: document))/\(group.step)"
            let blockCount = group.blocks.count
            found.append(
                PageSubject(
                    kind: .blocks, node: group.parent, rows: group.blocks,
                    score: weigh(group.blocks.count, fields, group.parent, first: group.blocks[0]),
                    described: localized(
                        "the blocks \(located) (\(blockCount) block)", plural: "the blocks \(located) (\(blockCount) blocks)",
                        count: blockCount)))
        }
        // The first records under the page's own heading are what the page is about.
        if let first = firstAfterHeading { found[first.index].score *= 2 }
        return ranked(found)
    }

    private static func ranked(_ found: [PageSubject]) -> [PageSubject] {
        found.enumerated().sorted { ($0.element.score, -$0.offset) > ($1.element.score, -$1.offset) }.map(\.element)
    }

    /// A `data-id` or `data-…-id` attribute: the block is one record of a kind the page lists.
    static func carriesRecordID(_ node: Node) -> Bool {
        ((try? node.select("@*")) ?? []).contains { attribute in
            let name = attribute.name.lowercased()
            return name.hasPrefix("data-") && (name == "data-id" || name.hasSuffix("-id"))
        }
    }

    /// Sibling elements that share a tag and a class (a card per course, an event per day),
    /// two or more of them with different words: records laid out as blocks, not as a table or
    /// a list. Rows and cells and items are left to the table and the list.
    static func blockGroups(_ document: Document) -> [(parent: Node, blocks: [Node], step: String)] {
        var groups: [(parent: Node, blocks: [Node], step: String)] = []
        // A parent of one child too: a group of one is a list that happens to hold one record.
        let parents = (try? document.select("//body//*[*]")) ?? []
        for parent in parents where !["tr", "table", "tbody", "thead", "ul", "ol", "select", "dl", "head"].contains(parent.name) {
            var bySignature: [String: [Node]] = [:]
            var order: [String] = []
            for child in parent.elementChildren where ["div", "article", "section", "p"].contains(child.name) {
                guard let cls = child.attribute("class"), !cls.isEmpty else { continue }
                let signature = "\(child.name)[@class=\(Template.xpathLiteral(cls))]"
                if bySignature[signature] == nil { order.append(signature) }
                bySignature[signature, default: []].append(child)
            }
            for signature in order {
                let blocks = bySignature[signature] ?? []
                // A group of one: a block that names its record by an id of its own (`data-event-id`),
                // in the page's main region under its heading, is the page's records though only
                // one was shown (a student with one event, one course).
                // The record is the innermost such element: one holding another is its container.
                let alone =
                    blocks.count == 1 && carriesRecordID(blocks[0]) && isMain(blocks[0])
                    && !((try? blocks[0].select(".//*")) ?? []).contains(where: carriesRecordID)
                guard blocks.count >= 2 || alone, !isChrome(parent), carriesData(blocks) else { continue }
                groups.append((parent, blocks, signature))
            }
        }
        // The parts of a record shown alone (the rows of its card) are not records of their own.
        let lone = groups.filter { $0.blocks.count == 1 }.map { $0.blocks[0] }
        return groups.filter { group in
            group.blocks.count == 1
                || !lone.contains { record in ((try? record.select(".//*")) ?? []).contains(group.parent) || record == group.parent }
        }
    }
}
