import Foundation

extension DateFormatter {
    /// `date(from:)` that cannot crash. Found by fuzzing: Foundation on Linux stops with "Incorrect
    /// range" when parsing ends inside a character made of several UTF-16 units, such as a digit
    /// with a combining mark ("07\u{331}"), which a hostile page or `Set-Cookie` can send.
    /// Composed first (NFC), text with such a character cannot be a date anyway.
    func safeDate(from text: String) -> Date? {
        let composed = text.precomposedStringWithCanonicalMapping
        guard composed.utf16.count == composed.count else { return nil }
        return date(from: composed)
    }
}
