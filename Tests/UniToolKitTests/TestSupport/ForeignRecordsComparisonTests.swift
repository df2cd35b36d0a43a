import Foundation
import Testing
import UniToolTestSupport

/// The comparison of the foreign recordings' test, on small records: by value, not by name.
@Suite("Foreign recordings: records compared as the page shows them")
struct ForeignRecordsComparisonTests {
    typealias Shown = ForeignRecords.Shown

    @Test("a date typed as ISO is the page's yyyy/MM/dd; a number 2 is '2.0'; names do not matter")
    func typedValues() {
        let expected: [ForeignRecords.Record] = [["course": .text("確率論"), "credits": .text("2.0"), "date": .text("2026/07/29")]]
        let returned: [ForeignRecords.Record] = [["kamoku": .text("確率論"), "tani": .number(2), "column_5": .text("2026-07-29")]]
        let reading = ForeignRecords.Reading(types: ["credits": "number", "date": "date, shown yyyy/MM/dd"])
        #expect(ForeignRecords.differences(expected: expected, returned: returned, reading: reading).isEmpty)
        let wrongDay: [ForeignRecords.Record] = [["kamoku": .text("確率論"), "tani": .number(2), "column_5": .text("2026-07-30")]]
        let lines = ForeignRecords.differences(expected: expected, returned: wrongDay, reading: reading)
        #expect(lines == ["record 1 differs: date '2026/07/29' not found in {column_5: 2026-07-30, kamoku: 確率論, tani: 2}"])
    }

    @Test("a lone dash shown is met by the dash or by a blank field, each taken once; another text is not")
    func dashIsNone() {
        let expected: [ForeignRecords.Record] = [["course": .text("英語コミュニケーションA"), "grade": .text("-")]]
        let reading = ForeignRecords.Reading(types: [:])
        let asNull: [ForeignRecords.Record] = [["course": .text("英語コミュニケーションA"), "grade": .null]]
        let asDash: [ForeignRecords.Record] = [["course": .text("英語コミュニケーションA"), "grade": .text("-")]]
        let asZero: [ForeignRecords.Record] = [["course": .text("英語コミュニケーションA"), "grade": .text("0")]]
        #expect(ForeignRecords.differences(expected: expected, returned: asNull, reading: reading).isEmpty)
        #expect(ForeignRecords.differences(expected: expected, returned: asDash, reading: reading).isEmpty)
        #expect(!ForeignRecords.differences(expected: expected, returned: asZero, reading: reading).isEmpty)
        // A blank returned field meets one dash, not two.
        let twoDashes: [ForeignRecords.Record] = [["course": .text("英語"), "grade": .text("-"), "points": .text("-")]]
        let oneBlank: [ForeignRecords.Record] = [["course": .text("英語"), "grade": .null, "points": .text("5")]]
        #expect(ForeignRecords.differences(expected: twoDashes, returned: oneBlank, reading: reading) != [])
    }

    @Test("a date shown yyyy/MM/dd is not a text that merely looks alike; an untyped '2026/07/29' stays a text")
    func untypedDate() {
        let expected: [ForeignRecords.Record] = [["date": .text("2026/07/29")]]
        let returned: [ForeignRecords.Record] = [["d": .text("2026-07-29")]]
        #expect(!ForeignRecords.differences(expected: expected, returned: returned, reading: .init()).isEmpty)
    }

    @Test("a derived yes/no is checked only when unitool returned one")
    func derived() {
        let expected: [ForeignRecords.Record] = [["title": .text("Book"), "overdue": .bool(true)]]
        let reading = ForeignRecords.Reading(derived: ["overdue"])
        #expect(ForeignRecords.differences(expected: expected, returned: [["t": .text("Book")]], reading: reading).isEmpty)
        #expect(
            ForeignRecords.differences(expected: expected, returned: [["t": .text("Book"), "late": .bool(true)]], reading: reading).isEmpty)
        #expect(
            ForeignRecords.differences(expected: expected, returned: [["t": .text("Book"), "late": .bool(false)]], reading: reading)
                == ["record 1 differs: overdue 'true' not found in {late: false, t: Book}"])
    }

    @Test("records missing and extra are named; a datetime is the instant it names; one number inside a text is a number")
    func missingAndExtra() {
        let expected: [ForeignRecords.Record] = [
            ["title": .text("A"), "updated": .text("2026-11-20T09:00:00+09:00")],
            ["title": .text("B"), "updated": .text("2026-11-18T15:30:00+09:00")],
        ]
        let reading = ForeignRecords.Reading(types: ["updated": "datetime, ISO 8601 with offset"])
        let returned: [ForeignRecords.Record] = [
            ["x": .text("A"), "y": .text("2026-11-20T00:00:00Z")], ["x": .text("C"), "y": .text("z")],
        ]
        #expect(
            ForeignRecords.differences(expected: expected, returned: returned, reading: reading) == [
                "record 2 missing: {title: B, updated: 2026-11-18T15:30:00+09:00}", "extra record: {x: C, y: z}",
            ])
        let version = ForeignRecords.Reading(types: ["ver": "number"])
        #expect(ForeignRecords.differences(expected: [["ver": .text("3.2")]], returned: [["v": .text("第3.2版")]], reading: version).isEmpty)
        #expect(!ForeignRecords.differences(expected: [["ver": .text("3.2")]], returned: [["v": .text("第3.3版")]], reading: version).isEmpty)
    }

    @Test("a command's address is its fetch against its service's base; the query and a term template do not count")
    func addresses() {
        let lms = ForeignRecords.address(base: "http://127.0.0.1:8552/", fetch: "/grade/report/overview/index.php")
        #expect(ForeignRecords.samePage(lms, "http://127.0.0.1:8552/grade/report/overview/index.php"))
        #expect(!ForeignRecords.samePage(lms, "http://127.0.0.1:8554/grade/report/overview/index.php"))
        let term = ForeignRecords.address(base: "http://127.0.0.1:8471", fetch: "/campus/seiseki?gakki={{gakki}}")
        #expect(ForeignRecords.samePage(term, "http://127.0.0.1:8471/campus/seiseki?gakki={term}"))
        #expect(!ForeignRecords.samePage(term, "http://127.0.0.1:8471/campus/kashidashi"))
        #expect(ForeignRecords.samePage(ForeignRecords.address(base: "http://h:1", fetch: "/campus/"), "http://h:1/campus"))
    }

    @Test("a generated command file gives its name, service, address and one option")
    func generatedCommand() {
        let yaml = """
            command: seiseki
            service: lms
            options:
              # guess: a selector
              gakki:
                default: current
            fetch: "/campus/seiseki?gakki={{gakki}}"
            """
        let command = ForeignPortals.command(yaml: yaml)
        #expect(command?.name == "seiseki" && command?.service == "lms" && command?.option == "gakki")
        #expect(command?.fetch == "/campus/seiseki?gakki={{gakki}}")
        let bases = ForeignPortals.bases(portalYAML: "base_url: \"http://a:1\"\nservices:\n  lms: { base_url: \"http://a:2/\" }\n")
        #expect(bases.base == "http://a:1" && bases.services == ["lms": "http://a:2/"])
    }

    @Test("the portal's day is noon in its zone, with the offset, as UNITOOL_NOW; without a zone, noon UTC")
    func portalDay() {
        #expect(ForeignPortals.now(today: "2026-07-01", timeZone: "Asia/Tokyo") == "2026-07-01T12:00:00+09:00")
        #expect(ForeignPortals.now(today: "2026-11-22", timeZone: nil) == "2026-11-22T12:00:00+00:00")
        #expect(ForeignPortals.now(today: "2026-01-15", timeZone: "America/New_York") == "2026-01-15T12:00:00-05:00")
        #expect(ForeignPortals.now(today: nil, timeZone: "Asia/Tokyo") == nil)
        #expect(ForeignPortals.now(today: "1 July", timeZone: nil) == nil)
    }

    @Test("a generated portal.yaml has terms only with a top-level terms: section")
    func termsSection() {
        #expect(ForeignPortals.hasTerms(portalYAML: "portal: x\nterms:\n  version_api: \"/api/terms\"\n"))
        #expect(!ForeignPortals.hasTerms(portalYAML: "portal: x\n# terms: none\nlogin:\n  terms: 1\n"))
    }

    @Test("fields a page shows inside one text are met by that text, or by each part apart")
    func asShown() {
        let expected: [ForeignRecords.Record] = [["uid": .text("alice"), "name": .text("Alice Liddell")]]
        let reading = ForeignRecords.Reading(asShown: ["who": "Signed in as {uid} ({name})"])
        let whole: [ForeignRecords.Record] = [["who": .text("Signed in as  alice (Alice Liddell)")]]
        #expect(ForeignRecords.differences(expected: expected, returned: whole, reading: reading).isEmpty)
        let apart: [ForeignRecords.Record] = [["u": .text("alice"), "n": .text("Alice Liddell")]]
        #expect(ForeignRecords.differences(expected: expected, returned: apart, reading: reading).isEmpty)
        let half: [ForeignRecords.Record] = [["u": .text("alice"), "n": .text("Alice")]]
        #expect(
            ForeignRecords.differences(expected: expected, returned: half, reading: reading) == [
                "record 1 missing: {name: Alice Liddell, uid: alice}", "extra record: {n: Alice, u: alice}",
            ])
        let other: [ForeignRecords.Record] = [["who": .text("Signed in as bob (Bob)")]]
        #expect(!ForeignRecords.differences(expected: expected, returned: other, reading: reading).isEmpty)
    }

    @Test("the TOTP command prints RFC 6238's code for the secret")
    func totp() async throws {
        let command = ForeignPortals.totpCommand(secret: "JBSWY3DPEHPK3PXP")
        let outcome = try await UniToolProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command])
        #expect(outcome.exitCode == 0 && outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 6, "\(outcome)")
    }
}
