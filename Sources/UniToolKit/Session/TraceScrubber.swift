import Foundation
import LibXML

/// Decides what of a request, a response or a portal's message may be written down: in a HAR
/// trace (`--trace`), or in an error that quotes the portal.
///
/// A trace is made to be attached to a bug report, and an error message to be pasted into one,
/// so neither may hold anything that lets a reader log in as the user. That is two kinds of thing:
///
/// - what is secret by its place, whatever its value: SAML messages and `RelayState` (a bearer
///   assertion, the user's attributes, the SP's state), cookie values, `Authorization`, and the
///   form fields that carry a password or a one-time code;
/// - what is secret by its value, wherever it turns up: every password, one-time code and TOTP
///   secret unitool sent or read in this run, also when a portal echoes it back, percent-encoded,
///   form-encoded, HTML-escaped or JSON-escaped.
///
/// A secret shorter than ``minimumSubstringLength`` is not looked for inside other text (a
/// three-digit password would take every "123" of a page with it), but it is still redacted
/// wherever it is a whole value: a form field or query parameter, an HTML attribute, the text of
/// an element, a JSON string. That is where a portal echoes what it was sent.
///
/// It is a value with no I/O, so that every rule has a unit test of its own.
public struct TraceScrubber: Sendable, Equatable {
    /// What stands in for everything removed.
    public static let redacted = "<redacted>"

    /// Parameters and fields of the single sign-on protocols whose values are secret wherever
    /// they appear: SAML messages and `RelayState`; CAS service and proxy tickets (`ticket`);
    /// OpenID Connect's codes and tokens; Keycloak's login-flow state (`session_code`,
    /// `client_data`), each of which lets a reader continue or replay the login.
    public static let protocolFieldNames = [
        "SAMLRequest", "SAMLResponse", "RelayState", "SAMLart", "ticket", "code", "id_token", "access_token", "refresh_token",
        "session_state", "session_code", "client_data",
    ]

    /// OAuth's and OpenID Connect's authorization code travels as `code`, a name portals also give
    /// to data (a course's `?code=MATH-101`, a record's `"code": "MATH-101"`). It is secret where
    /// OAuth puts it: beside the other parameters of an authorization response or a token request
    /// (``oauthCompanionNames``), or when its value looks like a token (``looksLikeToken(_:)``).
    /// Where nothing tells (a single field of a trace, judged alone) it is secret.
    public static let oauthCodeName = "code"

    /// Parameters that travel with an OAuth authorization code and with nothing else.
    public static let oauthCompanionNames: Set<String> = [
        "state", "session_state", "redirect_uri", "grant_type", "code_verifier", "iss",
    ]

    /// Whether parameters of these names (a query, a form body, a JSON object) are an OAuth
    /// authorization response or token request, where `code` is the authorization code.
    public static func isOAuthContext(_ names: some Sequence<String>) -> Bool {
        names.contains { oauthCompanionNames.contains($0.lowercased()) }
    }

    /// The protocol names whose values are secret wherever they stand: all but `code`.
    static let alwaysSecretProtocolNames = protocolFieldNames.filter { $0 != oauthCodeName }

    /// Form fields whose values are passwords or codes, whatever the recipe says.
    static let credentialFieldNames: Set<String> = [
        "j_password", "password", "passwd", "pwd", "j_tokenNumber", "otp", "totp",
    ]

    /// The shortest secret that is also replaced inside longer text.
    public static let minimumSubstringLength = 4

    /// The values to remove, as unitool sent or read them.
    public private(set) var secrets: Set<String> = []

    public init(secrets: [String] = []) {
        for secret in secrets { register(secret) }
    }

    /// Adds a value that must never be written. Empty values are ignored: there is nothing to hide.
    ///
    /// A value of several lines (a SAML message's base64, wrapped at 64 or 76 columns) is also
    /// registered line by line, each line of 16 characters or more: a page may show the lines
    /// apart, joined by other white space or markup.
    public mutating func register(_ secret: String) {
        guard !secret.isEmpty else { return }
        secrets.insert(secret)
        let lines = secret.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        if lines.count > 1 {
            for line in lines where line.unicodeScalars.count >= 16 { secrets.insert(line) }
        }
    }

    /// Adds every value of another scrubber.
    public mutating func merge(_ other: TraceScrubber) {
        secrets.formUnion(other.secrets)
    }

    // MARK: Decisions

    /// Whether a field's or parameter's value is secret because of its name: a SAML message,
    /// `RelayState`, a field the recipe fills with a password or code (`declared`), or a field
    /// that looks like a password field. `siblings`, the names of the other fields beside it
    /// (nil when unknown), decides whether `code` is OAuth's (``oauthCodeName``).
    public func isSecretField(_ name: String, declared: Set<String> = [], siblings: [String]? = nil) -> Bool {
        if declared.contains(name) || Self.credentialFieldNames.contains(name) { return true }
        let lowered = name.lowercased()
        if lowered == Self.oauthCodeName { return siblings.map { Self.isOAuthContext($0) } ?? true }
        if Self.protocolFieldNames.contains(where: { $0.lowercased() == lowered }) { return true }
        return lowered.contains("pass")
    }

    /// Whether a whole value is one of the secrets, in any of the encodings a portal might use.
    public func isSecretValue(_ value: String) -> Bool {
        guard !secrets.isEmpty, !value.isEmpty else { return false }
        let candidates = [value, value.trimmingWhitespaceAndNewlines()]
        for secret in secrets {
            let forms = Self.encodedForms(of: secret)
            let matches = candidates.contains { candidate in
                forms.contains { $0.unicodeScalars.elementsEqual(candidate.unicodeScalars) }
            }
            if matches { return true }
        }
        return false
    }

    // MARK: Scrubbing

    /// A form field or query parameter: redacted whole when its name or its value is secret,
    /// otherwise scrubbed as text.
    public func scrubField(name: String, value: String, declared: Set<String> = [], siblings: [String]? = nil) -> String {
        if isSecretField(name, declared: declared, siblings: siblings) || isSecretValue(value) { return Self.redacted }
        if name.lowercased() == Self.oauthCodeName, Self.looksLikeToken(value) { return Self.redacted }
        return scrubText(value)
    }

    /// An absolute or relative URL, as in a request, a `Location` header or `redirectURL`: the
    /// query's and fragment's parameters are judged one by one (name and value decoded first),
    /// then the whole is scrubbed as text.
    public func scrubURL(_ text: String, declared: Set<String> = []) -> String {
        var result = text
        var fragment: String?
        if let hash = result.firstIndex(of: "#") {
            fragment = String(result[result.index(after: hash)...])
            result = String(result[..<hash])
        }
        if let question = result.firstIndex(of: "?") {
            let query = String(result[result.index(after: question)...])
            result = String(result[...question]) + scrubQuery(query, declared: declared)
        }
        if let fragment { result += "#" + scrubQuery(fragment, declared: declared) }
        return scrubText(result)
    }

    /// `a=1&b=2`, as in a query or a form-encoded body.
    public func scrubQuery(_ query: String, declared: Set<String> = []) -> String {
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        let names = pairs.map { Self.formDecoded($0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]) }
        return pairs.map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.formDecoded(parts[0])
            guard parts.count == 2 else { return isSecretValue(name) ? Self.redacted : String(pair) }
            let value = Self.formDecoded(parts[1])
            let isCode = name.lowercased() == Self.oauthCodeName && Self.looksLikeToken(value)
            if isSecretField(name, declared: declared, siblings: names) || isCode || isSecretValue(value) {
                return "\(parts[0])=\(Self.redacted)"
            }
            return String(pair)
        }.joined(separator: "&")
    }

    /// One header's value: credentials and cookie values always go, addresses are scrubbed as
    /// URLs, the rest as text.
    public func scrubHeader(name: String, value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            return Self.redacted
        case "cookie":
            return value.split(separator: ";").map { pair -> String in
                let cookieName =
                    pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
                return "\(cookieName)=\(Self.redacted)"
            }.joined(separator: "; ")
        case "set-cookie":
            var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            if let first = parts.first {
                let cookieName = first.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                parts[0] = "\(cookieName)=\(Self.redacted)"
            }
            return parts.enumerated().map { $0.offset == 0 ? $0.element : scrubText($0.element) }.joined(separator: ";")
        case "location", "content-location", "referer", "refresh", "link":
            return isSecretValue(value) ? Self.redacted : scrubURL(value)
        default:
            return isSecretValue(value) ? Self.redacted : scrubText(value)
        }
    }

    /// Free text: a response body, a header, a portal's message. Removes SAML messages and
    /// `RelayState` in query strings, form bodies, HTML inputs (quoted, single-quoted or unquoted
    /// attributes, in any order), textareas and JSON; then every secret, as a whole value of any
    /// length, and as part of the text when it is long enough.
    public func scrubText(_ text: String) -> String {
        var result = Self.scrubProtocolValues(text)
        for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count }) {
            for form in Self.encodedForms(of: secret).sorted(by: { $0.utf8.count > $1.utf8.count }) {
                guard result.range(of: form, options: .literal) != nil else { continue }
                if secret.unicodeScalars.count >= Self.minimumSubstringLength {
                    result = result.replacingOccurrences(of: form, with: Self.redacted, options: .literal)
                } else {
                    result = Self.replaceWholeValues(form, in: result)
                }
            }
            if secret.unicodeScalars.count >= Self.minimumSubstringLength, Self.mayHoldBreakMarkup(result),
                let split = Self.splitPattern(secret)
            {
                result = split.stringByReplacingMatches(
                    in: result, range: NSRange(result.startIndex..., in: result),
                    withTemplate: NSRegularExpression.escapedTemplate(for: Self.redacted))
            }
        }
        return result
    }

    // MARK: Split by markup

    /// What a page may put between the characters of a word without changing what it shows:
    /// `<wbr>` (a line may break here), the soft hyphen and the zero-width space, as themselves
    /// or as character references. A portal that echoes a long value wraps it so.
    static let breakMarkup = #"(?:<wbr\s*/?>|</wbr>|&shy;|&#0*173;|&#x0*ad;|\x{00AD}|\x{200B}|&#0*8203;|&#x0*200b;)"#

    static func mayHoldBreakMarkup(_ text: String) -> Bool {
        ["<wbr", "&shy;", "&#173;", "&#xad;", "&#8203;", "&#x200b;", "\u{00AD}", "\u{200B}"].contains {
            text.range(of: $0, options: [.caseInsensitive, .literal]) != nil
        }
    }

    /// The secret with break markup allowed between any two of its characters, each character as
    /// itself or HTML-escaped.
    static func splitPattern(_ secret: String) -> NSRegularExpression? {
        let pieces = secret.unicodeScalars.map { scalar -> String in
            let character = String(scalar)
            let forms: Set<String> = [
                character, character.htmlEscaped(apostrophe: "&#39;"), "&#\(scalar.value);",
                "&#x\(String(scalar.value, radix: 16));",
            ]
            return "(?:" + forms.sorted().map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|") + ")"
        }
        let pattern = pieces.joined(separator: "(?i:" + breakMarkup + ")*")
        return try? NSRegularExpression(pattern: pattern)
    }

    // MARK: Values

    /// Whether a value is ordinary data rather than something made to be unguessable: empty, a
    /// boolean, a short number, a date, or words and short numbers joined by separators (a
    /// word such as `dark`, a language tag such as `en-US`, a path such as `/portal/home`, a
    /// course code such as `MATH-101`). A cookie `theme=dark` or `lang=en-US` holds no secret,
    /// and a course code is no OAuth code.
    ///
    /// A word is letters written lower-case, capitalised or upper-case, at most 20 of them: a
    /// token of letters alone mixes cases (`dGhlbWU`) or runs long. A number is at most 6 digits:
    /// longer ones (an id, a time stamp) may be a session's.
    public static func isPlainValue(_ value: String) -> Bool {
        let trimmed = value.trimmingWhitespace()
        if trimmed.isEmpty { return true }
        if ["true", "false", "yes", "no", "on", "off", "null", "none", "undefined"].contains(trimmed.lowercased()) { return true }
        let separators = CharacterSet(charactersIn: "-_ ./:,;+@")
        let segments = trimmed.components(separatedBy: separators).filter { !$0.isEmpty }
        guard !segments.isEmpty else { return true }
        return segments.allSatisfy { segment in
            if segment.allSatisfy(\.isASCIIDigit) { return segment.count <= 6 }
            guard segment.count <= 20, segment.allSatisfy(\.isLetter) else { return false }
            let rest = segment.dropFirst()
            return segment == segment.lowercased() || segment == segment.uppercased()
                || (segment.first?.isUppercase == true && rest == rest.lowercased())
        }
    }

    /// Whether a value looks made to be unguessable, as a token, a code or a session id is: 16
    /// characters or more, not plain (``isPlainValue(_:)``), letters and digits mixed, and
    /// varied (3 bits of entropy a character or more).
    public static func looksLikeToken(_ value: String) -> Bool {
        let scalars = Array(value.unicodeScalars)
        guard scalars.count >= 16, !isPlainValue(value) else { return false }
        let hasDigit = scalars.contains { ("0"..."9").contains($0) }
        let hasLetter = scalars.contains { $0.properties.isAlphabetic }
        let mixedCase = scalars.contains { $0.properties.isUppercase } && scalars.contains { $0.properties.isLowercase }
        guard hasLetter && (hasDigit || mixedCase) else { return false }
        return entropyPerCharacter(value) >= 3.0
    }

    /// Shannon entropy in bits a character (Unicode scalar) of `value`: how varied its
    /// characters are. A token made to be unguessable has 3 bits or more; a word or a date less.
    public static func entropyPerCharacter(_ value: String) -> Double {
        var counts: [Unicode.Scalar: Int] = [:]
        for scalar in value.unicodeScalars { counts[scalar, default: 0] += 1 }
        let total = Double(value.unicodeScalars.count)
        return counts.values.reduce(0.0) { sum, count in
            let share = Double(count) / total
            return sum - share * log2(share)
        }
    }

    /// A whole page, before it is kept (a drift report): each secret long enough to stand as a
    /// substring, in each of its encodings, replaced where the page holds it, and nothing else.
    /// The regular-expression passes of ``scrubText(_:)`` would each copy a page of up to 20 MiB;
    /// a page's form values, where a short password would stand, are emptied before this.
    public func scrubPage(_ text: String) -> String {
        var result = text
        for secret in secrets.sorted(by: { $0.utf8.count > $1.utf8.count })
        where secret.unicodeScalars.count >= Self.minimumSubstringLength {
            for form in Self.encodedForms(of: secret).sorted(by: { $0.utf8.count > $1.utf8.count })
            where result.range(of: form, options: .literal) != nil {
                result = result.replacingOccurrences(of: form, with: Self.redacted, options: .literal)
            }
        }
        return result
    }

    /// A portal's message, before an error quotes it: as ``scrubText(_:)``, and a short secret
    /// also where it stands as a word of its own ("your password xy is wrong"). A message is a
    /// sentence or two, where blanking a short word too many costs nothing.
    public func scrubMessage(_ text: String) -> String {
        var result = scrubText(text)
        for secret in secrets where secret.unicodeScalars.count < Self.minimumSubstringLength {
            for form in Self.encodedForms(of: secret) where result.range(of: form, options: .literal) != nil {
                let word = NSRegularExpression.escapedPattern(for: form)
                let pattern = #"(?<![\p{L}\p{N}])"# + word + #"(?![\p{L}\p{N}])"#
                guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
                result = regex.stringByReplacingMatches(
                    in: result, range: NSRange(result.startIndex..., in: result),
                    withTemplate: NSRegularExpression.escapedTemplate(for: Self.redacted))
            }
        }
        return result
    }

    // MARK: Rules

    /// Patterns for a short secret where it is a whole value; `V` stands for the secret.
    /// Group 1 and (where present) group 2 are kept around the replacement.
    private static let wholeValueTemplates = [
        // a quoted value: attribute="V", attribute='V', "key": "V", a script's 'V', prose's "V",
        // also with the quotes as character references (HTML-escaped prose) or typographic
        #"(")V(")"#, #"(')V(')"#,
        #"((?:&#0*39;|&#x0*27;|&apos;|&quot;|&#0*34;|&#x0*22;|[‘“«„‚]))V((?:&#0*39;|&#x0*27;|&apos;|&quot;|&#0*34;|&#x0*22;|[’”»“‘]))"#,
        // unquoted attribute value or query/form parameter: value=V> or a=V&b
        #"(=)V(?=[\s>&;#"'<]|/>|$)"#,
        // the whole text of an element, as in <textarea>V</textarea> or <td>V</td>
        #"(>\s*)V(\s*<)"#,
    ]

    static func replaceWholeValues(_ value: String, in text: String) -> String {
        var result = text
        let escaped = NSRegularExpression.escapedPattern(for: value)
        for template in wholeValueTemplates {
            let pattern = template.replacingOccurrences(of: "V", with: escaped)
            guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
            let replacement = regex.numberOfCaptureGroups == 2 ? "$1\(redacted)$2" : "$1\(redacted)"
            result = regex.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: replacement)
        }
        return result
    }

    private static let protocolNames = alwaysSecretProtocolNames.joined(separator: "|")

    /// A pattern written here, not read from anywhere: one that does not compile is a mistake in
    /// this file, which every run of the scrubber's tests finds at once, so it stops the program
    /// with the pattern named rather than scrubbing nothing.
    private static func constant(pattern: String, options: NSRegularExpression.Options = []) -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            preconditionFailure("TraceScrubber's pattern \(pattern) does not compile: \(error)")
        }
    }

    /// `SAMLResponse=...` in a query or form body (also after `&amp;` in HTML), and in JSON.
    private static let protocolParameter = constant(
        pattern: #"(^|[?&;#\s"'>/])((?:"# + protocolNames + #")=)[^&#\s"'<>]+"#, options: [.caseInsensitive])
    private static let protocolJSON = constant(
        pattern: #"("(?:"# + protocolNames + #")"\s*:\s*")(?:[^"\\]|\\.)*(")"#, options: [.caseInsensitive])
    /// `<textarea name=SAMLResponse>...</textarea>`, the name quoted or not.
    private static let protocolTextarea = constant(
        pattern: #"(<textarea\b[^>]*[\s"']name\s*=\s*["']?(?:"# + protocolNames + #")\b[^>]*>)(.*?)(</textarea)"#,
        options: [.caseInsensitive, .dotMatchesLineSeparators])
    private static let inputTag = constant(
        pattern: #"<input\b[^>]*>"#, options: [.caseInsensitive])
    /// Inside an `<input>` tag: a name that makes the value secret, quoted or not.
    private static let secretInputName = constant(
        pattern: #"[\s"'/]name\s*=\s*["']?(?:"# + protocolNames + #")(?=["'\s/>]|$)"#, options: [.caseInsensitive])
    private static let passwordInputType = constant(
        pattern: #"[\s"'/]type\s*=\s*["']?password(?=["'\s/>]|$)"#, options: [.caseInsensitive])
    private static let valueAttribute = constant(
        pattern: #"([\s"'/]value\s*=\s*)(?:"[^"]*"|'[^']*'|[^\s"'<>`]+)"#, options: [.caseInsensitive])
    /// Base64 of `<samlp:`, `<saml2p:`, `<saml:` or `<?xml ` wherever it stands: a SAML message
    /// carried in a place no other rule knows (a script variable, a data attribute), also
    /// wrapped over several lines (MIME's 76 columns, OpenSSL's 64): a following line that is
    /// all base64, up to a quote, a tag or the line's end, is part of it.
    private static let base64SAML = constant(
        pattern:
            #"(?:PHNhbWxwO|PHNhbWwycD|PHNhbWw6|PD94bWwg)[A-Za-z0-9+/]{8,}(?:(?:\r?\n|&#13;&#10;|&#10;)[ \t]*[A-Za-z0-9+/]{4,}(?=[=\s"'<&]|$))*={0,2}"#
    )
    /// `code=` in a query or form body, and `"code": "…"` in JSON: OAuth's only in its context.
    private static let codeParameter = constant(
        pattern: #"(^|[?&;#\s"'>/])(code=)([^&#\s"'<>]+)"#, options: [.caseInsensitive])
    private static let codeJSON = constant(
        pattern: #"("code"\s*:\s*")((?:[^"\\]|\\.)*)(")"#, options: [.caseInsensitive])
    private static let oauthCompanionParameter = constant(
        pattern: #"(?:^|[?&;#])(?:"# + oauthCompanionNames.sorted().joined(separator: "|") + #")="#, options: [.caseInsensitive])
    private static let oauthCompanionJSON = constant(
        pattern: #""(?:"# + oauthCompanionNames.sorted().joined(separator: "|") + #")"\s*:"#, options: [.caseInsensitive])
    private static let oauthCompanionInput = constant(
        pattern: #"<input\b[^>]*[\s"'/]name\s*=\s*["']?(?:"# + oauthCompanionNames.sorted().joined(separator: "|")
            + #")(?=["'\s/>]|$)"#, options: [.caseInsensitive])
    private static let codeInputName = constant(
        pattern: #"[\s"'/]name\s*=\s*["']?code(?=["'\s/>]|$)"#, options: [.caseInsensitive])
    private static let valueAttributeContent = constant(
        pattern: #"[\s"'/]value\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>`]+))"#, options: [.caseInsensitive])
    /// A CAS ticket wherever it stands (`ST-12-aBcD...-cas01`, `PT-`, `PGT-`, `PGTIOU-`,
    /// `TGT-`): in a link, a script or a page's text, as CAS servers write them.
    private static let casTicket = constant(
        pattern: #"\b(?:ST|PT|PGT|PGTIOU|TGT)-\d+-[A-Za-z0-9._-]{6,}"#)

    static func scrubProtocolValues(_ text: String) -> String {
        var result = text
        func replace(_ regex: NSRegularExpression, _ template: String) {
            result = regex.stringByReplacingMatches(
                in: result, range: NSRange(result.startIndex..., in: result), withTemplate: template)
        }
        replace(protocolParameter, "$1$2\(redacted)")
        replace(protocolJSON, "$1\(redacted)$2")
        result = scrubOAuthCodes(result)
        replace(protocolTextarea, "$1\(redacted)$3")
        result = replacingMatches(of: inputTag, in: result) { tag in
            let whole = NSRange(tag.startIndex..., in: tag)
            guard
                secretInputName.firstMatch(in: tag, range: whole) != nil
                    || passwordInputType.firstMatch(in: tag, range: whole) != nil
            else { return tag }
            return valueAttribute.stringByReplacingMatches(in: tag, range: whole, withTemplate: "$1\"\(redacted)\"")
        }
        replace(base64SAML, redacted)
        replace(casTicket, redacted)
        return result
    }

    /// OAuth's `code` where its context makes it one (``oauthCodeName``): in a query or form body
    /// beside `state` (or another companion), in a JSON object with one, in a page whose form
    /// posts one (`response_mode=form_post`); or wherever its value looks like a token.
    static func scrubOAuthCodes(_ text: String) -> String {
        guard text.range(of: "code", options: [.caseInsensitive, .literal]) != nil else { return text }
        let ns = text as NSString
        let stops = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'<>"))
        /// The run of text around a range up to white space, a quote or a tag: the address or body it is in.
        func around(_ range: NSRange) -> String {
            var start = range.location
            var end = range.location + range.length
            while start > 0, let scalar = Unicode.Scalar(ns.character(at: start - 1)), !stops.contains(scalar) { start -= 1 }
            while end < ns.length, let scalar = Unicode.Scalar(ns.character(at: end)), !stops.contains(scalar) { end += 1 }
            return ns.substring(with: NSRange(location: start, length: end - start))
        }
        func has(_ regex: NSRegularExpression, _ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        var result = replacingGroups(of: codeParameter, in: text) { match, source in
            let value = source.substring(with: match.range(at: 3))
            let body = around(match.range(at: 2))
            guard has(oauthCompanionParameter, body) || looksLikeToken(formDecoded(Substring(value))) else { return nil }
            return source.substring(with: match.range(at: 1)) + source.substring(with: match.range(at: 2)) + redacted
        }
        result = replacingGroups(of: codeJSON, in: result) { match, source in
            let value = source.substring(with: match.range(at: 2))
            // The object around it, as far as 2,000 characters either side.
            let start = max(0, match.range.location - 2000)
            let end = match.range.location + match.range.length
            let before = source.substring(with: NSRange(location: start, length: match.range.location - start))
            let after = source.substring(with: NSRange(location: end, length: min(2000, source.length - end)))
            let object =
                String(before[(before.lastIndex(of: "{") ?? before.startIndex)...])
                + String(after[..<(after.firstIndex(of: "}") ?? after.endIndex)])
            guard has(oauthCompanionJSON, object) || looksLikeToken(value) else { return nil }
            return source.substring(with: match.range(at: 1)) + redacted + source.substring(with: match.range(at: 3))
        }
        let formPost = has(oauthCompanionInput, result)
        result = replacingMatches(of: inputTag, in: result) { tag in
            let whole = NSRange(tag.startIndex..., in: tag)
            guard codeInputName.firstMatch(in: tag, range: whole) != nil else { return tag }
            let value = valueAttributeContent.firstMatch(in: tag, range: whole).map { match -> String in
                let group = (1...3).map { match.range(at: $0) }.first { $0.location != NSNotFound }
                return group.map { (tag as NSString).substring(with: $0) } ?? ""
            }
            guard formPost || looksLikeToken(value ?? "") else { return tag }
            return valueAttribute.stringByReplacingMatches(in: tag, range: whole, withTemplate: "$1\"\(redacted)\"")
        }
        return result
    }

    /// Every match of `regex` replaced by what `transform` makes of it, or left as it is when
    /// `transform` says nil.
    private static func replacingGroups(
        of regex: NSRegularExpression, in text: String, _ transform: (NSTextCheckingResult, NSString) -> String?
    ) -> String {
        let source = text as NSString
        let matches = regex.matches(in: text, range: NSRange(location: 0, length: source.length))
        guard !matches.isEmpty else { return text }
        let result = NSMutableString(capacity: source.length)
        var position = 0
        for match in matches {
            result.append(source.substring(with: NSRange(location: position, length: match.range.location - position)))
            result.append(transform(match, source) ?? source.substring(with: match.range))
            position = match.range.location + match.range.length
        }
        result.append(source.substring(from: position))
        return result as String
    }

    /// Every match of `regex`, replaced by what `transform` makes of it.
    private static func replacingMatches(
        of regex: NSRegularExpression, in text: String, _ transform: (String) -> String
    ) -> String {
        let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else { return text }
        var result = ""
        var position = text.startIndex
        for match in matches {
            guard let range = Range(match.range, in: text) else { continue }
            result.append(contentsOf: text[position..<range.lowerBound])
            result.append(contentsOf: transform(String(text[range])))
            position = range.upperBound
        }
        result.append(contentsOf: text[position...])
        return result
    }

    // MARK: Encodings

    /// The secret as a portal might echo it: as it is, percent-encoded (RFC 3986, HTML forms and
    /// JavaScript's `encodeURIComponent` keep different characters; space as `%20` or `+`; hex
    /// digits in either case), HTML-escaped (named, decimal and hex character references) and
    /// JSON-escaped.
    static func encodedForms(of secret: String) -> Set<String> {
        var forms: Set<String> = [secret]
        let alphanumerics = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8))
        let keptSets = [
            alphanumerics.union("-._~".utf8),  // RFC 3986 unreserved
            alphanumerics.union("*-._".utf8),  // application/x-www-form-urlencoded
            alphanumerics.union("-_.!~*'()".utf8),  // encodeURIComponent
        ]
        for kept in keptSets {
            for spaceAsPlus in [false, true] {
                for lowercaseHex in [false, true] {
                    forms.insert(percentEncoded(secret, keeping: kept, spaceAsPlus: spaceAsPlus, lowercaseHex: lowercaseHex))
                }
            }
        }
        forms.insert(secret.htmlEscaped(apostrophe: "&#39;"))
        forms.insert(secret.htmlEscaped(apostrophe: "&#x27;"))
        forms.insert(secret.htmlEscaped(apostrophe: "&apos;"))
        forms.insert(characterReferences(secret, hex: false, onlyPunctuation: true))
        forms.insert(characterReferences(secret, hex: true, onlyPunctuation: true))
        forms.insert(characterReferences(secret, hex: false, onlyPunctuation: false))
        forms.insert(characterReferences(secret, hex: true, onlyPunctuation: false))
        let json = String(JSONString.quoted(secret).dropFirst().dropLast())
        forms.insert(json)
        forms.insert(json.replacingOccurrences(of: "/", with: "\\/"))
        // PHP's json_encode: every character past ASCII as `\u00e4` and `/` as `\/`; others
        // write the hex digits in upper case (`\u00F3`).
        for uppercase in [false, true] {
            let ascii = jsonASCII(secret, uppercaseHex: uppercase)
            forms.insert(ascii)
            forms.insert(ascii.replacingOccurrences(of: "/", with: "\\/"))
        }
        // Base64 (HTTP Basic's `user:password`, a value a script encoded), standard and URL-safe,
        // with and without padding. Of 3 bytes or more: a shorter value's base64 is 2 or 3
        // characters that stand for many other things.
        if secret.utf8.count >= 3 {
            let base64 = Data(secret.utf8).base64EncodedString()
            let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            for form in [base64, urlSafe] {
                forms.insert(form)
                forms.insert(form.trimmingCharacters(in: CharacterSet(charactersIn: "=")))
            }
        }
        forms.remove("")
        return forms
    }

    static func percentEncoded(_ text: String, keeping kept: Set<UInt8>, spaceAsPlus: Bool, lowercaseHex: Bool)
        -> String
    {
        let digits = Array(lowercaseHex ? "0123456789abcdef" : "0123456789ABCDEF")
        var result = ""
        for byte in text.utf8 {
            if kept.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == 0x20 && spaceAsPlus {
                result += "+"
            } else {
                result += "%"
                result.append(digits[Int(byte >> 4)])
                result.append(digits[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// `&#38;` or `&#x26;` for each character (or each character but letters and digits).
    static func characterReferences(_ text: String, hex: Bool, onlyPunctuation: Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isPlain = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
            if onlyPunctuation && isPlain {
                result.unicodeScalars.append(scalar)
            } else {
                result += hex ? "&#x\(String(scalar.value, radix: 16));" : "&#\(scalar.value);"
            }
        }
        return result
    }

    /// JSON with every character past ASCII as `\uXXXX` (UTF-16), as many serializers write it.
    static func jsonASCII(_ text: String, uppercaseHex: Bool = false) -> String {
        var result = ""
        for scalar in String(JSONString.quoted(text).dropFirst().dropLast()).unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: uppercaseHex)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }
        }
        return result
    }

    /// `+` as space, then percent-decoding; the text as it is when it is not valid encoding.
    static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
