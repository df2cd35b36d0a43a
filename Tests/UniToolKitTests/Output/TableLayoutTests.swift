import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The narrow-terminal decision on its own: which columns stay, how wide, what wraps.
@Suite("Table layout for any width")
struct TableLayoutTests {
    typealias Column = TableLayout.Column

    let title = Column(naturalWidth: 50, numeric: false, longestWord: 11)
    let author = Column(naturalWidth: 30, numeric: false, display: ColumnDisplay(priority: .low), longestWord: 9)
    let barcode = Column(naturalWidth: 8, numeric: false, display: ColumnDisplay(key: true))
    let renewals = Column(naturalWidth: 13, numeric: true)

    @Test("a table that fits is left as it is, and no width means no limit")
    func fits() {
        let layout = TableLayout(columns: [title, barcode], maxWidth: 200)
        #expect(layout.kept == [0, 1])
        #expect(layout.widths == [50, 8])
        #expect(TableLayout(columns: [title, author, barcode], maxWidth: nil).widths == [50, 30, 8])
    }

    @Test("text columns shrink, widest first, and keys and numbers never do")
    func shrinksText() {
        let layout = TableLayout(columns: [title, author, barcode, renewals], maxWidth: 80)
        #expect(layout.kept == [0, 1, 2, 3])
        #expect(layout.widths[2] == 8 && layout.widths[3] == 13)
        #expect(layout.widths.reduce(0, +) + 2 * 3 <= 80)
        #expect(abs(layout.widths[0] - layout.widths[1]) <= 1, "the widest shrinks first, so they meet: \(layout.widths)")
    }

    @Test("low-priority columns are left out first, then the others right to left, never a key")
    func dropsInOrder() {
        let layout = TableLayout(columns: [title, author, barcode, renewals], maxWidth: 40)
        #expect(layout.dropped == [1], "author (low) goes first: \(layout)")
        #expect(layout.kept == [0, 2, 3])
        let narrower = TableLayout(columns: [title, author, barcode, renewals], maxWidth: 30)
        #expect(narrower.dropped == [1, 3], "then the rightmost normal column: \(narrower)")
        #expect(narrower.widths[2] == 8)
        let tiny = TableLayout(columns: [title, author, barcode, renewals], maxWidth: 5)
        #expect(tiny.kept == [2], "the key stays even when it alone is too wide")
        #expect(tiny.widths[2] == 8)
    }

    @Test("a high-priority column outlasts the normal ones")
    func highPriorityOutlasts() {
        let grade = Column(naturalWidth: 5, numeric: false, display: ColumnDisplay(priority: .high))
        let course = Column(naturalWidth: 40, numeric: false, longestWord: 12)
        let layout = TableLayout(columns: [barcode, course, renewals, grade], maxWidth: 20)
        #expect(layout.kept == [0, 3])
    }

    @Test("a flag is never left out: it keeps its name while text can shrink, and is a one-cell column when it cannot")
    func flagBecomesMarker() {
        let overdue = Column(naturalWidth: 7, numeric: false, display: ColumnDisplay(flag: true))
        let roomy = TableLayout(columns: [title, barcode, overdue], maxWidth: 200)
        #expect(roomy.widths[2] == 7)
        // title (at least 11) + barcode 8 + overdue 7 + gaps 4 = 30: the title shrinks, the flag keeps its name.
        let shrinking = TableLayout(columns: [title, barcode, overdue], maxWidth: 30)
        #expect(shrinking.widths[2] == 7 && shrinking.widths[0] == 11, "\(shrinking)")
        let narrow = TableLayout(columns: [title, author, barcode, renewals, overdue], maxWidth: 25)
        #expect(narrow.kept.contains(4) && narrow.widths[4] == 1, "\(narrow)")
        #expect(narrow.kept.contains(2))
    }

    @Test("before a high-priority column goes, words may break: a grades table keeps course and grade at 40")
    func wordsBreakBeforeHighGoes() {
        let term = Column(naturalWidth: 11, numeric: false, display: ColumnDisplay(key: true))
        let course = Column(naturalWidth: 40, numeric: false, display: ColumnDisplay(priority: .high), longestWord: 15)
        let code = Column(naturalWidth: 8, numeric: false, display: ColumnDisplay(key: true))
        let credits = Column(naturalWidth: 7, numeric: true)
        let grade = Column(naturalWidth: 5, numeric: false, display: ColumnDisplay(priority: .high))
        let layout = TableLayout(columns: [term, course, code, credits, grade], maxWidth: 40)
        #expect(layout.kept == [0, 1, 2, 4], "\(layout)")
        #expect(layout.widths[1] >= TableLayout.minimumTextWidth && layout.widths[1] < 14)
        // With room for whole words, words stay whole.
        let wider = TableLayout(columns: [term, course, code, credits, grade], maxWidth: 46)
        #expect(wider.kept == [0, 1, 2, 4] && wider.widths[1] >= 14, "\(wider)")
    }

    @Test("a column keeps its longest word whole, within the limits")
    func minimumIsTheLongestWord() {
        #expect(Column(naturalWidth: 40, numeric: false, longestWord: 11).minimumWidth == 11)
        #expect(Column(naturalWidth: 40, numeric: false, longestWord: 3).minimumWidth == TableLayout.minimumTextWidth)
        #expect(Column(naturalWidth: 90, numeric: false, longestWord: 60).minimumWidth == TableLayout.maximumWordWidth)
        #expect(Column(naturalWidth: 5, numeric: false, longestWord: 5).minimumWidth == 5)
        #expect(Column(naturalWidth: 13, numeric: true).minimumWidth == 13)
    }

    @Test("wrapping breaks at spaces, splits only a word longer than the line, and counts cells")
    func wraps() {
        #expect(DisplayWidth.wrap("The Art of Computer Programming", to: 12) == ["The Art of", "Computer", "Programming"])
        #expect(DisplayWidth.wrap("short", to: 12) == ["short"])
        #expect(DisplayWidth.wrap("https://example.org/a/b", to: 10) == ["https://ex", "ample.org/", "a/b"])
        #expect(DisplayWidth.wrap("情報理論の基礎", to: 5) == ["情報", "理論", "の基", "礎"])
        #expect(DisplayWidth.wrap("", to: 5) == [""])
        #expect(DisplayWidth.longestWord(in: "Operating Systems: Three") == 9)
    }
}

@Suite("Tables: keys, wrapping, decimals and links")
struct TableRenderingTests {
    let loans = RecordSet(
        columns: ["title", "author", "barcode", "renewals"],
        records: [
            Record(fields: [
                ("title", .string("Structure and Interpretation of Computer Programs")), ("author", .string("Abelson, Harold")),
                ("barcode", .string("31000108-LONG")), ("renewals", .integer(1)),
            ]),
            Record(fields: [
                ("title", .string("ノルウェイの森")), ("author", .string("村上 春樹")), ("barcode", .string("31000102")),
                ("renewals", .integer(0)),
            ]),
        ])
    let display = ["barcode": ColumnDisplay(key: true), "author": ColumnDisplay(priority: .low)]

    @Test("at 30 cells the key stays whole, long text wraps and the left-out columns are named")
    func narrow() {
        let rendered = TableRenderer(style: TableStyle(bold: false, maxWidth: 30), display: display).layout(loans)
        #expect(rendered.droppedColumns == ["author", "renewals"])
        let lines = rendered.text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("31000108-LONG") })
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 30 }, "\(rendered.text)")
        #expect(lines.count > 4, "the long title wraps onto several lines:\n\(rendered.text)")
        #expect(!rendered.text.contains("…"), "nothing is cut")
    }

    @Test("without a width nothing is left out or wrapped")
    func unlimited() {
        let rendered = TableRenderer(display: display).layout(loans)
        #expect(rendered.droppedColumns.isEmpty)
        #expect(rendered.text.split(separator: "\n").count == 4)
    }

    @Test("decimals apply to numbers in a table only")
    func decimals() {
        let set = RecordSet(
            columns: ["term", "gpa"],
            records: [
                Record(fields: [("term", .string("2025-fall")), ("gpa", .number(3.6))]),
                Record(fields: [("term", .string("2026-spring")), ("gpa", .number(3.4857))]),
                Record(fields: [("term", .string("2026-fall")), ("gpa", .integer(4))]),
            ])
        let table = TableRenderer(display: ["gpa": ColumnDisplay(decimals: 2)]).render(set)
        #expect(table.contains("3.60") && table.contains("3.49") && table.contains("4.00"), "\(table)")
        #expect(OutputFormat.json.render(set).contains("3.4857"))
    }

    @Test("URLs become OSC 8 links on terminals that show them, with the address made safe")
    func hyperlinks() {
        let set = RecordSet(
            columns: ["title", "link"],
            records: [Record(fields: [("title", .string("News")), ("link", .url("https://example.org/ü?a=1\u{1B}x"))])])
        let linked = TableRenderer(style: TableStyle(bold: false, hyperlinks: true)).render(set)
        #expect(linked.contains("\u{1B}]8;;https://example.org/%C3%BC?a=1%1Bx\u{1B}\\"), "\(linked.debugDescription)")
        #expect(linked.components(separatedBy: "\u{1B}]8;;\u{1B}\\").count == 2, "the link is closed")
        #expect(!TableRenderer(style: .plain).render(set).contains("\u{1B}]8"))
    }

    @Test("hyperlinks are on for terminals that announce them, off in tmux, and UNITOOL_HYPERLINKS decides")
    func hyperlinkDetection() {
        #expect(TableStyle.supportsHyperlinks(["VTE_VERSION": "7200"]))
        #expect(TableStyle.supportsHyperlinks(["TERM_PROGRAM": "WezTerm"]))
        #expect(!TableStyle.supportsHyperlinks(["VTE_VERSION": "7200", "TMUX": "/tmp/tmux-0/default,1,0"]))
        #expect(!TableStyle.supportsHyperlinks(["TERM": "xterm-256color"]))
        #expect(TableStyle.supportsHyperlinks(["UNITOOL_HYPERLINKS": "1", "TERM": "dumb"]))
        #expect(!TableStyle.supportsHyperlinks(["UNITOOL_HYPERLINKS": "0", "KITTY_WINDOW_ID": "1"]))
    }

    @Test("counts have the right plural")
    func plurals() {
        #expect(Plural.count(1, "record") == "1 record")
        #expect(Plural.count(2, "record") == "2 records")
        #expect(Plural.count(0, "column") == "0 columns")
        #expect(Plural.count(3, "term") == "3 terms")
        #expect(Plural.count(2, "class") == "2 classes")
        #expect(Plural.count(2, "entry") == "2 entries")
        #expect(Plural.count(2, "day") == "2 days")
    }

    @Test("a recipe's key, priority and decimals are read, and nonsense is refused with its line")
    func recipeDisplayKeys() throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let loans = try catalog.recipe(portal: "demo", command: "loans")
        #expect(loans.keyFields == ["barcode"])
        #expect(loans.columnDisplay["author"]?.priority == .low)
        let grades = try catalog.recipe(portal: "demo", command: "grades")
        #expect(grades.keyFields == ["term", "code"])
        #expect(grades.columnDisplay["gpa"]?.decimals == 2)
        #expect(loans.columnDisplay["overdue"]?.flag == true && loans.columnDisplay["title"]?.priority == .high)
        let base = "command: x\nsummary: x\nfetch: /x\nrows: //tr\nfields:\n"
        for (field, problem) in [
            ("  a: { xpath: td, key: true, priority: low }\n", "cannot have priority: low"),
            ("  a: { xpath: td, decimals: 2 }\n", "only an integer or number field"),
            ("  a: { xpath: td, type: number, decimals: many }\n", "from 0 to 9"),
            ("  a: { xpath: td, priority: urgent }\n", "priority"),
            ("  a: { xpath: td, flag: true }\n", "only a bool field"),
        ] {
            #expect {
                try DataRecipe.load(file: "x.yaml", text: base + field, portal: "p")
            } throws: { error in
                let message = (error as? UniToolError)?.message ?? ""
                return message.contains("x.yaml:6") && message.contains(problem)
            }
        }
    }
}

/// Issue 50: a URL is never wrapped, cut or left out; it gets a line of its own first.
@Suite("Tables keep URLs whole")
struct TableURLTests {
    typealias Column = TableLayout.Column

    let section = Column(naturalWidth: 16, numeric: false, display: ColumnDisplay(key: true))
    let title = Column(naturalWidth: 47, numeric: false, display: ColumnDisplay(key: true, priority: .high))
    let url = Column(naturalWidth: 43, numeric: false, longestWord: 43, url: true)
    let note = Column(naturalWidth: 30, numeric: false, display: ColumnDisplay(priority: .low), longestWord: 9)

    @Test("a URL column does not shrink: other text shrinks and low-priority columns go first")
    func othersGiveWay() {
        let text = Column(naturalWidth: 40, numeric: false, longestWord: 9)
        let layout = TableLayout(columns: [text, url], maxWidth: 70)
        #expect(layout.kept == [0, 1] && layout.widths[1] == 43 && layout.widths[0] == 25, "\(layout)")
        let key = Column(naturalWidth: 12, numeric: false, display: ColumnDisplay(key: true))
        let tighter = TableLayout(columns: [key, url, note], maxWidth: 60)
        #expect(tighter.dropped == [2] && tighter.ownLine.isEmpty && tighter.widths[1] == 43, "\(tighter)")
    }

    @Test("where it would be left out, a URL column moves to a line of its own and is not named as left out")
    func ownLine() {
        let layout = TableLayout(columns: [section, title, url], maxWidth: 80)
        #expect(layout.kept == [0, 1] && layout.ownLine == [2] && layout.dropped.isEmpty, "\(layout)")
        let narrow = TableLayout(columns: [section, title, url, note], maxWidth: 40)
        #expect(narrow.ownLine == [2] && narrow.dropped == [3], "\(narrow)")
        #expect(TableLayout(columns: [url], maxWidth: 20).kept == [0], "a URL alone stays in the grid, whole")
    }

    static let links = RecordSet(
        columns: ["section", "title", "url"],
        records: [
            Record(fields: [
                ("section", .string("学習 Study")), ("title", .string("学修支援室の時間割 Study support room timetable")),
                ("url", .url("http://127.0.0.1:34911/study-support")),
            ]),
            Record(fields: [("section", .string("連絡 Mail")), ("title", .string("Webmail")), ("url", .null)]),
        ])
    let display = ["section": ColumnDisplay(key: true), "title": ColumnDisplay(key: true, priority: .high)]

    @Test("rendered at 40 and 80 cells each address is whole on one line, after its row; a row without one has none")
    func rendered() {
        for width in [40, 80] {
            let rendered = TableRenderer(style: TableStyle(bold: false, maxWidth: width), display: display).layout(Self.links)
            let lines = rendered.text.split(separator: "\n").map(String.init)
            #expect(rendered.droppedColumns.isEmpty)
            #expect(lines.contains("  http://127.0.0.1:34911/study-support"), "\(rendered.text)")
            #expect(lines[1] == "  url", "the header shows the same shape:\n\(rendered.text)")
            let row = try? #require(lines.firstIndex { $0.hasPrefix("学習 Study") })
            #expect(row.map { lines[$0 + 1] } == "  http://127.0.0.1:34911/study-support", "\(rendered.text)")
            #expect(lines.last?.hasPrefix("連絡 Mail") == true, "\(rendered.text)")
        }
        let wide = TableRenderer(style: TableStyle(bold: false, maxWidth: 120), display: display).render(Self.links)
        #expect(wide.split(separator: "\n").count == 4, "wide enough: the URL stays in its column\n\(wide)")
    }

    @Test("a URL that must shrink is never broken: a wrapping column beside it wraps instead")
    func neverBroken() {
        let set = RecordSet(
            columns: ["what", "link"],
            records: [
                Record(fields: [
                    ("what", .string("a rather long description of the page that is linked")),
                    ("link", .url("https://www.example.org/a/very/long/path/to/a/page")),
                ])
            ])
        let text = TableRenderer(style: TableStyle(bold: false, maxWidth: 70)).render(set)
        #expect(text.contains("https://www.example.org/a/very/long/path/to/a/page"), "\(text)")
        #expect(text.split(separator: "\n").count > 3, "the description wraps:\n\(text)")
    }

    @Test("an OSC 8 link on its own line wraps the whole address")
    func hyperlinkOnOwnLine() {
        let linked = TableRenderer(style: TableStyle(bold: false, maxWidth: 40, hyperlinks: true), display: display).render(Self.links)
        let address = "http://127.0.0.1:34911/study-support"
        #expect(linked.contains("  \u{1B}]8;;\(address)\u{1B}\\\(address)\u{1B}]8;;\u{1B}\\\n"), "\(linked.debugDescription)")
    }
}

/// Issue 50's `unitool loans | head`: a pipe has no terminal width. What reads a pipe (grep, a
/// file, `less -S`) wants each row on one line, so a pipe gets whole cells unless `COLUMNS` is
/// given, as docs/USING.md says.
@Suite("A pipe gets whole cells")
struct PipeWidthTests {
    @Test("a pipe without COLUMNS has no width; COLUMNS gives one, to a pipe and a terminal alike")
    func pipeWidth() {
        #expect(TableStyle.forStandardOutput(environment: [:], isTerminal: false).maxWidth == nil)
        #expect(TableStyle.forStandardOutput(environment: ["COLUMNS": "40"], isTerminal: false).maxWidth == 40)
        let loans = RecordSet(
            columns: ["title", "barcode"],
            records: [
                Record(fields: [("title", .string("Structure and Interpretation of Computer Programs")), ("barcode", .string("31000108"))])
            ])
        let piped = TableRenderer(style: .forStandardOutput(environment: [:], isTerminal: false)).render(loans)
        #expect(piped.split(separator: "\n").count == 3, "one line a row:\n\(piped)")
    }
}
