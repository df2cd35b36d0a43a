import Foundation
import LibXML

/// What a recording of a login that did not get through teaches: the element the portal showed
/// its message in, on its answer to the wrong password (or the wrong one-time code), becomes a
/// login rule that reports wrong credentials (`fail: wrong_credentials`, `fail: wrong_code`).
///
/// Given beside a good recording (`recipes new NAME --from-har good.har --from-har wrong.har`).
/// A pure reading: no request is made. The element is told by its structure (an id, `role=alert`,
/// a class), never by its words: the same portal says it in the person's language, and another
/// day in other words. It must be new on the answer (not on the page the credential was typed
/// on) and absent from every page of the good recording's successful path, or the rule would
/// stop a login that works.
public struct RecordedFailure: Sendable {
    /// What a recording is, as far as a login goes.
    public enum Reading: Sendable {
        /// The login got through: a protocol's answer came back, or a page to log out from.
        case succeeded
        /// The last credential sent was answered with its form again, and nothing after.
        case failed(RecordedFailure)
        /// No password was sent (pages visited after a login, in a recording of their own).
        case noLogin
        /// A password was sent, but the recording neither reaches the portal nor shows the form
        /// again: why, in words.
        case unclear(String)
    }

    /// What was wrong: the password, or the one-time code typed after a right password.
    public var reason: PageRule.FailureReason
    /// The portal's answer to the wrong credential, and where it was.
    public var answer: Document
    public var answerURL: URL
    /// The page the wrong credential was typed on, when the recording holds it.
    public var formPage: Document?
    /// What the person typed in the failed recording (the wrong password is a secret too), and
    /// its cookies and long posted values: none of them may reach a file.
    public var secrets: [String: String] = [:]

    /// Reads `archive` as a login: got through, failed, or neither.
    public static func reading(_ archive: HTTPArchive) -> Reading {
        let loads = archive.exchanges.filter(\.isPageLoad)
        let documents = loads.map(RecordedLogin.document)
        let attempts = Self.attempts(loads: loads, documents: documents)
        guard let lastPassword = attempts.posts.last else { return .noLogin }
        // A code sent after the last password (a code-named field, or a code in a password-type
        // field) is the last credential when it came later.
        var lastCode: Int?
        for index in (lastPassword + 1)..<max(loads.count, lastPassword + 1) {
            let fields = (loads[index].formFields ?? []).filter { !$0.value.isEmpty }
            if fields.contains(where: {
                (RecordedLogin.isCodeName($0.name) && $0.value.count <= 10 && $0.value.allSatisfy(\.isASCIIDigit))
                    || LoginAttempts.isCode(name: $0.name, value: $0.value, passwords: attempts.passwordValues)
                        && Self.isPasswordField($0.name, at: index, documents: documents)
            }) {
                lastCode = index
            }
        }
        let last = max(lastPassword, lastCode ?? lastPassword)
        if Self.sessionBegan(after: last, loads: loads, documents: documents) { return .succeeded }
        // The answer: the first page shown after the credential (after its redirects).
        guard
            let answerIndex = (last..<loads.count).first(where: {
                loads[$0].status == 200 && documents[$0] != nil
            }), let answer = documents[answerIndex]
        else {
            return .unclear(localized("the recording ends before the login service answered the last password or code sent"))
        }
        // It failed when the answer asks for the same credential again: a field of the same name.
        let typedNames = (loads[last].formFields ?? []).filter { !$0.value.isEmpty }.map(\.name).filter { name in
            Self.isPasswordField(name, at: last, documents: documents) || RecordedLogin.isCodeName(name)
        }
        let asksAgain = typedNames.contains { name in
            (try? answer.select("//form//*[@name=\(Template.xpathLiteral(name))]").isEmpty) == false
        }
        guard asksAgain else {
            let sentTo = loads[last].url.path
            let answerPath = loads[answerIndex].url.path
            return .unclear(
                localized(
                    "the last password or code was sent to \(sentTo), but the answer (\(answerPath)) neither is the portal's page nor asks for it again"
                ))
        }
        var failure = RecordedFailure(
            reason: lastCode == last ? .wrongCode : .wrongCredentials, answer: answer, answerURL: loads[answerIndex].url,
            formPage: last > 0 ? documents[last - 1] : nil)
        failure.secrets = Self.secrets(of: archive, loads: loads, documents: documents)
        return .failed(failure)
    }

    /// The rule for the portal's message, or nil (with why) when no element tells it apart.
    ///
    /// - Parameter goodPages: the good recording's pages from the attempt that worked on (the
    ///   form it was typed on, and every page after): the rule must match none of them.
    public func rule(absentFrom goodPages: [Document]) -> (rule: DraftRule?, why: String) {
        let elements =
            (try? answer.select(
                "//body//*[not(self::script or self::style or self::noscript or self::template or self::form or self::input or self::button or self::select or self::option or self::label or self::textarea)][not(.//form or .//input or .//select or .//textarea)][normalize-space()]"
            )) ?? []
        var shared: String?
        for element in elements {
            for xpath in Self.candidates(for: element) {
                guard (try? answer.select(xpath).isEmpty) == false else { continue }
                if let formPage, (try? formPage.select(xpath).isEmpty) == false { continue }
                if goodPages.contains(where: { (try? $0.select(xpath).isEmpty) == false }) {
                    shared = shared ?? xpath
                    continue
                }
                let what = reason == .wrongCode ? "one-time code" : "password"
                let rule = DraftRule(
                    name: "wrong \(what) (recorded)", when: xpath, action: .fail(reason, message: xpath),
                    reading: "the portal's message on its answer to a wrong \(what) (\(answerURL.path)), by its \(Self.kind(of: xpath))")
                return (rule, "")
            }
        }
        if let shared {
            return (
                nil,
                reason == .wrongCode
                    ? localized(
                        "the element the portal showed its message in (\(shared)) is on the good recording's pages too, so it cannot tell a wrong code apart"
                    )
                    : localized(
                        "the element the portal showed its message in (\(shared)) is on the good recording's pages too, so it cannot tell a wrong password apart"
                    )
            )
        }
        return (nil, localized("the portal's answer showed no element with an id, role=alert or a class that its form page did not have"))
    }

    /// The XPaths that may name `element` by its structure: its id, `role=alert`, each class;
    /// each only when not empty (a message slot left empty on every page is no message).
    static func candidates(for element: Node) -> [String] {
        let tag = element.name
        var xpaths: [String] = []
        if let id = element.attribute("id"), Self.isStableName(id) {
            xpaths.append("//\(tag)[@id=\(Template.xpathLiteral(id))][normalize-space()]")
        }
        if let role = element.attribute("role"), ["alert", "status"].contains(role.lowercased()) {
            xpaths.append("//\(tag)[@role=\(Template.xpathLiteral(role))][normalize-space()]")
        }
        for token in (element.attribute("class") ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        where Self.isStableName(token) {
            xpaths.append(
                "//\(tag)[contains(concat(' ', normalize-space(@class), ' '), \(Template.xpathLiteral(" \(token) ")))][normalize-space()]")
        }
        return xpaths
    }

    /// An id or class a page keeps from one load to the next: not one numbered per page
    /// (`ember1234`, `yui_3_17_2_1_1700000000`), not a token.
    static func isStableName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 40, !TraceScrubber.looksLikeToken(name) else { return false }
        var run = 0
        for character in name {
            run = character.isASCIIDigit ? run + 1 : 0
            if run >= 3 { return false }
        }
        return true
    }

    static func kind(of xpath: String) -> String {
        if xpath.contains("[@id=") { return "id" }
        if xpath.contains("[@role=") { return "role" }
        return "class"
    }

    // MARK: The recording

    /// The good recording's pages the failure's rule must not match: from the page the working
    /// password was typed on to the end (a mistyped attempt before it showed the message too).
    public static func successfulPath(of login: RecordedLogin) -> [Document] {
        let documents = login.pageLoads.map(RecordedLogin.document)
        let attempts = Self.attempts(loads: login.pageLoads, documents: documents)
        let from = max((attempts.successful ?? 0) - 1, 0)
        return documents[from...].compactMap { $0 }
    }

    static func attempts(loads: [HTTPArchive.Exchange], documents: [Document?]) -> LoginAttempts {
        LoginAttempts(loads: loads, documents: documents) { name, index in
            Self.isPasswordField(name, at: index, documents: documents)
        }
    }

    /// A posted field is a password when the page it came from showed it as one, or when it is
    /// named like one (as `RecordedLogin` reads it).
    static func isPasswordField(_ name: String, at index: Int, documents: [Document?]) -> Bool {
        if RecordedLogin.isPasswordName(name) { return true }
        guard index > 0, let page = documents[index - 1] else { return false }
        return (try? page.select("//input[@type='password'][@name=\(Template.xpathLiteral(name))]").isEmpty) == false
    }

    /// Whether the portal's session began after load `index`: SAML's or WS-Federation's answer
    /// posted, a CAS ticket brought back, an OpenID Connect authorization code brought back to
    /// the portal (`code` and `state`, in the address or posted as `form_post` does), or a page
    /// with a way to log out and no password field.
    static func sessionBegan(after index: Int, loads: [HTTPArchive.Exchange], documents: [Document?]) -> Bool {
        // The portal: where the recording began (the password went to its sign-on's origin).
        let portal = loads.first?.url.origin
        return ((index + 1)..<max(loads.count, index + 1)).contains { position in
            let load = loads[position]
            let names = Set((load.formFields ?? []).map(\.name))
            let query = Set(URLComponents(url: load.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
            if names.contains("SAMLResponse") || names.contains("wresult") || (load.method == "GET" && query.contains("ticket")) {
                return true
            }
            let codeBack = (load.method == "GET" ? query : names).isSuperset(of: ["code", "state"])
            if codeBack, load.url.origin == portal { return true }
            guard load.status == 200, let page = documents[position] else { return false }
            return RecordedLogin.logoutMarker(in: page) != nil && (try? page.select("//input[@type='password']").isEmpty) != false
        }
    }

    /// What must reach no file: every value typed into a password or code field, every cookie,
    /// and every long value posted (CSRF tokens, flow state), each with what it is.
    static func secrets(of archive: HTTPArchive, loads: [HTTPArchive.Exchange], documents: [Document?]) -> [String: String] {
        var found: [String: String] = [:]
        for (index, load) in loads.enumerated() {
            for field in load.formFields ?? [] where !field.value.isEmpty {
                if Self.isPasswordField(field.name, at: index, documents: documents) {
                    found[field.value] = localized("the password of the failed login's recording")
                } else if RecordedLogin.isCodeName(field.name), field.value.count <= 10 {
                    found[field.value] = localized("a one-time code of the failed login's recording")
                } else if field.value.count >= 16, !TraceScrubber.isPlainValue(field.value) {
                    found[field.value] = found[field.value] ?? localized("the hidden field '\(field.name)' of the failed login's recording")
                }
            }
        }
        for exchange in archive.exchanges {
            for header in exchange.requestHeaders + exchange.responseHeaders
            where ["cookie", "set-cookie"].contains(header.name.lowercased()) {
                let all = header.value.split(separator: ";")
                let pairs = header.name.lowercased() == "cookie" ? all : Array(all.prefix(1))
                for pair in pairs {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
                    if value.count >= 4, !TraceScrubber.isPlainValue(value) {
                        found[value] = found[value] ?? localized("a cookie of the failed login's recording")
                    }
                }
            }
            for value in exchange.cookieValues where value.count >= 4 && !TraceScrubber.isPlainValue(value) {
                found[value] = found[value] ?? localized("a cookie of the failed login's recording")
            }
        }
        return found
    }
}

extension RecordedFailure {
    /// What the failed logins add to a draft: the rules to write (before every other rule of
    /// the login, which the same page also matches), and the report's lines.
    struct DraftPart {
        var rules: [DraftRule] = []
        var recognised: [String] = []
        var guessed: [String] = []
    }

    /// The error rules `failures` teach, beside the good recording's `login`. Where the login is
    /// a bundled platform's (`platform`), the platform's rules come first: a page one of its
    /// `fail` rules already tells needs no rule of its own.
    static func draftPart(_ failures: [RecordedFailure], login: RecordedLogin, platform: String?, platforms: URL) -> DraftPart {
        var part = DraftPart()
        guard !failures.isEmpty else { return part }
        let goodPages = successfulPath(of: login)
        let platformRules = platform.flatMap { name in PlatformMatch.platforms(in: platforms).first { $0.name == name }?.rules } ?? []
        for failure in failures {
            let path = failure.answerURL.path
            let answer =
                failure.reason == .wrongCode
                ? localized("the answer to the wrong one-time code (\(path))") : localized("the answer to the wrong password (\(path))")
            let platformName = platform ?? "platform"
            let first = platformRules.first { (try? failure.answer.evaluate($0.when).booleanValue) == true }
            if let first, case .fail(let reason, _) = first.action {
                part.recognised.append(
                    localized("\(answer): the \(platformName) platform's rule '\(first.name)' tells it already (fail: \(reason.rawValue))"))
                continue
            }
            let (rule, why) = failure.rule(absentFrom: goodPages)
            guard let rule else {
                part.recognised.append(localized("\(answer): no error rule written: \(why)"))
                continue
            }
            guard !part.rules.contains(where: { $0.when == rule.when }) else { continue }
            part.rules.append(rule)
            part.recognised.append(localized("\(rule.reading): rule '\(rule.name)' (fail: \(failure.reason.rawValue))"))
            if let first {
                part.guessed.append(
                    localized(
                        "rule '\(rule.name)': the \(platformName) platform's rule '\(first.name)' matches \(answer) first (a platform's rules come before the folder's own), so this rule acts only where that one does not"
                    )
                )
            }
        }
        return part
    }
}
