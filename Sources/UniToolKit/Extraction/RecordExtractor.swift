import Foundation
import LibXML

/// Turns a parsed page into typed records, as a data recipe describes them.
///
/// An empty result is only ever returned when the recipe's `empty_when` test says the page
/// really has no records; a page that changed shape is an error that names the recipe, the
/// field and the XPath.
public struct RecordExtractor: Sendable {
    public let recipe: DataRecipe

    public init(recipe: DataRecipe) { self.recipe = recipe }

    public func extract(from document: Document) throws -> RecordSet {
        let rows = try select(recipe.rows, in: document, field: "rows")
        if rows.isEmpty {
            if let emptyWhen = recipe.emptyWhen, try document.evaluate(emptyWhen).booleanValue {
                return RecordSet(columns: recipe.fields.map(\.name), records: [])
            }
            throw UniToolError(
                .layoutChanged,
                "recipe \(recipe.portal)/\(recipe.command) (\(recipe.file)): rows \"\(recipe.rows)\" matched nothing on \(pageName(document))",
                hint: recipe.emptyWhen == nil
                    ? "the page layout may have changed; if the page can legitimately be empty, add 'empty_when' to the recipe"
                    : "the page layout may have changed, and it does not match empty_when \"\(recipe.emptyWhen!)\" either")
        }
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            var fields: [(name: String, value: FieldValue)] = []
            fields.reserveCapacity(recipe.fields.count)
            for field in recipe.fields {
                fields.append((field.name, try value(of: field, row: row, rowNumber: index + 1, document: document)))
            }
            records.append(Record(fields: fields))
        }
        return RecordSet(columns: recipe.fields.map(\.name), records: records)
    }

    private func value(of field: FieldSpec, row: Node, rowNumber: Int, document: Document) throws -> FieldValue {
        let raw: String?
        do {
            switch try row.evaluate(field.xpath) {
            case .nodes(let nodes): raw = nodes.isEmpty ? nil : nodes.map(\.text).joined(separator: " ")
            case .string(let text): raw = text
            case .number(let number): raw = XPathValue.number(number).stringValue
            case .boolean(let flag): raw = flag ? "true" : "false"
            }
        } catch {
            throw UniToolError(.recipeInvalid, "recipe \(recipe.file): field '\(field.name)': \(error)")
        }
        var text = raw?.collapsingWhitespace()
        if let pattern = field.regex, let current = text {
            text = try Self.applyRegex(pattern, to: current)
        }
        if text?.isEmpty ?? true { text = field.defaultValue }
        guard let text, !text.isEmpty else {
            if field.required {
                throw UniToolError(
                    .layoutChanged,
                    "recipe \(recipe.portal)/\(recipe.command) (\(recipe.file)): required field '\(field.name)' (XPath \"\(field.xpath)\") matched nothing in row \(rowNumber) on \(pageName(document))",
                    hint: "the portal's page layout has probably changed; update the XPath in the recipe")
            }
            return .null
        }
        return try FieldTyper.convert(text, to: field.type, format: field.format, baseURL: document.url) {
            UniToolError(
                .layoutChanged,
                "recipe \(recipe.portal)/\(recipe.command): field '\(field.name)' in row \(rowNumber) is \"\(text)\", which is not a valid \($0)",
                hint: "the portal may have changed how it shows this value; check 'type' and 'format' in \(recipe.file)")
        }
    }

    private func select(_ xpath: String, in document: Document, field: String) throws -> [Node] {
        do {
            return try document.select(xpath)
        } catch {
            throw UniToolError(.recipeInvalid, "recipe \(recipe.file): \(field): \(error)")
        }
    }

    private func pageName(_ document: Document) -> String {
        document.url.flatMap { URL(string: $0)?.redactedForLog } ?? "the page"
    }

    static func applyRegex(_ pattern: String, to text: String) throws -> String? {
        let regex = try Regex(pattern)
        guard let match = try regex.firstMatch(in: text) else { return nil }
        if match.output.count > 1, let capture = match.output[1].substring {
            return String(capture)
        }
        return String(match.output[0].substring ?? "")
    }
}

/// Converts page text to typed values. Kept apart from the extractor so it can be tested alone.
public enum FieldTyper {
    public static func convert(
        _ text: String, to type: FieldSpec.FieldType, format: String?, baseURL: String?,
        invalid: (String) -> UniToolError
    ) throws -> FieldValue {
        switch type {
        case .string:
            return .string(text)
        case .integer:
            let digits = text.filter { !$0.isWhitespace && $0 != "," && $0 != "\u{00A0}" }
            guard let value = Int(digits) else { throw invalid("whole number") }
            return .integer(value)
        case .number:
            guard let value = parseNumber(text) else { throw invalid("number") }
            return .number(value)
        case .date:
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format ?? "yyyy-MM-dd"
            guard let date = formatter.date(from: text) else { throw invalid("date in the format \(format ?? "yyyy-MM-dd")") }
            formatter.dateFormat = "yyyy-MM-dd"
            return .date(formatter.string(from: date))
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "y", "1", "on", "x", "✓": return .bool(true)
            case "false", "no", "n", "0", "off", "-", "": return .bool(false)
            default: throw invalid("yes/no value")
            }
        case .url:
            let base = baseURL.flatMap { URL(string: $0) }
            guard let url = URL(string: text, relativeTo: base)?.absoluteURL else { throw invalid("URL") }
            return .url(url.absoluteString)
        }
    }

    /// Accepts `4`, `4.5`, `4,5` (a decimal comma, as much of Europe writes it) and `1 234,5`.
    static func parseNumber(_ text: String) -> Double? {
        var cleaned = text.filter { !$0.isWhitespace && $0 != "\u{00A0}" && $0 != "\u{202F}" }
        if cleaned.contains(",") {
            cleaned = cleaned.contains(".")
                ? cleaned.replacingOccurrences(of: ",", with: "")
                : cleaned.replacingOccurrences(of: ",", with: ".")
        }
        return Double(cleaned)
    }
}
