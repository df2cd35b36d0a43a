import Foundation

/// The rest of a student's day in the demo: attendance, syllabi, the cafeterias' menus, the
/// co-op's hours, purchase requests to the library, and the portal's menu of links. Laid out as
/// Japanese campus portals lay these pages out (bilingual labels, `2026/11/24 (火)` dates, a
/// summary row under each course's attendance, an 入力 → 確認 → 完了 request form), and made up.
enum DemoStudentLife {
    // MARK: Attendance

    /// Each course's classes so far, one letter a class: P present, A absent, L late. The dates
    /// are the course's meeting days from the start of the term, so the demo always has a term's
    /// worth of classes behind it.
    static let attendance: [String: [String: String]] = [
        "alice": [
            "MATH-301": "PPPPPPLPPPPPAPPPPPPP",
            // Four absences of five allowed: one left, which `today` warns about.
            "CS-320": "PAPPAPPAPA",
            "HUN-250": "PPPPPPPPPP",
            // Two absences and three late arrivals (one more absence): two left.
            "CS-340": "PPPLPPPAPPPPLPPPPPPPAPPPLPPPPP",
        ],
        "bence": ["CS-230": "PPLPPPPPPP", "PHY-101": "PPPPAPPPPP"],
        "yuki": ["JPN-301": "PPPPPPPPPP"],
    ]

    /// More than a third of a course's fifteen weeks missed fails it: five absences are allowed.
    static let allowedAbsences = 5
    /// Three late arrivals count as one absence.
    static let latesPerAbsence = 3

    struct AttendanceSummary {
        let attended: Int
        let absent: Int
        let late: Int
        var left: Int { max(0, DemoStudentLife.allowedAbsences - absent - late / DemoStudentLife.latesPerAbsence) }
    }

    static func summary(_ marks: [Character]) -> AttendanceSummary {
        AttendanceSummary(
            attended: marks.filter { $0 == "P" || $0 == "L" }.count, absent: marks.filter { $0 == "A" }.count,
            late: marks.filter { $0 == "L" }.count)
    }

    /// The days a course met, oldest first, `count` of them: its meeting weekdays from the
    /// term's first week on.
    static func classDays(of course: DemoCourse, count: Int, calendar: DemoTermCalendar) -> [Int] {
        let offsets = course.meetings.compactMap { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].firstIndex(of: $0.day) }.sorted()
        guard !offsets.isEmpty else { return [] }
        var days: [Int] = []
        var week = 0
        while days.count < count {
            for offset in offsets where days.count < count { days.append(calendar.start + week * 7 + offset) }
            week += 1
        }
        return days
    }

    // MARK: Syllabus

    struct Syllabus: Sendable {
        let code: String
        let titleJapanese: String
        let titleEnglish: String
        let instructor: String
        /// From `DemoData.credits`, the table the grades page reads too.
        var credits: Int { DemoData.credits[code] ?? 0 }
        let scheduleJapanese: String
        let scheduleEnglish: String
        let gradingJapanese: String
        let gradingEnglish: String
        let textbooks: String
    }

    static let syllabi: [Syllabus] = [
        Syllabus(
            code: "MATH-301", titleJapanese: "確率論", titleEnglish: "Probability Theory", instructor: "Prof. Erzsébet Szabó",
            scheduleJapanese: "秋学期 月2・木2", scheduleEnglish: "Autumn, Mon 2 and Thu 2",
            gradingJapanese: "期末試験 70%、課題 30%", gradingEnglish: "Final exam 70%, assignments 30%",
            textbooks: "Bertsekas & Tsitsiklis, Introduction to Probability (2nd ed.)"),
        Syllabus(
            code: "CS-320", titleJapanese: "情報理論", titleEnglish: "Information Theory", instructor: "田中 健 (Ken Tanaka)",
            scheduleJapanese: "秋学期 火3", scheduleEnglish: "Autumn, Tue 3",
            gradingJapanese: "中間試験 30%、期末試験 50%、出席 20%", gradingEnglish: "Midterm 30%, final exam 50%, attendance 20%",
            textbooks: "Cover & Thomas, Elements of Information Theory"),
        Syllabus(
            code: "HUN-250", titleJapanese: "20世紀のハンガリー文学", titleEnglish: "Hungarian Literature in the 20th Century",
            instructor: "Dr. Kovács Anna", scheduleJapanese: "秋学期 水1", scheduleEnglish: "Autumn, Wed 1",
            gradingJapanese: "口頭試験 100%", gradingEnglish: "Oral exam 100%", textbooks: "Kosztolányi Dezső, Édes Anna"),
        Syllabus(
            code: "CS-340", titleJapanese: "オペレーティングシステム", titleEnglish: "Operating Systems", instructor: "Dr. Lars Øberg",
            scheduleJapanese: "秋学期 月4・水4・金2", scheduleEnglish: "Autumn, Mon 4, Wed 4 and Fri 2",
            gradingJapanese: "実習 40%、期末試験 60%", gradingEnglish: "Labs 40%, final exam 60%",
            textbooks: "Arpaci-Dusseau, Operating Systems: Three Easy Pieces"),
        Syllabus(
            code: "CS-230", titleJapanese: "コンピュータネットワーク", titleEnglish: "Computer Networks", instructor: "Dr. Nagy Péter",
            scheduleJapanese: "秋学期 火2", scheduleEnglish: "Autumn, Tue 2",
            gradingJapanese: "期末試験 100%", gradingEnglish: "Final exam 100%", textbooks: "Kurose & Ross, Computer Networking"),
        Syllabus(
            code: "PHY-101", titleJapanese: "物理学I", titleEnglish: "Physics I", instructor: "Dr. Horváth Júlia",
            scheduleJapanese: "秋学期 木1", scheduleEnglish: "Autumn, Thu 1", gradingJapanese: "期末試験 80%、レポート 20%",
            gradingEnglish: "Final exam 80%, reports 20%", textbooks: "Marx György, Fizika mindenkinek"),
        Syllabus(
            code: "JPN-301", titleJapanese: "日本語上級", titleEnglish: "Advanced Japanese", instructor: "山本 恵子",
            scheduleJapanese: "秋学期 月1", scheduleEnglish: "Autumn, Mon 1", gradingJapanese: "作文 50%、口頭発表 50%",
            gradingEnglish: "Essays 50%, presentation 50%", textbooks: "益岡 隆志, 日本語の文法"),
    ]

    /// The syllabi whose code, title (in either language) or instructor holds every word, case
    /// and accents as typed.
    static func search(_ words: String) -> [Syllabus] {
        let terms = words.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        guard !terms.isEmpty else { return [] }
        return syllabi.filter { syllabus in
            let text = [syllabus.code, syllabus.titleJapanese, syllabus.titleEnglish, syllabus.instructor].joined(separator: " ")
                .lowercased()
            return terms.allSatisfy { text.contains($0) }
        }
    }

    // MARK: Dining

    struct Dish: Sendable {
        /// 0 for Monday .. 4 for Friday.
        let weekday: Int
        let category: String
        let name: String
        let price: Int
    }

    struct Cafeteria: Sendable {
        let id: String
        let name: String
        let hours: String
        let dishes: [Dish]
    }

    /// Each week's menu is the same in the demo; a real one changes, which a watch would see.
    static let cafeterias: [Cafeteria] = [
        Cafeteria(
            id: "central", name: "第一食堂 Central Cafeteria", hours: "11:00–14:00",
            dishes: (0..<5).flatMap { day in
                [
                    Dish(
                        weekday: day, category: "定食 Set meal",
                        name: [
                            "唐揚げ定食 Fried chicken set", "焼き魚定食 Grilled fish set", "生姜焼き定食 Ginger pork set", "麻婆豆腐定食 Mapo tofu set",
                            "カツカレー Katsu curry",
                        ][day],
                        price: [480, 520, 500, 460, 550][day]),
                    Dish(
                        weekday: day, category: "麺類 Noodles",
                        name: ["醤油ラーメン Shoyu ramen", "きつねうどん Kitsune udon", "ざるそば Zaru soba", "味噌ラーメン Miso ramen", "天ぷらうどん Tempura udon"][
                            day], price: [380, 330, 350, 400, 420][day]),
                    Dish(weekday: day, category: "ベジタリアン Vegetarian", name: "野菜カレー Vegetable curry", price: 390),
                ]
            }),
        Cafeteria(
            id: "north", name: "北食堂 North Cafeteria", hours: "11:30–13:30",
            dishes: (0..<5).flatMap { day in
                [
                    Dish(
                        weekday: day, category: "日替わり Daily special",
                        name: ["親子丼 Oyakodon", "ハンバーグ Hamburg steak", "牛丼 Gyudon", "オムライス Omurice", "海鮮丼 Seafood bowl"][day],
                        price: [450, 500, 430, 470, 600][day]),
                    Dish(weekday: day, category: "サラダ Salad", name: "サラダボウル Salad bowl", price: 250),
                ]
            }),
    ]

    /// The menus of the week after this one are published as a PDF only, per cafeteria.
    static func menuPDFPath(cafeteria: String, week: String) -> String { "/dining/files/menu-\(cafeteria)-\(week).pdf" }

    // MARK: Co-op

    struct HoursPeriod: Sendable {
        /// Days from this week's Monday.
        let from: Int
        let until: Int
        /// Nil: closed for the whole period.
        let weekdays: String?
        let saturday: String?
        let sunday: String?
        let note: String
    }

    struct Store: Sendable {
        let name: String
        let periods: [HoursPeriod]
    }

    /// The co-op's stores and their hours by date range, with the days they close, around this
    /// week: term hours until the holidays, closed over them, shorter hours after.
    static let stores: [Store] = [
        Store(
            name: "中央購買部 Central Store",
            periods: [
                HoursPeriod(from: -70, until: 9, weekdays: "9:00–19:00", saturday: "10:00–14:00", sunday: nil, note: "授業期間 Term time"),
                HoursPeriod(from: 10, until: 10, weekdays: nil, saturday: nil, sunday: nil, note: "棚卸し Stocktaking"),
                HoursPeriod(from: 11, until: 26, weekdays: "9:00–19:00", saturday: "10:00–14:00", sunday: nil, note: "授業期間 Term time"),
                HoursPeriod(from: 27, until: 35, weekdays: nil, saturday: nil, sunday: nil, note: "年末年始休業 Winter holidays"),
                HoursPeriod(from: 36, until: 66, weekdays: "10:00–16:00", saturday: nil, sunday: nil, note: "休業期間短縮営業 Short hours"),
            ]),
        Store(
            name: "ブックセンター Book Center",
            periods: [
                HoursPeriod(from: -70, until: 26, weekdays: "10:00–18:00", saturday: nil, sunday: nil, note: "授業期間 Term time"),
                HoursPeriod(from: 27, until: 35, weekdays: nil, saturday: nil, sunday: nil, note: "年末年始休業 Winter holidays"),
                HoursPeriod(from: 36, until: 66, weekdays: "11:00–15:00", saturday: nil, sunday: nil, note: "休業期間短縮営業 Short hours"),
            ]),
    ]

    // MARK: Study support

    /// The study-support room's tutoring hours: who helps with what, when and where.
    static let tutoring: [(day: Int, time: String, subject: String, tutor: String, room: String)] = [
        (0, "12:15–13:00", "数学 Mathematics", "佐藤 由紀 (TA)", "L-105"),
        (0, "16:30–18:00", "レポートの書き方 Academic writing", "Dr. Kovács Anna", "L-105"),
        (1, "12:15–13:00", "プログラミング Programming", "Lars Øberg (TA)", "L-106"),
        (2, "14:40–16:10", "物理学 Physics", "Dr. Horváth Júlia", "L-105"),
        (3, "12:15–13:00", "日本語 Japanese", "山本 恵子", "L-107"),
        (4, "10:00–11:30", "統計学 Statistics", "田中 健 (Ken Tanaka)", "L-105"),
    ]

    // MARK: Links

    /// The portal's menu: where students go from here.
    static let links: [(section: String, items: [(title: String, url: String)])] = [
        (
            "学習 Study",
            [
                ("LMS (Moodle)", "/lms/my/"), ("シラバス Syllabus", "/syllabus"),
                ("学修支援室の時間割 Study support room timetable", "/study-support"),
            ]
        ),
        (
            "連絡 Mail",
            [("Webmail", "https://mail.demo-university.invalid/"), ("大学からのお知らせ Announcements", "/news")]
        ),
        (
            "キャリア Career",
            [
                ("キャリアセンター Career Centre", "https://career.demo-university.invalid/"),
                ("求人検索 Job search", "https://career.demo-university.invalid/jobs"),
            ]
        ),
        (
            "生活 Campus life",
            [("食堂メニュー Dining menu", "/dining"), ("生協営業時間 Co-op hours", "/coop/hours"), ("図書館 Library", "/library")]
        ),
    ]
}

/// A purchase request the library has received: what `/library/requests` lists.
struct DemoPurchaseRequest: Codable, Equatable, Sendable {
    var number: String
    var date: String
    var title: String
    var author: String
    var isbn: String
    var reason: String
    var status: String
}

/// ISBN-10 and ISBN-13 check digits, as a library's form checks them: hyphens and spaces are
/// ignored, an X is ten in an ISBN-10's last place.
enum ISBN {
    static func isValid(_ text: String) -> Bool {
        let characters = Array(text.uppercased().filter { !"- ".contains($0) })
        if characters.count == 13, characters.allSatisfy(\.isNumber) {
            let digits = characters.compactMap(\.wholeNumberValue)
            let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
            return sum % 10 == 0
        }
        if characters.count == 10, characters.dropLast().allSatisfy(\.isNumber), characters.last!.isNumber || characters.last == "X" {
            let digits = characters.map { $0 == "X" ? 10 : $0.wholeNumberValue ?? 0 }
            let sum = digits.enumerated().reduce(0) { $0 + $1.element * (10 - $1.offset) }
            return sum % 11 == 0
        }
        return false
    }
}
