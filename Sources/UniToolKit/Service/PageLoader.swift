import Foundation
import Logging

/// One request of a connection, the login met underneath: the address checked against the
/// origin policy first; a redirect to the login service claimed by one request while the others
/// wait at theirs (`LoginCoordinator`, through `HTTPSession.redirectGate`); the login run once,
/// in turns with other processes (`PortalSession.logInOnce`), after the terms check a run started
/// beside it (`TermsGate.verdict`); then the page asked for again, as a browser's tab is
/// reloaded once another has signed in.
struct PageLoader: ConnectionPart {
    let connection: PortalConnection

    /// `loadPage` for any request: `send` is asked again after a login the portal asked for.
    /// A POST that meets the login is sent again once, after it, as a person would resend the
    /// form after signing in; it was never received by the portal the first time.
    func load(
        _ url: URL, isPost: Bool, as kind: OriginPolicy.RequestKind, recipe: String? = nil, send: @Sendable () async throws -> Page
    ) async throws -> Page {
        if let refusal = connection.originPolicy.refusal(kind, to: url, recipe: recipe) { throw refusal }
        let logins = connection.logins
        var seen = await logins.count
        let flow = connection.loginFlow()
        // The first request of the connection on its way to the login service claims the login;
        // another one stops at its redirect there and waits for that login: then it asks again,
        // or, if no login came of it, goes on where its redirect led. The login service is asked
        // once, as a browser's one tab would.
        //
        // A page fetched while the terms are checked (`TermsGate.whileCheckingTerms`) waits at
        // the login service's door until the check is done, since no password may go out before
        // the terms are found accepted. Then, if nothing went to the login service meanwhile
        // (the terms API is public, as most are), it claims the login and goes on through its
        // redirect: a cold run costs no round trip more than its login. If the check went there
        // (the API is behind the login), with a password or through the login service's own
        // session by redirects alone, the page is held and asked for again on that session: its
        // redirect's cookies would overwrite what that sign-on set.
        let claim = LoginCoordinator.Claim()
        let verdict = TermsGate.verdict
        let gate = { @Sendable (mayClaim: Bool) in
            HTTPSession.RedirectGate { next in
                guard self.leadsToLogin(next, flow: flow) else { return false }
                var mayClaim = mayClaim
                if !mayClaim, let verdict {
                    // A refusal holds the page; the run then ends with the refusal.
                    guard (try? await verdict.value()) != nil else { return true }
                    mayClaim = await logins.claims == verdict.claimsBefore
                }
                return await logins.holds(next, for: claim, mayClaim: mayClaim)
            }
        }
        var page: Page
        do {
            page = try await HTTPSession.$redirectGate.withValue(gate(verdict == nil)) { try await send() }
        } catch {
            await logins.release(claim)
            throw error
        }
        // Each service of a university signs on by itself, through the IdP's session once there
        // is one: a bounce after another service's login is this service's own sign-on, with no
        // password. A round may only wait for another service's login, so two rounds per
        // service; a bounce after that is a login that did not take.
        var rounds = 2 * (portal.services.count + 1)
        // The claim is given back on every way out, and before this returns: another request
        // waiting for it must not wait on a task left behind.
        let settled = await Result { () async throws -> Page in
            while try page.heldRedirect != nil || (!Self.isBareError(page, own: portal.isOwn(page.url)) && flow.needsLogin(page)) {
                guard rounds > 0 else {
                    throw UniToolError(
                        .loginFailed, localized("the portal asked for a login again right after a successful one"),
                        hint: localized("the portal may not accept unitool's cookies; run with --verbose to see every page"))
                }
                rounds -= 1
                if page.heldRedirect != nil {
                    if let verdict { try await verdict.value() }
                    await logins.waitForClaim(other: claim)
                    seen = await logins.count
                    // The page itself again, as a browser tab is reloaded once another has signed in.
                    // Never on to where the held redirect pointed: its cookies were left out of the
                    // jar (`HTTPSession.redirectGate`), and the address carries a login state (OIDC's
                    // `state`, a SAML request's ID) that only they tied to this session, while the
                    // other request's login, whether the login flow ran or the login service's
                    // session answered by redirects alone, has given the session its own. Either the
                    // session now serves the page, or the page's own fresh redirect leads to the
                    // login service, which this request may now claim: the terms are checked.
                    // A POST whose first answer led elsewhere before the login (a 303 to a page that
                    // then sent the browser to the login service) was received: the page it led to
                    // is asked for, not the POST sent again.
                    if isPost, page.hops.count > 1 {
                        let reached = page.url
                        page = try await HTTPSession.$redirectGate.withValue(gate(true)) { try await session.get(reached) }
                    } else {
                        page = try await HTTPSession.$redirectGate.withValue(gate(true)) { try await send() }
                    }
                    continue
                }
                // Fetched while the terms are being checked: log in only once they are accepted.
                if let verdict { try await verdict.value() }
                let bounced = page
                let landing = try await logins.logIn(unlessDoneSince: seen) {
                    logger.debug("the portal asks for a login at \(bounced.url.redactedForLog)")
                    // The login's pages are no command's: they carry none of its headers, and hold
                    // none of its redirects.
                    return try await HTTPSession.$commandHeaders.withValue([]) {
                        try await HTTPSession.$redirectGate.withValue(nil) {
                            // A POST's address is no page to come back to (a GET of it may not exist): log
                            // in from the start page instead, then send the POST again.
                            if isPost { return try await connection.savedSession.logIn() }
                            return try await connection.savedSession.logInOnce(from: bounced, asking: url, flow: flow)
                        }
                    }
                }
                await logins.release(claim)
                seen = await logins.count
                // SAML's RelayState usually brings the browser back to the page it asked for (for a
                // GET; a POST's body is not part of that address, so it is sent again).
                if let landing, !isPost, LoginFlow.isSameRequest(landing.url, url) {
                    page = landing
                } else {
                    page = try await send()
                }
            }
            return page
        }
        await logins.release(claim)
        page = try settled.get()
        guard (200..<300).contains(page.status) else {
            if page.status == 431 {
                throw UniToolError(
                    .portalError,
                    localized(
                        "the portal sent more than unitool accepts back: it refused the request for \(page.url.redactedForLog) as too large (431), because of the cookies it set earlier"
                    ),
                    hint: localized(
                        "end the saved session with 'unitool auth logout --portal \(portal.id)' (add --keep-password to keep the password), then run the command again"
                    ))
            }
            throw UniToolError(
                .portalError, localized("the portal answered \(page.status) for \(page.url.redactedForLog)"),
                hint: page.status == 404 ? Self.movedPageHint : localized("try again later"))
        }
        return page
    }

    /// The hint of a 404 from the portal: also how `RecipeRunner` knows that answer, in any language.
    static var movedPageHint: String { localized("the page may have moved; check 'fetch' in the recipe") }

    /// Whether a redirect leads to the login service: the IdP's origin, an origin a password may
    /// go to, or the login service's path under the portal's own origin.
    func leadsToLogin(_ url: URL, flow: LoginFlow) -> Bool {
        if portal.isOwn(url) { return flow.isLoginService(url) }
        return url.origin == portal.idpURL.origin || portal.credentialOrigins.contains(url.origin)
    }

    /// "Not found" (404, 410) with no body from the portal's own origin: no login page, since
    /// there is nothing on it to sign in with, and no page to parse. Its status is the answer
    /// ("the portal answered 404"), never a layout change because an empty body does not parse
    /// as HTML. Pure.
    static func isBareError(_ page: Page, own: Bool) -> Bool {
        own && (page.status == 404 || page.status == 410)
            && page.body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}
