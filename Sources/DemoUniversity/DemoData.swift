/// The people and records of the demo university. Every value here is public and made up.
public struct DemoUser: Sendable {
    public let username: String
    public let password: String
    public let displayName: String
    /// Base32 TOTP secret for users who must give a one-time code.
    public let totpSecret: String?
    /// The IdP asks this user to approve the release of their attributes to the portal.
    public var asksConsent = false
    var grades: [String: [DemoGrade]]
    /// The login service has locked this account (too many failed attempts): it says so in its
    /// own words, whatever the password.
    public var locked = false
}

struct DemoGrade: Sendable {
    let course: String
    let code: String
    /// From the one table of credits, which the syllabus reads too.
    var credits: Double { Double(DemoData.credits[code] ?? 0) }
    /// Nil while the course is still running.
    var grade: String?
    var points: Double?
    var date: String?
}

struct DemoTerm: Sendable {
    let id: String
    let label: String
}

public enum DemoData {
    /// The user the quick start logs in as, with no keyring and no prompt.
    public static let defaultUser = users[0]

    static let terms = [
        DemoTerm(id: "2025-fall", label: "Fall 2025"),
        DemoTerm(id: "2026-spring", label: "Spring 2026"),
        DemoTerm(id: "2026-fall", label: "Fall 2026"),
    ]
    /// The terms the selector offers: the demo's own, after `count - 3` made-up older ones
    /// whose grades repeat the oldest real term's.
    static func terms(count: Int) -> [DemoTerm] {
        guard count > terms.count else { return terms }
        let older = (0..<(count - terms.count)).map { index -> DemoTerm in
            let year = 2025 - (index / 2 + 1)
            let season = index % 2 == 0 ? "fall" : "spring"
            return DemoTerm(id: "\(year)-\(season)", label: "\(season.capitalized) \(year)")
        }
        return older.reversed() + terms
    }

    /// Each course's credits, by code: the one number the grades page and the syllabus both
    /// show, so that the two cannot disagree (CS-320 once had 5 in grades and 2 in its syllabus).
    static let credits: [String: Int] = [
        "MATH-101": 6, "CS-100": 6, "JPN-101": 4, "ENG-110": 3, "MATH-202": 8, "CS-210": 6, "JPN-102": 4, "CS-230": 5,
        "MATH-301": 6, "CS-320": 5, "HUN-250": 4, "CS-340": 6, "MATH-150": 5, "PHY-101": 6, "JPN-301": 4,
    ]

    /// The term the portal marks as current on its own pages.
    static let currentTerm = "2026-fall"

    public static let users: [DemoUser] = [
        DemoUser(
            username: "alice", password: "wonderland", displayName: "Alice Example", totpSecret: nil,
            grades: [
                "2025-fall": [
                    DemoGrade(course: "Linear Algebra I", code: "MATH-101", grade: "A", points: 4.0, date: "2026-01-22"),
                    DemoGrade(
                        course: "Introduction to Programming", code: "CS-100", grade: "A-", points: 3.7, date: "2026-01-28"),
                    DemoGrade(
                        course: "日本語初級Ⅰ (Japanese for Beginners I)", code: "JPN-101", grade: "B+", points: 3.3,
                        date: "2026-01-30"),
                    DemoGrade(course: "Academic Writing ①", code: "ENG-110", grade: "B", points: 3.0, date: "2026-02-02"),
                ],
                "2026-spring": [
                    DemoGrade(course: "Analysis II", code: "MATH-202", grade: "B+", points: 3.3, date: "2026-07-10"),
                    DemoGrade(
                        course: "Adatszerkezetek és algoritmusok", code: "CS-210", grade: "A", points: 4.0, date: "2026-07-14"),
                    DemoGrade(course: "日本語初級 II", code: "JPN-102", grade: "A-", points: 3.7, date: "2026-07-16"),
                    DemoGrade(course: "Számítógépes hálózatok", code: "CS-230", grade: "B", points: 3.0, date: "2026-07-20"),
                ],
                "2026-fall": [
                    DemoGrade(course: "Probability Theory", code: "MATH-301", grade: "A-", points: 3.7, date: "2026-11-13"),
                    DemoGrade(
                        course: "情報理論 (Information Theory)", code: "CS-320", grade: "B+", points: 3.3, date: "2026-11-18"),
                    DemoGrade(course: "Magyar irodalom a XX. században", code: "HUN-250", grade: nil, points: nil, date: nil),
                    DemoGrade(course: "Operating Systems", code: "CS-340", grade: nil, points: nil, date: nil),
                ],
            ]),
        DemoUser(
            username: "bence", password: "Kaland-2026", displayName: "Kovács Bence", totpSecret: nil,
            grades: [
                "2025-fall": [
                    DemoGrade(course: "Bevezetés a programozásba", code: "CS-100", grade: "B", points: 3.0, date: "2026-01-25")
                ],
                "2026-spring": [
                    DemoGrade(course: "Diszkrét matematika", code: "MATH-150", grade: "A", points: 4.0, date: "2026-06-30")
                ],
                "2026-fall": [
                    DemoGrade(course: "Számítógépes hálózatok", code: "CS-230", grade: "A-", points: 3.7, date: "2026-11-20"),
                    DemoGrade(course: "Fizika I", code: "PHY-101", grade: nil, points: nil, date: nil),
                ],
            ]),
        DemoUser(
            username: "dora", password: "explorer-2026", displayName: "Dora Márquez", totpSecret: nil, asksConsent: true,
            grades: [
                "2025-fall": [],
                "2026-spring": [],
                "2026-fall": [
                    DemoGrade(
                        course: "Introduction to Programming", code: "CS-100", grade: "B+", points: 3.3, date: "2026-11-19")
                ],
            ]),
        {
            var laszlo = DemoUser(
                username: "laszlo", password: "locked-out-2026", displayName: "Kovács László", totpSecret: nil, grades: [:])
            laszlo.locked = true
            return laszlo
        }(),
        DemoUser(
            username: "yuki", password: "sakura-2026", displayName: "佐藤 由紀", totpSecret: "JBSWY3DPEHPK3PXP",
            grades: [
                "2025-fall": [],
                "2026-spring": [
                    DemoGrade(course: "線形代数学", code: "MATH-101", grade: "A", points: 4.0, date: "2026-07-12")
                ],
                "2026-fall": [
                    DemoGrade(course: "情報理論 (Information Theory)", code: "CS-320", grade: "A", points: 4.0, date: "2026-11-18")
                ],
            ]),
    ]

    static func user(named name: String) -> DemoUser? { users.first { $0.username == name } }
}
