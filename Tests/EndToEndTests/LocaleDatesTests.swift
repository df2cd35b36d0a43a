import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Issue 50, deliverable 5: the real `unitool` under real locales, generated with Debian's
/// `locales` (`localedef`, no root) into a folder named by `LOCPATH`, so that the C library sees
/// the locale exactly as on a user's machine where it is installed.
@Suite(
    "Dates in the person's locale, end to end",
    .enabled(if: Needs.program("/usr/bin/localedef") && Needs.check(GeneratedLocales.sourcesInstalled, "locales' sources")))
struct LocaleDatesTests {
    /// Runs unitool in a sandbox with only the given locale variables set.
    func run(_ arguments: [String], locale: [String: String], in sandbox: Sandbox) async throws -> UniToolProcess.Outcome {
        let folder = try GeneratedLocales.folder.get()
        let extra = locale.merging(["LOCPATH": folder.path, "TZ": "Europe/Budapest", "UNITOOL_NOW": "2026-11-30T09:00:00+01:00"]) { $1 }
        return try await sandbox.run(arguments, extra: extra, removing: ["LC_ALL", "LC_TIME", "LANG", "LANGUAGE", "COLUMNS"])
    }

    @Test("the C library itself takes the generated locales: the environment is a user's")
    func generated() throws {
        let folder = try GeneratedLocales.folder.get()
        let months = try UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/locale"), ["mon"], environment: ["LOCPATH": folder.path, "LC_ALL": "hu_HU.UTF-8"],
            removingEnvironment: ["LC_TIME", "LANG"])
        #expect(months.stdout.contains("november") && months.stderr.isEmpty, "\(months)")
    }

    @Test(
        "news: month and day names in the locale of LC_ALL, then LC_TIME, then LANG; C is English with a 24-hour clock",
        arguments: [
            (["LC_ALL": "hu_HU.UTF-8"], ["2026. nov. 20., P 9:00", "okt."]),
            (["LC_ALL": "ja_JP.UTF-8"], ["2026年11月20日(金) 9:00", "2026年10月"]),
            (["LC_ALL": "de_DE.UTF-8"], ["Fr. 20. Nov. 2026, 09:00", "Okt. 2026"]),
            (["LC_TIME": "de_DE.UTF-8", "LANG": "en_US.UTF-8"], ["Fr. 20. Nov. 2026, 09:00"]),
            (["LANG": "hu_HU.UTF-8"], ["2026. nov. 20., P 9:00"]),
            (["LC_ALL": "C.UTF-8", "LC_TIME": "de_DE.UTF-8"], ["Fri, 20 Nov 2026 at 09:00", "Oct 2026"]),
            ([:], ["Fri, 20 Nov 2026 at 09:00"]),
        ] as [([String: String], [String])])
    func news(locale: [String: String], shown: [String]) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let table = try await run(["--portal", "demo", "news"], locale: locale, in: sandbox)
        #expect(table.exitCode == 0, "\(table)")
        for text in shown {
            #expect(table.stdout.contains(text), "\(locale): '\(text)' in\n\(table.stdout)")
        }
        let json = try await run(["--portal", "demo", "news", "--json"], locale: locale, in: sandbox)
        #expect(json.stdout.contains("\"2026-11-20T09:00:00+01:00\""), "JSON stays ISO 8601:\n\(json.stdout)")
        let csv = try await run(["--portal", "demo", "news", "--format", "csv"], locale: locale, in: sandbox)
        #expect(csv.stdout.contains(",2026-11-20T09:00:00+01:00"), "CSV stays ISO 8601:\n\(csv.stdout)")
    }

    @Test("Japanese dates keep the columns lined up: every row's category starts at the same cell")
    func japaneseAligned() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let table = try await run(
            ["--portal", "demo", "news", "--fields", "title,date,category"], locale: ["LC_ALL": "ja_JP.UTF-8"], in: sandbox)
        #expect(table.exitCode == 0, "\(table)")
        let lines = table.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("──") }
        #expect(lines.count > 5 && lines.dropFirst().allSatisfy { $0.contains("年") }, "\(table.stdout)")
        // The cell where the last column starts: after the last gap of two or more spaces.
        let starts = Set(
            lines.compactMap { line -> Int? in
                guard let gap = line.range(of: "  ", options: .backwards) else { return nil }
                return DisplayWidth.of(String(line[..<gap.upperBound]))
            })
        #expect(starts.count == 1, "one start for the category column:\n\(table.stdout)")
    }

    @Test(
        "today's heading names the day and month in the locale",
        arguments: [
            ("hu_HU.UTF-8", "2026. november 30., hétfő 9:00"), ("ja_JP.UTF-8", "2026年11月30日 月曜日 9:00"),
            ("de_DE.UTF-8", "Montag, 30. November 2026 um 09:00"), ("C", "Monday, 30 November 2026 at 09:00"),
        ])
    func todayHeading(locale: String, heading: String) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let today = try await run(["--portal", "demo", "today"], locale: ["LC_ALL": locale], in: sandbox)
        #expect(today.exitCode == 0, "\(today)")
        #expect(today.stdout.hasPrefix(heading), "\(today.stdout)")
    }

    @Test("today's class times follow the locale's clock in the table; its JSON keeps the service's own text and ISO times")
    func todayClassTimes() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let american = try await run(["--portal", "demo", "today"], locale: ["LC_ALL": "en_US.UTF-8"], in: sandbox)
        // CLDR puts a narrow no-break space before AM and PM; the point is the 12-hour clock.
        let classes = american.stdout.split(separator: "\n").filter {
            $0.contains("  Probability Theory  ") || $0.contains("  Operating Systems  ")
        }
        #expect(american.exitCode == 0 && classes.count == 2, "\(american.stdout)")
        #expect(classes.allSatisfy { $0.contains("AM") || $0.contains("PM") } && !american.stdout.contains("15:00"), "\(american.stdout)")
        let english = try await run(["--portal", "demo", "today"], locale: ["LC_ALL": "C"], in: sandbox)
        #expect(english.exitCode == 0 && english.stdout.contains("10:00–11:30"), "\(english.stdout)")
        let json = try await run(["--portal", "demo", "today", "--json"], locale: ["LC_ALL": "en_US.UTF-8"], in: sandbox)
        #expect(json.exitCode == 0 && json.stdout.contains("\"10:00–11:30\"") && !json.stdout.contains("AM"), "\(json.stdout)")
    }
}

/// Debian's locale sources, compiled once per test process with `localedef` into a folder of
/// its own (`LOCPATH`), as a user's `locale-gen` would for the system.
enum GeneratedLocales {
    static let names = ["hu_HU", "ja_JP", "de_DE", "en_US"]
    static var sourcesInstalled: Bool {
        names.allSatisfy { FileManager.default.fileExists(atPath: "/usr/share/i18n/locales/\($0)") }
    }

    /// The generated locales, made once and kept in `.build/test-locales`: compiled into a folder
    /// of this process's own and renamed into place, so that test processes running at once
    /// never read a half-made one.
    static let folder: Result<URL, any Error> = Result {
        let kept = Fixtures.root.appendingPathComponent(".build/test-locales")
        let complete = names.allSatisfy {
            FileManager.default.fileExists(atPath: kept.appendingPathComponent("\($0).UTF-8/LC_TIME").path)
        }
        if complete { return kept }
        let folder = Fixtures.root.appendingPathComponent(".build/test-locales-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for locale in names {
            let made = try UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/localedef"),
                ["-i", locale, "-f", "UTF-8", folder.appendingPathComponent("\(locale).UTF-8").path],
                timeout: 120)
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(locale).UTF-8/LC_TIME").path) else {
                throw LocaleNotMade(description: "localedef made no \(locale): \(made)")
            }
        }
        // Another process may have put its own in place meanwhile: the same locales.
        if rename(folder.path, kept.path) == 0 || FileManager.default.fileExists(atPath: kept.path) { return kept }
        throw LocaleNotMade(description: "could not keep the locales in \(kept.path): \(String(cString: strerror(errno)))")
    }

    struct LocaleNotMade: Error, CustomStringConvertible { var description: String }
}
