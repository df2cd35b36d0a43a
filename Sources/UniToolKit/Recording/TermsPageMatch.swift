import Foundation
import LibXML

/// A recorded page that is the portal's terms of use and shows their version: what `recipes new`
/// writes as `terms: { version_page, version_xpath, version_regex }` when no JSON terms API was
/// seen.
///
/// Many portals have no terms API: the version is printed on the terms page itself ("第3.2版",
/// "Version 3.2 vom 1. April 2026", "Terms of Use (version 4, 2026)"). Such a page is recognised
/// by what a person recognises it by, in any of the languages portals are written in: a title or
/// heading that says terms of use, and a version written as versions are written. Neither a
/// product's markup nor a portal's wording is assumed.
struct TermsPageMatch: Equatable {
    /// Where the version is: the element that shows it.
    var xpath: String
    /// Its first group is the version, within that element's text.
    var regex: String
    /// The version the recording showed.
    var version: String
    /// The title or heading that said terms of use.
    var heading: String

    /// Words for "terms of use" in titles and headings, lowercased.
    static let termsWords = [
        "terms of use", "terms of service", "terms and conditions", "terms & conditions", "conditions of use", "acceptable use",
        "nutzungsbedingungen", "benutzungsordnung", "nutzungsordnung", "conditions d'utilisation", "conditions générales d'utilisation",
        "conditions d’utilisation", "felhasználási feltételek", "felhasználási szabályzat", "condiciones de uso", "términos de uso",
        "termini di utilizzo", "condizioni d'uso", "gebruiksvoorwaarden", "warunki korzystania", "regulamin", "podmínky užívání",
        "användarvillkor", "brugsvilkår", "käyttöehdot", "利用規約", "利用条件", "使用条款", "服务条款", "이용약관",
    ]

    /// How versions are written, most specific first; each one's first group is the version.
    /// A bare "v2" without a dot is not among them: too many things are called that.
    static let versionPatterns = [
        #"第\s*([0-9０-９]+(?:[.．][0-9０-９]+)*)\s*版"#,
        #"([0-9]+(?:\.[0-9]+)*)\s*版"#,
        #"(?i)\b(?:version|versión|versione|versão|verzió|verze|wersja|versie|fassung|ver\.)\s*:?\s*([0-9]+(?:\.[0-9]+)*)"#,
        #"(?i)\bv\.?\s?([0-9]+(?:\.[0-9]+)+)"#,
    ]

    /// The terms page's version, or nil when the page does not say terms of use in its title or
    /// a heading, or shows no version the written XPath and pattern read back.
    static func match(_ document: Document) -> TermsPageMatch? {
        let headings = [document.title ?? ""] + ((try? document.select("//h1|//h2|//h3")) ?? []).map(\.normalizedText)
        guard let heading = headings.first(where: { text in termsWords.contains { text.lowercased().contains($0) } }) else { return nil }
        // The first element whose own words show a version, in document order: the version is
        // printed by the heading, before the terms' articles.
        let elements = (try? document.select("//body//*[not(self::script or self::style)][text()[normalize-space()]]")) ?? []
        for element in elements {
            let own = ((try? element.select("text()")) ?? []).map(\.text).joined(separator: " ").collapsingWhitespace()
            for pattern in versionPatterns {
                guard let version = firstGroup(pattern, in: own) else { continue }
                for xpath in xpaths(for: element, document: document, pattern: pattern, own: own)
                where reads(document, xpath: xpath, pattern: pattern) == version {
                    return TermsPageMatch(xpath: xpath, regex: pattern, version: version, heading: heading)
                }
            }
        }
        return nil
    }

    /// Addresses of `element` that outlive a new version: its id, its tag and class, or its tag
    /// with the word of the version's pattern in its own text (never the number, which changes).
    static func xpaths(for element: Node, document: Document, pattern: String, own: String) -> [String] {
        var found: [String] = []
        if let id = element.attribute("id"), !id.isEmpty { found.append("//*[@id=\(Template.xpathLiteral(id))]") }
        if let cls = element.attribute("class"), !cls.isEmpty {
            found.append("//\(element.name)[@class=\(Template.xpathLiteral(cls))]")
        }
        let range = own.range(of: pattern, options: .regularExpression)
        let matched = range.map { String(own[$0]) } ?? ""
        if let word = matched.split(whereSeparator: { $0.isNumber || $0 == "." || $0 == "．" || $0.isWhitespace || $0 == ":" }).first {
            found.append("//\(element.name)[text()[contains(., \(Template.xpathLiteral(String(word))))]]")
        }
        return found
    }

    /// What the runtime would read with `xpath` and `pattern`: the check that the written recipe
    /// gives back the recorded version.
    static func reads(_ document: Document, xpath: String, pattern: String) -> String? {
        guard let node = (try? document.select(xpath))?.first else { return nil }
        return firstGroup(pattern, in: node.normalizedText)
    }

    static func firstGroup(_ pattern: String, in text: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
            let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), match.numberOfRanges > 1,
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        let version = String(text[range])
        return version.isEmpty ? nil : version
    }
}
