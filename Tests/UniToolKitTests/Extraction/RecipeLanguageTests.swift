import Foundation
import LibXML
import Testing
import UniToolKit
import UniToolTestSupport

/// The recipe language's features, each against a small page parsed by the real libxml2.
@Suite("The recipe language: lists, feeds, dates, filters, totals and pages")
struct RecipeLanguageTests {
    func recipe(_ text: String) throws -> DataRecipe {
        try DataRecipe.load(file: "test.yaml", text: text, portal: "test")
    }

    func extract(_ recipeText: String, html: String, url: String = "https://portal.example.edu/page", today: String = "2026-11-23")
        throws -> RecordSet
    {
        let recipe = try recipe(recipeText)
        return try RecordExtractor(recipe: recipe, today: today).extract(from: try Document(html: html, url: url))
    }

    @Test("keep_empty: a matched but empty cell is \"\", a missing one null; default \"\" is \"\"; other fields stay null")
    func keepEmpty() throws {
        let set = try extract(
            """
            command: notes
            fetch: /notes
            rows: "//tr"
            fields:
              name: { xpath: "td[1]" }
              note: { xpath: "td[2]", keep_empty: true }
              plain: { xpath: "td[2]" }
              room: { xpath: "td[3]", default: "" }
            """,
            html: "<table><tr><td>a</td><td> </td></tr><tr><td>b</td></tr><tr><td>c</td><td>&nbsp;</td><td>R1</td></tr></table>")
        #expect(set.records.map { $0["note"] } == [.string(""), .null, .string("")])
        #expect(set.records.map { $0["plain"] } == [.null, .null, .null])
        #expect(set.records.map { $0["room"] } == [.string(""), .string(""), .string("R1")])
        #expect(JSONRenderer.array(set).contains("\"note\": \"\""))
        #expect {
            try recipe("command: n\nfetch: /n\nrows: \"//tr\"\nfields:\n  n: { xpath: td, type: integer, keep_empty: true }\n")
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("ASCII whitespace is folded; the ideographic space and other Unicode spaces inside text are kept, trimmed at the ends")
    func unicodeSpaces() throws {
        let set = try extract(
            "command: people\nfetch: /p\nrows: \"//li\"\nfields:\n  name: { xpath: \".\" }\n",
            html: "<ul><li>\n  佐藤\u{3000}由紀 \t </li><li>\u{3000}Kovács\u{A0}Bence\u{3000}</li><li>a \n\t b</li></ul>")
        #expect(set.records.map { $0["name"] } == [.string("佐藤\u{3000}由紀"), .string("Kovács\u{A0}Bence"), .string("a b")])
    }

    @Test("a nested list gives each record its own typed sub-records")
    func nestedList() throws {
        let set = try extract(
            """
            command: courses
            fetch: /courses
            rows: "//article"
            fields:
              code: { xpath: "h3", required: true }
              meetings:
                list:
                  rows: "ul/li"
                  fields:
                    day:    { xpath: "b" }
                    period: { xpath: "i", type: integer, regex: "^([0-9]+)" }
            """,
            html: """
                <article><h3>CS-1</h3><ul><li><b>Mon</b><i>2. period</i></li><li><b>Thu</b><i>3. period</i></li></ul></article>
                <article><h3>CS-2</h3><ul></ul></article>
                """)
        #expect(set.records.count == 2)
        #expect(
            set.records[0]["meetings"]
                == .list([
                    Record(fields: [("day", .string("Mon")), ("period", .integer(2))]),
                    Record(fields: [("day", .string("Thu")), ("period", .integer(3))]),
                ]))
        #expect(set.records[1]["meetings"] == .list([]))
        #expect(set.records[0]["meetings"]?.text == "Mon 2; Thu 3")
        #expect(JSONRenderer.object(set.records[0]).contains(#""meetings": [{"day": "Mon", "period": 2}"#))
    }

    @Test("replace rewrites text with regular expressions, in order, before typing")
    func replacements() throws {
        let set = try extract(
            """
            command: x
            fetch: /x
            rows: "//p"
            fields:
              name: { xpath: ".", replace: { "^Instructor:\\\\s*": "", "Dr\\\\.": "Doctor" } }
            """, html: "<p>Instructor:   Dr. Kovács  Anna</p>")
        #expect(set.records[0]["name"] == .string("Doctor Kovács Anna"))
    }

    @Test("datetimes keep their offset: RFC 822 from RSS, ISO 8601 from Atom, local text in the recipe's time zone")
    func datetimes() throws {
        func convert(_ text: String, _ format: String, zone: String? = "Europe/Budapest") throws -> FieldValue {
            try FieldTyper.convert(text, to: .datetime, format: format, timeZone: zone, baseURL: nil) { _ in
                UniToolError(.internal, "invalid")
            }
        }
        #expect(try convert("Fri, 20 Nov 2026 09:00:00 +0100", "rfc822") == .datetime("2026-11-20T09:00:00+01:00"))
        #expect(try convert("Fri, 20 Nov 2026 08:00:00 GMT", "rfc822") == .datetime("2026-11-20T09:00:00+01:00"))
        #expect(try convert("2026-10-22T09:30:00+02:00", "iso8601") == .datetime("2026-10-22T09:30:00+02:00"))
        #expect(try convert("2026.11.20. 09:00", "yyyy.MM.dd. HH:mm") == .datetime("2026-11-20T09:00:00+01:00"))
        #expect(try convert("2026-07-01 12:00", "yyyy-MM-dd HH:mm", zone: "Asia/Tokyo") == .datetime("2026-07-01T12:00:00+09:00"))
        #expect { try convert("20 November", "rfc822") } throws: { ($0 as? UniToolError)?.kind == .internal }
    }

    @Test("an Atom feed is read with the XML parser and a namespace prefix")
    func atomFeed() throws {
        let recipe = try recipe(
            """
            command: news
            fetch: /feed
            parse: xml
            namespaces: { a: "http://www.w3.org/2005/Atom" }
            rows: "/a:feed/a:entry"
            fields:
              title: { xpath: "a:title", required: true }
              link:  { xpath: "a:link/@href", type: url }
            """)
        let extractor = RecordExtractor(recipe: recipe)
        let feed = """
            <?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Hello &amp; welcome</title>
            <link href="/news/1"/></entry></feed>
            """
        let document = try extractor.parse(Array(feed.utf8), url: URL(string: "https://portal.example.edu/feed")!, charset: nil)
        let set = try extractor.extract(from: document)
        #expect(
            set.records == [Record(fields: [("title", .string("Hello & welcome")), ("link", .url("https://portal.example.edu/news/1"))])])
    }

    @Test("a feed that is not well-formed XML is a layout change, not an empty list")
    func brokenFeed() throws {
        let recipe = try recipe("command: n\nfetch: /f\nparse: xml\nrows: //item\nfields: { t: { xpath: title } }")
        #expect {
            _ = try RecordExtractor(recipe: recipe).parse(Array("<rss><item>".utf8), url: URL(string: "https://x.example/f")!, charset: nil)
        } throws: { ($0 as? UniToolError)?.kind == .layoutChanged }
    }

    @Test("the next-page link is resolved against the page; the last page has none")
    func nextPage() throws {
        let recipe = try recipe("command: l\nfetch: /l\nnext: \"//a[@rel='next']/@href\"\nrows: //li\nfields: { t: { xpath: . } }")
        let extractor = RecordExtractor(recipe: recipe)
        let first = try Document(html: "<li>a</li><a rel='next' href='?page=2'>Next</a>", url: "https://p.example/loans?page=1")
        #expect(try extractor.nextPage(in: first)?.absoluteString == "https://p.example/loans?page=2")
        let last = try Document(html: "<li>z</li>", url: "https://p.example/loans?page=3")
        #expect(try extractor.nextPage(in: last) == nil)
        #expect(recipe.primary.maxPages == 20)
    }

    @Test("overdue is computed from the due date and the given today")
    func computedOverdue() throws {
        let text = """
            command: loans
            fetch: /loans
            rows: "//tr"
            fields:
              due:     { xpath: "td", type: date, format: dd/MM/yyyy }
              overdue: { compute: { before_today: due } }
            """
        let set = try extract(text, html: "<table><tr><td>22/11/2026</td></tr><tr><td>23/11/2026</td></tr><tr><td></td></tr></table>")
        #expect(set.records.map { $0["overdue"] } == [.bool(true), .bool(false), .null])
    }

    @Test("filters: a weekday narrows a nested list, 'since' takes dates and '7d', bad values are usage errors")
    func filters() throws {
        let recipe = try recipe(
            """
            command: c
            fetch: /c
            options:
              day:   { filter: { field: meetings.day, test: weekday } }
              since: { filter: { field: date, test: since } }
            rows: //x
            fields:
              date: { xpath: "@d", type: date, format: yyyy-MM-dd }
              meetings: { list: { rows: m, fields: { day: { xpath: . } } } }
            """)
        let monday = Record(fields: [("day", .string("Mon"))])
        let thursday = Record(fields: [("day", .string("Thu"))])
        let set = RecordSet(
            columns: ["date", "meetings"],
            records: [
                Record(fields: [("date", .date("2026-11-20")), ("meetings", .list([monday, thursday]))]),
                Record(fields: [("date", .date("2026-11-01")), ("meetings", .list([thursday]))]),
            ])
        let dayFilter = try RecordFilter(option: recipe.options[0], value: "monday")
        let filtered = RecordFilter.apply([dayFilter], to: set)
        #expect(filtered.records == [Record(fields: [("date", .date("2026-11-20")), ("meetings", .list([monday]))])])
        let now = try #require(FieldTyper.parseDate("2026-11-23", format: "yyyy-MM-dd", timeZone: .current))
        let sinceWeek = try RecordFilter(option: recipe.options[1], value: "7d", now: now)
        #expect(sinceWeek.value == "2026-11-16")
        #expect(RecordFilter.apply([sinceWeek], to: set).records.count == 1)
        #expect(RecordFilter.apply([try RecordFilter(option: recipe.options[1], value: "2026-11-01")], to: set).records.count == 2)
        // A Japanese timetable's days match too, and a date asks for its weekday.
        let getsuyou = Record(fields: [("day", .string("月"))])
        let japanese = RecordSet(
            columns: ["date", "meetings"], records: [Record(fields: [("date", .null), ("meetings", .list([getsuyou]))])])
        #expect(RecordFilter.apply([dayFilter], to: japanese).records.count == 1)
        #expect(try RecordFilter(option: recipe.options[0], value: "2026-11-23").value == "mon")
        #expect { try RecordFilter(option: recipe.options[0], value: "someday") } throws: { ($0 as? UniToolError)?.kind == .usage }
        #expect { try RecordFilter(option: recipe.options[1], value: "last week") } throws: { ($0 as? UniToolError)?.kind == .usage }
        // Time words (issue 50): yesterday and tomorrow, weeks and calendar months back.
        #expect(try RecordFilter(option: recipe.options[1], value: "yesterday", now: now).value == "2026-11-22")
        #expect(try RecordFilter(option: recipe.options[1], value: "Tomorrow", now: now).value == "2026-11-24")
        #expect(try RecordFilter(option: recipe.options[1], value: "2w", now: now).value == "2026-11-09")
        #expect(try RecordFilter(option: recipe.options[1], value: "1m", now: now).value == "2026-10-23")
        let march31 = try #require(FieldTyper.parseDate("2026-03-31", format: "yyyy-MM-dd", timeZone: .current))
        #expect(try RecordFilter(option: recipe.options[1], value: "1m", now: march31).value == "2026-02-28", "a calendar month back")
        #expect(try RecordFilter(option: recipe.options[0], value: "tomorrow", now: now).value == "tue", "2026-11-23 is a Monday")
        #expect(try RecordFilter(option: recipe.options[0], value: "yesterday", now: now).value == "sun")
        #expect { try RecordFilter(option: recipe.options[1], value: "1201m", now: now) } throws: {
            ($0 as? UniToolError)?.message.contains("the number of months must be from 0 to 1200") == true
        }
    }

    @Test(
        "a date cell with a combining mark is no date, never a crash in DateFormatter; found by fuzzing",
        arguments: ["rfc822", "EEEE, dd-MMM-yy HH:mm:ss zzz", "dd.MM.yyyy", "iso8601"])
    func combiningMarkInDate(format: String) {
        for text in ["Sunday, 07\u{331}-94 08:49:37 GMT", "Sun, 07\u{331} Nov 1994 08:49:37 GMT", "07\u{331}.11.2026", "2026-11-0\u{331}7"]
        {
            #expect(FieldTyper.parseDate(text, format: format, timeZone: TimeZone(identifier: "UTC")!) == nil, "\(format): \(text)")
        }
        // A composed character is fine: NFC turns "e" + U+0301 into one, as month names need.
        #expect(FieldTyper.parseDate("07.11.2026", format: "dd.MM.yyyy", timeZone: TimeZone(identifier: "UTC")!) != nil)
    }

    @Test("totals per term: credits of graded courses and a GPA weighted by credits")
    func totals() throws {
        let recipe = try recipe(
            """
            command: grades
            fetch: /g
            rows: //tr
            fields:
              term:    { xpath: "@t" }
              credits: { xpath: "td[1]", type: number }
              points:  { xpath: "td[2]", type: number }
            totals:
              group_by: term
              fields:
                courses: { count: true }
                earned:  { sum: credits, where: points }
                gpa:     { weighted_mean: points, weight: credits }
            """)
        func row(_ term: String, _ credits: Double, _ points: Double?) -> Record {
            Record(fields: [("term", .string(term)), ("credits", .number(credits)), ("points", points.map(FieldValue.number) ?? .null)])
        }
        let set = RecordSet(columns: recipe.columns, records: [row("a", 6, 4.0), row("a", 4, 3.0), row("a", 5, nil), row("b", 3, 2.0)])
        let summary = try #require(recipe.totals).compute(over: set)
        #expect(summary.columns == ["term", "courses", "earned", "gpa"])
        #expect(
            summary.records[0]
                == Record(fields: [("term", .string("a")), ("courses", .integer(3)), ("earned", .number(10)), ("gpa", .number(3.6))]))
        #expect(summary.records[1]["gpa"] == .number(2))
        #expect(summary.records.count == 2, "no overall row unless the recipe asks")

        // overall: a last row over every record, as a transcript's cumulative line.
        var cumulative = try #require(recipe.totals)
        cumulative.overall = "all terms"
        let withOverall = cumulative.compute(over: set)
        #expect(withOverall.records.count == 3)
        // (4 * 6 + 3 * 4 + 2 * 3) / 13 = 3.23; the course without points counts as a course only.
        #expect(
            withOverall.records[2]
                == Record(fields: [
                    ("term", .string("all terms")), ("courses", .integer(4)), ("earned", .number(13)), ("gpa", .number(3.23)),
                ]))
        let oneTerm = RecordSet(columns: recipe.columns, records: [row("a", 6, 4.0)])
        #expect(cumulative.compute(over: oneTerm).records.count == 1, "one group is its own total")
    }

    @Test("an action's argument becomes an XPath string literal, whatever quotes it holds")
    func xpathLiterals() throws {
        #expect(Template.xpathLiteral("31000101") == "'31000101'")
        #expect(Template.xpathLiteral("O'Brien") == "\"O'Brien\"")
        let both = Template.xpathLiteral("a'b\"c")
        let document = try Document(html: "<p title='a&#39;b&quot;c'>x</p>")
        #expect(try document.select("//p[@title=\(both)]").count == 1)
    }

    @Test(
        "mistakes in the new keys are reported with file, line and key",
        arguments: [
            (
                "command: x\nfetch: /x\nrows: //p\nfields:\n  d: { xpath: ., type: datetime, format: iso8601, timezone: Europe/Budapset }\n",
                "test.yaml:5: fields.d.timezone"
            ),
            (
                "command: x\nfetch: /x\nrows: //p\noptions:\n  day: { filter: { field: nope } }\nfields:\n  d: { xpath: . }\n",
                "filters on 'nope'"
            ),
            (
                "command: x\nsources:\n  a: { fetch: /a, rows: //p, fields: { t: { xpath: . } } }\n  b: { fetch: /b, rows: //p, fields: { u: { xpath: . } } }\n",
                "every source must give the same fields"
            ),
            ("command: x\nfetch: /x\nrows: //p\nfields:\n  o: { compute: { before_today: t } }\n  t: { xpath: . }\n", "needs a date field"),
            (
                "command: x\nfetch: /x\nrows: //p\nfields:\n  t: { xpath: . }\ntotals:\n  fields:\n    g: { weighted_mean: t }\n",
                "weighted_mean needs a weight"
            ),
            (
                "command: x\nfetch: /x\nrows: //p\nfields:\n  t: { xpath: . }\ntotals:\n  overall: all\n  fields:\n    n: { count: true }\n",
                "needs groups"
            ),
            (
                "command: x\nfetch: /x\nrows: //p\nfields:\n  t: { xpath: . }\nactions:\n  renew: { argument: id, fetch: /r, form: \"//form[\", success_when: //p }\n",
                "actions.renew.form"
            ),
            ("command: x\nfetch: /x\nrows: //p\nparse: htm\nfields:\n  t: { xpath: . }\n", "did you mean 'html'"),
        ])
    func lintErrors(text: String, expected: String) throws {
        do {
            _ = try recipe(text)
            Issue.record("expected a recipe error")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect((error.message + " " + (error.hint ?? "")).contains(expected), "\(error.message) \(error.hint ?? "")")
        }
    }
}
