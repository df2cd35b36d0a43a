import Foundation

/// JSON and iCalendar responses as XML, so that a recipe reads them with the same XPath, fields,
/// lists, `regex` and `required` as any page.
///
/// Why XML and not JSONPath: one path language for every source means one set of field
/// features, one way to test a recipe, and no second query engine whose semantics differ from
/// library to library (JSONPath was only standardised in 2024, as RFC 9535, and most tools still
/// follow older dialects). The mapping is simple enough to write XPath against by looking at the
/// JSON; `unitool page` prints the XML a recipe sees.
public enum StructuredText {
    /// JSON as XML. The root is `<json>`; an object's member is an element named by its key (or
    /// `<_ key="…">` when the key is no XML name); an array's values are `<item>` elements; every
    /// element says its JSON type (`type="object|array|string|number|boolean|null"`). Scalars are
    /// the element's text, numbers as written.
    ///
    /// `{"data": {"courses": [{"id": 7, "fullname": "Analysis"}]}}` becomes
    /// `<json type="object"><data type="object"><courses type="array"><item type="object"><id type="number">7</id>…`,
    /// so rows are `/json/data/courses/item` and a field is `fullname`.
    public static func xml(fromJSON bytes: [UInt8]) throws -> String {
        // A byte order mark is allowed before a JSON text read from the web.
        let hasMark = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        let value: JSONValue
        do {
            // The one JSON parser (JSON-RPC's), reading text as a browser does.
            value = try JSONParser.parse(Array(hasMark ? bytes.dropFirst(3) : bytes[...]), lenientText: true)
        } catch let failure as JSONParser.Failure {
            let offset = failure.offset + (hasMark ? 3 : 0)
            throw UniToolError(
                .layoutChanged, localized("the response is not valid JSON at byte \(offset): \(failure.reason)"))
        }
        var output = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        write(value, named: "json", key: nil, into: &output)
        return output
    }

    /// A JSON value as XML: an element per value, typed; a key that is no XML name goes in a
    /// `key` attribute of an element named `_`.
    static func write(_ value: JSONValue, named name: String, key: String?, into output: inout String) {
        let keyAttribute = key.map { " key=\"\(escape($0))\"" } ?? ""
        func element(_ type: String, _ content: String) {
            output += "<\(name)\(keyAttribute) type=\"\(type)\">" + content + "</\(name)>"
        }
        switch value {
        case .object(let members):
            output += "<\(name)\(keyAttribute) type=\"object\">"
            for member in members {
                let usable = isName(member.key)
                write(member.value, named: usable ? member.key : "_", key: usable ? nil : member.key, into: &output)
            }
            output += "</\(name)>"
        case .array(let items):
            output += "<\(name)\(keyAttribute) type=\"array\">"
            for item in items { write(item, named: "item", key: nil, into: &output) }
            output += "</\(name)>"
        case .string(let text): element("string", escape(text))
        case .bool(let flag): element("boolean", flag ? "true" : "false")
        case .null: element("null", "")
        case .number, .numberLiteral: element("number", value.serialized)
        }
    }

    /// An iCalendar file (RFC 5545) as XML: each component (`VCALENDAR`, `VEVENT`, `VTODO`, …) an
    /// element of its lowercased name, each property an element inside it with its parameters as
    /// attributes and its value as text. Folded lines are unfolded and TEXT values unescaped.
    /// Dates become ISO 8601, so fields read them with `format: iso8601` or `yyyy-MM-dd`: a DATE is
    /// `2026-11-24`; a UTC time `2026-11-24T09:00:00Z`; a time with a `TZID` the system knows gets
    /// that zone's offset, and a floating time stays without one (the field's `timezone:` applies).
    /// The value as written stays in the `original` attribute.
    public static func xml(fromICalendar bytes: [UInt8]) throws -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else if !line.isEmpty {
                lines.append(line)
            }
        }
        var output = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<icalendar>"
        var open: [String] = []
        for line in lines {
            guard let property = ContentLine(line) else {
                throw UniToolError(.layoutChanged, localized("the calendar has a line that is not 'NAME:value': \(line.prefix(60))"))
            }
            if property.name == "begin" {
                let component = property.value.lowercased()
                guard Self.isName(component) else {
                    throw UniToolError(.layoutChanged, localized("the calendar has a component named '\(property.value)'"))
                }
                open.append(component)
                output += "<\(component)>"
            } else if property.name == "end" {
                guard open.last == property.value.lowercased() else {
                    let inside = open.last?.uppercased() ?? localized("nothing")
                    throw UniToolError(.layoutChanged, localized("the calendar ends \(property.value) where \(inside) is open"))
                }
                output += "</\(open.removeLast())>"
            } else {
                guard !open.isEmpty else { continue }
                output += property.xml
            }
        }
        guard open.isEmpty else { throw UniToolError(.layoutChanged, localized("the calendar ends inside \(open.last!.uppercased())")) }
        return output + "</icalendar>\n"
    }

    /// An XML 1.0 name unitool may use as it is.
    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return !text.lowercased().hasPrefix("xml")
            && text.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)
            }
    }

    /// Text for XML, with the characters XML 1.0 cannot hold left out.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default:
                let value = scalar.value
                if value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value) || (0xE000...0xFFFD).contains(value)
                    || value >= 0x10000
                {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    /// One iCalendar content line: `DTSTART;TZID=Europe/Budapest:20261124T100000`.
    struct ContentLine {
        var name: String
        var parameters: [(String, String)]
        var value: String

        init?(_ line: String) {
            // The value starts at the first colon outside a quoted parameter value.
            var inQuotes = false
            var colon: String.Index?
            for index in line.indices {
                if line[index] == "\"" { inQuotes.toggle() }
                if line[index] == ":", !inQuotes {
                    colon = index
                    break
                }
            }
            guard let colon else { return nil }
            // Parameters end at a semicolon outside quotes: `X-PARAM="a:b;c"` is one.
            var head: [String] = [""]
            inQuotes = false
            for character in line[..<colon] {
                if character == "\"" { inQuotes.toggle() }
                if character == ";", !inQuotes {
                    head.append("")
                } else {
                    head[head.count - 1].append(character)
                }
            }
            name = head.removeFirst().lowercased()
            guard !name.isEmpty else { return nil }
            parameters = head.compactMap { parameter in
                let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return nil }
                return (parts[0].lowercased(), parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
            }
            value = String(line[line.index(after: colon)...])
        }

        static let dateProperties: Set<String> = [
            "dtstart", "dtend", "due", "dtstamp", "created", "last-modified", "recurrence-id", "completed", "exdate", "rdate",
        ]

        var xml: String {
            let element = StructuredText.isName(name) ? name : "property"
            var attributes = parameters.filter { StructuredText.isName($0.0) }.map { " \($0.0)=\"\(StructuredText.escape($0.1))\"" }
            if element != name { attributes.append(" name=\"\(StructuredText.escape(name))\"") }
            var text: String
            if Self.dateProperties.contains(name) {
                let zone = parameters.first { $0.0 == "tzid" }.flatMap { TimeZone(identifier: $0.1) }
                text = value.split(separator: ",").map { Self.isoDate(String($0), zone: zone) }.joined(separator: ",")
                if text != value { attributes.append(" original=\"\(StructuredText.escape(value))\"") }
            } else {
                text = Self.unescaped(value)
            }
            return "<\(element)\(attributes.joined())>\(StructuredText.escape(text))</\(element)>"
        }

        /// `20261124` → `2026-11-24`; `20261124T090000Z` → `2026-11-24T09:00:00Z`; with a zone,
        /// its offset at that moment; anything else as it is.
        static func isoDate(_ text: String, zone: TimeZone?) -> String {
            let digits = text.filter(\.isNumber)
            guard text.count >= 8, digits.count >= 8 else { return text }
            let date = "\(digits.prefix(4))-\(digits.dropFirst(4).prefix(2))-\(digits.dropFirst(6).prefix(2))"
            guard text.count >= 15, digits.count >= 14 else { return date }
            let time = "\(digits.dropFirst(8).prefix(2)):\(digits.dropFirst(10).prefix(2)):\(digits.dropFirst(12).prefix(2))"
            if text.hasSuffix("Z") { return "\(date)T\(time)Z" }
            guard let zone, let day = CalendarDay(iso: date), let hour = Int(digits.dropFirst(8).prefix(2)),
                let minute = Int(digits.dropFirst(10).prefix(2))
            else { return "\(date)T\(time)" }
            let seconds = Int(digits.dropFirst(12).prefix(2)) ?? 0
            let moment = day.moment(atMinute: hour * 60 + minute, in: zone)
            return Civil.iso(epoch: Int(moment.timeIntervalSince1970) + seconds, zone: zone, withTime: true)
        }

        /// TEXT's escapes: `\n`, `\,`, `\;`, `\\`.
        static func unescaped(_ value: String) -> String {
            var text = ""
            var escaping = false
            for character in value {
                if escaping {
                    text.append(character == "n" || character == "N" ? "\n" : character)
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else {
                    text.append(character)
                }
            }
            return text
        }
    }
}
