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
        let query = QueryWord(queryWord)
        var scratch = Scratch()
        return best(of: words.map { query.match(Array($0.unicodeScalars), scratch: &scratch) })
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
        var scratch = Scratch()
        return QueryWord(queryWord).match(Array(word.unicodeScalars), scratch: &scratch)
    }

    /// A query word read once, for comparing with many words: its scalars, whether it is written
    /// in CJK characters, and the typos it allows (counted in letters, as a reader counts them).
    ///
    /// Words are compared as Unicode scalars, not Swift's `Character`s, whose grapheme breaking
    /// on every letter compared made a search over 10,000 records 25 times slower (issue 54).
    /// Normalised text is NFC, so in Latin, Greek, Cyrillic and kana a scalar is a letter; where
    /// marks do not compose (Devanagari's and Thai's vowel signs), a letter is a few scalars, a
    /// typo inside one counts as one or two, and a match never ends between a letter and its mark.
    struct QueryWord {
        let scalars: [Unicode.Scalar]
        let isIdeographic: Bool
        let allowedTypos: Int

        init(_ word: String) {
            scalars = Array(word.unicodeScalars)
            isIdeographic = scalars.contains { $0.properties.isIdeographic || (0x3040...0x30FF).contains($0.value) }
            allowedTypos = TextMatcher.allowedTypos(for: word)
        }

        func match(_ word: [Unicode.Scalar], scratch: inout Scratch) -> (quality: Quality, distance: Int)? {
            if word.count >= scalars.count, word.starts(with: scalars), TextMatcher.isLetterBoundary(word, at: scalars.count) {
                return (word.count == scalars.count ? .exact : .prefix, 0)
            }
            if isIdeographic, TextMatcher.contains(word, scalars) { return (.prefix, 0) }
            let bound = allowedTypos
            guard bound > 0 else { return nil }
            // A typo may be in the part typed so far: compare with the word's start too.
            let start = word.prefix(scalars.count)
            let distance = min(
                scratch.distance(scalars[...], word[...], bound: bound), scratch.distance(scalars[...], start, bound: bound) + 1)
            return distance <= bound ? (.fuzzy, distance) : nil
        }
    }

    static func contains(_ word: [Unicode.Scalar], _ part: [Unicode.Scalar]) -> Bool {
        guard !part.isEmpty, part.count <= word.count else { return part.isEmpty }
        for offset in 0...(word.count - part.count) where word[offset] == part[0] {
            if word[offset..<(offset + part.count)].elementsEqual(part), isLetterBoundary(word, at: offset + part.count) { return true }
        }
        return false
    }

    /// Whether `index` falls between two letters of `word`, not between a letter and the mark
    /// (a vowel sign, a joiner) that belongs to it: where a `Character` comparison would end.
    static func isLetterBoundary(_ word: [Unicode.Scalar], at index: Int) -> Bool {
        guard index < word.count else { return true }
        let next = word[index]
        if next == "\u{200D}" { return false }
        switch next.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return false
        default: return !next.properties.isGraphemeExtend
        }
    }

    static func allowedTypos(for word: String) -> Int {
        switch word.count {
        case ..<4: return 0
        case ..<8: return 1
        default: return 2
        }
    }

    /// The three rows of the distance table, kept between comparisons: a search compares each
    /// query word with every distinct word, and three arrays made for each was most of its time.
    struct Scratch {
        private var previous2: [Int] = []
        private var previous: [Int] = []
        private var current: [Int] = []

        /// The optimal-string-alignment distance (insertions, deletions, substitutions and swaps
        /// of neighbours), giving up past `bound` (returning `bound + 1`).
        mutating func distance(_ a: ArraySlice<Unicode.Scalar>, _ b: ArraySlice<Unicode.Scalar>, bound: Int) -> Int {
            if abs(a.count - b.count) > bound { return bound + 1 }
            if a.isEmpty { return b.count }
            if b.isEmpty { return a.count }
            let (a0, b0) = (a.startIndex - 1, b.startIndex - 1)
            let width = b.count + 1
            if previous.count < width {
                previous2 = [Int](repeating: 0, count: width)
                previous = previous2
                current = previous2
            }
            for j in 0...b.count { previous[j] = j }
            for i in 1...a.count {
                current[0] = i
                var rowMinimum = current[0]
                for j in 1...b.count {
                    let cost = a[a0 + i] == b[b0 + j] ? 0 : 1
                    var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                    if i > 1, j > 1, a[a0 + i] == b[b0 + j - 1], a[a0 + i - 1] == b[b0 + j] { value = min(value, previous2[j - 2] + 1) }
                    current[j] = value
                    rowMinimum = min(rowMinimum, value)
                }
                if rowMinimum > bound { return bound + 1 }
                swap(&previous2, &previous)
                swap(&previous, &current)
            }
            return previous[b.count]
        }
    }

    /// The optimal-string-alignment distance (insertions, deletions, substitutions and swaps of
    /// neighbours) between two words, counted in Unicode scalars (compare NFC text, as
    /// `normalize` gives it), giving up past `bound` (returning `bound + 1`).
    public static func damerauLevenshtein(_ a: String, _ b: String, bound: Int = .max) -> Int {
        var scratch = Scratch()
        return scratch.distance(Array(a.unicodeScalars)[...], Array(b.unicodeScalars)[...], bound: bound)
    }
}
