import Foundation

/// The library's loans as the Koha OPAC shows them on `opac-user.pl`, for
/// `Recipes/platforms/koha/loans.yaml`: the checkouts table `#checkoutst` in `form#renewselected`,
/// a due date cell whose `data-order` is the stored date and time (seconds included), a renew
/// checkbox per renewable item whose value is its item number, "( N of M renewals remaining )",
/// the "Renewed!" badge in the row of each loan just renewed (`opac-user.pl?renewed=ITEM:ITEM`),
/// `form#renewall`, and the empty state as a table without an id. The due date, item type,
/// barcode and call number cells start with the label Koha writes for narrow screens
/// (`<span class="tdlabel">Barcode:</span>`), so that what reads the demo reads real OPACs (issue
/// 49: a demo without them let "Barcode: 39020004417" through). The structure follows Koha 24.05's
/// `opac-user.tt` (Fixtures/platforms/koha/24.05/loans/); the text is the demo's own.
enum KohaPages {
    /// A stable item number per loan, as Koha's `itemnumber`.
    static func itemNumber(_ loan: DemoLoan) -> String { String((Int(loan.barcode.suffix(4)) ?? 0) + 1000) }

    static func user(
        user: DemoUser, rows: [(loan: DemoLoan, due: Date, renewalsLeft: Int)], now: Date, renewal: String? = nil, renewed: String? = nil
    ) -> String {
        let lines = rows.map { row -> String in
            let item = itemNumber(row.loan)
            let overdue = row.due < now
            let issued = row.due.addingTimeInterval(-28 * 86_400)
            let badge =
                (renewed ?? "").split(separator: ":").contains(Substring(item))
                ? "<span class=\"badge text-bg-success\">Renewed!</span><br />" : ""
            let renew =
                row.loan.reserved
                ? "<span class=\"usr-msg no-renew-hold\">Not renewable <span class=\"renewals\">(on hold)</span></span>"
                : row.renewalsLeft <= 0
                    ? "<span class=\"usr-msg no-renew-too-many\">No renewals left</span>"
                    : "<input type=\"checkbox\" name=\"item\" value=\"\(item)\" /> <a class=\"submit-form-link\" href=\"#\" data-method=\"post\" data-action=\"/cgi-bin/koha/opac-renew.pl\" data-item=\"\(item)\" data-borrowernumber=\"51\" data-op=\"cud-renew\">Renew</a> <span class=\"renewals\">( \(row.renewalsLeft) of 3 renewals remaining )</span>"
            return """
                        <tr\(overdue ? " class=\"overdue\"" : "")>
                          <td class="title"><a href="/cgi-bin/koha/opac-detail.pl?biblionumber=\(item)" class="title"><span class="biblio-title">\(HTML.escape(row.loan.title))</span></a></td>
                          <td class="author">\(HTML.escape(row.loan.author))</td>
                          <td class="checkout_date" data-order="\(DemoData.campusText(issued, format: "yyyy-MM-dd HH:mm:ss"))"> \(DemoData.campusText(issued, format: "MM/dd/yyyy")) </td>
                          <td class="date_due\(overdue ? " overdue" : "")" data-order="\(DemoData.campusText(row.due, format: "yyyy-MM-dd HH:mm:ss"))"><span class="tdlabel">Due:</span> \(DemoData.campusText(row.due, format: "MM/dd/yyyy")) </td>
                          <td class="itype"><span class="tdlabel">Type:</span> <span class="itypetext">Book</span></td>
                          <td class="barcode"><span class="tdlabel">Barcode:</span> \(row.loan.barcode) </td>
                          <td class="call_no"><span class="tdlabel">Shelf mark:</span> QA76.\(item) </td>
                          <td class="renew" data-order="\(row.loan.reserved ? 0 : max(row.renewalsLeft, 0))">\(badge)\(renew)</td>
                          <td></td>
                        </tr>
                """
        }.joined(separator: "\n")
        let renewAllItems = rows.filter { !$0.loan.reserved && $0.renewalsLeft > 0 }.map {
            "<input type=\"hidden\" name=\"item\" value=\"\(itemNumber($0.loan))\" />"
        }.joined(separator: "\n")
        let table =
            rows.isEmpty
            ? """
            <table class="table table-bordered table-striped">
              <caption class="visually-hidden">Loans</caption>
              <tr><td>Nothing is on loan to you at the moment.</td></tr>
            </table>
            """
            : """
            <form id="renewselected" action="/cgi-bin/koha/opac-renew.pl" method="post">
            <input type="hidden" name="csrf_token" value="demo" />
            <legend class="visually-hidden">Renew the ticked loans</legend>
            <input type="hidden" name="borrowernumber" value="51" />
            <input type="hidden" name="from" value="opac_user" />
            <table id="checkoutst" class="table table-bordered table-striped">
              <caption>\(rows.count) loans</caption>
              <thead><tr><th class="all anti-the">Title</th><th>Author</th><th>Borrowed on</th><th class="psort">Due</th><th>Item type</th><th>Barcode</th><th>Call number</th><th>Renew</th><th class="dtr-control-col"></th></tr></thead>
              <tbody>
            \(lines)
              </tbody>
            </table>
            <input type="submit" class="btn btn-primary" value="Renew selected" />
            <input type="hidden" name="op" value="cud-renew" />
            <button type="button" id="renewall_js" class="btn btn-primary">Renew all</button>
            </form>
            <form id="renewall" class="js-hide" action="/cgi-bin/koha/opac-renew.pl" method="post">
            <input type="hidden" name="csrf_token" value="demo" />
            <legend class="visually-hidden">Renew</legend>
            <input type="hidden" name="from" value="opac_user" />
            <input type="hidden" name="op" value="cud-renew" />
            <input type="hidden" name="borrowernumber" value="51" />
            \(renewAllItems)
            <input type="submit" class="btn btn-primary" value="Renew all" />
            </form>
            """
        return """
            <!DOCTYPE html>
            <!-- Structure after Koha 24.05's opac-user.tt; demo text. -->
            <html lang="en" class="no-js"><head><meta charset="utf-8" /><title>Your account › Demo University Library</title></head>
            <body id="opac-user" class="branch-default scrollto">
              <div id="wrapper">
                <main class="main">
                  <nav id="breadcrumbs" aria-label="Breadcrumb" class="breadcrumbs"><ol class="breadcrumb"><li class="breadcrumb-item"><a href="/cgi-bin/koha/opac-main.pl">Home</a></li><li class="breadcrumb-item active"><a href="#" aria-current="page"><span>Your account</span></a></li></ol></nav>
                  <div class="container-fluid"><div class="row">
                    <div class="col-md-12 col-lg-10 order-1 order-lg-2">
                      <div id="userdetails" class="maincontent">
                        <h1>Your account</h1>
                        <p>Welcome back, \(HTML.escape(user.displayName))</p>
                        \(renewal ?? "")
                        <div id="opac-user-views" class="toptabs">
                          <ul class="nav nav-tabs" role="tablist"><li class="nav-item" role="presentation"><a class="nav-link active" href="#opac-user-checkouts_panel" data-bs-toggle="tab" id="opac-user-checkouts-tab" role="tab" aria-controls="opac-user-checkouts_panel" aria-selected="true"><span>On loan (\(rows.count))</span></a></li></ul>
                          <div class="tab-content">
                            <div role="tabpanel" class="tab-pane show active" id="opac-user-checkouts_panel" aria-labelledby="opac-user-checkouts-tab">
                              \(table)
                            </div>
                          </div>
                        </div>
                      </div>
                    </div>
                  </div></div>
                </main>
                <a id="logout" href="/logout">Log out</a>
              </div>
            </body></html>

            """
    }
}
