import Foundation

/// The locale a person's dates and times are shown in, read from the POSIX locale variables.
///
/// Swift's Foundation on Linux does not take `LC_ALL`, `LC_TIME` and `LANG` the way a user
/// expects (`Locale.current` under `LC_ALL=hu_HU.UTF-8` is English), so unitool reads them itself,
/// in the order POSIX gives for the time category: `LC_ALL`, then `LC_TIME`, then `LANG`, the
/// first that is set and not empty. A value is `language[_territory][.codeset][@modifier]`:
/// `hu_HU.UTF-8@euro` is `hu_HU`, and `sr_RS@latin` is `sr_Latn_RS` (the modifier names a script
/// there, which changes what is printed).
///
/// `C`, `POSIX` (and their `.UTF-8` forms), no variable at all, or a value that is no locale name
/// (a path, a typo with punctuation) mean English as ``fallbackIdentifier`` writes it: British
/// English, `Fri, 20 Nov 2026 at 09:00`, because the C locale's own clock is 24-hour and day,
/// month and year in that order cannot be misread. A locale whose language Foundation's data
/// does not know is shown in that English too (``locale``).
///
/// Only what people read uses this: JSON, JSON Lines and CSV keep ISO 8601, and parsing a portal's
/// dates stays `en_US_POSIX`.
public struct DisplayLocale: Sendable, Equatable, CustomStringConvertible {
    /// The locale's identifier in Foundation's form: `hu_HU`, `ja_JP`, `sr_Latn_RS`.
    public var identifier: String
    /// The variable it came from (`LC_ALL`, `LC_TIME`, `LANG`); nil for the default.
    public var variable: String?

    /// English for `C`, `POSIX` and an unset locale: 24-hour times, day before month.
    public static let fallbackIdentifier = "en_GB"
    public static let fallback = DisplayLocale(identifier: fallbackIdentifier, variable: nil)

    public init(identifier: String, variable: String? = nil) {
        self.identifier = identifier
        self.variable = variable
    }

    /// The locale the environment gives for dates and times, as POSIX orders the variables.
    public init(environment: [String: String]) { self.init(environment: environment, category: "LC_TIME") }

    /// The locale the environment gives for a category (`LC_TIME`, `LC_NUMERIC`): `LC_ALL`, then
    /// the category's own variable, then `LANG`.
    public init(environment: [String: String], category: String) {
        for name in ["LC_ALL", category, "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            // The first variable set decides, even when it is C: LC_ALL=C overrides LC_TIME.
            self = Self.identifier(posix: value).map { DisplayLocale(identifier: $0, variable: name) } ?? .fallback
            return
        }
        self = .fallback
    }

    /// The resolved locale for the process's own environment.
    public static var current: DisplayLocale { DisplayLocale(environment: ProcessInfo.processInfo.environment) }

    /// Foundation's identifier for a POSIX locale name, or nil for `C`, `POSIX` and a value that is
    /// no locale name.
    public static func identifier(posix value: String) -> String? {
        var name = Substring(value)
        var modifier: Substring?
        if let at = name.firstIndex(of: "@") {
            modifier = name[name.index(after: at)...]
            name = name[..<at]
        }
        if let dot = name.firstIndex(of: ".") { name = name[..<dot] }
        guard name != "C", name != "POSIX", !name.isEmpty else { return nil }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count <= 2, let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }),
            parts.dropFirst().allSatisfy({ (2...3).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return nil }
        var pieces = [language.lowercased()]
        switch modifier?.lowercased() {
        case "latin": pieces.append("Latn")
        case "cyrillic": pieces.append("Cyrl")
        default: break
        }
        if parts.count == 2 { pieces.append(parts[1].uppercased()) }
        return pieces.joined(separator: "_")
    }

    /// The Foundation locale to format with: this one when Foundation's data has its language,
    /// else ``fallbackIdentifier``'s English rather than the root locale's mix.
    public var locale: Locale {
        let language = identifier.split(separator: "_").first.map(String.init) ?? identifier
        let known = Self.knownLanguages.contains(language)
        return Locale(identifier: known ? identifier : Self.fallbackIdentifier)
    }

    private static let knownLanguages: Set<String> = Set(
        Locale.availableIdentifiers.compactMap { $0.split(separator: "_").first.map(String.init) })

    /// The locale's decimal separator (`,` in `hu_HU`, `.` in English and Japanese).
    public var decimalSeparator: String { locale.decimalSeparator ?? "." }

    public var description: String { variable.map { "\(identifier) (from \($0))" } ?? "\(identifier) (default)" }
}

/// Dates and times written for a person in a ``DisplayLocale``: the locale's own order, month and
/// day names, and its clock (24-hour where the locale uses it), from CLDR skeletons rather than
/// fixed patterns. One formatter per form, made on first use, so that a table formats every cell
/// with the same ones.
public final class LocalDateText {
    public let locale: DisplayLocale
    /// The zone times are shown in; dates (no time of day) are shown as they are.
    public let timeZone: TimeZone

    public init(locale: DisplayLocale, timeZone: TimeZone = .current) {
        self.locale = locale
        self.timeZone = timeZone
    }

    /// A day in a table: `Fri, 20 Nov 2026`, `2026. nov. 20., P`, `2026年11月20日(金)`.
    public static let dateSkeleton = "yMMMEd"
    /// A time in a table: the day as above and the time of day in the locale's clock.
    public static let dateTimeSkeleton = "yMMMEdjmm"
    /// A heading's moment: `Friday, 20 November 2026 at 09:00`.
    public static let longDateTimeSkeleton = "yMMMMEEEEdjmm"
    /// A time of day alone: `09:00`, `9:00 AM` in the US.
    public static let timeSkeleton = "jmm"
    /// A day of this week or the next, without the year: `Tue, 1 Dec`, `12月1日(火)`.
    public static let shortDaySkeleton = "MMMEd"

    private lazy var dateFormatter = formatter(Self.dateSkeleton, zone: .gmt)
    private lazy var dateTimeFormatter = formatter(Self.dateTimeSkeleton, zone: timeZone)
    private lazy var longFormatter = formatter(Self.longDateTimeSkeleton, zone: timeZone)
    private lazy var timeFormatter = formatter(Self.timeSkeleton, zone: timeZone)
    private lazy var shortDayFormatter = formatter(Self.shortDaySkeleton, zone: timeZone)

    private func formatter(_ skeleton: String, zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = locale.locale
        formatter.timeZone = zone
        formatter.setLocalizedDateFormatFromTemplate(skeleton)
        return formatter
    }

    /// A calendar day, given as midnight UTC (how ``FieldTyper`` reads a `date`).
    public func date(_ day: Date) -> String { dateFormatter.string(from: day) }
    public func dateTime(_ moment: Date) -> String { dateTimeFormatter.string(from: moment) }
    public func longDateTime(_ moment: Date) -> String { longFormatter.string(from: moment) }
    public func time(_ moment: Date) -> String { timeFormatter.string(from: moment) }
    /// The day a moment falls on in ``timeZone``, without the year.
    public func shortDay(_ moment: Date) -> String { shortDayFormatter.string(from: moment) }
}
