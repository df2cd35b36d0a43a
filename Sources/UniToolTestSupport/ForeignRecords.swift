import Foundation

/// How the foreign recordings' test (issue 48) compares what a generated recipe folder returned
/// with a portal's `expected.json`: pure decisions, with unit tests of their own.
///
/// The generated folder names its commands and fields by guess, so nothing here matches by name:
/// a page is found by its address, and a record by its values. Values are compared as the texts
/// the page showed, normalised by what `expected.json`'s `pages.<name>.types` says they are (a
/// date unitool typed as ISO `2026-07-31` is the page's `2026/07/31`; a number `2` is `2.0`).
public enum ForeignRecords {
    /// One value of a record: what JSON holds, without Foundation's untyped `Any`.
    public enum Shown: Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case number(Double)
        case bool(Bool)
        case null

        /// A JSON scalar from `JSONSerialization` (an `NSNumber` made from a bool, type `c`, is a bool).
        public init(json: Any) {
            if let number = json as? NSNumber {
                if String(cString: number.objCType) == "c" {
                    self = .bool(number.boolValue)
                } else {
                    self = .number(number.doubleValue)
                }
            } else if let text = json as? String {
                self = .text(text)
            } else if json is NSNull {
                self = .null
            } else {
                self = .text("\(json)")
            }
        }

        public var description: String {
            switch self {
            case .text(let text): return text
            case .number(let number): return ForeignRecords.canonicalNumber(number)
            case .bool(let bool): return bool ? "true" : "false"
            case .null: return "null"
            }
        }

        var isBlank: Bool {
            switch self {
            case .null: return true
            case .text(let text): return ForeignRecords.collapsed(text).isEmpty
            default: return false
            }
        }
    }

    public typealias Record = [String: Shown]

    /// Records from JSON (an array of objects, as `unitool --json` prints them and `expected.json` holds them).
    public static func records(json: Any) -> [Record] {
        (json as? [[String: Any]] ?? []).map { $0.mapValues { Shown(json: $0) } }
    }

    /// Whitespace collapsed, as `expected.json` gives texts.
    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `2.0` and `2` are one number; `3.25` stays itself.
    static func canonicalNumber(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// A text that is a plain decimal number (not an identifier with leading zeros).
    static func plainNumber(_ text: String) -> Double? {
        guard text.range(of: #"^-?(0|[1-9][0-9]*)([.,][0-9]+)?$"#, options: .regularExpression) != nil else { return nil }
        return Double(text.replacingOccurrences(of: ",", with: "."))
    }

    /// The one number written inside a text (`第3.2版` → 3.2), or nil when there is none or more than one.
    static func embeddedNumber(_ text: String) -> Double? {
        let regex = try? NSRegularExpression(pattern: #"[0-9]+(\.[0-9]+)?"#)
        let range = NSRange(text.startIndex..., in: text)
        let matches = regex?.matches(in: text, range: range) ?? []
        guard matches.count == 1, let found = Range(matches[0].range, in: text) else { return nil }
        return Double(text[found])
    }

    static func isoDate(_ text: String, format: String) -> String? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        guard let date = formatter.date(from: text) else { return nil }
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// An ISO 8601 date and time with an offset, as the instant it names (so that `+09:00` and `Z` agree).
    static func instant(_ text: String) -> String? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return "instant:\(Int64(date.timeIntervalSince1970))" }
        }
        return nil
    }

    /// The forms an expected value may be found in, by its type in `pages.<name>.types`
    /// ("number", "integer", "date, shown yyyy/MM/dd", "datetime, …", "bool"; nil: a text).
    public static func expectedForms(_ value: Shown, type: String?) -> Set<String> {
        let type = type?.lowercased() ?? ""
        switch value {
        case .null: return []
        case .bool(let bool): return ["bool:\(bool)"]
        case .number(let number):
            let canonical = canonicalNumber(number)
            return ["num:\(canonical)", "embedded:\(canonical)"]
        case .text(let raw):
            let text = collapsed(raw)
            var forms: Set<String> = ["text:\(text)"]
            if type.hasPrefix("number") || type.hasPrefix("integer") {
                if let number = plainNumber(text) ?? embeddedNumber(text) {
                    forms.formUnion(["num:\(canonicalNumber(number))", "embedded:\(canonicalNumber(number))"])
                }
            } else if type.hasPrefix("datetime") {
                if let instant = instant(text) { forms.insert(instant) }
            } else if type.hasPrefix("date") {
                let format = type.range(of: "shown ").map { String(type[$0.upperBound...]) }?.trimmingCharacters(in: .whitespaces)
                let pattern = (format?.isEmpty == false ? format! : "yyyy-MM-dd").replacingOccurrences(of: "mm", with: "MM")
                if let iso = isoDate(text, format: pattern) { forms.insert("date:\(iso)") }
            } else if type.hasPrefix("bool") {
                forms.insert("bool:\(text.lowercased())")
            } else if let number = plainNumber(text) {
                forms.insert("num:\(canonicalNumber(number))")
            }
            return forms
        }
    }

    /// The forms a value unitool returned is in: its text, and what it reads as (a number, an ISO
    /// date or instant, the one number inside a text).
    public static func returnedForms(_ value: Shown) -> Set<String> {
        switch value {
        case .null: return []
        case .bool(let bool): return ["bool:\(bool)", "text:\(bool)"]
        case .number(let number):
            let canonical = canonicalNumber(number)
            return ["num:\(canonical)", "embedded:\(canonical)", "text:\(canonical)"]
        case .text(let raw):
            let text = collapsed(raw)
            var forms: Set<String> = ["text:\(text)"]
            if let number = plainNumber(text) {
                forms.formUnion(["num:\(canonicalNumber(number))", "embedded:\(canonicalNumber(number))"])
            } else if let number = embeddedNumber(text) {
                forms.insert("embedded:\(canonicalNumber(number))")
            }
            if let iso = isoDate(text, format: "yyyy-MM-dd") ?? isoDate(text, format: "yyyy/MM/dd") { forms.insert("date:\(iso)") }
            if let instant = instant(text) { forms.insert(instant) }
            return forms
        }
    }

    /// How to read one expected page's records.
    public struct Reading: Sendable {
        /// Field → type, from `pages.<name>.types`.
        public var types: [String: String]
        /// The fields the page shows; nil: every field of the expected records.
        public var shown: [String]?
        /// Fields the page does not show but derives (loans' `overdue` from `today`): checked when
        /// a returned record has a yes/no value, not required.
        public var derived: Set<String>
        /// Fields the page shows inside one text, not marked apart (saml-peer's p#who 'Signed in
        /// as alice (Alice Liddell)'): a name → the text as shown, with `{field}` for each expected
        /// value. The record must hold that whole text, or else each of its parts apart: nothing
        /// on the page marks them apart, but a reader that splits the sentence reads it right too.
        public var asShown: [String: String]

        public init(
            types: [String: String] = [:], shown: [String]? = nil, derived: Set<String> = [], asShown: [String: String] = [:]
        ) {
            self.types = types
            self.shown = shown
            self.derived = derived
            self.asShown = asShown
        }

        /// The `{field}`s of the as-shown texts.
        var parts: Set<String> {
            var parts = Set<String>()
            let regex = try? NSRegularExpression(pattern: #"\{([A-Za-z0-9_]+)\}"#)
            for template in asShown.values {
                for match in regex?.matches(in: template, range: NSRange(template.startIndex..., in: template)) ?? [] {
                    if let range = Range(match.range(at: 1), in: template) { parts.insert(String(template[range])) }
                }
            }
            return parts
        }

        /// The expected record as the page shows it: each as-shown text filled in from its parts.
        func shownRecord(_ record: Record) -> Record {
            var record = record
            for (name, template) in asShown {
                var text = template
                for part in parts { text = text.replacingOccurrences(of: "{\(part)}", with: record[part]?.description ?? "") }
                record[name] = .text(text)
            }
            return record
        }

        /// The fields a returned record must hold, in order: those shown (not derived, not a part
        /// of an as-shown text), then the as-shown texts.
        func required(_ record: Record) -> [String] {
            let parts = parts
            return (shown ?? record.keys.sorted()).filter { !derived.contains($0) && !parts.contains($0) && asShown[$0] == nil }
                + asShown.keys.sorted()
        }
    }

    /// The expected values of `record` that a returned record must hold, not found in `returned`
    /// (each returned field holds at most one expected value). Empty: the records agree.
    static func missingValues(_ record: Record, in returned: Record, reading: Reading) -> [String] {
        let whole = missingValues(asShown: record, in: returned, reading: reading)
        guard !whole.isEmpty, !reading.asShown.isEmpty else { return whole }
        let apart = Reading(types: reading.types, shown: reading.shown, derived: reading.derived)
        return missingValues(asShown: record, in: returned, reading: apart).isEmpty ? [] : whole
    }

    static func missingValues(asShown record: Record, in returned: Record, reading: Reading) -> [String] {
        let values = Array(returned.values)
        var available = values.map(returnedForms)
        // Each returned field meets at most one expected value: a met one is taken out.
        var blanks = values.indices.filter { values[$0].isBlank }
        var missing: [String] = []
        let record = reading.shownRecord(record)
        func take(_ index: Int) {
            available[index] = ["taken"]
            blanks.removeAll { $0 == index }
        }
        for field in reading.required(record) {
            guard let value = record[field], !value.isBlank else { continue }
            // A lone dash is the page's "none yet" (Moodle's grade before marking): a recipe
            // that reads it as no value (null) reads the page right, as one keeping the dash does.
            // Either takes one returned field: the dash, else a blank one.
            if case .text(let text) = value, ["-", "–", "—", "－"].contains(collapsed(text)) {
                if let index = available.firstIndex(where: { $0.contains("text:\(collapsed(text))") }) ?? blanks.first {
                    take(index)
                    continue
                }
            }
            let wanted = expectedForms(value, type: reading.types[field])
            if let index = available.firstIndex(where: { !$0.isDisjoint(with: wanted) }) {
                take(index)
            } else {
                missing.append("\(field) '\(value)'")
            }
        }
        // A derived yes/no is checked only when unitool returned one.
        let returnedBools = returned.values.compactMap { value -> Bool? in
            if case .bool(let bool) = value { return bool }
            return nil
        }
        for field in reading.derived.sorted() {
            guard case .bool(let expected)? = record[field], !returnedBools.isEmpty else { continue }
            if !returnedBools.contains(expected) { missing.append("\(field) '\(expected)'") }
        }
        return missing
    }

    static func brief(_ record: Record) -> String {
        "{" + record.keys.sorted().map { "\($0): \(record[$0]!)" }.joined(separator: ", ") + "}"
    }

    /// What differs between the records a page should give and those unitool returned, one short
    /// line each: records missing, extra, or with values not found (beside the closest returned
    /// record). Empty: they agree. Records are matched by their values, in page order first.
    public static func differences(expected: [Record], returned: [Record], reading: Reading) -> [String] {
        var matchedReturned = Set<Int>()
        var unmatchedExpected: [Int] = []
        for (index, record) in expected.enumerated() {
            if index < returned.count, !matchedReturned.contains(index),
                missingValues(record, in: returned[index], reading: reading).isEmpty
            {
                matchedReturned.insert(index)
                continue
            }
            if let other = returned.indices.first(where: {
                !matchedReturned.contains($0) && missingValues(record, in: returned[$0], reading: reading).isEmpty
            }) {
                matchedReturned.insert(other)
            } else {
                unmatchedExpected.append(index)
            }
        }
        var lines: [String] = []
        for index in unmatchedExpected {
            let record = expected[index]
            let candidates = returned.indices.filter { !matchedReturned.contains($0) }
            let closest = candidates.min { first, second in
                missingValues(record, in: returned[first], reading: reading).count
                    < missingValues(record, in: returned[second], reading: reading).count
            }
            if let closest {
                let missing = missingValues(record, in: returned[closest], reading: reading)
                // Some of its values were found: the record is there, with these values wrong.
                let shown = reading.shownRecord(record)
                let total = (reading.required(shown) + reading.derived.sorted()).filter { shown[$0].map { !$0.isBlank } ?? false }.count
                if missing.count < total {
                    matchedReturned.insert(closest)
                    lines.append(
                        "record \(index + 1) differs: \(missing.joined(separator: ", ")) not found in \(brief(returned[closest]))")
                    continue
                }
            }
            lines.append("record \(index + 1) missing: \(brief(record))")
        }
        for index in returned.indices where !matchedReturned.contains(index) {
            lines.append("extra record: \(brief(returned[index]))")
        }
        return lines
    }

    /// Scheme, host, port and path of an address (no query, no trailing slash), for matching a
    /// command's `fetch:` with an expected page's `url`; `{term}`-style templates are cut off with
    /// the query.
    public static func place(_ address: String) -> String? {
        guard let components = URLComponents(string: address), let host = components.host else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme ?? "http")://\(host.lowercased())\(port)\(path)"
    }

    /// The address a command fetches: its `fetch:` path against its service's (or the portal's) base.
    public static func address(base: String, fetch: String) -> String {
        if fetch.hasPrefix("http://") || fetch.hasPrefix("https://") { return fetch }
        let cut = fetch.replacingOccurrences(of: "{{", with: "").replacingOccurrences(of: "}}", with: "")
        guard var components = URLComponents(string: base) else { return base + fetch }
        if cut.hasPrefix("/") {
            let parts = cut.split(separator: "?", maxSplits: 1)
            components.percentEncodedPath = String(parts[0])
            return components.string ?? base + fetch
        }
        return (URL(string: cut, relativeTo: URL(string: base))?.absoluteString) ?? base + fetch
    }

    /// Whether a command fetching `commandAddress` is the page expected at `expectedAddress`.
    public static func samePage(_ commandAddress: String, _ expectedAddress: String) -> Bool {
        guard let first = place(commandAddress), let second = place(expectedAddress.components(separatedBy: "{")[0]) else {
            return false
        }
        return first == second
    }
}
