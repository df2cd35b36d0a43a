import Foundation

/// The terms of use of a connection, as the front ends ask for them (`TermsGate`).
extension PortalConnection {
    /// The terms of use in force now, or nil if the portal publishes no version (`TermsGate.currentTerms`).
    public func currentTerms() async throws -> CurrentTerms? { try await termsGate.currentTerms() }

    /// Records that the user accepts the terms in force now, only `version` if given
    /// (`TermsGate.acceptTerms`).
    public func acceptTerms(version: String?, store: AcceptedTermsStore, staleHint: (String) -> String) async throws -> String? {
        try await termsGate.acceptTerms(version: version, store: store, staleHint: staleHint)
    }

    /// The current terms set against what the user accepted.
    public func termsStatus(_ store: AcceptedTermsStore) async throws -> TermsStatus { try await termsGate.status(store) }

    /// The terms as text a person can read, and where they are published.
    public func termsText() async throws -> (text: String?, url: URL?) { try await termsGate.text() }

    /// Runs `fetch` while the terms are checked (`TermsGate.whileCheckingTerms`).
    func whileCheckingTerms<T: Sendable>(_ fetch: @escaping @Sendable () async throws -> T) async throws -> T {
        try await termsGate.whileCheckingTerms(fetch)
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
                .usage, localized("'\(pathOrURL)' is not a full address: it names no host, so nothing was sent"),
                hint: localized(
                    "give a path on the portal (/library) or a full address with '//' after the scheme (\(portal.baseURL.origin)/library)")
            )
        }
        if let refusal = originPolicy.refusal(.page, to: url) { throw refusal }
        return url
    }
}
