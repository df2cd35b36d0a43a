/// The languages a person asked for, in their order, read from the environment as GNU gettext
/// reads it for messages.
///
/// The locale of the messages category is the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that
/// is set and not empty. If it is `C` or `POSIX` (or their `.UTF-8` forms), messages are
/// English and `LANGUAGE` is ignored, as gettext does. Otherwise `LANGUAGE`, a colon-separated
/// list (`hu:de:en`), takes precedence when set; else the locale alone.
///
/// Unlike glibc's `gettext`, the choice does not depend on the locale being generated on the
/// machine (`locale -a`): a fresh Debian system has only `C.UTF-8`, and a student who sets
/// `LANG=ja_JP.UTF-8` expects Japanese whether or not `locales` was configured. Python's
/// `gettext` module decides the same way.
public struct LanguagePreference: Sendable, Equatable {
    /// Each asked-for locale name, in order, without codeset: `ja_JP`, `hu`, `sr@latin`.
    public let locales: [String]

    public init(locales: [String]) { self.locales = locales }

    public init(environment: [String: String]) {
        let messages = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let messages, !Self.isEnglishByDefinition(messages) else {
            self.init(locales: [])
            return
        }
        let asked = environment["LANGUAGE"].map { $0.split(separator: ":").map(String.init) } ?? []
        let names = (asked.isEmpty ? [messages] : asked).compactMap(Self.name(posix:))
        var unique: [String] = []
        for name in names where !unique.contains(name) { unique.append(name) }
        self.init(locales: unique)
    }

    /// The languages alone, in order, each once: `ja_JP`, `hu_HU` give `ja`, `hu`. What a recipe's
    /// per-language text (`summary: {ja: …}`) is chosen by.
    public var languages: [String] {
        var result: [String] = []
        for locale in locales {
            let language = String(locale.prefix { $0 != "_" && $0 != "@" })
            if !result.contains(language) { result.append(language) }
        }
        return result
    }

    /// The names a catalog may be filed under for one locale, most specific first, as gettext
    /// tries them: `sr_RS@latin`, `sr@latin`, `sr_RS`, `sr`.
    public static func catalogNames(for locale: String) -> [String] {
        var base = Substring(locale)
        var modifier: Substring?
        if let at = base.firstIndex(of: "@") {
            modifier = base[base.index(after: at)...]
            base = base[..<at]
        }
        let language = base.prefix { $0 != "_" }
        var names: [String] = []
        if let modifier {
            names.append("\(base)@\(modifier)")
            if language != base { names.append("\(language)@\(modifier)") }
        }
        names.append(String(base))
        if language != base { names.append(String(language)) }
        return names
    }

    static func isEnglishByDefinition(_ value: String) -> Bool {
        let name = value.prefix { $0 != "." && $0 != "@" }
        return name == "C" || name == "POSIX"
    }

    /// `ja_JP.UTF-8` → `ja_JP`; `hu_HU.UTF-8@euro` → `hu_HU@euro`; nil for what is no locale name
    /// (a path, punctuation), so that it can never name a folder outside the catalogs.
    static func name(posix value: String) -> String? {
        var base = Substring(value)
        var modifier = ""
        if let at = base.firstIndex(of: "@") {
            modifier = String(base[at...])
            base = base[..<at]
        }
        if let dot = base.firstIndex(of: ".") { base = base[..<dot] }
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_") }
        guard !base.isEmpty, base.allSatisfy(allowed), !isEnglishByDefinition(String(base)),
            modifier.dropFirst().allSatisfy(allowed)
        else { return nil }
        return String(base) + modifier
    }
}
