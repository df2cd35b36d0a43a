import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// Issue 48: which element of a recorded page holds its records, and how its rows and cells are
/// read, on small pages laid out as foreign portals lay theirs out.
@Suite("Recording: a page's subject, its rows and its cells")
struct RecordedPageSubjectTests {
    static func draft(_ body: String, title: String = "Page", tablesOnly: Bool = false) throws -> DraftDataRecipe? {
        let html = "<!DOCTYPE html><html><head><title>\(title)</title></head><body>\(body)</body></html>"
        let document = try Document(html: html, url: "https://x.edu/page")
        return RecordedPage.htmlRecipe(
            document, command: "page", fetch: "/page", url: URL(string: "https://x.edu/page")!, contentType: nil, body: [],
            tablesOnly: tablesOnly)
    }

    @Test("menus, tabs, dropdowns and lone-link lists are not records; an empty-state page gives no command")
    func navigationIsNotData() throws {
        // A library's loans page with nothing checked out: its tabs are the only list.
        let tabs = """
            <div class="main"><h1>Hello, Jiro</h1><ul class="nav nav-tabs"><li><a href="#out">Checked out (0)</a></li>
            <li><a href="#holds">Holds (0)</a></li></ul><div class="alert">You have nothing checked out.</div></div>
            """
        #expect(try Self.draft(tabs) == nil)
        // A user menu (role=menu) and a home page's menu table of links.
        let menus = """
            <div class="usermenu"><ul role="menu"><li><a href="/profile">Profile</a></li><li><a href="/grades">Grades</a></li>
            <li><a href="/logout">Log out</a></li></ul></div>
            <table class="links"><tr><td><a href="/grades">Grades</a></td></tr><tr><td><a href="/loans">Loans</a></td></tr></table>
            """
        #expect(try Self.draft(menus) == nil)
        #expect(try Self.draft(menus, tablesOnly: true) == nil)
        // A terms page: its clauses are prose, not records.
        let terms = """
            <h1>Terms of use</h1><ol><li>Only students and staff of the university may use this system.</li>
            <li>Automated access must not overload the servers of the university.</li></ol>
            """
        #expect(try Self.draft(terms) == nil)
    }

    @Test("the records in the main region win over a bigger list elsewhere, and the others are named")
    func mainRegionWins() throws {
        let page = """
            <div class="sidebar-block"><ul><li>Mon 1 Dec: holiday</li><li>Tue 2 Dec: holiday</li><li>Wed 3 Dec: holiday</li>
            <li>Thu 4 Dec: holiday</li><li>Fri 5 Dec: holiday</li><li>Sat 6 Dec: holiday</li></ul></div>
            <main><h1>Loans</h1><table id="loans"><thead><tr><th>Title</th><th>Due</th></tr></thead>
            <tbody><tr><td>Dune</td><td>2026-12-01</td></tr><tr><td>Emma</td><td>2026-12-08</td></tr></tbody></table>
            <p>Library hours</p><ul><li>Mon: 9-17</li><li>Tue: 9-20</li><li>Wed: 9-17</li><li>Thu: 9-20</li><li>Fri: 9-17</li>
            <li>Sat: 10-14</li><li>Sun: closed</li></ul></main>
            """
        let draft = try #require(try Self.draft(page))
        #expect(draft.rows == "//table[@id='loans']/tbody/tr[td]", "\(draft.rows)")
        #expect(draft.alternatives.count == 1 && draft.alternatives[0].hasPrefix("the list "), "\(draft.alternatives)")
    }

    @Test("a course page's course blocks are its records, not the list of days without classes beside them")
    func blocksOverSidebarList() throws {
        // The demo university's /courses, as CampusPages.courses lays it out.
        func course(_ code: String, _ title: String, _ who: String) -> String {
            """
            <article class="course" id="course-\(code)"><h3><span class="code">\(code)</span> <span class="title">\(title)</span></h3>
            <p class="instructor">Instructor: \(who)</p><ul class="meetings"><li class="meeting"><span class="day">Mon</span></li>
            <li class="meeting"><span class="day">Wed</span></li></ul><p><a class="syllabus" href="/syllabus/\(code)">Syllabus</a></p></article>
            """
        }
        let page = """
            <header class="site-header"><nav><a href="/home">Home</a> <a href="/courses">Courses</a></nav></header>
            <main><h1>My courses</h1><p class="term">Term: 2026 fall</p><section id="timetable">
            \(course("MATH-301", "Probability", "Dr. A"))\(course("CS-210", "Operating Systems", "Dr. B"))
            \(course("HIST-110", "Modern History", "Dr. C"))</section>
            <section id="no-classes"><h2>No classes on</h2><ul><li>2 November <span class="reason">All Souls</span></li>
            <li>24 December <span class="reason">Christmas Eve</span></li><li>25 December <span class="reason">Christmas</span></li>
            <li>26 December <span class="reason">Boxing Day</span></li><li>31 December <span class="reason">New Year's Eve</span></li>
            </ul></section></main>
            """
        let draft = try #require(try Self.draft(page, title: "My courses"))
        #expect(draft.rows == "//section[@id='timetable']/article[@class='course']", "\(draft.rows)")
        let names = draft.fields.map(\.name)
        #expect(names.contains("code") && names.contains("title") && names.contains("instructor") && names.contains("link"), "\(names)")
        #expect(draft.fields.first { $0.name == "code" }?.key == true)
        #expect(draft.alternatives.contains { $0.contains("no-classes") || $0.hasPrefix("the list") }, "\(draft.alternatives)")
    }

    @Test("padding rows are left out by the class they share, else by having no words")
    func paddingRows() throws {
        let padding = (0..<5).map { _ in "<tr class=\"emptyrow\"><td class=\"c0\"></td><td class=\"c1\"></td></tr>" }.joined()
        let page = """
            <h1>Grades</h1><table id="overview"><thead><tr><th>Course</th><th>Grade</th></tr></thead><tbody>
            <tr class=""><td class="c0">Analysis</td><td class="c1">87.50</td></tr><tr class=""><td class="c0">Algebra</td><td class="c1">-</td></tr>
            \(padding)</tbody></table>
            """
        let draft = try #require(try Self.draft(page))
        #expect(
            draft.rows.hasSuffix("/tbody/tr[td][not(contains(concat(' ', normalize-space(@class), ' '), ' emptyrow '))]"), "\(draft.rows)")
        #expect(draft.reading.contains("2 rows"), "\(draft.reading)")
        // No class tells them apart: the rows with no words are left out by that.
        let plain = page.replacingOccurrences(of: "class=\"emptyrow\"", with: "")
        let other = try #require(try Self.draft(plain))
        #expect(other.rows.hasSuffix("/tbody/tr[td][normalize-space()]"), "\(other.rows)")
        #expect(other.emptyWhen?.hasSuffix("[not(tbody/tr[td][normalize-space()])]") == true, "\(other.emptyWhen ?? "")")
    }

    @Test("a table with a header and no rows in the recording still becomes a command, its fields from the header")
    func headerOnlyTable() throws {
        let page = """
            <main><h1>Loans</h1><table id="loans"><thead><tr><th>Title</th><th>Due date</th><th>Barcode</th></tr></thead>
            <tbody><tr><td colspan="3">No items checked out</td></tr></tbody></table></main>
            """
        let draft = try #require(try Self.draft(page))
        #expect(draft.fields.map(\.name) == ["title", "due_date", "barcode"], "\(draft.fields.map(\.name))")
        #expect(draft.fields.allSatisfy { $0.type == nil } && draft.fields[1].xpath == "td[2]")
        #expect(draft.rows == "//table[@id='loans']/tbody/tr[td][count(td) > 1]", "\(draft.rows)")
        #expect(draft.emptyWhen == "//table[@id='loans'][not(tbody/tr[td][count(td) > 1])]", "\(draft.emptyWhen ?? "")")
    }

    @Test("a cell that holds a control beside its data is read from the data's own element")
    func cellWithoutControl() throws {
        func row(_ n: Int, _ renew: String) -> String {
            "<tr><td class=\"title\"><a href=\"/b/\(n)\">Book \(n)</a></td><td class=\"renew\">\(renew) (<span class=\"renewals\">\(n) of 3</span> renewals used)</td></tr>"
        }
        let page = """
            <h1>Loans</h1><table id="loans"><thead><tr><th>Title</th><th>Renew</th></tr></thead><tbody>
            \(row(1, "<a class=\"btn\" href=\"/renew?i=1\">Renew</a>"))\(row(2, "<a class=\"btn\" href=\"/renew?i=2\">Renew</a>"))
            \(row(3, "<span class=\"disabled\">No renewals left</span>"))</tbody></table>
            """
        let draft = try #require(try Self.draft(page))
        let renew = try #require(draft.fields.first { $0.name == "renew" })
        #expect(renew.xpath == "td[@class='renew']//span[@class='renewals']", "\(renew.xpath)")
        #expect(draft.fields.first { $0.name == "title" }?.xpath == "td[@class='title']", "a cell that is one link is that link")
    }

    @Test("grades: a vocabulary or a type only when it accepts every recorded value")
    func gradesStayText() {
        func field(_ values: [String], header: String) -> DraftDataRecipe.Field {
            RecordedPage.typed(DraftDataRecipe.Field(name: "x", xpath: "td[1]"), values: values, header: header)
        }
        let japanese = field(["秀", "優", "S", "履修中"], header: "評価")
        #expect(japanese.regex == nil && japanese.type == nil && japanese.guesses[0].contains("'S'"), "\(japanese.guesses)")
        let moodle = field(["87.50", "72.00", "-", "91.25"], header: "評点")
        #expect(moodle.type == nil && moodle.regex == nil, "one student's numbers would empty another's 'B+'")
        let letters = field(["A", "B+", "C"], header: "Grade")
        #expect(letters.regex == RecordedPage.gradePattern)
        #expect(field(["4", "5", "3"], header: "Credits").type == "integer")
    }
}
