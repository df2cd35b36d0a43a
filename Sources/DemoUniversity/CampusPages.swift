import Foundation

/// The campus pages behind the courses, loans, news and library-calendar recipes. Each one is
/// laid out the way real campus systems lay theirs out, quirks included: a timetable with
/// nested meetings, paginated lists, local date formats, a PDF link hidden in a button's script.
enum CampusPages {
    static func courses(user: DemoUser, courses: [DemoCourse], calendar: DemoTermCalendar) -> String {
        let items = courses.map { course in
            let meetings = course.meetings.map { meeting in
                """
                          <li class="meeting"><span class="day">\(meeting.day)</span> <span class="period">\(meeting.period). period</span>
                            <span class="time">\(meeting.time)</span> <span class="room">\(HTML.escape(meeting.room))</span></li>
                """
            }.joined(separator: "\n")
            return """
                    <article class="course" id="course-\(course.code)">
                      <h3><span class="code">\(course.code)</span> <span class="title">\(HTML.escape(course.title))</span></h3>
                      <p class="instructor">Instructor: \(HTML.escape(course.instructor))</p>
                      <ul class="meetings">
                \(meetings)
                      </ul>
                      <p><a class="syllabus" href="/syllabus/\(course.code)">Syllabus</a></p>
                    </article>
                """
        }.joined(separator: "\n")
        let body =
            courses.isEmpty
            ? "<p class=\"no-courses\">You are not registered for any course this term.</p>"
            : "<section id=\"timetable\">\n\(items)\n</section>"
        return HTML.page(
            title: "My courses",
            body: """
                  <h1>My courses</h1>
                  <p class="term">Term: <strong>\(DemoData.currentTerm)</strong>, classes from \(time(calendar.start, "term-start")) to \(time(calendar.end, "term-end"))</p>
                \(body)
                  <section id="no-classes">
                    <h2>No classes on</h2>
                    <ul>
                \(calendar.noClasses.map { "      <li>\(time($0.day, "day")) <span class=\"reason\">\($0.reason)</span></li>" }.joined(separator: "\n"))
                    </ul>
                  </section>
                """, signedIn: user.displayName)
    }

    /// `<time class="term-start" datetime="2026-09-07">7 September 2026</time>`.
    private static func time(_ day: Int, _ kind: String) -> String {
        "<time class=\"\(kind)\" datetime=\"\(DemoTermCalendar.iso(day))\">\(DemoTermCalendar.text(day))</time>"
    }

    /// The exam list: Hungarian dates (`2026. 12. 21.`), a time span, and an exam whose date is
    /// not announced yet, shown with empty cells as such lists do.
    static func exams(user: DemoUser, exams: [DemoExam], calendar: DemoTermCalendar) -> String {
        let rows = exams.map { exam in
            let date = calendar.day(of: exam).map { DemoTermCalendar.text($0, format: "yyyy. MM. dd.") } ?? ""
            return """
                        <tr>
                          <td class="course">\(HTML.escape(exam.course))</td>
                          <td class="code">\(exam.code)</td>
                          <td class="kind">\(HTML.escape(exam.kind))</td>
                          <td class="date">\(date)</td>
                          <td class="time">\(exam.time)</td>
                          <td class="room">\(HTML.escape(exam.room))</td>
                        </tr>
                """
        }.joined(separator: "\n")
        let body =
            exams.isEmpty
            ? "<p class=\"no-exams\">You have no exams this term.</p>"
            : """
              <table id="exams" class="data">
                <thead><tr><th>Course</th><th>Code</th><th>Exam</th><th>Date</th><th>Time</th><th>Room</th></tr></thead>
                <tbody>
            \(rows)
                </tbody>
              </table>
            """
        return HTML.page(title: "My exams", body: "<h1>My exams</h1>\n\(body)", signedIn: user.displayName)
    }

    /// One page of the loans table, `dd/MM/yyyy` dates, with a "Next" link while there are more.
    static func loans(user: DemoUser, rows: [(loan: DemoLoan, due: String, renewalsLeft: Int)], page: Int, pages: Int) -> String {
        let body: String
        if rows.isEmpty {
            body = "<p class=\"no-loans\">You have no loans.</p>"
        } else {
            let lines = rows.map { row in
                """
                        <tr>
                          <td class="title"><cite>\(HTML.escape(row.loan.title))</cite></td>
                          <td class="author">\(HTML.escape(row.loan.author))</td>
                          <td class="barcode">\(row.loan.barcode)</td>
                          <td class="due">\(row.due)</td>
                          <td class="renewals">\(row.renewalsLeft) of 3</td>
                          <td><a class="renew" href="/library/renew?barcode=\(row.loan.barcode)">Renew</a></td>
                        </tr>
                """
            }.joined(separator: "\n")
            let next = page < pages ? "<a rel=\"next\" class=\"next\" href=\"/library/loans?page=\(page + 1)\">Next ›</a>" : ""
            let previous = page > 1 ? "<a rel=\"prev\" href=\"/library/loans?page=\(page - 1)\">‹ Previous</a>" : ""
            body = """
                  <table id="loans" class="data">
                    <thead><tr><th>Title</th><th>Author</th><th>Barcode</th><th>Due</th><th>Renewals left</th><th></th></tr></thead>
                    <tbody>
                \(lines)
                    </tbody>
                  </table>
                  <nav class="pager">\(previous) <span>Page \(page) of \(pages)</span> \(next)</nav>
                """
        }
        return HTML.page(title: "My loans", body: "<h1>My loans</h1>\n\(body)", signedIn: user.displayName)
    }

    static func renewForm(user: DemoUser, loan: DemoLoan, due: String, csrf: String) -> String {
        HTML.page(
            title: "Renew",
            body: """
                  <h1>Renew a loan</h1>
                  <p>Renew <cite>\(HTML.escape(loan.title))</cite> (due \(due))?</p>
                  <form id="renew" method="post" action="/library/renew">
                    <input type="hidden" name="barcode" value="\(loan.barcode)">
                    <input type="hidden" name="csrf" value="\(csrf)">
                    <button type="submit" name="confirm" value="yes">Renew</button>
                    <button type="submit" name="cancel" value="yes">Cancel</button>
                  </form>
                """, signedIn: user.displayName)
    }

    static func renewResult(
        user: DemoUser, loan: DemoLoan?, barcode: String, newDue: String?, renewalsLeft: Int? = nil, refusal: String?
    ) -> String {
        let message: String
        if let refusal {
            message = "<p class=\"renew-refused\">\(HTML.escape(refusal))</p>"
        } else {
            message = """
                <p class="renew-ok">Renewed <cite>\(HTML.escape(loan?.title ?? barcode))</cite>.
                  New due date: <strong class="new-due">\(newDue ?? "")</strong>\(renewalsLeft.map { "; <span class=\"renewals-left\">\($0) of 3</span> renewals left" } ?? "").</p>
                """
        }
        return HTML.page(
            title: "Renew", body: "<h1>Renew a loan</h1>\n\(message)\n<p><a href=\"/library/loans\">Back to my loans</a></p>",
            signedIn: user.displayName)
    }

    /// The library's page: its opening hours as a PDF behind a button whose script opens it.
    static func library(user: DemoUser) -> String {
        HTML.page(
            title: "Library",
            body: """
                  <h1>University Library</h1>
                  <section class="hours">
                    <h2>Opening hours</h2>
                    <p>Term \(DemoData.currentTerm): Monday to Friday 8:00–22:00, Saturday 9:00–17:00.</p>
                    <button type="button" class="btn btn-download" data-term="\(DemoData.currentTerm)"
                      onclick="window.open('\(DemoData.openingHoursPath)', '_blank')">Opening hours calendar (PDF)</button>
                  </section>
                  <p><a href="/library/loans">My loans</a></p>
                """, signedIn: user.displayName)
    }

    /// A minimal valid PDF, so that the link leads somewhere real.
    static let openingHoursPDF = """
        %PDF-1.4
        1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
        2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
        3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj
        trailer << /Root 1 0 R >>
        %%EOF

        """

    /// One page of the news list. Dates as Hungarian portals print them: `2026.11.20. 09:00`.
    static func newsList(user: DemoUser, items: [DemoNews], page: Int, pages: Int) -> String {
        let entries = items.map { item in
            """
                    <li class="news-item">
                      <a class="headline" href="/news/\(item.id)">\(HTML.escape(item.title))</a>
                      <span class="meta"><span class="category">\(HTML.escape(item.category))</span> · <span class="published">\(campusDate(item.published))</span></span>
                      <p class="teaser">\(HTML.escape(item.summary))</p>
                    </li>
            """
        }.joined(separator: "\n")
        let next = page < pages ? "<a rel=\"next\" href=\"/news?page=\(page + 1)\">Older news</a>" : ""
        return HTML.page(
            title: "News",
            body: """
                  <h1>News</h1>
                  <p><a href="/news/feed.rss">RSS</a> · <a href="/news/feed.atom">Atom</a></p>
                  <ul id="news">
                \(entries)
                  </ul>
                  <nav class="pager">\(next)</nav>
                """, signedIn: user.displayName)
    }

    static func newsItem(_ item: DemoNews) -> String {
        HTML.page(title: item.title, body: "<h1>\(HTML.escape(item.title))</h1>\n<p>\(HTML.escape(item.summary))</p>")
    }

    /// RSS 2.0, dates in RFC 822 as RSS requires.
    static func rss(base: String, items: [DemoNews]) -> String {
        let entries = items.map { item in
            """
                <item>
                  <title>\(HTML.escape(item.title))</title>
                  <link>\(base)/news/\(item.id)</link>
                  <guid isPermaLink="false">demo-news-\(item.id)</guid>
                  <pubDate>\(rfc822(item.published))</pubDate>
                  <category>\(HTML.escape(item.category))</category>
                  <description>\(HTML.escape(item.summary))</description>
                </item>
            """
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
              <channel>
                <title>Demo University – News</title>
                <link>\(base)/news</link>
                <atom:link href="\(base)/news/feed.rss" rel="self" type="application/rss+xml"/>
                <description>News from Demo University</description>
            \(entries)
              </channel>
            </rss>

            """
    }

    /// Atom 1.0, in its namespace, dates in RFC 3339.
    static func atom(base: String, items: [DemoNews]) -> String {
        let entries = items.map { item in
            """
              <entry>
                <title>\(HTML.escape(item.title))</title>
                <link rel="alternate" href="\(base)/news/\(item.id)"/>
                <id>urn:demo-university:news:\(item.id)</id>
                <updated>\(item.published)</updated>
                <category term="\(HTML.escape(item.category))"/>
                <summary>\(HTML.escape(item.summary))</summary>
              </entry>
            """
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom">
              <title>Demo University – News</title>
              <id>urn:demo-university:news</id>
              <updated>\(items.first?.published ?? "2026-09-01T00:00:00Z")</updated>
              <link rel="self" href="\(base)/news/feed.atom"/>
            \(entries)
            </feed>

            """
    }

    private static func parseISO(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXXXXX"
        return formatter.date(from: text)!
    }

    /// `2026.11.20. 09:00`, campus time.
    static func campusDate(_ iso: String) -> String { DemoData.campusText(parseISO(iso), format: "yyyy.MM.dd. HH:mm") }

    static func rfc822(_ iso: String) -> String { DemoData.campusText(parseISO(iso), format: "EEE, dd MMM yyyy HH:mm:ss Z") }

    /// `dd/MM/yyyy` for a date some days from today, campus time.
    static func dueDate(inDays days: Int, from now: Date = Date()) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = DemoData.campusTimeZone
        let date = calendar.date(byAdding: .day, value: days, to: now)!
        return DemoData.campusText(date, format: "dd/MM/yyyy")
    }
}
