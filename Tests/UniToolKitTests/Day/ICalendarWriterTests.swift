import Foundation
import Testing

@testable import UniToolKit

@Suite("Writing iCalendar (RFC 5545)")
struct ICalendarWriterTests {
    let budapest = TimeZone(identifier: "Europe/Budapest")!
    let stamp = Date(timeIntervalSince1970: 1_795_000_000)

    func lines(_ text: String) -> [String] { text.components(separatedBy: "\r\n") }

    func weeklyClass() -> CalendarEvent {
        var event = CalendarEvent(
            uid: "abc@demo.unitool", summary: "Probability Theory", description: "MATH-301, Prof. Szabó", location: "A-101",
            timing: .timed(CalendarDay(year: 2026, month: 9, day: 14), startMinute: 600, endMinute: 690),
            weeklyUntil: CalendarDay(year: 2026, month: 12, day: 18), category: "courses")
        event.exceptions = [CalendarDay(year: 2026, month: 10, day: 26)]
        return event
    }

    @Test("a weekly class: local times with TZID, BYDAY, UNTIL in UTC at the end of the last day, EXDATE at the class's time")
    func weekly() {
        let text = ICalendarWriter(timeZone: budapest, name: "Demo", stamp: stamp).render([weeklyClass()])
        let all = lines(text)
        #expect(all.contains("DTSTART;TZID=Europe/Budapest:20260914T100000"))
        #expect(all.contains("DTEND;TZID=Europe/Budapest:20260914T113000"))
        // 2026-12-18 23:59:59 in Budapest (CET, +01:00) is 22:59:59 UTC.
        #expect(all.contains("RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20261218T225959Z"))
        #expect(all.contains("EXDATE;TZID=Europe/Budapest:20261026T100000"))
        #expect(all.contains("DESCRIPTION:MATH-301\\, Prof. Szabó"))
        #expect(all.first == "BEGIN:VCALENDAR" && text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(all.filter { $0 == "BEGIN:VEVENT" }.count == 1 && all.filter { $0 == "END:VEVENT" }.count == 1)
    }

    @Test("the VTIMEZONE gives the zone's real offsets: Budapest changes to +02:00 on the last Sunday of March")
    func timeZoneParts() {
        let parts = lines(
            ICalendarWriter(timeZone: budapest, name: "Demo", stamp: stamp).timeZoneLines(from: 2026, through: 2026).joined(
                separator: "\r\n"))
        let spring = parts.firstIndex(of: "DTSTART:20260329T020000")
        #expect(spring != nil, "\(parts)")
        if let spring {
            #expect(
                parts[spring - 1] == "BEGIN:DAYLIGHT" && parts[spring + 1] == "TZOFFSETFROM:+0100"
                    && parts[spring + 2] == "TZOFFSETTO:+0200")
        }
        let autumn = parts.firstIndex(of: "DTSTART:20261025T030000")
        #expect(autumn != nil && parts[autumn! - 1] == "BEGIN:STANDARD" && parts[autumn! + 1] == "TZOFFSETFROM:+0200")
        // A zone without daylight-saving time has one part.
        let tokyo = ICalendarWriter(timeZone: TimeZone(identifier: "Asia/Tokyo")!, name: "x").timeZoneLines(from: 2026, through: 2026)
        #expect(tokyo.filter { $0.hasPrefix("BEGIN:") }.count == 2 && tokyo.contains("TZOFFSETTO:+0900"))
    }

    @Test("an all-day event ends the next day, has no VTIMEZONE, and reminds the day before")
    func allDay() {
        var loan = CalendarEvent(
            uid: "loan@demo.unitool", summary: "Return: ノルウェイの森", timing: .allDay(CalendarDay(year: 2026, month: 12, day: 31)),
            category: "loans")
        loan.alarm = 86_400
        let all = lines(ICalendarWriter(timeZone: budapest, name: "Demo", stamp: stamp).render([loan]))
        #expect(all.contains("DTSTART;VALUE=DATE:20261231") && all.contains("DTEND;VALUE=DATE:20270101"))
        #expect(!all.contains("BEGIN:VTIMEZONE"))
        #expect(all.contains("BEGIN:VALARM") && all.contains("TRIGGER:-P1D") && all.contains("ACTION:DISPLAY"))
    }

    @Test("text is escaped, and a portal's control characters never reach the file")
    func escaping() {
        #expect(ICalendarWriter.text("a,b;c\\d\ne") == "a\\,b\\;c\\\\d\\ne")
        #expect(ICalendarWriter.text("bell\u{07}\r and\u{1B}[31m esc\u{85}") == "bell and[31m esc")
    }

    @Test("lines fold at 75 octets, never inside a UTF-8 sequence, and unfold to the original")
    func folding() {
        let line = "SUMMARY:" + String(repeating: "情報理論", count: 12) + " (Information Theory) " + String(repeating: "é", count: 40)
        let folded = ICalendarWriter.fold(line)
        let parts = folded.components(separatedBy: "\r\n")
        #expect(parts.count > 2)
        #expect(parts.allSatisfy { $0.utf8.count <= 75 })
        #expect(parts.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        #expect(folded.replacingOccurrences(of: "\r\n ", with: "") == line)
        #expect(ICalendarWriter.fold("SHORT:x") == "SHORT:x")
    }

    @Test("durations and offsets in RFC 5545 form")
    func durations() {
        #expect(ICalendarWriter.duration(86_400) == "P1D")
        #expect(ICalendarWriter.duration(900) == "PT15M")
        #expect(ICalendarWriter.duration(5_400) == "PT1H30M")
        #expect(ICalendarWriter.offset(-12_600) == "-0330")
        #expect(ICalendarWriter.offset(32_400) == "+0900")
    }

    @Test("an event's URL is written only when it is a web address")
    func urls() {
        var event = weeklyClass()
        event.url = "javascript:alert(1)"
        #expect(!ICalendarWriter(timeZone: budapest, name: "x").render([event]).contains("URL:"))
        event.url = "https://portal.example.edu/syllabus/MATH-301"
        #expect(
            ICalendarWriter(timeZone: budapest, name: "x").render([event]).contains("URL:https://portal.example.edu/syllabus/MATH-301\r\n"))
    }
}
