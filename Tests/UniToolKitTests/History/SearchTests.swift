import Foundation
import Testing

@testable import UniToolKit

@Suite("Typo-tolerant search")
struct SearchTests {
    @Test("normalised: case, Latin accents and full-width forms go; kana and kanji stay as they are")
    func normalize() {
        #expect(TextMatcher.normalize("Középiskola") == "kozepiskola")
        #expect(TextMatcher.normalize("ＡＢＣ１２３") == "abc123")
        #expect(TextMatcher.normalize("ｶﾞｲﾀﾞﾝｽ") == "ガイダンス", "half-width kana become full-width, voicing kept")
        #expect(TextMatcher.normalize("情報理論") == "情報理論")
        #expect(TextMatcher.words("情報理論 (Information Theory)") == ["情報理論", "information", "theory"])
    }

    @Test("Damerau–Levenshtein counts a swap of neighbours as one edit, and gives up past its bound")
    func distance() {
        #expect(TextMatcher.damerauLevenshtein("infromation", "information") == 1)
        #expect(TextMatcher.damerauLevenshtein("theroy", "theory") == 1)
        #expect(TextMatcher.damerauLevenshtein("kitten", "sitting") == 3)
        #expect(TextMatcher.damerauLevenshtein("abc", "xyz123", bound: 1) == 2)
        #expect(TextMatcher.damerauLevenshtein("", "abc") == 3)
    }

    @Test("exact beats prefix beats fuzzy; short words must be exact; CJK matches inside words")
    func matching() {
        let words = TextMatcher.words("Information theory and language")
        #expect(TextMatcher.match("theory", in: words)?.quality == .exact)
        #expect(TextMatcher.match("info", in: words)?.quality == .prefix)
        #expect(TextMatcher.match("theroy", in: words)?.quality == .fuzzy)
        #expect(TextMatcher.match("ant", in: words) == nil, "three letters allow no typo")
        #expect(TextMatcher.match("理論", in: TextMatcher.words("情報理論"))?.quality == .prefix)
    }

    @Test("scalars are compared, but a match never ends between a letter and its mark, and typos are counted in letters")
    func lettersAndMarks() {
        // Devanagari: कि is क with a vowel sign, one letter of two scalars.
        #expect(TextMatcher.match("क", word: "कि") == nil, "क is no prefix of कि")
        #expect(TextMatcher.match("कि", word: "किताब")?.quality == .prefix)
        #expect(TextMatcher.match("क", word: "कक")?.quality == .prefix)
        #expect(TextMatcher.match("か", word: "か\u{309A}ら") == nil, "a kana and its semi-voiced mark stay one letter")
        #expect(TextMatcher.allowedTypos(for: "किताब") == 0, "five scalars, but three letters: no typo, as for any short word")
        #expect(editDistance("cafe\u{301}", "café") == 0, "a decomposed é is no typo of a composed one")
    }

    @Test("every word must match, and the best hits come first")
    func ranking() {
        let items = [
            Search.Item(kind: "record", command: "news", text: "Guest lecture: Information theory and language"),
            Search.Item(kind: "record", command: "courses", text: "情報理論 (Information Theory) · CS-320"),
            Search.Item(kind: "record", command: "news", text: "Tanévnyitó ünnepség és nyílt nap középiskolásoknak"),
            Search.Item(kind: "command", command: "loans", text: "Library loans, with due dates"),
        ]
        let hits = Search.search("infromation theroy", in: items)
        #expect(hits.count == 2)
        #expect(Set(hits.map(\.item.command)) == ["news", "courses"])
        #expect(Search.search("information theory", in: items).first?.quality == .exact)
        #expect(Search.search("kozepiskola", in: items).map(\.item.command) == ["news"])
        #expect(Search.search("loans", in: items).first?.item.kind == "command")
        #expect(Search.search("information zebra", in: items).isEmpty)
        #expect(Search.search("   ", in: items).isEmpty)
    }
}
