import Testing

@testable import Localization

@Suite struct LocalizedTextTests {
    @Test func interpolationsBecomeNumberedFieldsAndBracesAreDoubled() {
        let name = "grades"
        let count = 3
        let text: LocalizedText = "no recipe '\(name)' has {braces}, \(count) times"
        #expect(text.key == "no recipe '{0}' has {{braces}}, {1} times")
        #expect(text.values == ["grades", "3"])
        #expect(text.description == "no recipe 'grades' has {braces}, 3 times")
    }

    @Test func aTextWithoutFieldsIsItsOwnKeyBracesAndAll() {
        let text: LocalizedText = "use {json} as is"
        #expect(text.key == "use {json} as is")
        #expect(text.description == "use {json} as is")
    }

    @Test func aTranslationMayReorderFieldsAndABrokenOneFallsBackToEnglish() {
        #expect(LocalizedText.filling("{1} の {0}", with: ["a", "b"]) == "b の a")
        #expect(LocalizedText.filling("{{literal}} {0}", with: ["x"]) == "{literal} x")
        #expect(LocalizedText.filling("{2}", with: ["x"]) == nil)
        #expect(LocalizedText.filling("{0", with: ["x"]) == nil)
        #expect(LocalizedText.filling("}", with: []) == nil)
    }
}
