import Foundation
import Testing

@testable import UniToolKit

@Suite("Date patterns: the small parser that reads a portal's dates without ICU")
struct DatePatternTests {
    @Test(
        "patterns and texts as portals write them",
        arguments: [
            ("dd.MM.yyyy", "20.11.2026", 2026, 11, 20, 0, 0), ("yyyy.MM.dd. HH:mm", "2026.11.20. 09:05", 2026, 11, 20, 9, 5),
            ("MMM d, yyyy", "Nov 3, 2026", 2026, 11, 3, 0, 0), ("yyyy/M/d", "2026/1/9", 2026, 1, 9, 0, 0),
            ("d MMMM yyyy h:mm a", "7 February 2027 3:30 PM", 2027, 2, 7, 15, 30),
            // Full-width digits, as Japanese pages often write dates.
            ("yyyy年M月d日 HH:mm", "２０２６年１１月２５日 ０９:０５", 2026, 11, 25, 9, 5),
        ] as [(String, String, Int, Int, Int, Int, Int)])
    func parses(pattern: String, text: String, year: Int, month: Int, day: Int, hour: Int, minute: Int) throws {
        let datePattern = try #require(DatePattern(pattern))
        let parsed = try #require(datePattern.parse(text), "\(pattern) did not read \(text)")
        #expect(parsed.year == year && parsed.month == month && parsed.day == day)
        var hours = parsed.hour
        if parsed.pm == true, hours < 12 { hours += 12 }
        #expect(hours == hour && parsed.minute == minute)
    }

    @Test("text that does not fit the pattern is no date; an unknown pattern letter is no pattern")
    func refuses() throws {
        let pattern = try #require(DatePattern("dd.MM.yyyy"))
        #expect(pattern.parse("2026-11-20") == nil)
        #expect(pattern.parse("20.11.") == nil)
        #expect(DatePattern("dd.QQ.yyyy") == nil)
    }

    @Test("calendar arithmetic: leap years and days since 1970 both ways")
    func calendar() {
        #expect(Civil.isLeap(2024) && !Civil.isLeap(1900) && Civil.isLeap(2000))
        #expect(Civil.daysIn(month: 2, year: 2028) == 29)
        let days = Civil.days(year: 2026, month: 11, day: 20)
        let back = Civil.date(fromDays: days)
        #expect(back.year == 2026 && back.month == 11 && back.day == 20)
        #expect(Civil.days(year: 1970, month: 1, day: 1) == 0)
    }
}
