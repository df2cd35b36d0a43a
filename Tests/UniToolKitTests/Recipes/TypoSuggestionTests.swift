import Testing

@testable import UniToolKit

@Suite("Did you mean: the name meant, or none when nothing is close")
struct TypoSuggestionTests {
    @Test(
        "a swap, a letter left out, one added or changed finds the name; a distant word finds none",
        arguments: [
            ("--trem", ["--user", "--term", "--source"], "--term"),
            ("--portl", ["--port", "--portal"], "--portal"),
            ("grdes", ["courses", "grades", "loans", "auth"], "grades"),
            ("--jsn", ["--json", "--user"], "--json"),
            ("--sumary", ["--summary", "--term"], "--summary"),
            ("--TERM", ["--term"], "--term"),
            ("--frobnicate", ["--format", "--fields", "--portal"], nil),
            ("xyz", ["grades", "loans"], nil),
        ] as [(String, [String], String?)])
    func suggestion(typed: String, names: [String], expected: String?) {
        #expect(typoSuggestion(for: typed, among: names) == expected)
    }

    @Test("the distance counts a swap of neighbours as one edit")
    func swapIsOne() {
        #expect(editDistance("trem", "term") == 1 && editDistance("portl", "portal") == 1 && editDistance("", "abc") == 3)
    }
}
