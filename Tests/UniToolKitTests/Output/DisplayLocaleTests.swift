import Foundation
import Testing
import UniToolKit

/// Which locale a person's dates are shown in, from the POSIX variables, and what it prints.
@Suite("Dates in the person's locale")
struct DisplayLocaleTests {
    @Test(
        "POSIX names become Foundation's identifiers; C, POSIX and what is no locale name give nil",
        arguments: [
            ("hu_HU.UTF-8@euro", "hu_HU"), ("ja_JP.UTF-8", "ja_JP"), ("de_DE.utf8", "de_DE"), ("de_DE@euro", "de_DE"),
            ("en_US", "en_US"), ("de", "de"), ("sr_RS@latin", "sr_Latn_RS"), ("sr_RS.UTF-8@cyrillic", "sr_Cyrl_RS"),
            ("es_419.UTF-8", "es_419"), ("C", nil), ("C.UTF-8", nil), ("POSIX", nil), ("/usr/lib/locale/x", nil),
            ("english!", nil), ("", nil), ("hu_HU_x", nil),
        ] as [(String, String?)])
    func identifiers(posix: String, expected: String?) {
        #expect(DisplayLocale.identifier(posix: posix) == expected)
    }

    @Test("LC_ALL, then LC_TIME, then LANG, the first set and not empty; the first set decides even when it is C")
    func order() {
        #expect(
            DisplayLocale(environment: ["LC_ALL": "hu_HU.UTF-8", "LC_TIME": "de_DE.UTF-8", "LANG": "ja_JP.UTF-8"])
                == DisplayLocale(identifier: "hu_HU", variable: "LC_ALL"))
        #expect(
            DisplayLocale(environment: ["LC_TIME": "de_DE.UTF-8", "LANG": "en_US.UTF-8"])
                == DisplayLocale(identifier: "de_DE", variable: "LC_TIME"))
        #expect(
            DisplayLocale(environment: ["LC_ALL": "", "LC_TIME": "", "LANG": "ja_JP.UTF-8"])
                == DisplayLocale(identifier: "ja_JP", variable: "LANG"))
        #expect(DisplayLocale(environment: ["LC_ALL": "C", "LC_TIME": "de_DE.UTF-8"]) == .fallback, "LC_ALL overrides LC_TIME")
        #expect(DisplayLocale(environment: ["LC_MESSAGES": "de_DE.UTF-8", "LANGUAGE": "de"]) == .fallback, "only the time category counts")
        #expect(DisplayLocale(environment: [:]) == .fallback)
        #expect(DisplayLocale.fallback.identifier == "en_GB")
    }

    /// 2026-11-20 09:00 UTC, a Friday.
    let moment = Date(timeIntervalSince1970: 1_795_165_200)

    @Test("month and day names and the clock are the locale's: CLDR's data is in Foundation here")
    func realData() throws {
        func text(_ id: String) -> LocalDateText { LocalDateText(locale: DisplayLocale(identifier: id), timeZone: .gmt) }
        #expect(text("hu_HU").date(moment) == "2026. nov. 20., P")
        #expect(text("hu_HU").longDateTime(moment) == "2026. november 20., péntek 9:00")
        #expect(text("ja_JP").date(moment) == "2026年11月20日(金)")
        #expect(text("ja_JP").longDateTime(moment).contains("金曜日"))
        #expect(text("de_DE").dateTime(moment) == "Fr. 20. Nov. 2026, 09:00")
        #expect(text("de_DE").longDateTime(moment).hasPrefix("Freitag, 20. November 2026"))
        // CLDR puts a narrow no-break space before AM.
        #expect(text("en_US").dateTime(moment) == "Fri, Nov 20, 2026 at 9:00\u{202F}AM", "12-hour where the locale uses it")
        #expect(text("en_GB").dateTime(moment) == "Fri, 20 Nov 2026 at 09:00")
        #expect(text("en_GB").time(moment) == "09:00")
    }

    @Test("a language Foundation does not know is shown in the default English, not the root locale's mix")
    func unknownLanguage() {
        #expect(DisplayLocale(identifier: "xx_YY").locale.identifier == DisplayLocale.fallbackIdentifier)
        #expect(DisplayLocale(identifier: "hu_HU").locale.identifier == "hu_HU")
    }

    @Test("a table writes dates in its style's locale; JSON, JSON Lines and CSV stay ISO 8601")
    func tablesOnly() {
        let set = RecordSet(
            columns: ["title", "due", "at"],
            records: [
                Record(fields: [("title", .string("x")), ("due", .date("2026-11-20")), ("at", .datetime("2026-11-20T10:00:00+01:00"))])
            ])
        var style = TableStyle(bold: false, localDates: true, locale: DisplayLocale(identifier: "hu_HU"))
        style.timeZone = TimeZone(identifier: "Europe/Budapest")
        let table = TableRenderer(style: style).render(set)
        #expect(table.contains("2026. nov. 20., P") && table.contains("2026. nov. 20., P 10:00"), "\(table)")
        for format in [OutputFormat.json, .jsonl, .csv] {
            let text = format.render(set, style: style)
            #expect(
                text.contains("2026-11-20") && text.contains("2026-11-20T10:00:00+01:00") && !text.contains("nov."), "\(format): \(text)")
        }
    }

    @Test("numbers in a table take the decimal separator of LC_ALL, then LC_NUMERIC, then LANG; JSON and CSV keep the point")
    func decimalSeparator() {
        #expect(
            DisplayLocale(environment: ["LC_NUMERIC": "hu_HU.UTF-8", "LANG": "ja_JP.UTF-8"], category: "LC_NUMERIC").decimalSeparator == ","
        )
        #expect(DisplayLocale(environment: ["LC_ALL": "C", "LC_NUMERIC": "de_DE.UTF-8"], category: "LC_NUMERIC").decimalSeparator == ".")
        #expect(DisplayLocale(environment: ["LANG": "ja_JP.UTF-8"], category: "LC_NUMERIC").decimalSeparator == ".")
        #expect(TableStyle.forStandardOutput(environment: ["LANG": "de_DE.UTF-8"], isTerminal: false).decimalSeparator == ",")
        let set = RecordSet(
            columns: ["course", "points", "credits", "year"],
            records: [
                Record(fields: [
                    ("course", .string("MATH 3.1")), ("points", .number(3.7)), ("credits", .integer(6)), ("year", .integer(2026)),
                ])
            ])
        var style = TableStyle(bold: false)
        style.decimalSeparator = ","
        let table = TableRenderer(style: style, display: ["credits": ColumnDisplay(decimals: 1)]).render(set)
        #expect(table.contains("MATH 3.1") && table.contains("3,7") && table.contains("6,0") && table.contains("2026"), "\(table)")
        for format in [OutputFormat.json, .csv] {
            #expect(format.render(set, style: style).contains("3.7"), "\(format)")
        }
    }

    @Test("the style for standard output takes the locale from the environment")
    func standardOutput() {
        let style = TableStyle.forStandardOutput(environment: ["LC_TIME": "de_DE.UTF-8", "LANG": "en_US.UTF-8"], isTerminal: false)
        #expect(style.locale == DisplayLocale(identifier: "de_DE", variable: "LC_TIME"))
    }
}
