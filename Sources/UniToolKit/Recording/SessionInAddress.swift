import Foundation

/// Session ids that a portal carries in its addresses rather than (or beside) its cookies:
/// `;jsessionid=…` path parameters, `?sid=…`, `auth_token=…`, CAMPUSonline's and TUCaN's
/// `ARGUMENTS=-N<session>,…`, and any long random value.
///
/// A recording exported without cookies still holds them in every address, so a recipe made from
/// it would write this session's id into `start:`, `fetch:`, a command's name and its file name.
/// They are no part of what a page is: `stripped` takes them out, and their values are secrets
/// that no written file may hold. Pure: an address in, the address without them out.
public enum SessionInAddress {
    /// Parameter names that carry a session or an access token, lowercased.
    static let sessionNames: Set<String> = [
        "jsessionid", "phpsessid", "sid", "sessionid", "session_id", "session", "sessid", "sess_id", "aspsessionid",
        "auth_token", "authtoken", "token", "access_token", "id_token", "refresh_token", "accesstoken", "sesskey", "cfid",
        "cftoken", "zsessionid", "s_id", "_shibsession",
    ]

    /// Whether a parameter's name says it carries a session (`JSESSIONID`, `PHPSESSID`,
    /// `ASPSESSIONIDQACTB`, `x_auth_token`).
    public static func isSessionName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return sessionNames.contains(lowered) || lowered.hasSuffix("sessionid") || lowered.hasSuffix("_token")
            || lowered.hasPrefix("aspsessionid")
    }

    /// CAMPUSonline's and TUCaN's `ARGUMENTS=-N123456789012345,-N000275`: the program's
    /// arguments, the first of which is the session (a long `-N` number).
    public static func isSessionArguments(name: String, value: String) -> Bool {
        name.uppercased() == "ARGUMENTS" && value.range(of: #"(^|,)\s*-N[0-9]{8,}"#, options: .regularExpression) != nil
    }

    /// Whether a value looks like a random token rather than something a page is about: 16
    /// characters or more of a token's alphabet, letters and digits mixed, and high entropy (a
    /// course code, a date, a term, a path or a word is none of these).
    public static func looksRandom(_ value: String) -> Bool {
        guard value.count >= 16 else { return false }
        let alphabet = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=")
        guard value.unicodeScalars.allSatisfy({ alphabet.contains($0) }) else { return false }
        let hasDigit = value.contains { $0.isASCII && $0.isNumber }
        let hasLetter = value.contains { $0.isASCII && $0.isLetter }
        guard hasDigit, hasLetter else { return false }
        return TraceScrubber.entropyPerCharacter(value) >= 3.0
    }

    /// Whether a parameter (by its decoded name and value) is a session id.
    public static func isSession(name: String, value: String) -> Bool {
        isSessionName(name) || isSessionArguments(name: name, value: value) || looksRandom(value)
    }

    /// An address without its session ids, and the values taken out (as written and decoded).
    public struct Stripped: Sendable, Equatable {
        public var url: URL
        /// The path and query as the browser asked for them, without the session ids.
        public var pathAndQuery: String
        /// The parameters taken out, by name (for the report).
        public var removedNames: [String]
        /// Their values, as written in the address and decoded: secrets.
        public var removedValues: [String]
    }

    /// `url` without its session path parameters and query parameters; percent-encoding and the
    /// order of what is left as recorded.
    public static func stripped(_ url: URL) -> Stripped {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return Stripped(url: url, pathAndQuery: RecordedLogin.pathAndQuery(url), removedNames: [], removedValues: [])
        }
        var names: [String] = []
        var values: [String] = []
        func decoded(_ text: Substring) -> String {
            String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
        }
        func isRemoved(_ pair: Substring) -> Bool {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decoded(parts[0])
            let raw = parts.count > 1 ? parts[1] : ""
            let value = decoded(raw)
            guard isSession(name: name, value: value) else { return false }
            names.append(name)
            values += [String(raw), value].filter { !$0.isEmpty }
            return true
        }
        // Path parameters: `/grades;jsessionid=…` in any segment.
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            let parts = segment.split(separator: ";", omittingEmptySubsequences: false)
            guard parts.count > 1 else { return String(segment) }
            let kept = parts.dropFirst().filter { !isRemoved($0) }
            return ([parts[0]] + kept).joined(separator: ";")
        }
        components.percentEncodedPath = segments.joined(separator: "/")
        if let query = components.percentEncodedQuery {
            let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { !isRemoved($0) }
            components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
        }
        let result = components.url ?? url
        return Stripped(url: result, pathAndQuery: RecordedLogin.pathAndQuery(result), removedNames: names, removedValues: values)
    }

    /// The session ids of every address a recording holds (requests, redirects, `Referer` and
    /// `Location`): secrets, whether or not the recording kept its cookies.
    public static func values(in archive: HTTPArchive) -> [String] {
        var values: Set<String> = []
        for exchange in archive.exchanges {
            var urls = [exchange.url] + (exchange.redirect.map { [$0] } ?? [])
            for header in exchange.requestHeaders + exchange.responseHeaders
            where ["referer", "location"].contains(header.name.lowercased()) {
                if let url = URL(string: header.value, relativeTo: exchange.url)?.absoluteURL { urls.append(url) }
            }
            for url in urls { values.formUnion(stripped(url).removedValues) }
        }
        return values.sorted()
    }
}
