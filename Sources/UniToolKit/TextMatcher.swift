import Foundation

/// Typo-tolerant matching of a query against text, as a search box on every keystroke needs it.
/// Pure, with its own tests.
///
/// Text is normalised before it is compared: Unicode NFKC (full-width `Ａ` is `A`, half-width kana
/// are full-width), lower case, and Latin diacritics removed (`Középiskola` is `kozepiskola`).
/// Kana and kanji are left as they are: a dakuten is part of the letter, not an accent.
public enum TextMatcher {
    /// How well a query word matched, best first.
    public enum Quality: Int, Sendable, Comparable {
        case fuzzy = 1
        case prefix = 2
        case exact = 3

        public static func < (lhs: Quality, rhs: Quality) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The text as it is compared.
    public static func normalize(_ text: String) -> String {
        let compatible = text.precomposedStringWithCompatibilityMapping.lowercased()
        var result = String.UnicodeScalarView()
        for scalar in compatible.decomposedStringWithCanonicalMapping.unicodeScalars {
            // Combining diacritical marks (U+0300–U+036F) go; kana's voicing marks (U+3099) stay.
            if (0x300...0x36F).contains(scalar.value) { continue }
            result.append(scalar)
        }
        return String(result).precomposedStringWithCanonicalMapping
    }

    /// The normalised words of a text: runs of letters and digits.
    public static func words(_ text: String) -> [String] {
        normalize(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// The best match of one query word among the text's words, if any.
    ///
    /// A word of CJK characters (which have no spaces between words) matches inside a word too.
    /// The typos allowed grow with the word: none up to 3 characters, one up to 7, then two.
    public static func match(_ queryWord: String, in words: [String]) -> (quality: Quality, distance: Int)? {
        best(of: words.lazy.map { match(queryWord, word: $0) })
    }

    /// The best of several matches: the higher quality, then the fewer typos.
    static func best(of matches: some Sequence<(quality: Quality, distance: Int)?>) -> (quality: Quality, distance: Int)? {
        var best: (quality: Quality, distance: Int)?
        for case let found? in matches {
            guard let current = best else {
                best = found
                continue
            }
            if found.quality > current.quality || (found.quality == current.quality && found.distance < current.distance) {
                best = found
            }
        }
        return best
    }

    /// How one query word matches one word of the text, if it does.
    public static func match(_ queryWord: String, word: String) -> (quality: Quality, distance: Int)? {
        if word == queryWord { return (.exact, 0) }
        if word.hasPrefix(queryWord) { return (.prefix, 0) }
        let ideographic = queryWord.unicodeScalars.contains { $0.properties.isIdeographic || (0x3040...0x30FF).contains($0.value) }
        if ideographic, word.contains(queryWord) { return (.prefix, 0) }
        let bound = allowedTypos(for: queryWord)
        guard bound > 0 else { return nil }
        // A typo may be in the part typed so far: compare with the word's start too.
        let start = String(word.prefix(queryWord.count))
        let distance = min(damerauLevenshtein(queryWord, word, bound: bound), damerauLevenshtein(queryWord, start, bound: bound) + 1)
        return distance <= bound ? (.fuzzy, distance) : nil
    }

    static func allowedTypos(for word: String) -> Int {
        switch word.count {
        case ..<4: return 0
        case ..<8: return 1
        default: return 2
        }
    }

    /// The optimal-string-alignment distance (insertions, deletions, substitutions and swaps of
    /// neighbours), giving up past `bound` (returning `bound + 1`).
    public static func damerauLevenshtein(_ a: String, _ b: String, bound: Int = .max) -> Int {
        let a = Array(a)
        let b = Array(b)
        if abs(a.count - b.count) > bound { return bound + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, previous2[j - 2] + 1) }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > bound { return bound + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
