import Foundation

/// Dates and times in a recipe's Unicode pattern, read without `DateFormatter`.
///
/// Found by the benchmarks: `DateFormatter.date(from:)` clones an ICU formatter on every call on
/// Linux, and that was a third of the time of extracting a grades page. This parser handles the
/// pattern letters that portals use (`y M d H m s S E a`, `Z X z`, quoted text); any other
/// pattern falls back to `DateFormatter`.
struct DatePattern {
    enum Token: Equatable {
        case year(Int)
        case month(Int)
        case day(Int)
        case hour(Int)
        case hour12(Int)
        case minute(Int)
        case second(Int)
        case fraction(Int)
        case weekday, amPm
        case zone(Character)
        case literal(String)
        case space
    }

    let tokens: [Token]

    /// nil when the pattern uses a letter this parser does not know.
    init?(_ pattern: String) {
        var tokens: [Token] = []
        let characters = Array(pattern)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                var literal = ""
                index += 1
                while index < characters.count, characters[index] != "'" {
                    literal.append(characters[index])
                    index += 1
                }
                index += 1
                tokens.append(literal.isEmpty ? .literal("'") : .literal(literal))
                continue
            }
            var count = 1
            while index + count < characters.count, characters[index + count] == character { count += 1 }
            switch character {
            case "y", "u": tokens.append(.year(count))
            case "M", "L": tokens.append(.month(count))
            case "d": tokens.append(.day(count))
            case "H": tokens.append(.hour(count))
            case "h": tokens.append(.hour12(count))
            case "m": tokens.append(.minute(count))
            case "s": tokens.append(.second(count))
            case "S": tokens.append(.fraction(count))
            case "E": tokens.append(.weekday)
            case "a": tokens.append(.amPm)
            case "Z", "X", "x", "z": tokens.append(.zone(character))
            case " ": tokens.append(.space)
            default:
                // Only ASCII letters are pattern letters (as in ICU); 年, 月 and 日 are literals.
                if character.isASCII && character.isLetter { return nil }
                tokens.append(.literal(String(repeating: character, count: count)))
            }
            index += count
        }
        self.tokens = tokens
    }

    struct Parsed {
        var year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0
        var pm: Bool?
        /// Seconds east of UTC, when the text names its zone.
        var offset: Int?
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// A decimal digit's value: ASCII, or any other script's (full-width `２０２６` on a
    /// Japanese page), without making a string of it, which cost more than the rest of the parse.
    static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        if scalar.value >= 0x30 && scalar.value <= 0x39 { return Int(scalar.value - 0x30) }
        guard scalar.value >= 0x80, scalar.properties.numericType == .decimal, let value = scalar.properties.numericValue else {
            return nil
        }
        return Int(value)
    }

    func parse(_ text: String) -> Parsed? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var result = Parsed()
        func digits(_ minimum: Int, _ maximum: Int) -> Int? {
            var value = 0
            var count = 0
            while count < maximum, index < scalars.count, let digit = Self.digitValue(scalars[index]) {
                value = value * 10 + digit
                index += 1
                count += 1
            }
            return count >= minimum ? value : nil
        }
        func letters() -> String {
            var word = ""
            while index < scalars.count, scalars[index].properties.isAlphabetic {
                word.unicodeScalars.append(scalars[index])
                index += 1
            }
            return word.lowercased()
        }
        for (position, token) in tokens.enumerated() {
            // A number directly followed by another number field has a fixed width.
            let nextIsNumber: Bool = {
                guard position + 1 < tokens.count else { return false }
                switch tokens[position + 1] {
                case .year, .month, .day, .hour, .hour12, .minute, .second, .fraction: return true
                default: return false
                }
            }()
            switch token {
            case .year(let count):
                guard let year = digits(count == 2 ? 2 : 1, count == 2 ? 2 : 4) else { return nil }
                result.year = count == 2 ? 2000 + year : year
            case .month(let count) where count >= 3:
                let word = letters()
                guard word.count >= 3, let month = Self.months.firstIndex(of: String(word.prefix(3))) else { return nil }
                result.month = month + 1
            case .month(let count):
                guard let month = digits(count, nextIsNumber ? count : 2), (1...12).contains(month) else { return nil }
                result.month = month
            case .day(let count):
                guard let day = digits(count, nextIsNumber ? count : 2), (1...31).contains(day) else { return nil }
                result.day = day
            case .hour(let count), .hour12(let count):
                guard let hour = digits(count, nextIsNumber ? count : 2), hour <= 23 else { return nil }
                result.hour = hour
            case .minute(let count):
                guard let minute = digits(count, 2), minute <= 59 else { return nil }
                result.minute = minute
            case .second(let count):
                guard let second = digits(count, 2), second <= 60 else { return nil }
                result.second = min(second, 59)
            case .fraction:
                guard digits(1, 9) != nil else { return nil }
            case .weekday:
                guard !letters().isEmpty else { return nil }
            case .amPm:
                switch letters() {
                case "am": result.pm = false
                case "pm": result.pm = true
                default: return nil
                }
            case .zone:
                guard index < scalars.count else { return nil }
                let sign = scalars[index]
                if sign == "Z" {
                    index += 1
                    result.offset = 0
                } else if sign == "+" || sign == "-" {
                    index += 1
                    guard let hours = digits(2, 2) else { return nil }
                    if index < scalars.count, scalars[index] == ":" { index += 1 }
                    let minutes = digits(2, 2) ?? 0
                    result.offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
                } else {
                    switch letters() {
                    case "gmt", "utc", "ut", "z": result.offset = 0
                    default: return nil
                    }
                }
            case .literal(let literal):
                for expected in literal.unicodeScalars {
                    guard index < scalars.count, scalars[index] == expected else { return nil }
                    index += 1
                }
            case .space:
                guard index < scalars.count, scalars[index].properties.isWhitespace else { return nil }
                while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            }
        }
        guard index == scalars.count else { return nil }
        if let pm = result.pm {
            guard (1...12).contains(result.hour) else { return nil }
            result.hour = result.hour % 12 + (pm ? 12 : 0)
        }
        guard result.day <= Civil.daysIn(month: result.month, year: result.year) else { return nil }
        return result
    }
}

/// Calendar arithmetic on proleptic Gregorian dates, without Foundation's calendars.
enum Civil {
    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// ISO 8601 text for a moment, in a zone: `2026-11-20` or `2026-11-20T09:00:00+01:00`.
    static func iso(epoch: Int, zone: TimeZone, withTime: Bool) -> String {
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(epoch)))
        let local = epoch + offset
        let days = Int((Double(local) / 86400).rounded(.down))
        let (year, month, day) = date(fromDays: days)
        let date = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
        guard withTime else { return date }
        let seconds = local - days * 86400
        let zoneText: String
        if offset == 0 {
            zoneText = "Z"
        } else {
            let magnitude = abs(offset)
            zoneText = (offset < 0 ? "-" : "+") + pad(magnitude / 3600, 2) + ":" + pad(magnitude % 3600 / 60, 2)
        }
        return "\(date)T\(pad(seconds / 3600, 2)):\(pad(seconds % 3600 / 60, 2)):\(pad(seconds % 60, 2))\(zoneText)"
    }

    /// The moment a parsed date stands for: its own offset, else the zone's at that local time.
    static func epoch(of parsed: DatePattern.Parsed, zone: TimeZone) -> Int {
        let local =
            days(year: parsed.year, month: parsed.month, day: parsed.day) * 86400 + parsed.hour * 3600 + parsed.minute * 60
            + parsed.second
        if let offset = parsed.offset { return local - offset }
        let guess = local - zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local)))
        return local - zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(guess)))
    }
}
