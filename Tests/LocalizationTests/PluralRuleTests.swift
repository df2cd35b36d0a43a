import Testing

@testable import Localization

@Suite struct PluralRuleTests {
    @Test func englishTakesTheFirstFormForOneOnly() {
        #expect([0, 1, 2, 11].map(PluralRule.english.form(for:)) == [1, 0, 1, 1])
    }

    @Test func hungarianAndJapaneseRulesAsTheirCatalogsGiveThem() throws {
        let hungarian = try #require(PluralRule(header: "nplurals=2; plural=(n != 1);"))
        #expect(hungarian.formCount == 2)
        #expect([0, 1, 2, 21].map(hungarian.form(for:)) == [1, 0, 1, 1])
        let japanese = try #require(PluralRule(header: "nplurals=1; plural=0;"))
        #expect([0, 1, 2, 100].map(japanese.form(for:)) == [0, 0, 0, 0])
    }

    @Test func aRuleWithConditionalsAndPrecedenceIsReadAsC() throws {
        // Polish, from the gettext manual: precedence of && over ||, and nested ?:.
        let polish = try #require(
            PluralRule(header: "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"))
        #expect([1, 2, 4, 5, 12, 14, 22, 25, 112].map(polish.form(for:)) == [0, 1, 1, 2, 2, 2, 1, 2, 2])
        let negation = try #require(PluralRule(header: "nplurals=2; plural=!(n == 1);"))
        #expect([1, 3].map(negation.form(for:)) == [0, 1])
    }

    @Test func whatIsNoRuleIsRefusedAndAFormOutOfRangeIsTheFirst() throws {
        #expect(PluralRule(header: "nplurals=2; plural=(n != 1") == nil)
        #expect(PluralRule(header: "nplurals=2; plural=n +") == nil)
        #expect(PluralRule(header: "plural=n;") == nil)
        #expect(PluralRule(header: "nplurals=2; plural=x;") == nil)
        let tooMany = try #require(PluralRule(header: "nplurals=2; plural=n;"))
        #expect(tooMany.form(for: 5) == 0)
        let division = try #require(PluralRule(header: "nplurals=2; plural=n/0 + n%0;"))
        #expect(division.form(for: 5) == 0)
    }
}
