import Testing
import UniToolKit

@Suite("Output: table, JSON, JSON Lines, CSV")
struct OutputFormatTests {
    let set = RecordSet(
        columns: ["course", "credits", "grade"],
        records: [
            Record(fields: [("course", .string("情報理論")), ("credits", .number(5)), ("grade", .string("B+"))]),
            Record(fields: [("course", .string("Számítógépes hálózatok")), ("credits", .number(4.5)), ("grade", .null)]),
            Record(fields: [("course", .string("Say \"hi\", then\nleave")), ("credits", .integer(3)), ("grade", .string("A"))]),
        ])

    @Test("CJK characters take two cells and accents none, so columns line up")
    func displayWidth() {
        #expect(DisplayWidth.of("情報理論") == 8)
        #expect(DisplayWidth.of("Számítógépes") == 12)
        #expect(DisplayWidth.of("e\u{0301}") == 1)
        let table = TableRenderer().render(RecordSet(columns: set.columns, records: Array(set.records.prefix(2))))
        let lines = table.split(separator: "\n").map(String.init)
        let gradeColumn = lines.map { line -> Int? in
            guard let range = line.range(of: "B+") ?? line.range(of: "grade") else { return nil }
            return DisplayWidth.of(String(line[..<range.lowerBound]))
        }
        #expect(gradeColumn[0] == gradeColumn[2])
    }

    @Test("numbers are right-aligned in the table")
    func numbersRightAligned() {
        let table = TableRenderer().render(set)
        #expect(table.contains("      5  B+"))
        #expect(table.contains("    4.5"))
    }

    @Test("JSON keeps the recipe's key order, types and nulls")
    func json() {
        let json = JSONRenderer.array(set)
        #expect(json.contains("{\"course\": \"情報理論\", \"credits\": 5, \"grade\": \"B+\"}"))
        #expect(json.contains("\"grade\": null"))
        #expect(json.contains("\"Say \\\"hi\\\", then\\nleave\""))
        #expect(JSONRenderer.array(RecordSet(columns: [], records: [])) == "[]\n")
    }

    @Test("JSON Lines gives one object per line")
    func jsonLines() {
        #expect(JSONRenderer.lines(set).split(separator: "\n").count == 3)
    }

    @Test("CSV quotes commas, quotes and newlines (RFC 4180)")
    func csv() {
        let csv = CSVRenderer.render(set)
        #expect(csv.hasPrefix("course,credits,grade\r\n"))
        #expect(csv.contains("\"Say \"\"hi\"\", then\nleave\",3,A"))
    }

    @Test("an empty result says so in the table")
    func emptyTable() {
        #expect(TableRenderer().render(RecordSet(columns: ["a"], records: [])) == "(no records)\n")
    }

    @Test("NO_COLOR turns off bold headers")
    func noColor() {
        #expect(TableStyle.forStandardOutput(environment: ["NO_COLOR": "1"]).bold == false)
    }
}
