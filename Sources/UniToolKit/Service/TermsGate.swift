import Foundation
import LibXML
import Logging
import Synchronization

/// The terms of use of a connection, and the gate every data call passes (`TermsPolicy`): the
/// version API (asked once per connection, or through another user's saved session for a public
/// command), the status, acceptance and the text; a version not yet accepted is put to the call's
/// `Interaction`, and refused unless it says yes. unitool fails closed.
struct TermsGate: ConnectionPart {
    let connection: PortalConnection

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
    func currentTerms() async throws -> CurrentTerms? {
        guard let recipe = portal.terms else { return nil }
        if let cached = connection.state.withLock({ $0.currentTerms }) { return cached }
        if let reader = connection.termsThrough {
            let terms = try await reader.termsGate.currentTerms()
            connection.state.withLock { $0.currentTerms = terms }
            return terms
        }
        let url = try portal.url(for: recipe.versionPath)
        let what: String
        switch recipe.version {
        case .api: what = localized("terms-of-use API")
        case .page: what = localized("terms-of-use page")
        }
        let page: Page
        do {
            page = try await connection.loadPage(url.absoluteString, as: .terms, recipe: portal.file, asFetch: true)
        } catch let error as UniToolError where error.kind == .loginFailed && connection.user.isEmpty {
            // A connection of no user (a public command) may not log in: it was the terms check
            // that met the login, not the command, and a saved session would have answered it.
            throw UniToolError(
                .credentialsMissing,
                localized(
                    "cannot check the terms of use of \(portal.name): its \(what) (\(url.redactedForLog)) is behind the login, and no saved session is there to ask it through"
                ),
                hint: localized(
                    "log in once with 'unitool auth login --portal \(portal.id)' (public commands then read the terms through that session), or check them with 'unitool terms status --portal \(portal.id) --user NAME'"
                )
            )
        } catch let error as UniToolError where [.portalUnreachable, .portalTimeout].contains(error.kind) {
            // A network failure keeps its own kind (exit 20 or 21), as it would for any page:
            // what the user must fix is the connection, not the terms.
            let advice = error.hint ?? localized("try again later")
            throw UniToolError(
                error.kind, localized("cannot check the terms of use of \(portal.name): \(error.message)"),
                hint: localized("unitool does not act for you while it cannot tell whether the terms changed; \(advice)"))
        } catch let error as UniToolError where error.kind == .portalError {
            throw UniToolError(
                .termsUnavailable, localized("cannot check the terms of use of \(portal.name): \(error.message)"),
                hint: localized(
                    "the portal may be down or in maintenance; unitool does not act for you until it can read the terms version. Try again later"
                )
            )
        }
        guard (200..<300).contains(page.status) else {
            throw UniToolError(
                .termsUnavailable,
                localized(
                    "cannot check the terms of use of \(portal.name): the \(what) at \(page.url.redactedForLog) answered \(page.status)"),
                hint: localized("the portal may be down or in maintenance; try again later"))
        }
        let terms: CurrentTerms
        switch recipe.version {
        case .api:
            terms = try CurrentTerms.decode(page.body, from: page.url, recipe: recipe)
        case .page(_, let xpath, let regex):
            let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
            terms = try CurrentTerms.read(page: document, from: page.url, xpath: xpath, regex: regex, textXPath: recipe.textXPath)
        }
        connection.logger.debug("the terms of use of \(portal.id) are at version \(terms.version)")
        connection.state.withLock { $0.currentTerms = terms }
        return terms
    }

    /// Records that the user accepts the terms in force now. With `version`, only if that is
    /// still the current version, so that a script or front end cannot accept terms it never
    /// showed (`staleHint` gets the current version and says what to do instead). Returns the
    /// version accepted, or nil when the portal publishes no terms.
    func acceptTerms(version: String?, store: AcceptedTermsStore, staleHint: (String) -> String) async throws -> String? {
        guard let current = try await currentTerms() else { return nil }
        if let version, !TermsVersion.same(version, current.version) {
            throw UniToolError(
                .termsVersionStale,
                localized(
                    "version \(version) is not the current version of the terms of use of \(portal.name) (current: \(current.version)); nothing was accepted"
                ),
                hint: staleHint(current.version))
        }
        try store.save(AcceptedTerms(portal: portal.id, version: current.version))
        return current.version
    }

    /// The current terms set against what the user accepted.
    func status(_ store: AcceptedTermsStore) async throws -> TermsStatus {
        let accepted = try store.load(portal: portal.id)
        return TermsStatus(
            portal: .init(id: portal.id, name: portal.name), current: try await currentTerms(), accepted: accepted)
    }

    /// The terms as text a person can read, and where they are published.
    func text() async throws -> (text: String?, url: URL?) {
        guard let terms = try await currentTerms(), let recipe = portal.terms else { return (nil, nil) }
        if let text = terms.text { return (text, terms.url) }
        guard let url = terms.url else { return (nil, nil) }
        let page = try await connection.loadPage(url.absoluteString, as: .terms, recipe: portal.file)
        let expression = recipe.textXPath ?? "//body"
        guard let node = try page.document(charsetOverride: portal.charsetOverride(for: page.url)).select(expression).first else {
            throw UniToolError(
                .layoutChanged,
                localized("recipe \(portal.file): 'terms.text_xpath' \"\(expression)\" matched nothing on \(page.url.redactedForLog)"),
                hint: localized("read the terms at \(url.absoluteString), and fix the recipe"))
        }
        return (node.readableText, url)
    }

    /// Passes when the current terms of use are accepted; otherwise asks the call's `Interaction`
    /// (a person at a terminal may accept), and refuses when the answer is no. Every data
    /// call passes here inside the service, so no front end can skip it: `perform` and `fetch`
    /// before they send anything, `run` while its pages are fetched (`whileCheckingTerms`). unitool
    /// fails closed.
    func ensureAccepted() async throws {
        if connection.state.withLock({ $0.termsCleared }) { return }
        let status = try await self.status(connection.terms.accepted)
        if let refusal = status.refusal, let current = status.current {
            let interaction = CurrentInteraction.value
            guard try await interaction.acceptTerms(status, through: connection) else {
                throw interaction.termsRefusalHint.map { UniToolError(refusal.kind, refusal.message, hint: $0) } ?? refusal
            }
            try connection.terms.accepted.save(AcceptedTerms(portal: portal.id, version: current.version))
        }
        connection.state.withLock { $0.termsCleared = true }
    }

    /// Runs `fetch` while the terms of use are checked, instead of after: a warm run then costs
    /// one round trip, not two. What `fetch` read is handed back only once the terms are found
    /// accepted; a refusal, or a check that cannot be made, throws it away unseen, and that
    /// error is the run's. `fetch` may read pages with the session it has, but a login it meets
    /// waits for the verdict (`loadPage`), so no password is sent, and no prompt shown, for a
    /// portal whose terms the user has not accepted. Actions, which change something, check first.
    ///
    /// Only once the user has accepted some version of this portal's terms: on the very first
    /// run nothing is fetched until they are accepted. A cold session runs both at once too: the
    /// fetch's request meets the login service's redirect as the check's answer arrives, and
    /// goes on to the login once the check is done (`PageLoader.load`), so a cold run costs its
    /// login's round trips and no more. Where the terms API is itself behind the login, the
    /// check signs in and the fetch is asked again on that session.
    func whileCheckingTerms<T: Sendable>(_ fetch: @escaping @Sendable () async throws -> T) async throws -> T {
        if connection.state.withLock({ $0.termsCleared }) { return try await fetch() }
        guard (try? connection.terms.accepted.load(portal: portal.id)) != nil else {
            try await ensureAccepted()
            return try await fetch()
        }
        let verdict = TermsVerdict(claimsBefore: await connection.logins.claims)
        // Both are children of this call: cancelling it cancels them, and it returns only once
        // both have ended. The page asked for meanwhile is let arrive and then dropped on a
        // refusal, not cancelled: a request cut off mid-way leaves a broken connection behind
        // (and once crashed the demo as it stopped). It ends soon either way: a login it meets
        // waits for the verdict and then fails at once.
        let (checked, fetched) = await withTaskGroup(of: (Result<Void, any Error>?, Result<T, any Error>?).self) { group in
            group.addTask {
                let checked = await Result { try await self.ensureAccepted() }
                verdict.settle(checked)
                return (checked, nil)
            }
            group.addTask { (nil, await Result { try await Self.$verdict.withValue(verdict) { try await fetch() } }) }
            var checked: Result<Void, any Error> = .failure(CancellationError())
            var fetched: Result<T, any Error> = .failure(CancellationError())
            for await ended in group {
                if let result = ended.0 { checked = result }
                if let result = ended.1 { fetched = result }
            }
            return (checked, fetched)
        }
        try checked.get()
        return try fetched.get()
    }

    /// The terms check that a run started beside its fetch (`whileCheckingTerms`): a login
    /// waits for it.
    @TaskLocal static var verdict: TermsVerdict?
}

/// The outcome of a terms check that a run started beside its fetch (`whileCheckingTerms`),
/// settled once; a login the fetch meets waits for it (`value()`).
final class TermsVerdict: Sendable {
    /// How many times a request of the connection had gone on to the login service before the
    /// check started: a page fetched beside it that meets the login may claim it once the check
    /// is done only if the count is still that (`PageLoader.load`), i.e. the check signed in
    /// nobody, with a password or through the login service's session.
    let claimsBefore: Int

    init(claimsBefore: Int) {
        self.claimsBefore = claimsBefore
    }

    private enum State {
        case pending([CheckedContinuation<Void, any Error>])
        case settled(Result<Void, any Error>)
    }
    private let state = Mutex(State.pending([]))

    /// Settles the verdict, and wakes everyone who waits for it. Only the first call counts.
    func settle(_ result: Result<Void, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .pending(let waiting) = state else { return [] }
            state = .settled(result)
            return waiting
        }
        for continuation in waiting { continuation.resume(with: result) }
    }

    /// Returns once the terms are found accepted; throws the check's error otherwise.
    func value() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let settled = state.withLock { state -> Result<Void, any Error>? in
                switch state {
                case .settled(let result): return result
                case .pending(let waiting):
                    state = .pending(waiting + [continuation])
                    return nil
                }
            }
            if let settled { continuation.resume(with: settled) }
        }
    }
}
