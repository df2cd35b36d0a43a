import Foundation
import HTTPTypes
import Hummingbird
import MessageDigest
import NIOCore
import OneTimeCode

/// The campus pages (courses, library, news), the terms API, and the small responses all routes use.
extension DemoRoutes {
    // MARK: Campus: courses, library, news

    func registerCampus(on router: Router<BasicRequestContext>) {
        router.get("/courses") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(
                    CampusPages.courses(
                        user: user, courses: DemoData.courses[user.username] ?? [], calendar: DemoTermCalendar(around: self.now())))
            }
        }
        router.get("/exams") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(
                    CampusPages.exams(
                        user: user, exams: DemoData.exams[user.username] ?? [], calendar: DemoTermCalendar(around: self.now())))
            }
        }
        router.get("/library") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(CampusPages.library(user: user))
            }
        }
        router.get("/library/files/{name}") { request, _ in
            guard request.uri.path == DemoData.openingHoursPath else {
                return Self.html(Pages.notFound("This file has been replaced by a newer version."), status: .notFound)
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/pdf"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: CampusPages.openingHoursPDF)))
        }
        router.get("/library/loans") { request, context in
            try await self.withUser(request, context) { user in
                let loans = DemoData.loans[user.username] ?? []
                let pages = max(1, (loans.count + DemoData.loansPerPage - 1) / DemoData.loansPerPage)
                let page = min(max(1, Int(FormDecoding.dictionary(request.uri.query)["page"] ?? "1") ?? 1), pages)
                var rows: [(loan: DemoLoan, due: String, renewalsLeft: Int)] = []
                for loan in loans.dropFirst((page - 1) * DemoData.loansPerPage).prefix(DemoData.loansPerPage) {
                    let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                    rows.append((loan, self.dueDate(of: loan, afterRenewals: done), loan.renewalsLeft - done))
                }
                return Self.html(CampusPages.loans(user: user, rows: rows, page: page, pages: pages))
            }
        }
        router.get("/library/renew") { request, context in
            try await self.withUser(request, context) { user in
                let barcode = FormDecoding.dictionary(request.uri.query)["barcode"] ?? ""
                guard let loan = DemoData.loans[user.username]?.first(where: { $0.barcode == barcode }) else {
                    return Self.noSuchLoan(user: user, barcode: barcode)
                }
                let done = await self.state.renewalsDone(user: user.username, barcode: barcode)
                return Self.html(
                    CampusPages.renewForm(
                        user: user, loan: loan, due: self.dueDate(of: loan, afterRenewals: done),
                        csrf: Self.renewToken(user, barcode)))
            }
        }
        router.post("/library/renew") { request, context in
            var request = request
            let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
            return try await self.withUser(request, context) { user in
                let barcode = form["barcode"] ?? ""
                guard form["csrf"] == Self.renewToken(user, barcode), form["confirm"] == "yes", form["cancel"] == nil else {
                    return Self.html(Pages.notFound("The form was stale; open your loans and try again.", user: user), status: .forbidden)
                }
                guard let loan = DemoData.loans[user.username]?.first(where: { $0.barcode == barcode }) else {
                    return Self.noSuchLoan(user: user, barcode: barcode)
                }
                let done = await self.state.renewalsDone(user: user.username, barcode: barcode)
                let refusal: String? =
                    loan.reserved
                    ? "This item is reserved by another reader and cannot be renewed. Please return it by its due date."
                    : loan.renewalsLeft - done <= 0 ? "No renewals left: this item has been renewed the maximum number of times." : nil
                if refusal == nil { await self.state.renew(user: user.username, barcode: barcode) }
                return Self.html(
                    CampusPages.renewResult(
                        user: user, loan: loan, barcode: barcode, newDue: self.dueDate(of: loan, afterRenewals: done + 1),
                        renewalsLeft: loan.renewalsLeft - done - 1, refusal: refusal))
            }
        }
        router.get("/news") { request, context in
            try await self.withUser(request, context) { user in
                let items = DemoData.news
                let pages = (items.count + DemoData.newsPerPage - 1) / DemoData.newsPerPage
                let page = min(max(1, Int(FormDecoding.dictionary(request.uri.query)["page"] ?? "1") ?? 1), pages)
                let slice = Array(items.dropFirst((page - 1) * DemoData.newsPerPage).prefix(DemoData.newsPerPage))
                return Self.html(CampusPages.newsList(user: user, items: slice, page: page, pages: pages))
            }
        }
        router.get("/news/{id}") { _, context in
            guard let item = DemoData.news.first(where: { String($0.id) == context.parameters.get("id") }) else {
                return Self.html(Pages.notFound("No such news item."), status: .notFound)
            }
            return Self.html(CampusPages.newsItem(item))
        }
        router.get("/feeds/news.rss") { request, _ in
            let feed = CampusPages.rss(base: Self.origin(of: request), items: DemoData.news)
            guard let hostile = self.faults.hostileXML else { return Self.xml(feed, type: "application/rss+xml") }
            // The DOCTYPE goes after the XML declaration; the first item's title uses the entity.
            let doctype = Self.hostileDoctype(hostile, origin: Self.origin(of: request), root: "rss")
            var lines = feed.components(separatedBy: "\n")
            lines.insert(doctype, at: 1)
            let text = lines.joined(separator: "\n")
            let range = text.range(of: "<item>\n")!
            let hostileFeed = text.replacingCharacters(in: range, with: "<item>\n<description>\(hostile.entityReference)</description>\n")
            return Self.xml(hostileFeed, type: "application/rss+xml")
        }
        router.get("/feeds/news.atom") { request, _ in
            Self.xml(CampusPages.atom(base: Self.origin(of: request), items: DemoData.news), type: "application/atom+xml")
        }
    }

    /// The answer to renewing a barcode that is not among the user's loans.
    static func noSuchLoan(user: DemoUser, barcode: String) -> Response {
        html(
            CampusPages.renewResult(
                user: user, loan: nil, barcode: barcode, newDue: nil, refusal: "There is no loan with barcode \(barcode) on your account."))
    }

    /// A loan's due date once it has been renewed `renewals` times: each renewal adds 14 days.
    func dueDate(of loan: DemoLoan, afterRenewals renewals: Int) -> String {
        CampusPages.dueDate(inDays: loan.dueInDays + 14 * renewals, from: now())
    }

    /// The renew form's CSRF token: tied to the user and the loan, stable across demo restarts.
    static func renewToken(_ user: DemoUser, _ barcode: String) -> String { stableToken("renew/\(user.username)/\(barcode)") }

    /// A token made from `seed` alone (a form's CSRF token, a session key): the same across demo
    /// restarts, so that a page fetched before a restart still submits after it. `bytes` of a
    /// SHA-256, in hex.
    static func stableToken(_ seed: String, bytes: Int = 12) -> String {
        MessageDigest.sha256(seed.utf8).prefix(bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func xml(_ body: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "\(type); charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// `{"version": "...", "url": "/terms", "updated": "..."}`, or one of its failures.
    func termsVersionAPI() async throws -> Response {
        let version = await state.termsVersion
        switch faults.termsAPI {
        case nil, .protected:
            // Encoded, not pasted: a test's version may hold any character, control characters
            // and decomposed accents included, and must arrive exactly as it was set.
            let literal = String(decoding: try JSONEncoder().encode(version), as: UTF8.self)
            return Self.json("{\"version\": \(literal), \"url\": \"/terms\"}")
        case .error:
            return Self.html(HTML.page(title: "Error", body: "<h1>500 Internal Server Error</h1>"), status: .internalServerError)
        case .notJSON:
            return Self.html(HTML.page(title: "Maintenance", body: "<h1>The portal is down for maintenance</h1>"))
        case .noVersion:
            return Self.json("{\"url\": \"/terms\", \"updated\": \"2026-09-01\"}")
        case .numberVersion:
            return Self.json("{\"version\": 202609, \"url\": \"/terms\"}")
        case .trailingComma:
            return Self.json("{\"version\": \"\(version)\", \"url\": \"/terms\",}")
        }
    }

    /// The method, the raw query and the body, exactly as they arrived.
    static func echo(_ request: Request, body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        let text = "method=\(request.method.rawValue)\nquery=\(request.uri.query ?? "")\nbody=\(body)\n"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(to location: String, status: HTTPResponse.Status = .seeOther) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: status, headers: headers)
    }
}
