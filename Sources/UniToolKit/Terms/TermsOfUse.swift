import Foundation
import LibXML

/// The terms of use a portal publishes now, as its version API reports them.
public struct CurrentTerms: Sendable, Equatable {
    public var version: String
    /// Where a person reads them, resolved against the API's address.
    public var url: URL?
    /// The text itself, when the API includes it.
    public var text: String?

    public init(version: String, url: URL? = nil, text: String? = nil) {
        self.version = version
        self.url = url
        self.text = text
    }

    /// The deepest JSON the terms API may answer with, as for JSON-RPC messages.
    static let nestingLimit = 64

    /// Calls `visit` with each byte of JSON text and whether it stands outside a string, so that
    /// a bracket or a comma inside `"..."` (escapes included) is never taken for structure.
    static func scan(_ body: [UInt8], _ visit: (_ byte: UInt8, _ outsideStrings: Bool) -> Void) {
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                visit(byte, false)
            } else {
                if byte == UInt8(ascii: "\"") { inString = true }
                visit(byte, byte != UInt8(ascii: "\""))
            }
        }
    }

    /// How deeply arrays and objects nest in `body`, counted outside strings in one pass.
    /// Foundation's parser reports a too-deep document as not JSON at all, which sent users
    /// looking for a maintenance page.
    static func maximumNesting(of body: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        scan(body) { byte, outside in
            guard outside else { return }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// JSON as portals write it: strict first, then once more without trailing commas
    /// (`{"currentTermVersion": "3.1.0",}`, as real terms APIs serve it), which browsers'
    /// JavaScript forgives and so their developers never notice.
    static func parseLeniently(_ body: [UInt8]) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        } catch {
            let repaired = withoutTrailingCommas(body)
            guard repaired != body else { throw error }
            return try JSONSerialization.jsonObject(with: Data(repaired), options: [.fragmentsAllowed])
        }
    }

    /// `body` with each comma that only whitespace separates from a closing `}` or `]` removed,
    /// outside strings.
    static func withoutTrailingCommas(_ body: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(body.count)
        var pendingComma: Int?
        scan(body) { byte, outside in
            if outside {
                switch byte {
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if let comma = pendingComma { output.remove(at: comma) }
                    pendingComma = nil
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                    break
                case UInt8(ascii: ","):
                    pendingComma = output.count
                default:
                    pendingComma = nil
                }
            } else {
                pendingComma = nil
            }
            output.append(byte)
        }
        return output
    }

    /// Reads the version API's answer as the recipe describes it.
    ///
    /// Every way the answer can be wrong is a `termsUnavailable` error that says which way, so
    /// that a user can tell a portal in maintenance from a recipe that names the wrong field.
    public static func decode(_ body: [UInt8], from apiURL: URL, recipe: TermsRecipe) throws -> CurrentTerms {
        guard case .api(_, let versionField) = recipe.version else {
            throw UniToolError(.internal, localized("the terms of use are read from a page, not decoded from an API's JSON"))
        }
        let place = apiURL.redactedForLog
        let depth = maximumNesting(of: body)
        guard depth <= Self.nestingLimit else {
            let limit = Self.nestingLimit
            throw UniToolError(
                .termsUnavailable,
                localized(
                    "the terms-of-use API at \(place) answered JSON nested \(depth) levels deep; unitool reads no deeper than \(limit)"),
                hint: localized(
                    "a terms version is never this deep: the portal is misbehaving; try again later, or check 'terms.version_api' in the portal recipe"
                )
            )
        }
        let json: Any
        do {
            json = try parseLeniently(body)
        } catch {
            let start = String(decoding: body.prefix(60), as: UTF8.self).collapsingWhitespace()
            throw UniToolError(
                .termsUnavailable,
                localized("the terms-of-use API at \(place) did not answer with JSON (it began: \"\(start)\")"),
                hint: localized(
                    "the portal may be down for maintenance; try again later. If it persists, check 'terms.version_api' in the portal recipe"
                )
            )
        }
        guard let found = try JSONPath(versionField).value(in: json) else {
            throw UniToolError(
                .termsUnavailable,
                localized("the terms-of-use API at \(place) answered JSON without the field '\(versionField)'"),
                hint: localized("the API may have changed; check 'terms.version_field' in the portal recipe"))
        }
        guard let version = found as? String, !(found is NSNumber), !version.isEmpty else {
            let given = JSONPath.describe(found)
            throw UniToolError(
                .termsUnavailable,
                localized("the terms-of-use API at \(place) gave '\(versionField)' as \(given), not as a text version"),
                hint: localized(
                    "unitool compares versions as exact strings and will not guess; check 'terms.version_field' in the portal recipe"))
        }
        var terms = CurrentTerms(version: version)
        if let field = recipe.urlField, let link = try JSONPath(field).value(in: json) as? String {
            terms.url = URL(string: link, relativeTo: apiURL)?.absoluteURL
        }
        if let field = recipe.textField, let text = try JSONPath(field).value(in: json) as? String {
            terms.text = text
        }
        return terms
    }
}

extension CurrentTerms {
    /// Reads the version where a terms page shows it (`terms.version_page`): the text of the first
    /// element `xpath` selects (or the string it computes), and within it `regex`'s first group.
    /// The page is where a person reads the terms, so it is also their address, and its
    /// `textXPath` element (the body by default) their text.
    ///
    /// Fails closed, as the API does: an XPath that matches nothing, a pattern that does not
    /// match, or an empty version is `termsUnavailable`, naming the recipe key to check, never a
    /// version guessed from elsewhere on the page.
    public static func read(
        page document: Document, from pageURL: URL, xpath: String, regex: String?, textXPath: String?
    ) throws -> CurrentTerms {
        let place = pageURL.redactedForLog
        let shown: String
        switch try document.evaluate(xpath) {
        case .nodes(let nodes):
            guard let node = nodes.first else {
                throw UniToolError(
                    .termsUnavailable,
                    localized("the terms-of-use page at \(place) has nothing at \"\(xpath)\" where its version should be"),
                    hint: localized(
                        "the page may be in maintenance or may have changed; try again later. If it persists, check 'terms.version_xpath' in the portal recipe"
                    )
                )
            }
            shown = node.normalizedText
        case let other: shown = other.stringValue.collapsingWhitespace()
        }
        var version = shown
        if let regex {
            let expression = try NSRegularExpression(pattern: regex)
            let whole = NSRange(shown.startIndex..., in: shown)
            guard let match = expression.firstMatch(in: shown, range: whole), match.numberOfRanges > 1,
                let range = Range(match.range(at: 1), in: shown)
            else {
                let start = String(shown.prefix(80))
                throw UniToolError(
                    .termsUnavailable,
                    localized(
                        "the terms-of-use page at \(place) shows \"\(start)\" where its version should be, and 'terms.version_regex' does not match it"
                    ),
                    hint: localized("the page may have changed; check 'terms.version_regex' in the portal recipe"))
            }
            version = String(shown[range])
        }
        version = version.trimmingWhitespaceAndNewlines()
        guard !version.isEmpty else {
            throw UniToolError(
                .termsUnavailable, localized("the terms-of-use page at \(place) shows no version at \"\(xpath)\""),
                hint: localized(
                    "unitool compares versions as exact strings and will not guess; check 'terms.version_xpath' in the portal recipe"))
        }
        var terms = CurrentTerms(version: version, url: pageURL)
        if let text = try? document.select(textXPath ?? "//body").first?.readableText { terms.text = text }
        return terms
    }
}

/// How two terms versions are compared: code point by code point.
///
/// Swift's `==` on strings is canonical equivalence, under which an NFD "é" (e + U+0301) equals
/// an NFC "é" (U+00E9). A portal that serves a version differing from the accepted one only in
/// its normalization has served a different string, and the user accepted the other one; unitool
/// promises exact versions and will not decide on the user's behalf that the two are the same.
public enum TermsVersion {
    public static func same(_ accepted: String, _ served: String) -> Bool {
        accepted.unicodeScalars.elementsEqual(served.unicodeScalars)
    }
}

public struct TermsStatus: Sendable, Equatable {
    public var portal: PortalIdentity
    /// Nil when the portal publishes no terms version (its recipe has no `terms` section).
    public var current: CurrentTerms?
    public var accepted: AcceptedTerms?

    public struct PortalIdentity: Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public init(portal: PortalIdentity, current: CurrentTerms?, accepted: AcceptedTerms?) {
        self.portal = portal
        self.current = current
        self.accepted = accepted
    }

    /// True when there is nothing to accept, or the accepted version is the current one.
    public var isUpToDate: Bool {
        guard let current else { return true }
        guard let accepted else { return false }
        return TermsVersion.same(accepted.version, current.version)
    }

    /// The refusal a data command reports when the terms are not accepted: both versions and
    /// the two commands to run.
    public var refusal: UniToolError? {
        guard !isUpToDate, let current else { return nil }
        let read = "unitool terms show --portal \(portal.id)"
        let accept = "unitool terms accept --portal \(portal.id)"
        let message: String
        if let accepted {
            message = localized(
                "the terms of use of \(portal.name) changed: you accepted version \(accepted.version), the portal now has version \(current.version); nothing was fetched"
            )
        } else {
            message = localized(
                "you have not accepted the terms of use of \(portal.name) (current version \(current.version)); nothing was fetched")
        }
        return UniToolError(.termsNotAccepted, message, hint: localized("read them with '\(read)', then run '\(accept)'"))
    }
}

extension Node {
    /// The text a person reads: one paragraph per block element, whitespace collapsed.
    public var readableText: String {
        let blocks = (try? select(".//h1|.//h2|.//h3|.//h4|.//p|.//li|.//dt|.//dd|.//pre")) ?? []
        guard !blocks.isEmpty else { return normalizedText }
        return blocks.map(\.normalizedText).filter { !$0.isEmpty }.joined(separator: "\n\n")
    }
}
