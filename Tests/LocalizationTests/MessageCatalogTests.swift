import Foundation
import Testing
import UniToolTestSupport

@testable import Localization

/// Catalogs compiled by the real `msgfmt`, read back.
@Suite(.enabled(if: Needs.program("/usr/bin/msgfmt"))) struct MessageCatalogTests {
    @Test func aCatalogMsgfmtWroteIsReadWithItsPluralRuleAndContexts() throws {
        let folder = try compile(
            language: "hu",
            po: """
                msgid ""
                msgstr ""
                "Language: hu\\n"
                "Content-Type: text/plain; charset=UTF-8\\n"
                "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

                #, python-brace-format
                msgid "no recipe '{0}' for {1}"
                msgstr "{1} portálnak nincs „{0}” receptje"

                #, python-brace-format
                msgid "{0} record"
                msgid_plural "{0} records"
                msgstr[0] "{0} rekord"
                msgstr[1] "{0} rekordok"

                msgid "left untranslated"
                msgstr ""

                #, fuzzy
                msgid "a guess"
                msgstr "egy tipp"
                """)
        let translation = Translation(preference: LanguagePreference(locales: ["hu_HU"]), directories: [folder])
        #expect(translation.isTranslated)
        let portal = "demo"
        let name = "grades"
        #expect(LocalizedText("no recipe '\(name)' for \(portal)").rendered(in: translation) == "demo portálnak nincs „grades” receptje")
        #expect(LocalizedText("left untranslated").rendered(in: translation) == "left untranslated")
        #expect(LocalizedText("a guess").rendered(in: translation) == "a guess")
        Translation.$override.withValue(translation) {
            #expect(localized("\(1) record", plural: "\(1) records", count: 1) == "1 rekord")
            #expect(localized("\(5) record", plural: "\(5) records", count: 5) == "5 rekordok")
        }
        #expect(localized("\(5) record", plural: "\(5) records", count: 5) == "5 records")
    }

    @Test func theNextLanguageAnswersWhatTheFirstLacks() throws {
        let japanese = try compile(language: "ja", po: entry("yes", "はい") + entry("no", "いいえ"))
        let hungarian = try compile(language: "hu", po: entry("yes", "igen") + entry("maybe", "talán"))
        let translation = Translation(preference: LanguagePreference(locales: ["ja", "hu"]), directories: [japanese, hungarian])
        #expect(["yes", "maybe", "never"].map { LocalizedText(verbatim: $0).rendered(in: translation) } == ["はい", "talán", "never"])
    }

    @Test func aBigEndianCatalogIsReadAndEveryEntryIsFound() throws {
        // Many entries, so that the binary search over the sorted table takes several steps.
        let words = (0..<300).map { "message \($0)" }
        let po = words.map { entry($0, "üzenet " + $0.dropFirst("message ".count)) }.joined()
        for endianness in ["big", "little"] {
            let folder = try compile(language: "hu", po: po, extra: ["--endianness=\(endianness)"])
            let translation = Translation(preference: LanguagePreference(locales: ["hu"]), directories: [folder])
            #expect(words.allSatisfy { translation.message($0) == "üzenet " + $0.dropFirst("message ".count) }, "\(endianness)")
            #expect(translation.message("message 300") == nil && translation.message("") == nil && translation.message("zzz") == nil)
        }
    }

    @Test func whatIsNoCatalogIsRefused() {
        #expect(throws: MessageCatalog.ReadError.notACatalog) { try MessageCatalog(data: Data("not a catalog at all, long enough".utf8)) }
        var truncated = Data([0xde, 0x12, 0x04, 0x95])
        truncated.append(Data(repeating: 0xff, count: 24))
        #expect(throws: MessageCatalog.ReadError.self) { try MessageCatalog(data: truncated) }
    }

    private func entry(_ id: String, _ text: String) -> String { "msgid \"\(id)\"\nmsgstr \"\(text)\"\n\n" }

    /// `po` compiled by msgfmt into `<folder>/<language>/LC_MESSAGES/unitool.mo`; the folder.
    private func compile(language: String, po: String, extra: [String] = []) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        let messages = folder.appendingPathComponent("\(language)/LC_MESSAGES")
        try FileManager.default.createDirectory(at: messages, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("\(language).po")
        let header = po.hasPrefix("msgid \"\"") ? "" : "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n"
        try Data((header + po).utf8).write(to: source)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
        process.arguments = ["--check"] + extra + ["-o", messages.appendingPathComponent("unitool.mo").path, source.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return folder.path
    }
}
