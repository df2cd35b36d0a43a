import Foundation

/// The language a portal writes in (`language:` in its recipe): which words a `type: bool`
/// field reads as yes and no, and what a request's `Accept-Language` asks for
/// (`BrowserRequest.acceptLanguage`). A pure decision, tested in `PortalLanguageTests`.
public enum PortalLanguage {
    /// A BCP 47 tag as recipes write them: a primary language of 2 or 3 letters, then subtags of
    /// 1 to 8 letters or digits (`en`, `ja`, `de-DE`, `zh-Hant-TW`).
    ///
    /// The shape `^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`, checked byte by byte: every command asks
    /// it of `$LANG`, and compiling the ICU expression was 2 ms of a warm command (issue 54).
    public static func isTag(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard let primary = parts.first, (2...3).contains(primary.count), primary.allSatisfy(isASCIILetter) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { isASCIILetter($0) || (48...57).contains($0) }
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }

    /// The primary language of a tag, lowercased: `de-AT` → `de`.
    static func primary(_ tag: String) -> String {
        String(tag.split(separator: "-").first ?? Substring(tag)).lowercased()
    }

    /// Words every portal may use, whatever its language: English, digits and marks.
    static let universalYes: Set<String> = ["true", "yes", "y", "1", "on", "x", "✓", "✔"]
    static let universalNo: Set<String> = ["false", "no", "n", "0", "off", "-", ""]

    /// Each language's own words for yes and no, as portals print them in a cell.
    static let words: [String: (yes: Set<String>, no: Set<String>)] = [
        "en": (["yes", "true"], ["no", "false"]),
        "ja": (["はい", "有", "あり", "有り", "済", "済み", "○", "〇", "◯"], ["いいえ", "無", "なし", "無し", "未", "×", "✕"]),
        "de": (["ja", "wahr", "an"], ["nein", "falsch", "aus"]),
        "fr": (["oui", "vrai"], ["non", "faux"]),
        "hu": (["igen", "igaz", "van"], ["nem", "hamis", "nincs"]),
    ]

    /// The languages whose words are known, for error messages and the docs.
    public static var knownLanguages: [String] { words.keys.sorted() }

    /// Reads a yes/no cell: the universal words, then those of `language`. Nil when the text is
    /// neither (the caller names the field, the text and `map:`).
    public static func bool(_ text: String, language: String?) -> Bool? {
        let word = text.trimmingWhitespaceAndNewlines().lowercased()
        if universalYes.contains(word) { return true }
        if universalNo.contains(word) { return false }
        guard let language, let own = words[primary(language)] else { return nil }
        if own.yes.contains(word) { return true }
        if own.no.contains(word) { return false }
        return nil
    }
}
