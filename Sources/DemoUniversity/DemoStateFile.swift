import Foundation

/// A change to the demo's state that names something the demo does not have.
public enum DemoChangeError: Error, Equatable, CustomStringConvertible {
    case unknownUser(String, known: [String])
    case unknownTerm(String, user: String, known: [String])
    /// A course the user does not take: in `term` (post-grade), or at all (record-absence).
    case unknownCourse(String, user: String, term: String?, known: [String])
    case unwritable(String)

    public var description: String {
        switch self {
        case .unknownUser(let name, _): return "the demo has no user '\(name)'"
        case .unknownTerm(let term, let user, _): return "\(user) has no term '\(term)' in the demo"
        case .unknownCourse(let code, let user, let term?, _): return "\(user) has no course '\(code)' in \(term)"
        case .unknownCourse(let code, let user, nil, _): return "\(user) has no attendance list for '\(code)'"
        case .unwritable(let reason): return "cannot change the demo's state: \(reason)"
        }
    }

    /// The names the demo has instead, for the hint.
    public var known: [String] {
        switch self {
        case .unknownUser(_, let known), .unknownTerm(_, _, let known), .unknownCourse(_, _, _, let known): return known
        case .unwritable: return []
        }
    }
}

/// What a lecturer or the registrar does to the demo, from the command line
/// (`unitool demo post-grade`, `record-absence`, `reset`): changes to `demo.json`, the file the
/// demo a command starts and `unitool demo serve` both keep their memory in. Each change is made
/// under the file's lock, and a running demo reads the file again at its next request, so the
/// change shows whether or not a demo is running.
public struct DemoStateFile: Sendable {
    public let url: URL

    public init(_ url: URL) { self.url = url }

    /// Why a change was not kept: a file there that is not the demo's memory is left as it is
    /// (`demo reset` removes it), else the file or its folder cannot be written.
    func unwritable() -> DemoChangeError {
        DemoMemory(url).loaded() == nil
            ? .unwritable("\(url.path) cannot be read as the demo's memory; 'unitool demo reset' starts the demo afresh")
            : .unwritable("\(url.path) cannot be written")
    }

    /// A grade as the grades page will show it.
    public struct PostedGrade: Sendable, Equatable {
        public let user: String
        public let term: String
        public let code: String
        public let course: String
        public let grade: String
        public let points: Double?
        public let date: String
    }

    /// The grade points the demo's portal gives each letter (a 4.0 scale); another grade needs
    /// its points given, or has none.
    public static let gradePoints: [String: Double] = [
        "A": 4.0, "A-": 3.7, "B+": 3.3, "B": 3.0, "B-": 2.7, "C+": 2.3, "C": 2.0, "C-": 1.7, "D": 1.0, "F": 0,
    ]

    /// Checks the names against the demo's data and posts the grade. `date` is `yyyy-MM-dd`;
    /// nil is today, campus time.
    @discardableResult
    public func postGrade(
        user: String, term: String, code: String, grade: String, points: Double? = nil, date: String? = nil, now: Date = Date()
    ) throws -> PostedGrade {
        let person = try Self.user(user)
        guard let grades = person.grades[term] else {
            throw DemoChangeError.unknownTerm(term, user: user, known: person.grades.keys.sorted())
        }
        guard let course = grades.first(where: { $0.code == code }) else {
            throw DemoChangeError.unknownCourse(code, user: user, term: term, known: grades.map(\.code))
        }
        let posted = PostedGrade(
            user: user, term: term, code: code, course: course.course, grade: grade, points: points ?? Self.gradePoints[grade],
            date: date ?? DemoTermCalendar.iso(DemoTermCalendar(around: now).today))
        let (_, _, written) = DemoMemory(url).update {
            $0.postedGrades["\(user)/\(term)/\(code)"] = .init(grade: posted.grade, points: posted.points, date: posted.date)
        }
        guard written else { throw unwritable() }
        return posted
    }

    /// An absence as the attendance page will show it.
    public struct RecordedAbsence: Sendable, Equatable {
        public let user: String
        public let code: String
        public let date: String
        /// Absences the course still allows, this one counted.
        public let left: Int
    }

    /// Records an absence today (campus time) in a course whose attendance the demo lists.
    @discardableResult
    public func recordAbsence(user: String, code: String, now: Date = Date()) throws -> RecordedAbsence {
        _ = try Self.user(user)
        let courses = DemoStudentLife.attendance[user] ?? [:]
        guard let marks = courses[code] else {
            throw DemoChangeError.unknownCourse(code, user: user, term: nil, known: courses.keys.sorted())
        }
        let day = DemoTermCalendar(around: now).today
        let (recorded, _, written) = DemoMemory(url).update { remembered -> Int in
            remembered.absences = DemoMemory.adding(day: day, to: remembered.absences, key: "\(user)/\(code)")
            return remembered.absences?["\(user)/\(code)"]?.count ?? 1
        }
        guard written else { throw unwritable() }
        let left = DemoStudentLife.summary(Array(marks) + Array(repeating: Character("A"), count: recorded)).left
        return RecordedAbsence(user: user, code: code, date: DemoTermCalendar.iso(day), left: left)
    }

    /// Back to the demo's start: no renewal, posted grade, purchase request or recorded absence.
    public func reset() throws {
        try DemoMemory(url).reset()
    }

    private static func user(_ name: String) throws -> DemoUser {
        guard let user = DemoData.user(named: name) else {
            throw DemoChangeError.unknownUser(name, known: DemoData.users.map(\.username))
        }
        return user
    }
}
