import Foundation

/// The rendezvous of the requests of one connection at the login, as a pure value: which
/// request may go on to the login service, which wait and when they ask again, and whether a
/// login is to be started, joined or skipped. Events in, decisions out, in the manner of
/// async-http-client's connection pool state machine; `LoginCoordinator` carries them out.
struct LoginRendezvous: Sendable, Equatable {
    /// A request of the connection, by an identity of the caller's choosing.
    typealias Request = ObjectIdentifier

    /// The request on its way to the login service, if one is; others stop at their redirect.
    private(set) var claimant: Request?
    /// Requests stopped at their redirect, to ask again once the claim is given back.
    private(set) var waiting: [Request] = []
    /// How many logins have finished; a request that saw an older count knows its bounce may
    /// be answered already.
    private(set) var finishedLogins = 0
    /// Whether a login runs now.
    private(set) var loginRunning = false
    /// How many times a request took the claim: a sign-on that the login service answered by
    /// redirects alone (its own session still alive) finishes no login, but took the claim.
    private(set) var claimsGranted = 0

    /// A request's redirect leads to the login service: whether it must stop there (`true`).
    /// Yes while another request holds the claim, and always for one that may not claim (a
    /// page fetched beside the terms check); no for the claimant itself, and no for the first
    /// to come, which takes the claim.
    mutating func redirectToLogin(by request: Request, mayClaim: Bool) -> Bool {
        if let claimant { return claimant != request }
        guard mayClaim else { return true }
        claimant = request
        claimsGranted += 1
        return false
    }

    /// What a request stopped at its redirect does next.
    enum Wait: Equatable {
        /// No other request holds the claim: ask again now.
        case askAgain
        /// Another holds it: wait until it is given back (`release`).
        case waitForRelease
    }

    /// A request stopped at its redirect waits for the claim, unless nobody else holds it.
    mutating func waitForClaim(by request: Request) -> Wait {
        guard let claimant, claimant != request else { return .askAgain }
        waiting.append(request)
        return .waitForRelease
    }

    /// `request` ended its login, or its request without one: if it held the claim, the claim is
    /// free, and the requests that waited for it ask again (returned, in the order they came).
    mutating func release(by request: Request) -> [Request] {
        guard claimant == request else { return [] }
        claimant = nil
        defer { waiting = [] }
        return waiting
    }

    /// What a request that meets the login page does.
    enum Login: Equatable {
        /// A login finished since the request saw `seen`: its page may be answered already.
        case alreadyDone
        /// A login runs now: wait for it, then ask again.
        case join
        /// Nobody signs in: this request runs the login.
        case start
    }

    /// A request that saw `seen` finished logins meets the login page.
    mutating func loginNeeded(seen: Int) -> Login {
        if finishedLogins > seen { return .alreadyDone }
        if loginRunning { return .join }
        loginRunning = true
        return .start
    }

    /// The login a request started has ended; only one that succeeded counts.
    mutating func loginEnded(succeeded: Bool) {
        loginRunning = false
        if succeeded { finishedLogins += 1 }
    }
}

/// One login at a time per connection, shared by everyone who needs it: carries out the
/// decisions of its `LoginRendezvous`, holding the waiting requests' continuations and the
/// login every caller awaits.
actor LoginCoordinator {
    /// One request's standing on the way to the login service (`holds`).
    final class Claim: Sendable {}

    private var rendezvous = LoginRendezvous()
    private var waiting: [LoginRendezvous.Request: [CheckedContinuation<Void, Never>]] = [:]
    private var inFlight: Task<Page, any Error>?

    /// Whether the request of `claim` must stop at its redirect to the login service (`next`)
    /// (`LoginRendezvous.redirectToLogin`).
    func holds(_ next: URL, for claim: Claim, mayClaim: Bool) -> Bool {
        rendezvous.redirectToLogin(by: ObjectIdentifier(claim), mayClaim: mayClaim)
    }

    /// Gives up `claim`, if it is the claim: once its login is done, or its request ended
    /// without one. The requests that waited ask again.
    func release(_ claim: Claim) {
        for request in rendezvous.release(by: ObjectIdentifier(claim)) {
            for continuation in waiting.removeValue(forKey: request) ?? [] { continuation.resume() }
        }
    }

    /// How many requests wait for a claimant now (for tests that release only once one waits).
    var waitingCount: Int { rendezvous.waiting.count }

    /// Waits until no other request holds the claim.
    func waitForClaim(other claim: Claim) async {
        let request = ObjectIdentifier(claim)
        guard rendezvous.waitForClaim(by: request) == .waitForRelease else { return }
        await withCheckedContinuation { waiting[request, default: []].append($0) }
    }

    /// How many logins have finished (`LoginRendezvous.finishedLogins`).
    var count: Int { rendezvous.finishedLogins }

    /// How many times a request went on to the login service (`LoginRendezvous.claimsGranted`).
    var claims: Int { rendezvous.claimsGranted }

    /// Runs `login` unless one finished since the caller's `seen` count, or joins the one in
    /// flight. Returns the page the login landed on to the caller that ran it, nil to the others.
    func logIn(unlessDoneSince seen: Int, _ login: @escaping @Sendable () async throws -> Page) async throws -> Page? {
        switch rendezvous.loginNeeded(seen: seen) {
        case .alreadyDone:
            return nil
        case .join:
            _ = try await inFlight?.value
            return nil
        case .start:
            // Unstructured by necessity: every request that meets the login while it runs awaits
            // this one login, and the actor must not be held while it runs.
            let task = Task { try await login() }
            inFlight = task
            let result = await task.result
            inFlight = nil
            rendezvous.loginEnded(succeeded: (try? result.get()) != nil)
            return try result.get()
        }
    }
}
