/// Words a recipe writes for people (a command's `summary`, a field's `label`), in one language
/// or in several:
///
/// ```yaml
/// summary: Grades for a term
/// summary: { en: Grades for a term, ja: 学期の成績, hu: Egy félév jegyei }
/// ```
///
/// The text shown is the first of the person's languages (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`,
/// `LANG`, as unitool's own messages choose) that the recipe gives, else its English (`en`),
/// else the first it gives. Chosen when the recipe is read: a command line speaks one language.
public struct RecipeText: Sendable, Equatable {
    /// Each language's text, in the recipe's order.
    public var variants: [Variant]

    public struct Variant: Sendable, Equatable {
        /// A language code (`ja`, `pt_BR`), or nil for the plain form.
        public var language: String?
        public var text: String

        public init(language: String?, text: String) {
            self.language = language
            self.text = text
        }
    }

    public init(_ text: String) { variants = [Variant(language: nil, text: text)] }
    public init(variants: [Variant]) { self.variants = variants }

    /// The text for the first of `languages` the recipe gives, else its English (`en`) or plain
    /// form; else, with `orFirst`, the first it gives (a summary must say something), or nil (a
    /// label then falls back to the field's name).
    public func text(for languages: [String], orFirst: Bool) -> String? {
        for language in languages {
            if let found = variants.first(where: { $0.language == language }) { return found.text }
            // `pt_BR` asked, `pt` given: the language without its territory.
            let bare = String(language.prefix { $0 != "_" })
            if let found = variants.first(where: { $0.language == bare }) { return found.text }
        }
        let english = variants.first { $0.language == "en" } ?? variants.first { $0.language == nil }
        return english?.text ?? (orFirst ? variants.first?.text : nil)
    }

    /// `en`, `ja`, `pt_BR`, `zh_Hant`: what a language key may be.
    static func isLanguageCode(_ key: String) -> Bool {
        let parts = key.split(separator: "_", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }),
            parts.count <= 2
        else { return false }
        return parts.dropFirst().allSatisfy { (2...4).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isLetter } }
    }
}

extension MappingReader {
    /// A text for people: a plain string, or a mapping from language codes to strings.
    func text(_ key: String) throws -> RecipeText? {
        guard let value = child(key) else { return nil }
        if value.scalar != nil { return try string(key).map(RecipeText.init) }
        guard let languages = try mappingReader(key) else { return nil }
        var variants: [RecipeText.Variant] = []
        for name in languages.keys {
            guard RecipeText.isLanguageCode(name) else {
                throw languages.error(
                    name, localized("'\(name)' is not a language code"),
                    hint: localized("give the text per language as ja, hu, en or pt_BR: \(key): { en: …, ja: … }"))
            }
            guard let text = try languages.string(name) else { continue }
            variants.append(RecipeText.Variant(language: name, text: text))
        }
        guard !variants.isEmpty else { throw error(key, localized("gives no text in any language")) }
        return RecipeText(variants: variants)
    }
}
