import Foundation

/// The pages behind the attendance, syllabus, menu, co-op hours, library request and links
/// recipes, with the quirks of the Japanese portals they stand for: labels in two languages,
/// dates as `2026/11/24 (火)`, a summary row under a table, placeholders (`—`) in empty cells.
enum StudentLifePages {
    static let weekdayKanji = ["月", "火", "水", "木", "金", "土", "日"]

    /// `2026/11/24 (火)`: a day (days since 1970-01-01) as Japanese portals print it.
    static func japaneseDate(_ day: Int) -> String {
        // 1970-01-01 was a Thursday, index 3 from Monday.
        "\(DemoTermCalendar.text(day, format: "yyyy/MM/dd")) (\(weekdayKanji[((day + 3) % 7 + 7) % 7]))"
    }

    // MARK: Attendance

    static func attendance(
        user: DemoUser, courses: [(course: DemoCourse, marks: [Character], extraAbsences: [Int])], calendar: DemoTermCalendar
    ) -> String {
        let sections = courses.map { entry in
            let days = DemoStudentLife.classDays(of: entry.course, count: entry.marks.count, calendar: calendar)
            var rows = zip(days, entry.marks).map { ($0, $1) }
            rows += entry.extraAbsences.map { ($0, Character("A")) }
            let summary = DemoStudentLife.summary(rows.map(\.1))
            let lines = rows.enumerated().map { index, row in
                let (status, label) =
                    switch row.1 {
                    case "A": ("absent", "欠席 Absent")
                    case "L": ("late", "遅刻 Late")
                    default: ("present", "出席 Present")
                    }
                return "          <tr><td>\(index + 1)</td><td>\(japaneseDate(row.0))</td><td class=\"status \(status)\">\(label)</td></tr>"
            }.joined(separator: "\n")
            return """
                    <section class="attendance-course" id="attendance-\(entry.course.code)">
                      <h2><span class="code">\(entry.course.code)</span> <span class="title">\(HTML.escape(entry.course.title))</span></h2>
                      <table class="attendance">
                        <thead><tr><th>回 No.</th><th>日付 Date</th><th>出欠 Status</th></tr></thead>
                        <tbody>
                \(lines)
                        </tbody>
                        <tfoot>
                          <tr class="summary"><td colspan="3">出席 Attended <span class="attended">\(summary.attended)</span> ／ 欠席 Absent <span class="absent">\(summary.absent)</span> ／ 遅刻 Late <span class="late">\(summary.late)</span> ／ 残り欠席可能回数 Absences left <span class="left">\(summary.left)</span> / <span class="allowed">\(DemoStudentLife.allowedAbsences)</span></td></tr>
                        </tfoot>
                      </table>
                    </section>
                """
        }.joined(separator: "\n")
        let body =
            courses.isEmpty
            ? "<p class=\"no-attendance\">出欠の記録はありません。 No attendance has been recorded this term.</p>"
            : sections
        return HTML.page(
            title: "出欠状況 Attendance",
            body: """
                  <h1>出欠状況 Attendance</h1>
                  <p class="rule">欠席が\(DemoStudentLife.allowedAbsences)回を超えると単位を認定しません。遅刻\(DemoStudentLife.latesPerAbsence)回で欠席1回とします。
                  More than \(DemoStudentLife.allowedAbsences) absences fail a course; \(DemoStudentLife.latesPerAbsence) late arrivals count as one absence.</p>
                \(body)
                """, signedIn: user.displayName)
    }

    // MARK: Syllabus

    /// A label in the page's language: `単位数` or `Credits`.
    private static func label(_ japanese: String, _ english: String, _ lang: String) -> String { lang == "ja" ? japanese : english }

    static func syllabusSearch(query: String, results: [DemoStudentLife.Syllabus], lang: String) -> String {
        let rows = results.map { syllabus in
            """
                      <tr>
                        <td class="code">\(syllabus.code)</td>
                        <td class="title"><a href="/syllabus/\(syllabus.code)?lang=\(lang)">\(HTML.escape(lang == "ja" ? syllabus.titleJapanese : syllabus.titleEnglish))</a></td>
                        <td class="instructor">\(HTML.escape(syllabus.instructor))</td>
                        <td class="credits">\(syllabus.credits)</td>
                        <td class="schedule">\(HTML.escape(lang == "ja" ? syllabus.scheduleJapanese : syllabus.scheduleEnglish))</td>
                      </tr>
            """
        }.joined(separator: "\n")
        let results =
            query.isEmpty
            ? ""
            : results.isEmpty
                ? "<p class=\"no-results\">\(label("該当する科目はありません。", "No course matches", lang)) “\(HTML.escape(query))”.</p>"
                : """
                  <table id="results" class="data">
                    <thead><tr><th>\(label("科目コード", "Code", lang))</th><th>\(label("科目名", "Course title", lang))</th><th>\(label("担当教員", "Instructor", lang))</th><th>\(label("単位数", "Credits", lang))</th><th>\(label("開講時期", "Schedule", lang))</th></tr></thead>
                    <tbody>
                \(rows)
                    </tbody>
                  </table>
                """
        return HTML.page(
            title: label("シラバス検索", "Syllabus search", lang),
            body: """
                  <h1>\(label("シラバス検索", "Syllabus search", lang))</h1>
                  <form id="syllabus-search" method="get" action="/syllabus">
                    <label for="q">\(label("キーワード", "Keywords", lang))</label> <input type="text" id="q" name="q" value="\(HTML.escape(query))">
                    <select name="lang"><option value="ja"\(lang == "ja" ? " selected" : "")>日本語</option><option value="en"\(lang == "en" ? " selected" : "")>English</option></select>
                    <button type="submit">\(label("検索", "Search", lang))</button>
                  </form>
                \(results)
                """)
    }

    static func syllabus(_ syllabus: DemoStudentLife.Syllabus, lang: String) -> String {
        let ja = lang == "ja"
        let rows: [(String, String, String, String)] = [
            ("科目コード", "Course code", "code", syllabus.code),
            ("科目名", "Course title", "title", ja ? syllabus.titleJapanese : syllabus.titleEnglish),
            ("担当教員", "Instructor", "instructor", syllabus.instructor),
            ("単位数", "Credits", "credits", String(syllabus.credits)),
            ("開講時期", "Schedule", "schedule", ja ? syllabus.scheduleJapanese : syllabus.scheduleEnglish),
            ("成績評価", "Grading", "grading", ja ? syllabus.gradingJapanese : syllabus.gradingEnglish),
            ("教科書", "Textbooks", "textbooks", syllabus.textbooks),
        ]
        // Real syllabus systems name rows by their label only: no class on the cells.
        let lines = rows.map { "      <tr><th>\(ja ? $0.0 : $0.1)</th><td>\(HTML.escape($0.3))</td></tr>" }.joined(separator: "\n")
        let other =
            ja ? "<a href=\"/syllabus/\(syllabus.code)?lang=en\">English</a>" : "<a href=\"/syllabus/\(syllabus.code)?lang=ja\">日本語</a>"
        return HTML.page(
            title: "\(label("シラバス", "Syllabus", lang)) \(syllabus.code)",
            body: """
                  <h1>\(label("シラバス", "Syllabus", lang)): \(HTML.escape(ja ? syllabus.titleJapanese : syllabus.titleEnglish))</h1>
                  <p class="languages">\(other)</p>
                  <table id="syllabus" class="detail">
                \(lines)
                  </table>
                """)
    }

    // MARK: Dining

    static func dining(mondayThisWeek: Int, nextWeek: String) -> String {
        let sections = DemoStudentLife.cafeterias.map { cafeteria in
            let rows = cafeteria.dishes.map { dish in
                """
                          <tr><td class="date">\(japaneseDate(mondayThisWeek + dish.weekday))</td><td class="category">\(HTML.escape(dish.category))</td><td class="dish">\(HTML.escape(dish.name))</td><td class="price">¥\(dish.price)</td></tr>
                """
            }.joined(separator: "\n")
            return """
                    <section class="cafeteria" id="cafeteria-\(cafeteria.id)">
                      <h2>\(HTML.escape(cafeteria.name))</h2>
                      <p class="hours">営業時間 Hours: \(cafeteria.hours)（土日祝休み Closed on weekends and holidays）</p>
                      <table class="menu">
                        <thead><tr><th>日付 Date</th><th>区分 Category</th><th>メニュー Dish</th><th>価格 Price</th></tr></thead>
                        <tbody>
                \(rows)
                        </tbody>
                      </table>
                      <p><a class="menu-pdf" data-week="\(nextWeek)" href="\(DemoStudentLife.menuPDFPath(cafeteria: cafeteria.id, week: nextWeek))">来週の献立 Next week's menu (PDF)</a></p>
                    </section>
                """
        }.joined(separator: "\n")
        return HTML.page(
            title: "食堂メニュー Dining menu",
            body: """
                  <h1>今週の食堂メニュー This week's menu</h1>
                  <p class="week">\(japaneseDate(mondayThisWeek)) – \(japaneseDate(mondayThisWeek + 4))</p>
                \(sections)
                """)
    }

    /// A one-page PDF with the week's dishes as text, so that the link leads to a real menu.
    static func menuPDF(cafeteria: DemoStudentLife.Cafeteria, week: String) -> String {
        let lines =
            ["\(cafeteria.id) \(week)"] + cafeteria.dishes.map { "\(["Mon", "Tue", "Wed", "Thu", "Fri"][$0.weekday]) \($0.price) yen" }
        let text = lines.enumerated().map { "BT /F1 11 Tf 50 \(800 - $0.offset * 14) Td (\($0.element)) Tj ET" }.joined(separator: "\n")
        return """
            %PDF-1.4
            1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
            2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
            3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj
            4 0 obj << /Length \(text.utf8.count) >> stream
            \(text)
            endstream endobj
            5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
            trailer << /Root 1 0 R >>
            %%EOF

            """
    }

    // MARK: Co-op

    static func coopHours(mondayThisWeek: Int) -> String {
        let sections = DemoStudentLife.stores.map { store in
            let rows = store.periods.map { period in
                let from = japaneseDate(mondayThisWeek + period.from)
                let until = japaneseDate(mondayThisWeek + period.until)
                let open = period.weekdays != nil
                let cells =
                    open
                    ? "<td class=\"status\">営業</td><td class=\"weekdays\">\(period.weekdays!)</td><td class=\"saturday\">\(period.saturday ?? "—")</td><td class=\"sunday\">\(period.sunday ?? "—")</td>"
                    : "<td class=\"status\">休業</td><td class=\"weekdays\">—</td><td class=\"saturday\">—</td><td class=\"sunday\">—</td>"
                return
                    "          <tr\(open ? "" : " class=\"closed\"")><td class=\"from\">\(from)</td><td class=\"until\">\(until)</td>\(cells)<td class=\"note\">\(HTML.escape(period.note))</td></tr>"
            }.joined(separator: "\n")
            return """
                    <section class="store">
                      <h2>\(HTML.escape(store.name))</h2>
                      <table class="hours">
                        <thead><tr><th>開始 From</th><th>終了 Until</th><th>営業 Open</th><th>平日 Weekdays</th><th>土曜 Saturday</th><th>日祝 Sundays and holidays</th><th>備考 Note</th></tr></thead>
                        <tbody>
                \(rows)
                        </tbody>
                      </table>
                    </section>
                """
        }.joined(separator: "\n")
        return HTML.page(
            title: "生協営業時間 Co-op hours",
            body: """
                  <h1>生協営業時間 Co-op opening hours</h1>
                  <p>「—」は休業です。 A dash means closed.</p>
                \(sections)
                """)
    }

    // MARK: Library purchase requests

    static func purchaseRequests(user: DemoUser, requests: [DemoPurchaseRequest]) -> String {
        let rows = requests.map { request in
            """
                      <tr><td class="number">\(HTML.escape(request.number))</td><td class="date">\(request.date)</td><td class="title">\(HTML.escape(request.title))</td><td class="author">\(HTML.escape(request.author))</td><td class="isbn">\(HTML.escape(request.isbn))</td><td class="status">\(HTML.escape(request.status))</td></tr>
            """
        }.joined(separator: "\n")
        let body =
            requests.isEmpty
            ? "<p class=\"no-requests\">購入リクエストはありません。 You have not asked for any book.</p>"
            : """
              <table id="purchase-requests" class="data">
                <thead><tr><th>受付番号 No.</th><th>依頼日 Requested</th><th>書名 Title</th><th>著者 Author</th><th>ISBN</th><th>状態 Status</th></tr></thead>
                <tbody>
            \(rows)
                </tbody>
              </table>
            """
        return HTML.page(
            title: "購入リクエスト Purchase requests",
            body: """
                  <h1>購入リクエスト Purchase requests</h1>
                  <p><a href="/library/request">新しいリクエスト New request</a></p>
                \(body)
                """, signedIn: user.displayName)
    }

    /// The request form: its fields, what was typed when the library sends it back, and its
    /// objections as a list above the form.
    static func requestForm(user: DemoUser, csrf: String, values: [String: String] = [:], errors: [String] = []) -> String {
        func field(_ name: String, _ label: String, required: Bool = false, area: Bool = false) -> String {
            let value = HTML.escape(values[name] ?? "")
            let input =
                area
                ? "<textarea id=\"\(name)\" name=\"\(name)\" rows=\"3\">\(value)</textarea>"
                : "<input type=\"text\" id=\"\(name)\" name=\"\(name)\" value=\"\(value)\"\(required ? " required" : "")>"
            return "      <p><label for=\"\(name)\">\(label)\(required ? " <span class=\"required\">*</span>" : "")</label> \(input)</p>"
        }
        let objections =
            errors.isEmpty
            ? "" : "<ul class=\"form-errors\">\n" + errors.map { "  <li>\(HTML.escape($0))</li>" }.joined(separator: "\n") + "\n</ul>"
        return HTML.page(
            title: "購入リクエスト Purchase request",
            body: """
                  <h1>購入リクエスト Purchase request</h1>
                  <ol class="steps"><li class="current">入力 Enter</li><li>確認 Confirm</li><li>完了 Done</li></ol>
                \(objections)
                  <form id="purchase-request" method="post" action="/library/request">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                \(field("title", "書名 Title", required: true))
                \(field("author", "著者 Author"))
                \(field("isbn", "ISBN"))
                \(field("reason", "理由 Reason", area: true))
                    <button type="submit" name="confirm" value="1">確認 Confirm</button>
                  </form>
                """, signedIn: user.displayName)
    }

    /// The library's "is this right?" page: what it received, carried in hidden fields, and the
    /// button that sends it.
    static func requestConfirm(user: DemoUser, csrf: String, values: [String: String]) -> String {
        let names = ["title", "author", "isbn", "reason"]
        let labels = ["書名 Title", "著者 Author", "ISBN", "理由 Reason"]
        let shown = zip(names, labels).map { "      <dt>\($1)</dt><dd class=\"\($0)\">\(HTML.escape(values[$0] ?? ""))</dd>" }
            .joined(separator: "\n")
        let hidden = names.map { "      <input type=\"hidden\" name=\"\($0)\" value=\"\(HTML.escape(values[$0] ?? ""))\">" }
            .joined(separator: "\n")
        return HTML.page(
            title: "確認 Confirm your request",
            body: """
                  <h1>購入リクエスト Purchase request</h1>
                  <ol class="steps"><li>入力 Enter</li><li class="current">確認 Confirm</li><li>完了 Done</li></ol>
                  <p>以下の内容で送信します。 Please check your request.</p>
                  <dl class="request">
                \(shown)
                  </dl>
                  <form id="purchase-confirm" method="post" action="/library/request/send">
                    <input type="hidden" name="csrf_token" value="\(csrf)">
                \(hidden)
                    <button type="submit" name="back" value="1">戻る Back</button>
                    <button type="submit" name="send" value="1">送信 Send</button>
                  </form>
                """, signedIn: user.displayName)
    }

    static func requestDone(user: DemoUser, request: DemoPurchaseRequest) -> String {
        HTML.page(
            title: "完了 Request received",
            body: """
                  <h1>購入リクエスト Purchase request</h1>
                  <ol class="steps"><li>入力 Enter</li><li>確認 Confirm</li><li class="current">完了 Done</li></ol>
                  <p class="request-done">受け付けました。受付番号 Request number: <strong class="request-number">\(HTML.escape(request.number))</strong></p>
                  <dl class="request"><dt>書名 Title</dt><dd class="title">\(HTML.escape(request.title))</dd></dl>
                  <p><a href="/library/requests">購入リクエスト一覧 Your requests</a></p>
                """, signedIn: user.displayName)
    }

    // MARK: Study support

    static func studySupport() -> String {
        let rows = DemoStudentLife.tutoring.map { slot in
            "          <tr><td class=\"day\">\(weekdayKanji[slot.day])</td><td class=\"time\">\(slot.time)</td><td class=\"subject\">\(HTML.escape(slot.subject))</td><td class=\"tutor\">\(HTML.escape(slot.tutor))</td><td class=\"room\">\(slot.room)</td></tr>"
        }.joined(separator: "\n")
        return HTML.page(
            title: "学修支援室 Study support room",
            body: """
                  <h1>学修支援室の時間割 Study support room timetable</h1>
                  <p>予約不要です。 No booking needed: come to the room during its hours.</p>
                  <table id="tutoring" class="data">
                    <thead><tr><th>曜日 Day</th><th>時間 Time</th><th>科目 Subject</th><th>担当 Tutor</th><th>場所 Room</th></tr></thead>
                    <tbody>
                \(rows)
                    </tbody>
                  </table>
                """)
    }

    // MARK: Links

    static func links(user: DemoUser) -> String {
        let sections = DemoStudentLife.links.map { section in
            let items = section.items.map { "        <li><a href=\"\(HTML.escape($0.url))\">\(HTML.escape($0.title))</a></li>" }
                .joined(separator: "\n")
            return """
                      <section>
                        <h2>\(HTML.escape(section.section))</h2>
                        <ul>
                \(items)
                        </ul>
                      </section>
                """
        }.joined(separator: "\n")
        return HTML.page(
            title: "リンク集 Links",
            body: """
                  <h1>リンク集 Links</h1>
                  <nav id="portal-menu">
                \(sections)
                  </nav>
                """, signedIn: user.displayName)
    }
}
