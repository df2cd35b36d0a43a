import Foundation

/// The rest of the demo campus: timetables, library loans and news. Made up, multilingual, and
/// large enough to need pagination, as a real portal's would.
struct DemoCourse: Sendable {
    struct Meeting: Sendable {
        /// `Mon`..`Sun`, as the timetable prints it.
        let day: String
        let period: Int
        let time: String
        let room: String
    }

    let code: String
    let title: String
    let instructor: String
    let meetings: [Meeting]
}

struct DemoLoan: Sendable {
    let barcode: String
    let title: String
    let author: String
    /// Days from today: negative for a loan that is overdue. Relative, so the demo always has
    /// overdue and upcoming loans whenever it runs.
    let dueInDays: Int
    let renewalsLeft: Int
    /// Another reader has reserved it, so the library refuses to renew it.
    var reserved = false
}

struct DemoNews: Sendable {
    let id: Int
    let title: String
    let category: String
    /// ISO 8601 with the campus's offset.
    let published: String
    let summary: String
}

extension DemoData {
    /// The campus's time zone: dates on its pages are local to it.
    static let campusTimeZone = TimeZone(identifier: "Europe/Budapest")!

    /// `date` as the campus's pages print it: in its time zone, with `format`.
    static func campusText(_ date: Date, format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = campusTimeZone
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    static let courses: [String: [DemoCourse]] = [
        "alice": [
            DemoCourse(
                code: "MATH-301", title: "Probability Theory", instructor: "Prof. Erzsébet Szabó",
                meetings: [
                    .init(day: "Mon", period: 2, time: "10:00–11:30", room: "A-101"),
                    .init(day: "Thu", period: 2, time: "10:00–11:30", room: "A-101"),
                ]),
            DemoCourse(
                code: "CS-320", title: "情報理論 (Information Theory)", instructor: "田中 健 (Ken Tanaka)",
                meetings: [.init(day: "Tue", period: 3, time: "13:00–14:30", room: "B-204")]),
            DemoCourse(
                code: "HUN-250", title: "Magyar irodalom a XX. században", instructor: "Dr. Kovács Anna",
                meetings: [.init(day: "Wed", period: 1, time: "08:15–09:45", room: "C-12")]),
            DemoCourse(
                code: "CS-340", title: "Operating Systems", instructor: "Dr. Lars Øberg",
                meetings: [
                    .init(day: "Mon", period: 4, time: "15:00–16:30", room: "Lab 3"),
                    .init(day: "Wed", period: 4, time: "15:00–16:30", room: "Lab 3"),
                    .init(day: "Fri", period: 2, time: "10:00–11:30", room: "B-110"),
                ]),
        ],
        "bence": [
            DemoCourse(
                code: "CS-230", title: "Számítógépes hálózatok", instructor: "Dr. Nagy Péter",
                meetings: [.init(day: "Tue", period: 2, time: "10:00–11:30", room: "B-204")]),
            DemoCourse(
                code: "PHY-101", title: "Fizika I", instructor: "Dr. Horváth Júlia",
                meetings: [.init(day: "Thu", period: 1, time: "08:15–09:45", room: "Aula")]),
        ],
        "yuki": [
            DemoCourse(
                code: "JPN-301", title: "日本語上級 (Advanced Japanese)", instructor: "山本 恵子",
                meetings: [.init(day: "Mon", period: 1, time: "08:50–10:20", room: "D-301")])
        ],
    ]

    static let loans: [String: [DemoLoan]] = [
        "alice": [
            DemoLoan(
                barcode: "31000101", title: "Introduction to Probability", author: "Bertsekas, Dimitri P.", dueInDays: -12, renewalsLeft: 2),
            DemoLoan(barcode: "31000102", title: "ノルウェイの森", author: "村上 春樹", dueInDays: -3, renewalsLeft: 0),
            DemoLoan(
                barcode: "31000103", title: "Operating Systems: Three Easy Pieces", author: "Arpaci-Dusseau, Remzi H.", dueInDays: 2,
                renewalsLeft: 3),
            DemoLoan(
                barcode: "31000104", title: "A Pál utcai fiúk", author: "Molnár Ferenc", dueInDays: 5, renewalsLeft: 1, reserved: true),
            DemoLoan(
                barcode: "31000105", title: "Elements of Information Theory", author: "Cover, Thomas M.; Thomas, Joy A.", dueInDays: 9,
                renewalsLeft: 2),
            DemoLoan(barcode: "31000106", title: "Cien años de soledad", author: "García Márquez, Gabriel", dueInDays: 14, renewalsLeft: 3),
            DemoLoan(barcode: "31000107", title: "Der Zauberberg", author: "Mann, Thomas", dueInDays: 20, renewalsLeft: 3),
            DemoLoan(
                barcode: "31000108", title: "Structure and Interpretation of Computer Programs",
                author: "Abelson, Harold; Sussman, Gerald Jay", dueInDays: 21, renewalsLeft: 1),
            DemoLoan(barcode: "31000109", title: "日本語の文法 (A Grammar of Japanese)", author: "益岡 隆志", dueInDays: 28, renewalsLeft: 2),
            DemoLoan(barcode: "31000110", title: "Édes Anna", author: "Kosztolányi Dezső", dueInDays: 35, renewalsLeft: 3),
            DemoLoan(
                barcode: "31000111", title: "Concrete Mathematics", author: "Graham, Ronald L.; Knuth, Donald E.; Patashnik, Oren",
                dueInDays: 42, renewalsLeft: 3),
            DemoLoan(
                barcode: "31000112", title: "The Art of Computer Programming, Vol. 1", author: "Knuth, Donald E.", dueInDays: -30,
                renewalsLeft: 1),
        ],
        "bence": [
            DemoLoan(barcode: "31000201", title: "Fizika mindenkinek", author: "Marx György", dueInDays: 7, renewalsLeft: 2)
        ],
        "yuki": [DemoLoan(barcode: "31000301", title: "こころ", author: "夏目 漱石", dueInDays: 10, renewalsLeft: 3)],
    ]

    /// Loans shown per page of the loans list.
    static let loansPerPage = 5
    /// News items per page of the HTML list.
    static let newsPerPage = 5

    static let news: [DemoNews] = [
        DemoNews(
            id: 14, title: "Winter exam registration opens", category: "Studies", published: "2026-11-20T09:00:00+01:00",
            summary: "Register for January exams in the portal by 4 December."),
        DemoNews(
            id: 13, title: "Könyvtári nyitvatartás a téli szünetben", category: "Library", published: "2026-11-18T14:30:00+01:00",
            summary: "A könyvtár december 21. és január 2. között zárva tart."),
        DemoNews(
            id: 12, title: "留学生向け説明会のお知らせ", category: "International", published: "2026-11-16T10:00:00+01:00",
            summary: "12月3日に交換留学の説明会を開催します。"),
        DemoNews(
            id: 11, title: "New study rooms in the Science Library", category: "Library", published: "2026-11-12T08:00:00+01:00",
            summary: "Twelve group rooms can now be booked online."),
        DemoNews(
            id: 10, title: "Ösztöndíj-pályázat: tavaszi félév", category: "Studies", published: "2026-11-09T12:00:00+01:00",
            summary: "A tavaszi köztársasági ösztöndíj pályázata november 30-ig nyitott."),
        DemoNews(
            id: 9, title: "Campus Wi-Fi maintenance on Saturday", category: "IT", published: "2026-11-05T17:45:00+01:00",
            summary: "eduroam will be unavailable from 06:00 to 08:00."),
        DemoNews(
            id: 8, title: "Semana cultural hispánica", category: "Events", published: "2026-10-29T11:00:00+01:00",
            summary: "Cine, música y charlas del 9 al 13 de noviembre."),
        DemoNews(
            id: 7, title: "Two-factor login for all students from January", category: "IT", published: "2026-10-22T09:30:00+02:00",
            summary: "Set up an authenticator app before 15 January."),
        DemoNews(
            id: 6, title: "Guest lecture: Information theory and language", category: "Events", published: "2026-10-15T16:00:00+02:00",
            summary: "Prof. Tanaka on entropy in Japanese and Hungarian text."),
        DemoNews(
            id: 5, title: "Mensa: neue Öffnungszeiten", category: "Campus", published: "2026-10-08T07:30:00+02:00",
            summary: "Die Mensa öffnet jetzt um 7:30 Uhr."),
        DemoNews(
            id: 4, title: "Autumn graduation ceremony", category: "Events", published: "2026-10-01T10:00:00+02:00",
            summary: "Ceremony in the Aula on 24 October."),
        DemoNews(
            id: 3, title: "Library fines waived during exam weeks", category: "Library", published: "2026-09-24T13:00:00+02:00",
            summary: "No fines for overdue books from 14 December to 8 January."),
        DemoNews(
            id: 2, title: "Tanévnyitó ünnepség és nyílt nap középiskolásoknak", category: "Campus", published: "2026-09-07T10:00:00+02:00",
            summary: "A tanévnyitó a Díszteremben lesz."),
        DemoNews(
            id: 1, title: "Welcome to the autumn term", category: "Studies", published: "2026-09-01T08:00:00+02:00",
            summary: "Timetables are now in the portal."),
    ]

    /// The opening-hours PDF of the current term. Its name changes every term (and when the
    /// library revises it), which is why a recipe must read it off the page.
    static var openingHoursPath: String { "/library/files/opening-hours-\(currentTerm)-rev3.pdf" }
}

/// An exam as the exam list shows it. Its date is in days relative to the end of the term (or
/// to this week's Monday, for a midterm), so that the demo always has exams ahead.
struct DemoExam: Sendable {
    enum When: Sendable {
        case afterTerm(days: Int)
        case thisTerm(daysFromMonday: Int)
        /// Not scheduled yet: the portal shows an empty date.
        case toBeAnnounced
    }

    let code: String
    let course: String
    let kind: String
    let when: When
    let time: String
    let room: String
}

/// The current term's dates around the demo's clock: it began ten weeks before this week and
/// ends on the Friday four weeks after, with a day and a week without classes, so the demo has classes today
/// whenever today is a weekday, and a calendar export always covers a whole term.
struct DemoTermCalendar: Sendable {
    /// Days since 1970-01-01, campus time.
    let mondayThisWeek: Int
    /// Today, in days since 1970-01-01, campus time.
    let today: Int
    var start: Int { mondayThisWeek - 70 }
    /// A Friday.
    var end: Int { mondayThisWeek + 4 * 7 + 4 }
    /// Days without classes, and why.
    var noClasses: [(day: Int, reason: String)] {
        [(start + 2 * 7 + 3, "Dies academicus")] + (0..<5).map { (start + 6 * 7 + $0, "Autumn break") }
    }

    init(around now: Date) {
        let local = Int(now.timeIntervalSince1970) + DemoData.campusTimeZone.secondsFromGMT(for: now)
        today = Int((Double(local) / 86_400).rounded(.down))
        // 1970-01-01 was a Thursday: Monday is 3 days before any day whose (day + 3) % 7 is 0.
        mondayThisWeek = today - ((today + 3) % 7 + 7) % 7
    }

    func day(of exam: DemoExam) -> Int? {
        switch exam.when {
        case .afterTerm(let days): return end + days
        case .thisTerm(let days): return mondayThisWeek + days
        case .toBeAnnounced: return nil
        }
    }

    /// `2026-11-24`.
    static func iso(_ day: Int) -> String { text(day, format: "yyyy-MM-dd") }

    /// `24 November 2026`, or the Hungarian `2026. 11. 24.` the exam list prints.
    static func text(_ day: Int, format: String = "d MMMM yyyy") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
    }
}

extension DemoData {
    static let exams: [String: [DemoExam]] = [
        "alice": [
            DemoExam(
                code: "CS-320", course: "情報理論 (Information Theory)", kind: "Midterm", when: .thisTerm(daysFromMonday: 8),
                time: "13:00–14:30", room: "B-204"),
            DemoExam(
                code: "MATH-301", course: "Probability Theory", kind: "Final", when: .afterTerm(days: 3), time: "09:00–11:00", room: "Aula"),
            DemoExam(
                code: "CS-320", course: "情報理論 (Information Theory)", kind: "Final", when: .afterTerm(days: 5), time: "10:00–12:00",
                room: "B-204"),
            DemoExam(
                code: "CS-340", course: "Operating Systems", kind: "Final", when: .afterTerm(days: 8), time: "14:00–16:00", room: "Lab 3"),
            DemoExam(
                code: "HUN-250", course: "Magyar irodalom a XX. században", kind: "Szóbeli vizsga", when: .toBeAnnounced, time: "", room: ""
            ),
        ],
        "bence": [
            DemoExam(
                code: "CS-230", course: "Számítógépes hálózatok", kind: "Final", when: .afterTerm(days: 4), time: "10:00–11:30",
                room: "B-204"),
            DemoExam(code: "PHY-101", course: "Fizika I", kind: "Final", when: .afterTerm(days: 6), time: "08:30–10:30", room: "Aula"),
        ],
    ]
}
