import Foundation
import LibXML
import Testing

@testable import UniToolKit

/// Columns headed in a script without Latin letters get the English names the bundled recipes
/// use; a column of dates is dates whatever its header says.
@Suite("Recording: names for headers in other scripts, and values before header words")
struct HeaderWordsTests {
    @Test("the word ending latest in a header (the longest of those) names it; a header without one is left to the class or position")
    func names() {
        #expect(HeaderWords.name(for: "科目コード") == "code")
        #expect(HeaderWords.name(for: "授業科目名") == "course")
        #expect(HeaderWords.name(for: "評価") == "grade")
        #expect(HeaderWords.name(for: "評点") == "points", "the mark beside the grade letter")
        #expect(HeaderWords.name(for: "評価日") == "graded_on", "the day a grade was given is not the grade")
        #expect(HeaderWords.name(for: "返却期限") == "due")
        #expect(HeaderWords.name(for: "単位 (数)") == "credits", "brackets and spaces are not part of the word")
        #expect(HeaderWords.name(for: "備考欄") == "note")
        #expect(HeaderWords.name(for: "授業日時") == "date", "a compound names the thing last: a class's date and time")
        #expect(HeaderWords.name(for: "科目区分") == "category")
        #expect(HeaderWords.name(for: "成績評価") == "grade")
        #expect(HeaderWords.name(for: "ＱＲ") == nil)
        #expect(RecordedPage.columnFieldName(header: "科目", cellClass: "kamoku", column: 0) == "course")
        #expect(RecordedPage.columnFieldName(header: "謎", cellClass: "nazo", column: 0) == "nazo", "an unknown header: the cells' class")
        #expect(RecordedPage.columnFieldName(header: "謎", cellClass: nil, column: 4) == "column_5")
        #expect(RecordedPage.columnFieldName(header: "Due date", cellClass: "kigen", column: 0) == "due_date", "Latin letters name it")
    }

    @Test("a Japanese grades table: course, code, credits, grade and the day it was given, typed by their values")
    func japaneseTable() throws {
        let html = """
            <html><body><table class="seiseki"><thead><tr><th>科目</th><th>科目コード</th><th>単位</th><th>評価</th><th>評価日</th></tr></thead>
            <tbody><tr><td>確率論</td><td>MA201</td><td>2</td><td>A</td><td>2026/07/29</td></tr>
            <tr><td>線形代数</td><td>MA101</td><td>2</td><td>B</td><td>2026/07/30</td></tr></tbody></table></body></html>
            """
        let document = try Document(html: Array(html.utf8), url: "https://x.ac.jp/seiseki", encoding: "utf-8")
        let table = try #require(try document.select("//table").first)
        let draft = try #require(
            RecordedPage.tableRecipe(
                table, in: document, command: "seiseki", fetch: "/seiseki", url: URL(string: "https://x.ac.jp/seiseki")!,
                contentType: "text/html", body: Array(html.utf8)))
        #expect(draft.fields.map(\.name) == ["course", "code", "credits", "grade", "graded_on"], "\(draft.fields.map(\.name))")
        let day = try #require(draft.fields.last)
        #expect(day.type == "date" && day.format == "yyyy/MM/dd" && day.regex == nil, "\(day)")
    }
}
