import Foundation

/// What unitool takes as now: the wall clock, or the moment `UNITOOL_NOW` names
/// (`2026-11-24T12:30:00+01:00`, or a date for its midnight in the user's zone), so that
/// `today` and the demo's due dates can be tried, and tested, as of any day. The history still
/// records runs at the real time.
public enum FixedClock {
    public static let environmentVariable = "UNITOOL_NOW"

    public static func now(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Date {
        guard let text = environment[environmentVariable], !text.isEmpty else { return Date() }
        if let moment = FieldTyper.parseDate(text, format: "iso8601", timeZone: .current), text.contains("T") {
            return moment
        }
        if let day = CalendarDay(iso: text), text.count == 10 {
            return day.moment(atMinute: 0, in: .current)
        }
        throw UniToolError(
            .usage, localized("\(environmentVariable)='\(text)' is not a moment"),
            hint: localized("write it as 2026-11-24T12:30:00+01:00 or 2026-11-24, or unset it to use the clock"))
    }
}
