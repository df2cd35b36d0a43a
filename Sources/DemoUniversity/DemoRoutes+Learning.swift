import Foundation
import HTTPTypes
import Hummingbird
import MessageDigest
import NIOCore

/// The demo's learning platform, shaped as Moodle serves these things (structure after Moodle
/// 4.x: `lib/ajax/service.php`, `M.cfg.sesskey`, the calendar export), and a library catalogue
/// searched by a form POST. Not Moodle's code or text: the demo's own pages with that structure,
/// so that JSON, iCalendar and POST sources are tested against the shapes real portals have.
extension DemoRoutes {
    func registerLearning(on router: Router<BasicRequestContext>) {
        // The dashboard: the session key the AJAX endpoint wants sits in a script, as M.cfg does.
        router.get("/lms/my/") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(
                    HTML.page(
                        title: "Dashboard",
                        body: """
                              <script>var M = {}; M.cfg = {"wwwroot":"/lms","sesskey":"\(Self.sessionKey(user))","themerev":"1"};</script>
                              <h1>Dashboard</h1>
                              <section id="course-overview" data-region="courses-view"><p>Loading your courses…</p></section>
                              \(Self.courseOverviewScript)
                            """, signedIn: user.displayName))
            }
        }
        // The course overview's AJAX call: a JSON array of calls in, a JSON array of answers out.
        router.post("/lms/lib/ajax/service.php") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 16)
            let query = FormDecoding.dictionary(request.uri.query)
            return try await self.withUser(request, context) { user in
                guard query["sesskey"] == Self.sessionKey(user) else {
                    return Self.json(
                        #"[{"error":true,"exception":{"message":"Your session has most likely timed out. Please log in again.","errorcode":"invalidsesskey"}}]"#
                    )
                }
                let calls = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [[String: Any]] ?? []
                guard let call = calls.first, call["methodname"] as? String == "core_course_get_enrolled_courses_by_timeline_classification"
                else {
                    return Self.json(
                        #"[{"error":true,"exception":{"message":"Can't find data record in database table external_functions.","errorcode":"invalidrecord"}}]"#
                    )
                }
                let classification = (call["args"] as? [String: Any])?["classification"] as? String ?? "all"
                let courses = (DemoData.courses[user.username] ?? []).enumerated().map { index, course -> String in
                    // Every fourth of five courses tracks no completion: Moodle then says progress 0
                    // with hasprogress false (course_summary_exporter), which is no progress at all.
                    let tracked = index % 5 != 3
                    let progress = tracked ? [72, 45, 90, 10, 60][index % 5] : 0
                    let object: [String: Any] = [
                        "id": 100 + index, "fullname": course.title, "shortname": course.code, "idnumber": course.code,
                        "summary": "<p>Taught by <strong>\(course.instructor)</strong>. Weekly&nbsp;sessions.</p>",
                        "viewurl": "/lms/course/view.php?id=\(100 + index)", "progress": progress, "hasprogress": tracked,
                        "isfavourite": index == 0,
                        "hidden": false,
                    ]
                    return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
                }
                let chosen = classification == "past" ? [] : courses
                return Self.json(
                    #"[{"error":false,"data":{"courses":["# + chosen.joined(separator: ",") + #"],"nextoffset":\#(chosen.count)}}]"#)
            }
        }
        // The grades overview: each course's total, as Moodle's overview report shows it.
        router.get("/lms/grade/report/overview/index.php") { request, context in
            try await self.withUser(request, context) { user in
                let grades = user.grades[DemoData.currentTerm] ?? []
                let rows = grades.enumerated().map { index, grade in
                    """
                        <tr class=""><td class="cell c0"><a href="/lms/grade/report/user/index.php?id=\(100 + index)&amp;userid=7">\(HTML.escape(grade.course))</a></td><td class="cell c1 lastcol">\(grade.grade.map(HTML.escape) ?? "-")</td></tr>
                    """
                }.joined(separator: "\n")
                // Moodle 4.1/4.5: with no course to show, fill_table prints a notice and no table at all.
                let report =
                    grades.isEmpty
                    ? """
                    <div class="alert alert-info alert-block fade in  alert-dismissible" role="alert" data-aria-autofocus="true">No course has grades for you yet.</div>
                    """
                    : """
                    <h3>Your courses as a student</h3>
                    <table class="generaltable boxaligncenter" id="overview-grade">
                      <thead><tr><th class="header c0" scope="col">Course name</th><th class="header c1 lastcol" scope="col">Grade</th></tr></thead>
                      <tbody>
                    \(rows)
                        <tr class="emptyrow"><td class="cell c0"></td><td class="cell c1 lastcol"></td></tr>
                      </tbody>
                    </table>
                    """
                return Self.html(
                    """
                    <!DOCTYPE html>
                    <!-- Structure after Moodle 4.1/4.5's grades overview report (grade/report/overview); demo text. -->
                    <html lang="en"><head><meta charset="utf-8"><title>Grades | Demo Moodle</title></head>
                    <body id="page-grade-report-overview-index" class="path-grade-report-overview">
                      <div id="page" class="container-fluid"><div role="main">
                        \(report)
                      </div></div>
                      <a id="logout" href="/logout">Log out</a>
                    </body></html>
                    """)
            }
        }
        // The calendar export's page (Moodle's calendar/export.php): a form whose "Get calendar
        // URL" answer shows the user's own export address, which a recipe reads and fetches.
        router.get("/lms/calendar/export.php") { request, context in
            try await self.withUser(request, context) { user in
                let course = FormDecoding.dictionary(request.uri.query)["course"] ?? "1"
                return Self.html(Self.calendarExportPage(user: user, course: course, shownAddress: nil))
            }
        }
        router.post("/lms/calendar/export.php") { request, context in
            var request = request
            let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
            let origin = Self.origin(of: request)
            return try await self.withUser(request, context) { user in
                // A form of another session (or none) is refused, as Moodle's confirm_sesskey() does.
                guard form["sesskey"] == Self.sessionKey(user), form["_qf__core_calendar_export_form"] == "1" else {
                    return Self.html(
                        Pages.notFound("Your session has most likely timed out. Please log in again.", user: user), status: .forbidden)
                }
                let what = form["events[exportevents]"] ?? ""
                let time = form["period[timeperiod]"] ?? ""
                guard ["all", "courses"].contains(what), ["weeknow", "monthnow", "recentupcoming"].contains(time) else {
                    return Self.html(
                        Self.calendarExportPage(user: user, course: form["course"] ?? "1", shownAddress: nil), status: .badRequest)
                }
                let address =
                    "\(origin)/lms/calendar/export_execute.php?userid=\(Self.lmsUserID(user))&authtoken=\(Self.calendarToken(user))&preset_what=\(what)&preset_time=\(time)"
                // "Export" sends the browser to the file; "Get calendar URL" shows the address.
                if form["export"] != nil, form["generateurl"] == nil { return Self.redirect(to: address) }
                return Self.html(Self.calendarExportPage(user: user, course: form["course"] ?? "1", shownAddress: address))
            }
        }
        // The calendar export: upcoming assignment deadlines, in UTC as Moodle writes them.
        router.get("/lms/calendar/export_execute.php") { request, context in
            try await self.withUser(request, context) { user in
                var headers = HTTPFields()
                headers[.contentType] = "text/calendar; charset=utf-8"
                let body = Self.deadlines(user: user, calendar: DemoTermCalendar(around: self.now()))
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
        }
        // Renew everything due within a week, in one go: a form when there is something to renew,
        // and a plain sentence when there is not, as library systems say it.
        router.get("/library/renew-all") { request, context in
            try await self.withUser(request, context) { user in
                let due = await self.renewableSoon(user)
                guard !due.isEmpty else {
                    return Self.html(
                        HTML.page(
                            title: "Renew",
                            body:
                                "<h1>Renew</h1>\n<p class=\"nothing-to-renew\">No loans are due within 7 days; there is nothing to renew.</p>",
                            signedIn: user.displayName))
                }
                // Each loan it will renew, with the columns of the loans page (its due date and the
                // renewals left), so that a client can show what it is about to do.
                var items = ""
                for loan in due {
                    let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                    items += """
                        <tr><td class="title"><cite>\(HTML.escape(loan.title))</cite></td><td class="author">\(HTML.escape(loan.author))</td>\
                        <td class="barcode">\(loan.barcode)</td><td class="due">\(self.dueDate(of: loan, afterRenewals: done))</td>\
                        <td class="renewals">\(loan.renewalsLeft - done) of 3</td></tr>

                        """
                }
                return Self.html(
                    HTML.page(
                        title: "Renew",
                        body: """
                              <h1>Renew loans due soon</h1>
                              <table id="renew-list"><thead><tr><th>Title</th><th>Author</th><th>Barcode</th><th>Due</th><th>Renewals left</th></tr></thead>
                              <tbody>\(items)</tbody></table>
                              <form id="renew-all" method="post" action="/library/renew-all">
                                <input type="hidden" name="csrf" value="\(Self.renewToken(user, "all"))">
                                <button type="submit" name="confirm" value="yes">Renew all</button>
                              </form>
                            """, signedIn: user.displayName))
            }
        }
        router.post("/library/renew-all") { request, context in
            var request = request
            let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
            return try await self.withUser(request, context) { user in
                guard form["csrf"] == Self.renewToken(user, "all"), form["confirm"] == "yes" else {
                    return Self.html(Pages.notFound("The form was stale; open your loans and try again.", user: user), status: .forbidden)
                }
                let due = await self.renewableSoon(user)
                // Which were renewed: each title, its new due date and the renewals left.
                var items = ""
                for loan in due {
                    await self.state.renew(user: user.username, barcode: loan.barcode)
                    let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                    items +=
                        "<li><cite>\(HTML.escape(loan.title))</cite>: due <span class=\"due\">\(self.dueDate(of: loan, afterRenewals: done))</span>, <span class=\"renewals\">\(loan.renewalsLeft - done) of 3</span> renewals left</li>\n"
                }
                return Self.html(
                    HTML.page(
                        title: "Renewed",
                        body:
                            "<h1>Renewed</h1>\n<p class=\"renew-all-ok\">Renewed <strong class=\"count\">\(due.count)</strong> loans.</p>\n<ul class=\"renewed\">\n\(items)</ul>",
                        signedIn: user.displayName))
            }
        }
        // The library system's own OPAC page of the user's loans, shaped as Koha's opac-user.pl.
        router.get("/cgi-bin/koha/opac-user.pl") { request, context in
            try await self.withUser(request, context) { user in
                var rows: [(loan: DemoLoan, due: Date, renewalsLeft: Int)] = []
                for loan in DemoData.loans[user.username] ?? [] {
                    let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                    let due = Calendar(identifier: .gregorian).date(byAdding: .day, value: loan.dueInDays + 14 * done, to: self.now())!
                    rows.append((loan, due, loan.renewalsLeft - done))
                }
                // After a renewal, Koha shows the loans again (opac-user.pl?renewed=ITEMNUMBER): a badge
                // in the renewed loan's row, and the reasons of a refusal (renew_error=) in a warning box.
                let query = FormDecoding.dictionary(request.uri.query)
                var renewal: String?
                if let error = query["renew_error"], !error.isEmpty {
                    let reason =
                        error.hasPrefix("on_reserve") ? "Another reader has reserved this item." : "This item has no renewals left."
                    renewal =
                        "<div class=\"alert alert-warning\"><strong>Sorry:</strong> the renewal did not go through. <ul><li>\(reason)</li></ul></div>"
                }
                return Self.html(KohaPages.user(user: user, rows: rows, now: self.now(), renewal: renewal, renewed: query["renewed"]))
            }
        }
        // Koha's opac/opac-renew.pl (23.11, 24.05): every `item` of the form is renewed (one from a
        // row's Renew link, the ticked ones from form#renewselected, each renewable one from
        // form#renewall), then the loans again, with the item numbers renewed joined by ':' in
        // `renewed=` and a refusal's reason in `renew_error=`.
        router.post("/cgi-bin/koha/opac-renew.pl") { request, context in
            var request = request
            let items = FormDecoding.decode(String(buffer: try await request.collectBody(upTo: 1 << 16)))
                .filter { $0.0 == "item" }.map(\.1)
            return try await self.withUser(request, context) { user in
                var renewed: [String] = []
                var refusal: String?
                for item in items {
                    guard let loan = DemoData.loans[user.username]?.first(where: { KohaPages.itemNumber($0) == item }) else { continue }
                    let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                    guard !loan.reserved, loan.renewalsLeft - done > 0 else {
                        refusal = refusal ?? (loan.reserved ? "on_reserve" : "too_many")
                        continue
                    }
                    await self.state.renew(user: user.username, barcode: loan.barcode)
                    renewed.append(item)
                }
                let error = refusal.map { "&renew_error=\($0)" } ?? ""
                return Self.redirect(to: "/cgi-bin/koha/opac-user.pl?renewed=\(renewed.joined(separator: ":"))\(error)", status: .found)
            }
        }
        router.get("/cgi-bin/koha/opac-renew.pl") { request, context in
            try await self.withUser(request, context) { user in
                let item = FormDecoding.dictionary(request.uri.query)["item"] ?? ""
                guard let loan = DemoData.loans[user.username]?.first(where: { KohaPages.itemNumber($0) == item }) else {
                    return Self.html(Pages.notFound("No such item.", user: user), status: .notFound)
                }
                let done = await self.state.renewalsDone(user: user.username, barcode: loan.barcode)
                if !loan.reserved, loan.renewalsLeft - done > 0 { await self.state.renew(user: user.username, barcode: loan.barcode) }
                // Koha answers a renewal by showing the loans again, with the outcome on top.
                return Self.redirect(
                    to: "/cgi-bin/koha/opac-user.pl?renewed=\(loan.reserved || loan.renewalsLeft - done <= 0 ? "0" : item)", status: .found)
            }
        }
        // The catalogue: a search form posted to the library, the results as a table.
        router.post("/library/search") { request, context in
            var request = request
            let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
            return try await self.withUser(request, context) { user in
                let words = (form["q"] ?? "").lowercased().split(separator: " ").map(String.init)
                let hits = DemoData.loans.values.joined().filter { loan in
                    !words.isEmpty && words.allSatisfy { loan.title.lowercased().contains($0) || loan.author.lowercased().contains($0) }
                }
                let rows = hits.map {
                    "<tr><td class=\"title\">\(HTML.escape($0.title))</td><td class=\"author\">\(HTML.escape($0.author))</td><td class=\"status\">On loan</td></tr>"
                }.joined(separator: "\n")
                let body =
                    hits.isEmpty
                    ? "<p class=\"no-hits\">No titles match your search.</p>"
                    : "<table id=\"hits\"><tbody>\n\(rows)\n</tbody></table>"
                return Self.html(HTML.page(title: "Catalogue", body: "<h1>Catalogue search</h1>\n\(body)", signedIn: user.displayName))
            }
        }
    }

    /// The user's loans due within 7 days that may still be renewed: with renewals left, not
    /// reserved, and not renewed since the demo started (a library renews a loan once a day).
    func renewableSoon(_ user: DemoUser) async -> [DemoLoan] {
        var found: [DemoLoan] = []
        for loan in DemoData.loans[user.username] ?? [] where !loan.reserved {
            let done = await state.renewalsDone(user: user.username, barcode: loan.barcode)
            if done == 0, loan.renewalsLeft > 0, loan.dueInDays <= 7 { found.append(loan) }
        }
        return found
    }

    /// The dashboard's course overview, drawn as Moodle 4.x draws it: block_myoverview asks
    /// `core_course_get_enrolled_courses_by_timeline_classification` through core/ajax, which
    /// POSTs a JSON array of calls (`index`, `methodname`, `args`) to
    /// `M.cfg.wwwroot + '/lib/ajax/service.php?sesskey=' + M.cfg.sesskey + '&info=' + methodname`
    /// with `Content-Type: application/json`, and reads the answer's `data.courses`. The demo's
    /// own script with that shape, so that a browser's recording of the dashboard holds the call.
    static let courseOverviewScript = """
        <script>
        (function () {
          var methodname = 'core_course_get_enrolled_courses_by_timeline_classification';
          var request = [{index: 0, methodname: methodname, args: {offset: 0, limit: 0, classification: 'all', sort: 'fullname',
            customfieldname: '', customfieldvalue: ''}}];
          fetch(M.cfg.wwwroot + '/lib/ajax/service.php?sesskey=' + M.cfg.sesskey + '&info=' + methodname, {
            method: 'POST', credentials: 'same-origin', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify(request)
          }).then(function (response) { return response.json(); }).then(function (answers) {
            var region = document.getElementById('course-overview');
            var list = document.createElement('ul');
            ((answers[0] && !answers[0].error && answers[0].data.courses) || []).forEach(function (course) {
              var item = document.createElement('li');
              var link = document.createElement('a');
              link.href = course.viewurl;
              link.textContent = course.fullname;
              item.appendChild(link);
              list.appendChild(item);
            });
            region.replaceChildren(list);
          });
        })();
        </script>
        """

    /// The LMS's number for a user (Moodle's `user.id`), stable across restarts.
    static func lmsUserID(_ user: DemoUser) -> Int {
        100 + (Int(stableToken("lms-user/\(user.username)", bytes: 2), radix: 16) ?? 0) % 9000
    }

    /// The user's calendar export token: 40 hexadecimal digits, as Moodle's
    /// calendar_get_export_token() gives (a SHA-1 of the user's id, password hash and the site's salt).
    static func calendarToken(_ user: DemoUser) -> String {
        stableToken("calendar-export/\(user.username)", bytes: 20)
    }

    /// Moodle's calendar export page, written for the demo from what Moodle 4.1 and 4.5 send
    /// (moodle/moodle: calendar/export.php builds the address from userid, authtoken, preset_what
    /// and preset_time when the form's data is valid; calendar/classes/export_form.php has the
    /// radio groups events[exportevents] and period[timeperiod] and the submit buttons export and
    /// generateurl; lib/formslib.php adds the hidden sesskey and _qf__core_calendar_export_form;
    /// calendar/templates/export_calendar_url.mustache shows the address in a read-only
    /// input#calendarexporturl above the form). The demo's own markup, with those names and ids.
    static func calendarExportPage(user: DemoUser, course: String, shownAddress: String?) -> String {
        let shown =
            shownAddress.map { address in
                """
                <div class="generalbox calendarurl"><p><label for="calendarexporturl">Calendar URL</label>
                  <input type="text" id="calendarexporturl" value="\(HTML.escape(address))" readonly size="80">
                  <button type="button" id="copyexporturl" disabled>Copy URL</button></p></div>
                """
            } ?? ""
        func radio(_ group: String, _ name: String, _ value: String, _ label: String, checked: Bool) -> String {
            "<label><input type=\"radio\" name=\"\(group)[\(name)]\" id=\"id_\(group)_\(name)_\(value)\" value=\"\(value)\"\(checked ? " checked" : "")> \(label)</label>"
        }
        return HTML.page(
            title: "Export calendar",
            body: """
                  <h1>Export calendar</h1>
                  \(shown)
                  <form method="post" action="/lms/calendar/export.php" id="mform1" class="mform">
                    <div style="display: none;"><input name="course" type="hidden" value="\(HTML.escape(course))">
                    <input name="sesskey" type="hidden" value="\(Self.sessionKey(user))">
                    <input name="_qf__core_calendar_export_form" type="hidden" value="1"></div>
                    <fieldset><legend>Events to export</legend>
                      \(radio("events", "exportevents", "all", "All", checked: true))
                      \(radio("events", "exportevents", "courses", "Events related to courses", checked: false))</fieldset>
                    <fieldset><legend>for</legend>
                      \(radio("period", "timeperiod", "weeknow", "This week", checked: false))
                      \(radio("period", "timeperiod", "monthnow", "This month", checked: false))
                      \(radio("period", "timeperiod", "recentupcoming", "Recent and next 60 days", checked: true))</fieldset>
                    <input type="submit" name="export" id="id_export" value="Export">
                    <input type="submit" name="generateurl" id="id_generateurl" value="Get calendar URL">
                  </form>
                """, signedIn: user.displayName)
    }

    /// A session key per user, stable across demo restarts, as a session's `sesskey` is stable
    /// for the session.
    static func sessionKey(_ user: DemoUser) -> String {
        stableToken("sesskey/\(user.username)", bytes: 5)
    }

    /// An iCalendar export of each course's assignment deadlines: folded lines, escaped text,
    /// UTC times, as the LMS exports them.
    static func deadlines(user: DemoUser, calendar: DemoTermCalendar) -> String {
        func utc(_ day: Int, _ minute: Int) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            // 23:59 campus time, which is 22:59 UTC in winter.
            let local = Date(timeIntervalSince1970: Double(day) * 86_400 + Double(minute) * 60)
            return formatter.string(from: local.addingTimeInterval(-Double(DemoData.campusTimeZone.secondsFromGMT(for: local))))
        }
        var lines = ["BEGIN:VCALENDAR", "METHOD:PUBLISH", "PRODID:-//Demo University//NONSGML demo LMS//EN", "VERSION:2.0"]
        for (index, course) in (DemoData.courses[user.username] ?? []).enumerated() {
            let due = calendar.mondayThisWeek + 2 + index * 3
            let summary = "Problem set \(index + 2) is due (\(course.title))"
            lines += [
                "BEGIN:VEVENT", "UID:\(1000 + index)@demo.unitool.invalid", "SUMMARY:" + summary.replacingOccurrences(of: ",", with: "\\,"),
                "DESCRIPTION:Hand in your solutions for \(course.code)\\, parts A\\; B and C.\\nLate work is not marked.",
                "CLASS:PUBLIC", "LAST-MODIFIED:\(utc(calendar.mondayThisWeek - 7, 600))", "DTSTAMP:\(utc(calendar.mondayThisWeek, 0))",
                "DTSTART:\(utc(due, 23 * 60 + 59))", "DTEND:\(utc(due, 23 * 60 + 59))", "CATEGORIES:\(course.code)", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        // Lines longer than 75 octets are folded, as RFC 5545 asks.
        return lines.map { line -> String in
            var folded = ""
            var count = 0
            for scalar in line.unicodeScalars {
                let size = String(scalar).utf8.count
                if count + size > 75 {
                    folded += "\r\n "
                    count = 1
                }
                folded.unicodeScalars.append(scalar)
                count += size
            }
            return folded
        }.joined(separator: "\r\n") + "\r\n"
    }
}
