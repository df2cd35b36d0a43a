import Foundation
import LibXML
import Testing

@testable import UniToolKit

@Suite("Recording: a page a bundled data platform describes is recognised by its own evidence")
struct DataPlatformMatchTests {
    let platforms = DataPlatformMatch.platforms(in: RecipeComposer.bundledPlatforms)

    func match(_ html: String, at address: String) throws -> DataPlatformMatch? {
        let document = try Document(html: Array(html.utf8), url: address)
        return DataPlatformMatch.best(document: document, url: URL(string: address)!, platforms: platforms)
    }

    /// A Koha OPAC's summary page, its checkouts panel holding `inner`.
    func kohaPage(_ inner: String) -> String {
        """
        <html><body id="opac-user"><h1>Hello, A. Student</h1>
        <div id="opac-user-checkouts"><form id="renewselected" action="/cgi-bin/koha/opac-renew.pl" method="post">
        \(inner)
        </form></div></body></html>
        """
    }

    @Test("the bundled HTML data platforms are read, with their listing's ids")
    func platformsRead() throws {
        let koha = try #require(platforms.first { $0.name == "koha/loans" })
        #expect(koha.command == "loans")
        #expect(koha.path == "cgi-bin/koha/opac-user.pl")
        #expect(koha.ids.map(\.id).contains("checkoutst"))
        #expect(platforms.contains { $0.name == "moodle/grades" })
        // JSON, iCalendar and feed platforms are not a recorded HTML page's.
        #expect(!platforms.contains { $0.name == "moodle/courses" || $0.name == "rss/news" })
    }

    @Test("a Koha page with nothing checked out, at the portal's own address: its empty state and ids")
    func emptyKoha() throws {
        let page = kohaPage(#"<div class="alert alert-info">You have nothing checked out.</div>"#)
        let found = try #require(try match(page, at: "https://portal.example.edu/campus/kashidashi"))
        #expect(found.platform == "koha/loans")
        #expect(found.rows == 0)
        #expect(found.confidence >= DataPlatformMatch.confident)
        #expect(found.reason.contains("empty state"))
        // At Koha's own address it is surer.
        let atKoha = try #require(try match(page, at: "https://opac.example.edu/cgi-bin/koha/opac-user.pl"))
        #expect(atKoha.confidence > found.confidence)
    }

    @Test("a Koha page with loans: the platform's rows find them, each with its required fields")
    func kohaWithLoans() throws {
        let rows = """
            <table id="checkoutst"><thead><tr><th>Title</th></tr></thead><tbody>
            <tr><td class="title"><a class="title" href="/b/1">Kokoro</a></td><td class="author">Soseki</td>
            <td class="date_due" data-order="2026-12-03 23:59">2026/12/03</td><td class="barcode">3123</td></tr>
            <tr><td class="title"><a class="title" href="/b/2">SICP</a></td><td class="author">Abelson</td>
            <td class="date_due" data-order="2026-12-08 23:59">2026/12/08</td><td class="barcode">3124</td></tr>
            </tbody></table>
            """
        let found = try #require(try match(kohaPage(rows), at: "https://portal.example.edu/library/loans"))
        #expect(found.platform == "koha/loans")
        #expect(found.rows == 2)
        #expect(found.confidence >= DataPlatformMatch.confident)
        // Its author column is the page's own; its title and barcode the platform's.
        #expect(found.addsColumn("td[@class='author']"))
        #expect(!found.addsColumn("td[@class='barcode']"))
        #expect(!found.addsColumn("td[2]"))
    }

    @Test("rows the platform finds without its required fields are no records of it")
    func disagreeingRows() throws {
        let rows = """
            <table id="checkoutst"><tbody><tr><td>Kokoro</td><td>2026/12/03</td></tr></tbody></table>
            """
        let found = try match(kohaPage(rows), at: "https://portal.example.edu/cgi-bin/koha/opac-user.pl")
        #expect(found?.platform != "koha/loans")
    }

    @Test("Moodle's grades overview")
    func moodleGrades() throws {
        let page = """
            <html><body id="page-grade-report-overview-index"><table id="overview-grade"><tbody>
            <tr><td class="cell c0"><a href="/course/user.php?id=3">Linear Algebra</a></td><td class="cell c1">85.00</td></tr>
            </tbody></table></body></html>
            """
        let found = try #require(try match(page, at: "https://lms.example.edu/grade/report/overview/index.php"))
        #expect(found.platform == "moodle/grades")
        #expect(found.rows == 1)
        #expect(found.confidence >= DataPlatformMatch.confident)
    }

    @Test("a page of no platform (a portal's own table) is no match; the product's ids alone are not confident")
    func noPlatform() throws {
        let page = """
            <html><body><table class="seiseki"><tbody><tr><td>Calculus</td><td>A</td></tr></tbody></table></body></html>
            """
        #expect(try match(page, at: "https://portal.example.edu/campus/seiseki") == nil)
        // Koha's form without its table or its empty state: some other page of the OPAC.
        let other = try match(kohaPage("<p>Your holds</p>"), at: "https://portal.example.edu/campus/holds")
        #expect((other?.confidence ?? 0) < DataPlatformMatch.confident)
    }
}
