import Testing

@testable import Localization

@Suite struct LanguagePreferenceTests {
    @Test func theMessagesLocaleIsTheFirstOfLCAllLCMessagesAndLang() {
        #expect(LanguagePreference(environment: ["LANG": "ja_JP.UTF-8"]).locales == ["ja_JP"])
        #expect(LanguagePreference(environment: ["LANG": "ja_JP.UTF-8", "LC_MESSAGES": "hu_HU.UTF-8"]).locales == ["hu_HU"])
        #expect(LanguagePreference(environment: ["LC_ALL": "", "LC_MESSAGES": "hu_HU.UTF-8", "LANG": "ja_JP"]).locales == ["hu_HU"])
        #expect(LanguagePreference(environment: [:]).locales == [])
    }

    @Test func theCLocaleIsEnglishAndSilencesLanguage() {
        for c in ["C", "C.UTF-8", "C.utf8", "POSIX"] {
            #expect(LanguagePreference(environment: ["LANG": c, "LANGUAGE": "ja"]).locales == [])
        }
        #expect(LanguagePreference(environment: ["LC_ALL": "C", "LANG": "ja_JP.UTF-8"]).locales == [])
    }

    @Test func languageListsTheLanguagesInOrderWhenALocaleIsSet() {
        let preference = LanguagePreference(environment: ["LANG": "de_DE.UTF-8", "LANGUAGE": "hu:ja_JP:hu"])
        #expect(preference.locales == ["hu", "ja_JP"])
        #expect(preference.languages == ["hu", "ja"])
    }

    @Test func aValueThatIsNoLocaleNameIsIgnored() {
        #expect(LanguagePreference(environment: ["LANG": "../../etc"]).locales == [])
        #expect(LanguagePreference(environment: ["LANG": "ja_JP.UTF-8", "LANGUAGE": "x/y:hu"]).locales == ["hu"])
    }

    @Test func catalogNamesGoFromTheMostSpecific() {
        #expect(LanguagePreference.catalogNames(for: "sr_RS@latin") == ["sr_RS@latin", "sr@latin", "sr_RS", "sr"])
        #expect(LanguagePreference.catalogNames(for: "ja_JP") == ["ja_JP", "ja"])
        #expect(LanguagePreference.catalogNames(for: "hu") == ["hu"])
    }
}
