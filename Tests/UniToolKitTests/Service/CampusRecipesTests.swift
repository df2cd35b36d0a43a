import DemoUniversity
import Foundation
import Logging
import Testing
import UniToolKit
import UniToolTestSupport

/// The bundled demo recipes through the service, in process: what `courses`, `grades`, `loans`,
/// `news` and `library-calendar` read, filter and do, against a demo on loopback.
@Suite("The demo's recipes through the service: courses, grades, loans, news, the library calendar")
struct CampusRecipesTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])

    /// A connection to a running demo as alice, with the terms accepted in a folder of the test's
    /// own and the session kept there too; closed when `body` is done.
    static func withAlice<T: Sendable>(_ body: (PortalConnection, DemoUniversity) async throws -> T) async throws -> T {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        return try await DemoUniversity.withRunning { demo in
            try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
            let connection = Workspace(locations: sandbox.locations, logger: Logger(label: "campus-test")).connection(
                to: try catalog.portal("demo").relocated(to: demo.baseURL), as: "alice",
                credentials: { Credentials(username: "alice", password: Secret("wonderland")) })
            let result = await Result { try await body(connection, demo) }
            await connection.close()
            return try result.get()
        }
    }

    static func recipe(_ command: String) throws -> DataRecipe { try catalog.recipe(portal: "demo", command: command) }

    @Test("courses: each with its meetings as a list; a day filter keeps the courses and meetings of that day")
    func courses() async throws {
        try await Self.withAlice { connection, _ in
            let all = try await connection.run(Self.recipe("courses"), options: [:])
            #expect(all.records.count == 4)
            let systems = try #require(all.records.first { $0["code"] == .string("CS-340") })
            #expect(systems["instructor"] == .string("Dr. Lars Øberg"))
            guard case .list(let meetings)? = systems["meetings"] else {
                Issue.record("no meetings list")
                return
            }
            #expect(meetings.count == 3)
            let monday = try await connection.run(Self.recipe("courses"), options: ["day": "mon"])
            #expect(monday.records.map { $0["code"] } == [.string("MATH-301"), .string("CS-340")])
            for course in monday.records {
                guard case .list(let kept)? = course["meetings"] else { continue }
                #expect(kept.allSatisfy { $0["day"] == .string("Mon") })
            }
            await #expect { try await connection.run(Self.recipe("courses"), options: ["day": "someday"]) } throws: {
                ($0 as? UniToolError)?.kind == .usage
            }
        }
    }

    @Test("grades of every term at once, each term its own; totals give credits earned and GPA per term; fields select columns")
    func gradesAllTerms() async throws {
        try await Self.withAlice { connection, _ in
            let grades = try Self.recipe("grades")
            let all = try await connection.run(grades, options: ["term": "all"])
            #expect(all.records.count == 12)
            #expect(Set(all.records.compactMap { $0["term"]?.stringText }) == ["2025-fall", "2026-spring", "2026-fall"])
            let spring = try await connection.run(grades, options: ["term": "2026-spring"])
            #expect(spring.records.contains { $0["course"] == .string("Adatszerkezetek és algoritmusok") })
            let summary = try #require(grades.totals).compute(over: all)
            let fall = try #require(summary.records.first { $0["term"] == .string("2026-fall") })
            #expect(fall["credits_earned"] == .number(11))
            // (3.7 * 6 + 3.3 * 5) / 11 = 3.518..., the two courses still in progress do not count.
            #expect(fall["gpa"] == .number(3.52))
            // The demo's grades end with the cumulative row over every term (overall: all terms).
            let overall = try #require(summary.records.last)
            #expect(overall["term"] == .string("all terms") && summary.records.count == 4, "\(summary.records)")
            let earned = summary.records.dropLast().compactMap { record -> Double? in
                if case .number(let value)? = record["credits_earned"] { return value }
                return nil
            }
            #expect(overall["credits_earned"] == .number(earned.reduce(0, +)))
            #expect(try spring.selecting(["code", "grade"]).columns == ["code", "grade"])
            #expect { try spring.selecting(["code", "mark"]) } throws: { ($0 as? UniToolError)?.kind == .usage }
        }
    }

    @Test("a value the portal does not offer is a usage error naming the values it does, not a 404")
    func unknownTerm() async throws {
        try await Self.withAlice { connection, _ in
            do {
                _ = try await connection.run(Self.recipe("grades"), options: ["term": "fall"])
                Issue.record("--term fall was accepted")
            } catch let error as UniToolError {
                #expect(error.kind == .usage, "\(error)")
                #expect(error.message.contains("'fall' is not a value the portal offers for --term"), "\(error)")
                #expect(error.hint?.contains("2026-spring") == true && error.hint?.contains("current") == true, "\(error)")
            }
        }
    }

    @Test("loans: every page read, due dates in ISO 8601, overdue worked out from today")
    func loans() async throws {
        try await Self.withAlice { connection, demo in
            let loans = try await connection.run(Self.recipe("loans"), options: [:])
            #expect(loans.records.count == 12, "three pages: five, five and two loans")
            #expect(await demo.requests.filter { $0.path == "/library/loans" }.count >= 3)
            let overdue = loans.records.filter { $0["overdue"] == .bool(true) }.compactMap { $0["barcode"]?.stringText }
            #expect(Set(overdue) == ["31000101", "31000102", "31000112"])
            #expect(loans.records.allSatisfy { if case .date = $0["due"] { return true } else { return false } })
            #expect(loans.records.contains { $0["title"] == .string("ノルウェイの森") })
            // The recipe's own order: soonest due first, so the overdue loans come on top.
            let sorted = try RecordShape().apply(to: loans, of: try Self.recipe("loans"))
            let dues = sorted.records.map { $0["due"]?.text ?? "" }
            #expect(dues == dues.sorted())
            #expect(sorted.records.prefix(3).allSatisfy { $0["overdue"] == .bool(true) })
        }
    }

    @Test("loans renew submits the portal's form and reports the new due date; refusals carry the portal's reason")
    func renew() async throws {
        try await Self.withAlice { connection, _ in
            let loans = try Self.recipe("loans")
            let renew = try #require(loans.actions.first { $0.name == "renew" })
            let before = try await connection.run(loans, options: [:]).records.first { $0["barcode"] == .string("31000103") }
            let renewed = try await connection.perform(renew, of: loans, argument: "31000103")
            let result = try #require(renewed.records.first)
            #expect(result["title"] == .string("Operating Systems: Three Easy Pieces"))
            guard case .date(let newDue)? = result["due"], case .date(let oldDue)? = before?["due"] else {
                Issue.record("no due dates: \(result)")
                return
            }
            #expect(newDue > oldDue)
            for (barcode, reason) in [
                ("31000104", "reserved by another reader"), ("31000102", "No renewals left"), ("O'Brien", "no loan with barcode"),
            ] {
                do {
                    _ = try await connection.perform(renew, of: loans, argument: barcode)
                    Issue.record("\(barcode) was renewed")
                } catch let error as UniToolError {
                    #expect(error.kind == .actionRefused && error.message.contains(reason), "\(error)")
                }
            }
        }
    }

    @Test("news from RSS, Atom and the paginated HTML list agree; since and category filter")
    func news() async throws {
        try await Self.withAlice { connection, _ in
            let news = try Self.recipe("news")
            let rss = try await connection.run(news, options: [:])
            #expect(rss.records.count == 14)
            for source in ["atom", "page"] {
                let other = try await connection.run(news, options: [:], source: source)
                #expect(other.records.count == rss.records.count)
                for (left, right) in zip(rss.records, other.records) {
                    for field in ["title", "date", "link", "category"] { #expect(left[field] == right[field], "\(source) \(field)") }
                }
            }
            #expect(rss.records.contains { $0["title"] == .string("留学生向け説明会のお知らせ") })
            #expect(try await connection.run(news, options: ["since": "2026-11-12"]).records.count == 4)
            #expect(try await connection.run(news, options: ["category": "library"], source: "page").records.count == 3)
            await #expect { try await connection.run(news, options: [:], source: "telegram") } throws: {
                ($0 as? UniToolError)?.kind == .usage
            }
        }
    }

    @Test("library-calendar finds this term's PDF link on the page")
    func libraryCalendar() async throws {
        try await Self.withAlice { connection, demo in
            let result = try #require(try await connection.run(Self.recipe("library-calendar"), options: [:]).records.first)
            guard case .url(let link)? = result["url"] else {
                Issue.record("no link: \(result)")
                return
            }
            #expect(link.hasPrefix(demo.baseURL.absoluteString.trimmingCharacters(in: ["/"])) && link.hasSuffix(".pdf"))
            let pdf = try await connection.fetch(link)
            #expect(pdf.body.starts(with: Array("%PDF".utf8)))
        }
    }

    @Test("a public command (login: false) reads the public feed with no session and no password")
    func publicFeed() async throws {
        try await DemoUniversity.withRunning { demo in
            let sandbox = try Sandbox()
            defer { sandbox.remove() }
            try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
            let headlines = try Self.recipe("headlines")
            #expect(!headlines.login)
            // The one rule of every front end for a public command (`Workspace.connection(for:)`),
            // here with a user named who has no saved session.
            let connection = Workspace(locations: sandbox.locations, logger: Logger(label: "campus-test")).connection(
                for: headlines, on: try Self.catalog.portal("demo").relocated(to: demo.baseURL), as: "alice",
                credentials: { throw UniToolError(.internal, "a public command asked for credentials") })
            let result = await Result { try await connection.run(headlines, options: [:]) }
            await connection.close()
            #expect(try result.get().records.count == 14)
            #expect(await demo.requests.allSatisfy { !$0.isLogin })
        }
    }

    @Test("a portal nobody answers for is portal_unreachable, its own kind, with a hint")
    func unreachable() async throws {
        let portal = try Self.catalog.portal("demo").relocated(to: URL(string: "http://127.0.0.1:9")!)
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let connection = Workspace(locations: sandbox.locations, logger: Logger(label: "campus-test")).connection(
            to: portal, as: "alice", credentials: { Credentials(username: "alice", password: Secret("x")) }, use: .untouched)
        do {
            _ = try await connection.isSessionValid()
            Issue.record("a closed port answered")
        } catch let error as UniToolError {
            #expect(error.kind == .portalUnreachable && error.message.contains("cannot reach the portal") && error.hint != nil)
        }
        await connection.close()
    }
}

extension FieldValue {
    /// A string field's text, for sets and comparisons in tests.
    var stringText: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
