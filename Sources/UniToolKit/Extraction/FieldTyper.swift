import Foundation

/// Converts page text to typed values. Kept apart from the extractor so it can be tested alone.
public enum FieldTyper {
    /// `DateFormatter`s by format and zone: making one costs more than parsing a date with it.
    public final class DateCache {
        private var formatters: [String: DateFormatter] = [:]
        private var patterns: [String: DatePattern?] = [:]
        private var zones: [String: TimeZone] = [:]

        public init() {}

        /// A field's zone, looked up once per extraction rather than once per value.
        func zone(_ identifier: String?) -> TimeZone {
            let key = identifier ?? ""
            if let known = zones[key] { return known }
            let zone = identifier.flatMap(TimeZone.init(identifier:)) ?? TimeZone.gmt
            zones[key] = zone
            return zone
        }

        /// The fast parser for a pattern, or nil if only `DateFormatter` can read it.
        func pattern(_ format: String) -> DatePattern? {
            if let known = patterns[format] { return known }
            let pattern = DatePattern(format)
            patterns[format] = pattern
            return pattern
        }

        func formatter(_ format: String, _ zone: TimeZone) -> DateFormatter {
            let key = format + "\u{0}" + zone.identifier
            if let formatter = formatters[key] { return formatter }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = format
            formatters[key] = formatter
            return formatter
        }
    }

    public static func convert(
        _ text: String, field: FieldSpec, baseURL: String?, dates: DateCache = DateCache(), invalid: (String) -> UniToolError
    ) throws -> FieldValue {
        try convert(text, to: field.type, format: field.format, timeZone: field.timeZone, baseURL: baseURL, dates: dates, invalid: invalid)
    }

    public static func convert(
        _ text: String, to type: FieldSpec.FieldType, format: String?, timeZone: String? = nil, language: String? = nil,
        baseURL: String?, dates: DateCache = DateCache(), invalid: (String) -> UniToolError
    ) throws -> FieldValue {
        switch type {
        case .string:
            return .string(text)
        case .integer:
            let digits = text.filter { !$0.isWhitespace && $0 != "," && $0 != "\u{00A0}" }
            guard let value = Int(digits) else { throw invalid(localized("whole number")) }
            return .integer(value)
        case .number:
            guard let value = parseNumber(text) else { throw invalid(localized("number")) }
            return .number(value)
        case .date, .datetime:
            let zone = dates.zone(timeZone)
            let written = format ?? "yyyy-MM-dd"
            guard let date = parseDate(text, format: written, timeZone: zone, dates: dates) else {
                throw invalid(localized("\(type.rawValue) in the format \(written)"))
            }
            let epoch = Int(date.timeIntervalSince1970.rounded(.down))
            return type == .date
                ? .date(Civil.iso(epoch: epoch, zone: zone, withTime: false))
                : .datetime(Civil.iso(epoch: epoch, zone: zone, withTime: true))
        case .bool:
            guard let value = PortalLanguage.bool(text, language: language) else {
                guard let words = language.flatMap({ PortalLanguage.words[PortalLanguage.primary($0)] != nil ? $0 : nil }) else {
                    throw invalid(localized("yes/no value (yes/no, true/false, 1/0, on/off; 'map:' on the field reads others)"))
                }
                throw invalid(
                    localized(
                        "yes/no value (yes/no, true/false, 1/0, on/off or the words of language \(words); 'map:' on the field reads others)"
                    ))
            }
            return .bool(value)
        case .url:
            let base = baseURL.flatMap { URL(string: $0) }
            guard let url = URL(string: text, relativeTo: base)?.absoluteURL else { throw invalid(localized("URL")) }
            return .url(url.absoluteString)
        }
    }

    /// Reads a date in a recipe's format: Unicode notation, `iso8601` (with or without time and
    /// zone) or `rfc822` (RSS). A zone in the text wins over the recipe's `timezone`.
    public static func parseDate(_ text: String, format: String, timeZone: TimeZone, dates: DateCache = DateCache()) -> Date? {
        let candidates: [String]
        switch format.lowercased() {
        case "unix":
            // Seconds since 1970 (a JSON API's timestamp: Moodle's `timesort`), whole or not.
            guard let seconds = Double(text.trimmingWhitespace()), seconds.isFinite, abs(seconds) < 253_402_300_800
            else { return nil }
            return Date(timeIntervalSince1970: seconds.rounded(.down))
        case "iso8601":
            candidates = [
                "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm",
                "yyyy-MM-dd",
            ]
        case "rfc822":
            candidates = ["EEE, d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm:ss zzz", "d MMM yyyy HH:mm:ss Z", "EEE, d MMM yyyy HH:mm Z"]
        default:
            candidates = [format]
        }
        for candidate in candidates {
            if let pattern = dates.pattern(candidate) {
                if let parsed = pattern.parse(text) {
                    return Date(timeIntervalSince1970: TimeInterval(Civil.epoch(of: parsed, zone: timeZone)))
                }
            } else if let date = dates.formatter(candidate, timeZone).safeDate(from: text) {
                return date
            }
        }
        return nil
    }

    /// Accepts `4`, `4.5`, `4,5` (a decimal comma, as much of Europe writes it) and `1 234,5`.
    static func parseNumber(_ text: String) -> Double? {
        // One pass over the bytes: a comma is a decimal mark unless the text also has a point,
        // in which case commas group thousands. (Foundation's string replacing was a hot spot.)
        let hasPoint = text.utf8.contains(UInt8(ascii: "."))
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace { continue }
            if scalar == "," {
                if !hasPoint { cleaned.append(UInt8(ascii: ".")) }
                continue
            }
            guard scalar.isASCII else { return nil }
            cleaned.append(UInt8(scalar.value))
        }
        return Double(String(decoding: cleaned, as: UTF8.self))
    }
}
