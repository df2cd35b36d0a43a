import Foundation
import LibXML

/// An XML answer of the recording (an Atom or RSS feed, or any document of repeated elements)
/// as a `parse: xml` recipe: its rows are the most repeated element (`a:entry`, `item`), its
/// fields that element's children and their attributes.
///
/// Why a rule of its own: a portal's news, notices and announcements are often a feed, and a
/// recording that opened one made no command of it before, without a word in the report. Feeds of
/// every university look alike in one respect only: one element repeated under one parent. That
/// is the rule, not the feed's vocabulary; Atom's and RSS's names only choose the nicer XPaths
/// (`link` by its `rel`, `category` by its `term`).
enum RecordedFeed {
    /// Prefixes for the namespaces feeds use, so that the recipe reads as the docs' examples do.
    static let knownPrefixes = ["http://www.w3.org/2005/Atom": "a", "http://purl.org/dc/elements/1.1/": "dc"]

    /// Whether the answer is XML: served as XML (`application/atom+xml`, `text/xml`), or as
    /// anything but HTML and JSON with an XML declaration first.
    static func isXML(mimeType: String?, body: [UInt8]) -> Bool {
        let mime = (mimeType ?? "").lowercased()
        if mime.contains("html") || mime.contains("json") { return false }
        if mime.contains("xml") { return true }
        let head = String(decoding: body.prefix(80), as: UTF8.self).trimmingWhitespaceAndNewlines()
        return head.hasPrefix("<?xml")
    }

    /// The recipe, and the namespaces its XPaths use; nil when no element repeats.
    static func recipe(
        _ body: [UInt8], command: String, fetch: String, url: URL, contentType: String?
    ) -> (draft: DraftDataRecipe, namespaces: [String: String])? {
        guard let document = try? Document(xml: body, url: url.absoluteString), let root = document.root else { return nil }
        var namespaces: [String: String] = [:]
        func step(_ node: Node) -> String {
            let local = (try? node.evaluate("local-name()").stringValue) ?? node.name
            let uri = (try? node.evaluate("namespace-uri()").stringValue) ?? ""
            guard !uri.isEmpty else { return local }
            if let prefix = namespaces.first(where: { $0.value == uri })?.key { return "\(prefix):\(local)" }
            var prefix = knownPrefixes[uri] ?? "n1"
            var number = 1
            while namespaces[prefix] != nil {
                number += 1
                prefix = "n\(number)"
            }
            namespaces[prefix] = uri
            return "\(prefix):\(local)"
        }
        // The most repeated element: its parent's path, its name, how many. Shallower wins a tie.
        var best: (path: [Node], name: String, count: Int)?
        func walk(_ node: Node, path: [Node]) {
            guard path.count < 6 else { return }
            var counts: [String: Int] = [:]
            for child in node.elementChildren { counts[child.name, default: 0] += 1 }
            for (name, count) in counts where count >= 2 && count > (best?.count ?? 1) {
                best = (path + [node], name, count)
            }
            for child in node.elementChildren where !child.elementChildren.isEmpty { walk(child, path: path + [node]) }
        }
        walk(root, path: [])
        guard let best else { return nil }
        let rowNodes = best.path.last!.elementChildren.filter { $0.name == best.name }
        let rows = "/" + best.path.map(step).joined(separator: "/") + "/" + step(rowNodes[0])

        var fields: [DraftDataRecipe.Field] = []
        var names: Set<String> = []
        var readChildren: Set<String> = []
        for row in rowNodes {
            for child in row.elementChildren where !readChildren.contains(child.name) {
                readChildren.insert(child.name)
                let childStep = step(child)
                let local = (try? child.evaluate("local-name()").stringValue) ?? child.name
                var xpath = childStep
                var name = local
                let text = child.normalizedText
                if child.elementChildren.isEmpty, text.isEmpty {
                    // An element that says it in attributes: Atom's <link href rel>, <category term>.
                    let attributes = child.attributes.map(\.name)
                    guard let attribute = ["href", "term", "url", "src", "value"].first(where: attributes.contains) ?? attributes.first
                    else { continue }
                    let rel = row.elementChildren.contains { $0.name == child.name && $0.attribute("rel") != nil }
                    xpath = rel ? "\(childStep)[@rel='alternate' or not(@rel)]/@\(attribute)" : "\(childStep)/@\(attribute)"
                } else if !child.elementChildren.isEmpty {
                    // <author><name>…</name></author>: its first child with text.
                    guard let inner = child.elementChildren.first(where: { $0.elementChildren.isEmpty && !$0.normalizedText.isEmpty })
                    else { continue }
                    xpath = "\(childStep)/\(step(inner))"
                }
                name = RecordedPage.fieldName(header: name, cellClass: nil, column: fields.count + 1)
                guard !names.contains(name) else { continue }
                names.insert(name)
                var field = DraftDataRecipe.Field(name: name, xpath: xpath)
                let values = rowNodes.compactMap { try? $0.evaluate("string(\(xpath))", namespaces: namespaces).stringValue }.filter {
                    !$0.isEmpty
                }
                if !values.isEmpty,
                    values.allSatisfy({ $0.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}"#, options: .regularExpression) != nil })
                {
                    field.type = "datetime"
                    field.format = "iso8601"
                    field.guesses.append("times written as ISO 8601")
                } else if !values.isEmpty,
                    values.allSatisfy({
                        $0.range(of: #"^[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}"#, options: .regularExpression) != nil
                    })
                {
                    field.type = "datetime"
                    field.format = "rfc822"
                    field.guesses.append("times written as RFC 822")
                }
                if ["id", "guid"].contains(local.lowercased()), Set(values).count == rowNodes.count { field.key = true }
                fields.append(field)
            }
        }
        guard !fields.isEmpty else { return nil }
        if !fields.contains(where: \.key), let link = fields.firstIndex(where: { $0.name == "link" }) { fields[link].key = true }
        let title: String? =
            (try? best.path.last!.select("*[local-name()='title']").first?.normalizedText)
            ?? (try? root.select("*[local-name()='title']").first?.normalizedText)
        let local = (try? rowNodes[0].evaluate("local-name()").stringValue) ?? best.name
        let draft = DraftDataRecipe(
            command: command, summary: title.flatMap { $0.isEmpty ? nil : $0 } ?? "The \(local) elements of \(url.path)",
            fetch: fetch, service: nil, rows: rows, emptyWhen: nil, next: nil, option: nil, fields: fields,
            reading:
                "the XML's repeated element <\(local)> (\(Plural.count(rowNodes.count, "row")), \(Plural.count(fields.count, "field")))",
            sourceURL: url, contentType: contentType, body: body)
        return (draft, namespaces)
    }
}
