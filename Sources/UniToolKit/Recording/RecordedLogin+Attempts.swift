import Foundation
import LibXML

/// The password attempts of a recording, and which of them led on to the portal.
///
/// People make mistakes while recording: a wrong password typed first shows the form again, and
/// the person types it again. The attempt that worked is the last one before the portal's session
/// began (the SAML response or CAS ticket brought back, or a page with a way to log out), never
/// the first one seen. A password-type field posted after a password, without a user name beside
/// it, whose value differs and looks like a code, is a one-time code and no attempt.
struct LoginAttempts {
    /// The page loads that sent a password, in order (codes in password-type fields left out).
    var posts: [Int] = []
    /// The attempt that led on, or nil when the recording sent no password.
    var successful: Int?
    /// The password values of the successful attempt (and of every attempt, for what is secret).
    var passwordValues: Set<String> = []

    init(loads: [HTTPArchive.Exchange], documents: [Document?], isPassword: (String, Int) -> Bool) {
        var seen: Set<String> = []
        for index in loads.indices {
            let fields = (loads[index].formFields ?? []).filter { !$0.value.isEmpty }
            let secret = fields.filter { isPassword($0.name, index) }
            guard !secret.isEmpty else { continue }
            let typedBeside = fields.contains { RecordedLogin.isUserName($0.name) }
            if !seen.isEmpty, !typedBeside, secret.allSatisfy({ Self.isCode(name: $0.name, value: $0.value, passwords: seen) }) {
                continue
            }
            posts.append(index)
            seen.formUnion(secret.map(\.value))
        }
        guard let first = posts.first else { return }
        // Where the session began: a protocol's answer brought back to the portal, or a page with
        // a way to log out.
        let began = (first..<loads.count).first { index in
            let load = loads[index]
            let names = Set((load.formFields ?? []).map(\.name))
            let query = Set(URLComponents(url: load.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? [])
            if names.contains("SAMLResponse") || names.contains("wresult") || (load.method == "GET" && query.contains("ticket")) {
                return true
            }
            guard load.status == 200, let page = documents[index] else { return false }
            return RecordedLogin.logoutMarker(in: page) != nil
                && (try? page.select("//input[@type='password']").isEmpty) != false
        }
        successful = posts.last { $0 <= (began ?? loads.count) } ?? first
        passwordValues = seen
    }

    /// Whether a value posted in a password-type field after the password is a one-time code:
    /// another value than the password's, of 4 to 10 digits or in a field named as codes are.
    static func isCode(name: String, value: String, passwords: Set<String>) -> Bool {
        guard !value.isEmpty, !passwords.contains(value) else { return false }
        return RecordedLogin.isCodeName(name) || (4...10).contains(value.count) && value.allSatisfy(\.isASCIIDigit)
    }
}

/// A page the portal shows after the login before the one asked for (a survey's reminder, a
/// password-expiry notice, terms to confirm), told by what the person did there: they chose a
/// link or a form on it, and that led (directly or through redirects) back to the address that
/// served it, now with another document, or to the address a `next=`/`return=`/`target=`
/// parameter of their choice names. A page passed through by redirect is none.
struct Interstitial {
    /// The index of the interstitial's load, and of the page the person went on to.
    var page: Int
    var landing: Int
    /// An XPath for the interstitial's own container: present on it, absent from the landing page.
    var container: String
    /// Why, in words.
    var why: String

    /// The query parameters a "later" or "continue" link names its destination by.
    static let destinationNames: Set<String> = [
        "next", "return", "returnto", "return_to", "returnurl", "target", "redirect", "redirect_to", "continue", "goto", "url",
        "back", "destination", "from",
    ]

    init?(at index: Int, loads: [HTTPArchive.Exchange], documents: [Document?]) {
        guard index + 1 < loads.count, let page = documents[index] else { return nil }
        let here = loads[index].url
        let next = loads[index + 1]
        // What the person chose on the page: a form of it, or a link to the next address.
        let chosen: Node?
        if next.formFields != nil {
            chosen = RecordedLogin.matchingForm(
                in: page, pageURL: here, request: next, posted: next.formFields ?? [])
        } else if next.method == "GET", let rule = RecordedLogin.linkRule(page: page, pageURL: here, target: next.url),
            case .follow(let xpath) = rule.action
        {
            chosen = try? page.select(xpath).first
        } else {
            chosen = nil
        }
        guard let chosen else { return nil }
        var end = index + 1
        while end < loads.count, (300..<400).contains(loads[end].status) { end += 1 }
        guard end < loads.count, loads[end].status == 200, let landing = documents[end] else { return nil }
        let arrived = loads[end].url
        let sameAddress = arrived.origin == here.origin && arrived.path == here.path
        let named = (URLComponents(url: next.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).contains { item in
            guard Self.destinationNames.contains(item.name.lowercased()), let value = item.value,
                let target = URL(string: value, relativeTo: next.url)?.absoluteURL
            else { return false }
            return target.origin == arrived.origin && target.path == arrived.path
        }
        guard sameAddress || named else { return nil }
        guard let container = Self.container(of: chosen, absentFrom: landing) else { return nil }
        self.page = index
        self.landing = end
        self.container = container
        why =
            sameAddress
            ? "the person's choice there led back to \(arrived.path), which then served another page"
            : "the person's choice there named \(arrived.path) as where to go next"
    }

    /// The innermost element around `node` with an id the landing page does not have (a form
    /// itself counts; a link's own id does not, it is the `follow`), else the node's form by its
    /// fields, else nil.
    static func container(of node: Node, absentFrom landing: Document) -> String? {
        let axis = node.name == "form" ? "ancestor-or-self" : "ancestor"
        let marked = ((try? node.select("\(axis)::*[@id][not(self::html or self::body)]")) ?? []).reversed()
        for element in marked {
            guard let id = element.attribute("id"), !id.isEmpty else { continue }
            let xpath = "//\(element.name)[@id=\(Template.xpathLiteral(id))]"
            if (try? landing.select(xpath).isEmpty) == true { return xpath }
        }
        let form = node.name == "form" ? node : node.ancestor(named: "form")
        if let form {
            let names = ((try? form.select(".//*[@name][not(@type='hidden')]")) ?? []).compactMap { $0.attribute("name") }
            let xpath = "//form" + names.prefix(3).map { "[.//*[@name=\(Template.xpathLiteral($0))]]" }.joined()
            if !names.isEmpty, (try? landing.select(xpath).isEmpty) == true { return xpath }
        }
        return nil
    }
}

extension RecordedLogin {
    /// Whether an address a service's page led to is the login service's: its origin, a CAS
    /// login (`/login?service=`), or a SAML request.
    static func leadsToLoginService(_ url: URL, loginOrigin: String) -> Bool {
        if url.origin == loginOrigin { return true }
        let names = Set((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name))
        if names.contains("SAMLRequest") { return true }
        return names.contains("service") && url.path.hasSuffix("/login")
    }

    /// The element with an id around the link `xpath` selects on `page`, when `other` lacks it.
    static func container(of xpath: String, on page: Document, absentFrom other: Document?) -> String? {
        guard let node = try? page.select(xpath).first, let other else { return nil }
        return Interstitial.container(of: node, absentFrom: other).flatMap { $0.hasPrefix("//form") ? nil : $0 }
    }
}
