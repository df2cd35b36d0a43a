import Foundation

/// The library's loans as the Koha OPAC shows them on `opac-user.pl`, for
/// `Recipes/platforms/koha/loans.yaml`: the checkouts table `#checkoutst`, a due date cell with
/// a sortable `data-order`, and a renew link per item. The structure follows Koha's
/// `opac-user.tt` (Koha 22.11 and later); the text and markup are the demo's own.
enum KohaPages {
    /// A stable item number per loan, as Koha's `itemnumber`.
    static func itemNumber(_ loan: DemoLoan) -> String { String((Int(loan.barcode.suffix(4)) ?? 0) + 1000) }

    static func user(user: DemoUser, rows: [(loan: DemoLoan, due: Date, renewalsLeft: Int)], now: Date, renewal: String? = nil) -> String {
        let iso = DateFormatter()
        iso.locale = Locale(identifier: "en_US_POSIX")
        iso.timeZone = DemoData.campusTimeZone
        iso.dateFormat = "yyyy-MM-dd HH:mm"
        let shown = DateFormatter()
        shown.locale = Locale(identifier: "en_US_POSIX")
        shown.timeZone = DemoData.campusTimeZone
        shown.dateFormat = "MM/dd/yyyy"
        let lines = rows.map { row -> String in
            let item = itemNumber(row.loan)
            let overdue = row.due < now
            let renew =
                row.loan.reserved
                ? "<span class=\"renewals\">Not renewable <span class=\"reason\">(on hold)</span></span>"
                : row.renewalsLeft <= 0
                    ? "<span class=\"renewals\">Not renewable <span class=\"reason\">(too many renewals)</span></span>"
                    : "<input type=\"checkbox\" class=\"cb\" name=\"item\" value=\"\(item)\"> <a class=\"btn btn-link renew\" href=\"/cgi-bin/koha/opac-renew.pl?from=opac_user&amp;item=\(item)&amp;borrowernumber=51\">Renew</a> <span class=\"renewals\">(\(row.renewalsLeft) of 3 renewals remaining)</span>"
            return """
                        <tr>
                          <td class="title"><a class="title" href="/cgi-bin/koha/opac-detail.pl?biblionumber=\(item)">\(HTML.escape(row.loan.title))</a> <span class="item-details">\(HTML.escape(row.loan.author))</span></td>
                          <td class="date_due\(overdue ? " overdue" : "")" data-order="\(iso.string(from: row.due))"><span class="tdlabel">Due:</span>\(shown.string(from: row.due))</td>
                          <td class="itype"><span class="tdlabel">Item type:</span>Book</td>
                          <td class="call_no"><span class="tdlabel">Call number:</span>QA76.\(item)</td>
                          <td class="barcode"><span class="tdlabel">Barcode:</span>\(row.loan.barcode)</td>
                          <td class="renew">\(renew)</td>
                        </tr>
                """
        }.joined(separator: "\n")
        let table =
            rows.isEmpty
            ? "<p class=\"alert alert-info\" id=\"checkouts-empty\">You have nothing checked out.</p>"
            : """
              <form id="renewselected" action="/cgi-bin/koha/opac-renew.pl" method="post">
              <input type="hidden" name="from" value="opac_user"><input type="hidden" name="borrowernumber" value="51">
              <table id="checkoutst" class="table table-bordered table-striped">
                <caption class="sr-only">Checked out</caption>
                <thead><tr><th class="all anti-the">Title</th><th>Due</th><th>Item type</th><th>Call number</th><th>Barcode</th><th class="nosort">Renew</th></tr></thead>
                <tbody>
              \(lines)
                </tbody>
              </table>
              <button type="submit" id="renewselected_link" class="btn btn-primary">Renew selected</button>
              </form>
            """
        return """
            <!DOCTYPE html>
            <!-- Structure after Koha's opac-user.tt (22.11 and later); demo text. -->
            <html lang="en"><head><meta charset="utf-8"><title>Your library home › Demo University Library</title></head>
            <body id="opac-user" class="scrollto">
              <div id="wrapper"><div class="main">
                <nav id="breadcrumbs"><a href="/cgi-bin/koha/opac-main.pl">Home</a> › Your summary</nav>
                <div id="userdetails">
                  <h1>Hello, \(HTML.escape(user.displayName))</h1>
                  \(renewal ?? "")
                  <div id="opac-user-views" class="toptabs"><div id="opac-user-checkouts">
                    <h2>Checked out</h2>
                    \(table)
                  </div></div>
                </div>
                <a id="logout" href="/logout">Log out</a>
              </div></div>
            </body></html>

            """
    }
}
