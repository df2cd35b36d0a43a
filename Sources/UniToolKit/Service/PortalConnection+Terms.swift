import Foundation
import LibXML
import Logging
import Synchronization

/// The terms of use of a connection: the version API (asked once per connection), the status,
/// acceptance, and the text.
extension PortalConnection {
    /// The terms of use in force now, or nil if the portal publishes no version. The version API
    /// is asked once per connection; it is never cached across runs, so a new version is seen
    /// on the very next command.
    ///
    /// The API (or the terms page, `terms.version_page`) is fetched like any page of the portal,
    /// through the same `fetch` path and origin policy: where the portal protects it, the bounce
    /// to the login service is followed by a login under the same credential rules, and it is
    /// asked again, once.
    ///
    /// An answer that is not a readable version is `termsUnavailable`; a network failure keeps its
    /// own kind. Either way unitool fails closed: a version it cannot read is one it cannot compare.
    public func currentTerms() async throws -> CurrentTerms? {
        guard let recipe = portal.terms else { return nil }
        if let cached = state.withLock({ $0.currentTerms }) { return cached }
        if let termsThrough {
            let terms = try await termsThrough.currentTerms()
            state.withLock { $0.currentTerms = terms }
            return terms
        }
        let url = try portal.url(for: recipe.versionPath)
        let what: String
        switch recipe.version {
        case .api: what = "terms-of-use API"
        case .page: what = "terms-of-use page"
        }
        let page: Page
        do {
            page = try await loadPage(url.absoluteString, as: .terms, recipe: portal.file, asFetch: true)
        } catch let error as UniToolError where error.kind == .loginFailed && user.isEmpty {
            // A connection of no user (a public command) may not log in: it was the terms check
            // that met the login, not the command, and a saved session would have answered it.
            throw UniToolError(
                .credentialsMissing,
                "cannot check the terms of use of \(portal.name): its \(what) (\(url.redactedForLog)) is behind the login, and no saved session is there to ask it through",
                hint:
                    "log in once with 'unitool auth login --portal \(portal.id)' (public commands then read the terms through that session), or check them with 'unitool terms status --portal \(portal.id) --user NAME'"
            )
        } catch let error as UniToolError where [.portalUnreachable, .portalTimeout].contains(error.kind) {
            // A network failure keeps its own kind (exit 20 or 21), as it would for any page:
            // what the user must fix is the connection, not the terms.
            throw UniToolError(
                error.kind, "cannot check the terms of use of \(portal.name): \(error.message)",
                hint: "unitool does not act for you while it cannot tell whether the terms changed; \(error.hint ?? "try again later")")
        } catch let error as UniToolError where error.kind == .portalError {
            throw UniToolError(
                .termsUnavailable, "cannot check the terms of use of \(portal.name): \(error.message)",
                hint:
                    "the portal may be down or in maintenance; unitool does not act for you until it can read the terms version. Try again later"
            )
        }
        guard (200..<300).contains(page.status) else {
            throw UniToolError(
                .termsUnavailable,
                "cannot check the terms of use of \(portal.name): the \(what) at \(page.url.redactedForLog) answered \(page.status)",
                hint: "the portal may be down or in maintenance; try again later")
        }
        let terms: CurrentTerms
        switch recipe.version {
        case .api:
            terms = try CurrentTerms.decode(page.body, from: page.url, recipe: recipe)
        case .page(_, let xpath, let regex):
            let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
            terms = try CurrentTerms.read(page: document, from: page.url, xpath: xpath, regex: regex, textXPath: recipe.textXPath)
        }
        logger.debug("the terms of use of \(portal.id) are at version \(terms.version)")
        state.withLock { $0.currentTerms = terms }
        return terms
    }

    /// Records that the user accepts the terms in force now. With `version`, only if that is
    /// still the current version, so that a script or front end cannot accept terms it never
    /// showed (`staleHint` gets the current version and says what to do instead). Returns the
    /// version accepted, or nil when the portal publishes no terms.
    public func acceptTerms(version: String?, store: AcceptedTermsStore, staleHint: (String) -> String) async throws -> String? {
        guard let current = try await currentTerms() else { return nil }
        if let version, !TermsVersion.same(version, current.version) {
            throw UniToolError(
                .termsVersionStale,
                "version \(version) is not the current version of the terms of use of \(portal.name) (current: \(current.version)); nothing was accepted",
                hint: staleHint(current.version))
        }
        try store.save(AcceptedTerms(portal: portal.id, version: current.version))
        return current.version
    }

    /// The address of one of the portal's own pages, for `unitool page` and `session.fetch`:
    /// they fetch through the user's session, so never from any other origin.
    ///
    /// An address with a scheme but no host (`http:127.0.0.10:8080/x`, the slashes left out) is
    /// refused as what it is, named as it was given: its origin would read "http://", which
    /// told the user nothing.
    public func ownPageURL(_ pathOrURL: String) throws -> URL {
        let url = try portal.url(for: pathOrURL)
        if url.scheme != nil, url.host?.isEmpty ?? true {
            throw UniToolError(
                .usage, "'\(pathOrURL)' is not a full address: it names no host, so nothing was sent",
                hint: "give a path on the portal (/library) or a full address with '//' after the scheme (\(portal.baseURL.origin)/library)"
            )
        }
        if let refusal = originPolicy.refusal(.page, to: url) { throw refusal }
        return url
    }

    /// The current terms set against what the user accepted.
    public func termsStatus(_ store: AcceptedTermsStore) async throws -> TermsStatus {
        let accepted = try store.load(portal: portal.id)
        return TermsStatus(
            portal: .init(id: portal.id, name: portal.name), current: try await currentTerms(), accepted: accepted)
    }

    /// The terms as text a person can read, and where they are published.
    public func termsText() async throws -> (text: String?, url: URL?) {
        guard let terms = try await currentTerms(), let recipe = portal.terms else { return (nil, nil) }
        if let text = terms.text { return (text, terms.url) }
        guard let url = terms.url else { return (nil, nil) }
        let page = try await loadPage(url.absoluteString, as: .terms, recipe: portal.file)
        let expression = recipe.textXPath ?? "//body"
        guard let node = try page.document(charsetOverride: portal.charsetOverride(for: page.url)).select(expression).first else {
            throw UniToolError(
                .layoutChanged, "recipe \(portal.file): 'terms.text_xpath' \"\(expression)\" matched nothing on \(page.url.redactedForLog)",
                hint: "read the terms at \(url.absoluteString), and fix the recipe")
        }
        return (node.readableText, url)
    }
}
