import Foundation
import LibXML

/// Which bundled data platform (`koha/loans`, `moodle/grades`, …) a recorded page is, told by the
/// page's own evidence, so that `recipes new` writes a command that `use:`s it: the platform's
/// rules were checked against the product's templates and know its fields (a loan's barcode,
/// renewals and due date) and its empty state, which a recording of one visit could not show.
///
/// A pure decision: the page and its address in, the best platform, a confidence and why out.
/// The evidence, as `PlatformMatch` weighs a login's:
/// - the records: the platform's `rows` find rows on the page and every row holds the platform's
///   required fields (0.6); rows without them mean the page is not the platform's, whatever
///   else it shows. A page without rows counts only when it shows the platform's own empty
///   state (its `empty_when`, 0.5): that is how a page with nothing borrowed yet is recognised.
/// - the address: the page is at the platform's own path (`/cgi-bin/koha/opac-user.pl`), 0.25;
///   a portal that serves the product under its own address (a proxy) loses only this.
/// - the structure: the share of the element ids the platform's rules name (its table, its
///   panels, its forms) that the page has, 0.3 at most.
/// Without records or an empty state nothing is confident (at most 0.55): a page that only has
/// the product's ids or address may be any other page of it.
public struct DataPlatformMatch: Sendable {
    /// The platform's name, what `use:` takes (`koha/loans`).
    public var platform: String
    /// The platform's command name (`loans`).
    public var command: String
    public var summary: String
    /// From 0 to 1; `confident` and above is used.
    public var confidence: Double
    /// Why, for the report and the YAML comment.
    public var reason: String
    /// How many records the platform's rows find on the page (0: its empty state).
    public var rows: Int
    /// The platform's field names, which a command using it has without writing them.
    public var fields: [String]
    /// The XPaths of the platform's fields, to tell which of a page's own columns it already reads.
    public var fieldXPaths: [String]

    /// The confidence from which a page is written as a `use:` of the platform.
    public static let confident = 0.6

    /// A bundled HTML data platform, as its file describes it.
    public struct Platform: Sendable {
        public var name: String
        public var command: String
        public var summary: String
        /// The path it fetches, without a query (`cgi-bin/koha/opac-user.pl`); nil when templated.
        public var path: String?
        public var rows: String
        public var emptyWhen: String?
        /// The XPaths of its required fields, relative to a row.
        public var required: [String]
        public var fields: [String]
        public var fieldXPaths: [String]
        /// The element ids its listing rules name: `@id='checkoutst'`, `starts-with(@id, 'opac-user-checkouts')`.
        public var ids: [(id: String, prefix: Bool)]
    }

    /// The HTML data platforms in `folder` (`koha/loans.yaml` is `koha/loans`), loaded as a
    /// command that `use:`s them gets them. Platforms of JSON, XML or iCalendar answers are left
    /// out: a recorded page is HTML (a feed is made into `parse: xml` by `RecordedFeed`), and one
    /// needing parameters cannot be told from a page.
    public static func platforms(in folder: URL) -> [Platform] {
        let manager = FileManager.default
        let groups = ((try? manager.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        var found: [Platform] = []
        for group in groups {
            let directory = folder.appendingPathComponent(group)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            for file in ((try? manager.contentsOfDirectory(atPath: directory.path)) ?? []).sorted() where file.hasSuffix(".yaml") {
                let name = "\(group)/\(file.dropLast(".yaml".count))"
                guard
                    let recipe = try? DataRecipe.load(file: "probe.yaml", text: "use: \(name)\n", portal: "probe", platforms: folder),
                    let source = recipe.sources.first, source.parser == .html
                else { continue }
                let fetch = source.fetch.source
                let path = fetch.contains("{{") ? nil : fetch.split(separator: "?").first.map(String.init)
                // The ids of the listing and its forms, not of an action's answer page.
                let listing = [source.rows, source.emptyWhen ?? ""] + recipe.actions.map(\.form)
                found.append(
                    Platform(
                        name: name, command: recipe.command, summary: recipe.summary, path: path, rows: source.rows,
                        emptyWhen: source.emptyWhen, required: source.fields.filter(\.required).compactMap(\.xpath),
                        fields: source.fields.map(\.name), fieldXPaths: source.fields.compactMap(\.xpath),
                        ids: ids(in: listing.joined(separator: "\n"))))
            }
        }
        return found
    }

    /// The element ids an XPath names, exactly (`@id='x'`) or as a prefix (`starts-with(@id, 'x')`).
    static func ids(in xpaths: String) -> [(id: String, prefix: Bool)] {
        var found: [(id: String, prefix: Bool)] = []
        for (pattern, prefix) in [(#"@id\s*=\s*'([^'{}]+)'"#, false), (#"starts-with\(\s*@id\s*,\s*'([^'{}]+)'\s*\)"#, true)] {
            for id in RecipeDraft.matches(pattern, in: xpaths) where !found.contains(where: { $0.id == id }) {
                found.append((id, prefix))
            }
        }
        return found
    }

    /// The best of `platforms` for this page, confident or not; nil when none has any evidence.
    public static func best(document: Document, url: URL, platforms: [Platform]) -> DataPlatformMatch? {
        platforms.compactMap { score($0, document: document, url: url) }.max { $0.confidence < $1.confidence }
    }

    static func score(_ platform: Platform, document: Document, url: URL) -> DataPlatformMatch? {
        var said: [String] = []
        var confidence = 0.0
        let rows = (try? document.select(platform.rows)) ?? []
        if !rows.isEmpty {
            // Recognition must agree with the records the page shows.
            for row in rows {
                for xpath in platform.required {
                    let text = (try? row.evaluate(xpath).stringValue) ?? ""
                    if text.trimmingWhitespaceAndNewlines().isEmpty { return nil }
                }
            }
            confidence += 0.6
            said.append("its rows find the page's \(Plural.count(rows.count, "record")), each with the fields it requires")
        } else if let empty = platform.emptyWhen, matches(empty, in: document) {
            confidence += 0.5
            said.append("the page shows its empty state (no records yet)")
        }
        if let path = platform.path, !path.isEmpty, ("/" + url.path).hasSuffix("/" + path.drop { $0 == "/" }) {
            confidence += 0.25
            said.append("the address is its page (\(path))")
        }
        let present = platform.ids.filter { id in
            matches(id.prefix ? "//*[starts-with(@id, '\(id.id)')]" : "//*[@id='\(id.id)']", in: document)
        }
        if !platform.ids.isEmpty, !present.isEmpty {
            confidence += 0.3 * Double(present.count) / Double(platform.ids.count)
            said.append(
                "\(present.count) of the \(platform.ids.count) element ids its rules name (\(present.map { "#" + $0.id }.joined(separator: ", ")))"
            )
        }
        guard confidence > 0 else { return nil }
        confidence = min(1, confidence)
        return DataPlatformMatch(
            platform: platform.name, command: platform.command, summary: platform.summary, confidence: confidence,
            reason: "confidence \(String(format: "%.2f", confidence)): \(said.joined(separator: "; "))", rows: rows.count,
            fields: platform.fields, fieldXPaths: platform.fieldXPaths)
    }

    /// Whether an XPath selects something or is true on the page.
    static func matches(_ xpath: String, in document: Document) -> Bool {
        switch try? document.evaluate(xpath) {
        case .nodes(let nodes): return !nodes.isEmpty
        case .boolean(let value): return value
        case .number(let value): return value != 0
        case .string(let value): return !value.isEmpty
        case nil: return false
        }
    }

    /// Whether a page's own column (a field the generator guessed, `td[@class='author']`) is one
    /// the platform does not read: a class or id it names that none of the platform's fields do.
    public func addsColumn(_ xpath: String) -> Bool {
        let names = RecipeDraft.matches(#"@(?:class|id)\s*=\s*'([^']+)'"#, in: xpath)
        guard !names.isEmpty else { return false }
        return names.allSatisfy { name in !fieldXPaths.contains { $0.contains("' \(name) '") || $0.contains("'\(name)'") } }
    }
}
