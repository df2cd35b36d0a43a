import Foundation
import LibXML

extension DoneCondition {
    /// Which test of `done_when` the page fails, in words, or nil when it passes (or has none).
    ///
    /// The URL test sees the path as requested, trailing slash included (`^/campus/$`), and the
    /// query: what a browser's address bar shows, not Foundation's `path`, which drops the slash.
    func failure(page: Page, document: Document) throws -> String? {
        if let pattern = urlPattern {
            let components = URLComponents(url: page.url, resolvingAgainstBaseURL: true)
            let path = components?.percentEncodedPath ?? page.url.path
            let pathAndQuery = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?\($0)" } ?? "")
            guard (try? Regex(pattern).firstMatch(in: pathAndQuery)) != nil else {
                let shown = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery == nil ? "" : "?…")
                return localized("url \"\(pattern)\" does not match \"\(shown)\"")
            }
        }
        // An XPath test is for pages. A JSON API of the portal that the login brought the
        // browser back to (a terms API behind the login) is the portal answering: logged in.
        let isMarkup = page.contentType.map { $0.contains("html") || $0.contains("xml") } ?? true
        if let xpath, isMarkup, !(try document.evaluate(xpath).booleanValue) {
            return localized("xpath \"\(xpath)\" matches nothing")
        }
        return nil
    }
}

/// What a login in the browser waits for (`auth login --browser`), page by page: a pure
/// decision over what the tab shows, apart from the browser that shows it.
///
/// The person is signed in when the tab shows one of the portal's own pages that no login rule
/// takes for a login page and that passes `done_when`: the test a form login ends on.
public struct BrowserLoginWatch: Sendable {
    public enum Verdict: Sendable, Equatable {
        case signedIn
        /// Still signing in; what is awaited, in words for the progress line.
        case waiting(String)
    }

    public let portal: PortalRecipe

    public init(portal: PortalRecipe) { self.portal = portal }

    public func verdict(url address: String, contentType: String, markup: String) -> Verdict {
        guard let url = URL(string: address), let host = url.host, url.scheme == "http" || url.scheme == "https" else {
            return .waiting(localized("for the login page to open"))
        }
        guard portal.isOwn(url) else { return .waiting(localized("for you to sign in at \(host)")) }
        let page = Page(url: url, status: 200, contentType: contentType, body: Array(markup.utf8), hops: [])
        guard let document = try? page.document() else { return .waiting(localized("for \(portal.name) to show a page")) }
        if (try? portal.login.rule(matching: document)) ?? nil != nil { return .waiting(localized("for you to sign in to \(portal.name)")) }
        do {
            if let failure = try portal.login.doneWhen.failure(page: page, document: document) {
                return .waiting(localized("for \(portal.name) to show that you are signed in (\(failure))"))
            }
        } catch {
            return .waiting(localized("for \(portal.name) to show that you are signed in"))
        }
        return .signedIn
    }
}
