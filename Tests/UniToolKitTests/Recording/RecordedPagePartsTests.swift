import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// Issue 48: the values a page keeps apart are read apart — a cell's classed parts, a block's
/// labelled values — and one record shown alone is still the page's records.
@Suite("Recording: a cell's parts, a block's labelled values, a group of one")
struct RecordedPagePartsTests {
    static func draft(_ body: String) throws -> DraftDataRecipe? {
        let html = "<!DOCTYPE html><html><head><title>Page</title></head><body>\(body)</body></html>"
        let document = try Document(html: html, url: "https://x.edu/page")
        return RecordedPage.htmlRecipe(
            document, command: "page", fetch: "/page", url: URL(string: "https://x.edu/page")!, contentType: nil, body: [])
    }

    static func values(_ draft: DraftDataRecipe, _ field: String) throws -> [String] {
        let document = try #require(draft.document)
        let xpath = try #require(draft.fields.first { $0.name == field }?.xpath, "no field \(field) in \(draft.fields.map(\.name))")
        return try document.select(draft.rows).map { row in try row.evaluate("string(\(xpath))").stringValue }
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    }

    @Test("a cell made of classed parts (a title and a subtitle most rows have) gives a field per part, not the whole text")
    func cellParts() throws {
        func row(_ title: String, _ subtitle: String?, _ due: String) -> String {
            let sub = subtitle.map { "\n <span class=\"subtitle\">\($0)</span>" } ?? ""
            return """
                <tr><td class="title"><a href="/detail?id=\(due)" class="title"><span class="main-title">\(title)</span>\(sub)</a></td>
                <td class="due">\(due)</td></tr>
                """
        }
        let page = """
            <main><h1>Loans</h1><table id="loans"><thead><tr><th>Titel</th><th>Due</th></tr></thead><tbody>
            \(row("Statistics", "From basics to use", "2026-07-04"))\(row("Programming", "Volume 1", "2026-07-05"))
            \(row("Grammar", nil, "2026-07-06"))</tbody></table></main>
            """
        let draft = try #require(try Self.draft(page))
        let names = draft.fields.map(\.name)
        #expect(names.contains("titel") && names.contains("subtitle"), "\(names)")
        #expect(try Self.values(draft, "titel") == ["Statistics", "Programming", "Grammar"])
        #expect(try Self.values(draft, "subtitle") == ["From basics to use", "Volume 1", ""])
        // A cell with one classed part, or words outside its parts, stays one field.
        let single = page.replacingOccurrences(of: "<span class=\"subtitle\">", with: "<span>")
        let one = try #require(try Self.draft(single))
        #expect(one.fields.map(\.name).contains("subtitle") == false, "\(one.fields.map(\.name))")
    }

    static func event(_ id: Int, _ name: String, _ day: String, _ course: String?, place: String? = nil) -> String {
        let courseRow =
            course.map {
                "<div class=\"row\"><div class=\"col-1\"><i class=\"icon\" title=\"コース\"></i></div><div class=\"col-11\"><a href=\"/course/view.php?id=\(id)\">\($0)</a></div></div>"
            } ?? ""
        let placeRow =
            place.map { "<dl><dt>Location</dt><dd>\($0)</dd></dl>" } ?? ""
        return """
            <div data-type="event" data-event-id="\(id)" class="event mt-3"><div class="card"><h3 class="name">\(name)</h3>
            <div class="row"><div class="col-1"><i class="icon" title="日時" aria-label="日時"></i></div>
            <div class="col-11"><a href="/calendar/view.php?view=day&amp;time=17830\(id)">\(day)</a>, 23:59</div></div>
            \(courseRow)\(placeRow)</div></div>
            """
    }

    @Test("repeated blocks: each labelled value (an icon's title beside it, a <dt>) is a field, the course link's words included")
    func labelledBlockValues() throws {
        let page = """
            <div id="region-main"><h1>Upcoming events</h1><div class="eventlist">
            \(Self.event(301, "Report 1 due", "2026年 07月 3日(金曜日)", "情報科学概論"))
            \(Self.event(302, "Quiz closes", "2026年 07月 8日(水曜日)", "線形代数学Ⅰ", place: "Hall B-203"))
            \(Self.event(303, "Library tour", "2026年 07月 15日(水曜日)", nil, place: "Central library"))
            </div></div>
            """
        let draft = try #require(try Self.draft(page))
        #expect(draft.rows.contains("div[@class='event mt-3']"), "\(draft.rows)")
        #expect(try Self.values(draft, "course") == ["情報科学概論", "線形代数学Ⅰ", ""])
        #expect(
            try Self.values(draft, "when") == [
                "2026年 07月 3日(金曜日), 23:59", "2026年 07月 8日(水曜日), 23:59", "2026年 07月 15日(水曜日), 23:59",
            ])
        #expect(try Self.values(draft, "location") == ["", "Hall B-203", "Central library"])
        #expect(try Self.values(draft, "name") == ["Report 1 due", "Quiz closes", "Library tour"])
    }

    @Test("a group of one: a lone block naming its record by id, in the main region, is the page's records; its wrapper is not")
    func groupOfOne() throws {
        let page = """
            <div id="region-main"><h1>Upcoming events</h1><div class="wrapper" data-context-id="1"><div class="eventlist">
            \(Self.event(311, "Exercise 2 due", "2026年 07月 6日(月曜日)", "統計学基礎"))
            </div></div></div>
            """
        let draft = try #require(try Self.draft(page))
        #expect(draft.rows.hasSuffix("/div[@class='event mt-3']"), "\(draft.rows)")
        #expect(try Self.values(draft, "course") == ["統計学基礎"])
        #expect(try Self.values(draft, "name") == ["Exercise 2 due"])
        // Outside the main region, a lone block is not taken for the page's records.
        let aside = page.replacingOccurrences(of: "<div id=\"region-main\"><h1>Upcoming events</h1>", with: "<div>")
        let outside = try Self.draft(aside)
        #expect(outside?.rows.hasSuffix("/div[@class='event mt-3']") != true, "\(outside?.rows ?? "")")
    }
}
