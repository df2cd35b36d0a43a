import Foundation

/// The ranges that every duration and count a person or a client types must fall in.
///
/// A number read from text can be as large as `Int.max`, and arithmetic on it further on (days
/// times 86,400, a date so many days ago, a buffer of so many bytes) traps or silently means
/// "no limit at all". So each duration and count is checked here, where its text is parsed, once
/// for every front end: the command line reports the error with exit 64, JSON-RPC as invalid
/// parameters (-32602), MCP as a tool error. The ranges are generous; they only keep the numbers
/// where the arithmetic and the meaning hold.
public enum InputBounds {
    /// The furthest back a window such as `--since 30d` may reach: a hundred years, as for
    /// `history_days` in config.yaml.
    public static let days: ClosedRange<Int> = 0...36_500
    /// The same span in hours, for `--since 12h`.
    public static let hours: ClosedRange<Int> = 0...(36_500 * 24)
    /// `unitool search --limit` and `search.query`'s `limit`.
    public static let searchResults: ClosedRange<Int> = 1...10_000
    /// `unitool rpc --max-message-bytes`: from 256 bytes (an `initialize` fits) to 1 GiB.
    public static let messageBytes: ClosedRange<Int> = 256...(1 << 30)
    /// `unitool rpc --max-unread-bytes`: from 4 KiB to 4 GiB of answers the client leaves unread.
    public static let unreadBytes: ClosedRange<Int> = 4096...(4 << 30)

    /// A span of time back from now, as written: `7d`, `12h`, `2w`, `1m` (a month, where a
    /// window is counted in days: `--since 1m`).
    public struct Span: Sendable, Equatable {
        public enum Unit: Character, Sendable, CaseIterable {
            case days = "d"
            case hours = "h"
            case weeks = "w"
            case months = "m"

            /// Each as far back as a hundred years, as `days` reaches.
            var range: ClosedRange<Int> {
                switch self {
                case .days: return InputBounds.days
                case .hours: return InputBounds.hours
                case .weeks: return 0...(InputBounds.days.upperBound / 7)
                case .months: return 0...1200
                }
            }
            /// A month as 30 days, where only seconds will do; `start(before:calendar:)` counts
            /// calendar months.
            var seconds: Int {
                switch self {
                case .days: return 86_400
                case .hours: return 3600
                case .weeks: return 7 * 86_400
                case .months: return 30 * 86_400
                }
            }
        }

        /// The moment the span reaches back to from `now`, in `calendar`'s days and months:
        /// `1m` on 31 March is 28 or 29 February, as a person counts.
        public func start(before now: Date, calendar: Calendar) -> Date? {
            switch unit {
            case .days: return calendar.date(byAdding: .day, value: -count, to: now)
            case .hours: return now.addingTimeInterval(-Double(seconds))
            case .weeks: return calendar.date(byAdding: .day, value: -7 * count, to: now)
            case .months: return calendar.date(byAdding: .month, value: -count, to: now)
            }
        }

        public var count: Int
        public var unit: Unit

        public init(count: Int, unit: Unit) {
            self.count = count
            self.unit = unit
        }

        /// The span in seconds; within the ranges above it cannot overflow.
        public var seconds: Int { count * unit.seconds }
    }

    /// Reads `7d` (or `12h`, when `units` has hours): nil when the text is not a number of one
    /// of those units, so that the caller can try its other forms (`today`, a date); a usage
    /// error when it is one but outside the range, naming the range.
    ///
    /// - Parameter option: how the user gave the value (`--since`, `'options.since'`), for the message.
    public static func span(_ text: String, option: String, units: [Span.Unit] = [.days]) throws -> Span? {
        guard let last = text.last, let unit = Span.Unit(rawValue: last), units.contains(unit) else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        // Digits beyond Int's range are as out of range as any other large number.
        guard let count = Int(digits), unit.range.contains(count) else {
            let (lowest, highest) = (unit.range.lowerBound, unit.range.upperBound)
            // One sentence per unit, so that a translation can inflect the unit's name.
            let message: String
            switch unit {
            case .days: message = localized("\(option) \(text) is out of range: the number of days must be from \(lowest) to \(highest)")
            case .hours: message = localized("\(option) \(text) is out of range: the number of hours must be from \(lowest) to \(highest)")
            case .weeks: message = localized("\(option) \(text) is out of range: the number of weeks must be from \(lowest) to \(highest)")
            case .months:
                message = localized("\(option) \(text) is out of range: the number of months must be from \(lowest) to \(highest)")
            }
            throw UniToolError(.usage, message, hint: localized("for a longer window give a date instead, such as 2026-11-01"))
        }
        return Span(count: count, unit: unit)
    }

    /// A count typed as text (`--limit 20`): an integer within `range`, else a usage error that
    /// names the range.
    public static func count(_ text: String, option: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text.trimmingWhitespace()) else {
            throw outOfRange(text, option: option, range: range)
        }
        return try count(value, option: option, in: range)
    }

    /// A count already read as a number (by swift-argument-parser, or from JSON): the same check.
    @discardableResult
    public static func count(_ value: Int, option: String, in range: ClosedRange<Int>) throws -> Int {
        guard range.contains(value) else { throw outOfRange(String(value), option: option, range: range) }
        return value
    }

    static func outOfRange(_ text: String, option: String, range: ClosedRange<Int>) -> UniToolError {
        UniToolError(
            .usage,
            localized("\(option) \(text) is out of range: it must be a whole number from \(range.lowerBound) to \(range.upperBound)"),
            hint: localized("give a number in that range"))
    }

    /// `30s`, `15m`, `1h`, `1d` in seconds, whatever the minimum; nil for anything else.
    public static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last, let scale = units[unit], let count = Int64(text.dropLast()), count > 0 else { return nil }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: scale)
        return overflow ? nil : seconds
    }
}
