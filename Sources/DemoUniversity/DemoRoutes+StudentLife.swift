import Foundation
import HTTPTypes
import Hummingbird
import MessageDigest
import NIOCore

/// Attendance, syllabi, the dining menu, the co-op's hours, library purchase requests and the
/// portal's links: the campus app's other screens.
extension DemoRoutes {
    func registerStudentLife(on router: Router<BasicRequestContext>) {
        router.get("/attendance") { request, context in
            try await self.withUser(request, context) { user in
                let calendar = DemoTermCalendar(around: self.now())
                var courses: [(course: DemoCourse, marks: [Character], extraAbsences: [Int])] = []
                for course in DemoData.courses[user.username] ?? [] {
                    guard let marks = DemoStudentLife.attendance[user.username]?[course.code] else { continue }
                    let extra = await self.state.absences(user: user.username, code: course.code)
                    courses.append((course, Array(marks), extra))
                }
                return Self.html(StudentLifePages.attendance(user: user, courses: courses, calendar: calendar))
            }
        }
        // The syllabus is public, as syllabus systems are: students read it before registering.
        router.get("/syllabus") { request, _ in
            let query = FormDecoding.dictionary(request.uri.query)
            let lang = query["lang"] == "en" ? "en" : "ja"
            let words = (query["q"] ?? "").trimmingCharacters(in: .whitespaces)
            return Self.html(StudentLifePages.syllabusSearch(query: words, results: DemoStudentLife.search(words), lang: lang))
        }
        router.get("/syllabus/{code}") { request, context in
            let code = context.parameters.get("code") ?? ""
            let lang = FormDecoding.dictionary(request.uri.query)["lang"] == "en" ? "en" : "ja"
            guard let syllabus = DemoStudentLife.syllabi.first(where: { $0.code == code }) else {
                return Self.html(Pages.notFound("No syllabus for \(code)."), status: .notFound)
            }
            return Self.html(StudentLifePages.syllabus(syllabus, lang: lang))
        }
        router.get("/dining") { _, _ in
            let calendar = DemoTermCalendar(around: self.now())
            return Self.html(
                StudentLifePages.dining(mondayThisWeek: calendar.mondayThisWeek, nextWeek: Self.isoWeek(calendar.mondayThisWeek + 7)))
        }
        router.get("/dining/files/{name}") { request, _ in
            let next = Self.isoWeek(DemoTermCalendar(around: self.now()).mondayThisWeek + 7)
            guard
                let cafeteria = DemoStudentLife.cafeterias.first(where: {
                    DemoStudentLife.menuPDFPath(cafeteria: $0.id, week: next) == request.uri.path
                })
            else {
                return Self.html(Pages.notFound("This menu is not published (any more)."), status: .notFound)
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/pdf"
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: StudentLifePages.menuPDF(cafeteria: cafeteria, week: next))))
        }
        router.get("/coop/hours") { _, _ in
            Self.html(StudentLifePages.coopHours(mondayThisWeek: DemoTermCalendar(around: self.now()).mondayThisWeek))
        }
        router.get("/study-support") { _, _ in Self.html(StudentLifePages.studySupport()) }
        router.get("/links") { request, context in
            try await self.withUser(request, context) { user in Self.html(StudentLifePages.links(user: user)) }
        }
        router.get("/library/requests") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(StudentLifePages.purchaseRequests(user: user, requests: await self.state.purchaseRequests(user: user.username)))
            }
        }
        router.get("/library/request") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(StudentLifePages.requestForm(user: user, csrf: Self.requestToken(user)))
            }
        }
        // Step 1 → 2: checked, and either sent back with its objections or shown for confirmation.
        router.post("/library/request") { request, context in
            try await self.withRequestForm(request, context) { user, _, values in
                if let objected = Self.objectionsPage(user, values) { return objected }
                return Self.html(StudentLifePages.requestConfirm(user: user, csrf: Self.requestToken(user), values: values))
            }
        }
        // Step 2 → 3: sent (or back to the form with what was typed).
        router.post("/library/request/send") { request, context in
            try await self.withRequestForm(request, context) { user, form, values in
                if form["back"] != nil || form["send"] == nil {
                    return Self.html(StudentLifePages.requestForm(user: user, csrf: Self.requestToken(user), values: values))
                }
                if let objected = Self.objectionsPage(user, values) { return objected }
                let received = await self.state.addPurchaseRequest(
                    user: user.username, title: values["title"] ?? "", author: values["author"] ?? "", isbn: values["isbn"] ?? "",
                    reason: values["reason"] ?? "", date: DemoTermCalendar.iso(DemoTermCalendar(around: self.now()).today))
                return Self.html(StudentLifePages.requestDone(user: user, request: received))
            }
        }
    }

    /// A post of the request form, either step: the signed-in user, the form, and its values,
    /// once its CSRF token is checked (a stale one is refused before `body` runs).
    func withRequestForm(
        _ request: Request, _ context: BasicRequestContext,
        _ body: (DemoUser, [String: String], [String: String]) async throws -> Response
    ) async throws -> Response {
        var request = request
        let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
        return try await withUser(request, context) { user in
            guard form["csrf_token"] == Self.requestToken(user) else {
                return Self.html(Pages.notFound("The form was stale; open it again.", user: user), status: .forbidden)
            }
            return try await body(user, form, Self.requestValues(form))
        }
    }

    /// The form sent back with the library's objections to `values`, or nil when it has none.
    static func objectionsPage(_ user: DemoUser, _ values: [String: String]) -> Response? {
        let errors = objections(to: values)
        guard !errors.isEmpty else { return nil }
        return html(StudentLifePages.requestForm(user: user, csrf: requestToken(user), values: values, errors: errors))
    }

    /// `2026-W49`: the ISO week of a Monday, as the menu's PDF is named.
    static func isoWeek(_ monday: Int) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: Double(monday) * 86_400)
        let week = calendar.component(.weekOfYear, from: date)
        let year = calendar.component(.yearForWeekOfYear, from: date)
        return String(format: "%04d-W%02d", year, week)
    }

    static func requestValues(_ form: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in ["title", "author", "isbn", "reason"] { values[name] = (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        return values
    }

    /// What the library's form refuses, in its own words.
    static func objections(to values: [String: String]) -> [String] {
        var errors: [String] = []
        if (values["title"] ?? "").isEmpty { errors.append("書名は必須です。 The title is required.") }
        if let isbn = values["isbn"], !isbn.isEmpty, !ISBN.isValid(isbn) {
            errors.append("ISBNが正しくありません。 The ISBN \(isbn) is not valid: check its digits.")
        }
        if (values["reason"] ?? "").count > 400 { errors.append("理由は400字以内です。 The reason may be at most 400 characters.") }
        return errors
    }

    /// The request form's CSRF token: tied to the user, stable across demo restarts.
    static func requestToken(_ user: DemoUser) -> String { stableToken("purchase-request/\(user.username)") }
}
