import Foundation

/// One login at a time per connection, shared by everyone who needs it.
actor LoginCoordinator {
    /// One request's standing on the way to the login service (`holds`).
    final class Claim: Sendable {}

    /// The request on its way to the login service, if one is; others stop at their redirect.
    private var claimant: ObjectIdentifier?
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Whether the request of `claim` must stop at its redirect to the login service (`next`):
    /// yes while another request holds the claim, and always for one that may not claim (a page
    /// fetched beside the terms check); no for the claimant itself, and no for the first to
    /// come, which takes the claim.
    func holds(_ next: URL, for claim: Claim, mayClaim: Bool) -> Bool {
        let id = ObjectIdentifier(claim)
        if let claimant { return claimant != id }
        guard mayClaim else { return true }
        claimant = id
        return false
    }

    /// Gives up `claim`, if it is the claim: once its login is done, or its request ended
    /// without one. The requests that waited ask again.
    func release(_ claim: Claim) {
        guard claimant == ObjectIdentifier(claim) else { return }
        claimant = nil
        let resumed = waiting
        waiting = []
        for continuation in resumed { continuation.resume() }
    }

    /// Waits until no other request holds the claim.
    /// How many requests wait for a claimant now (for tests that release only once one waits).
    var waitingCount: Int { waiting.count }

    func waitForClaim(other claim: Claim) async {
        guard let claimant, claimant != ObjectIdentifier(claim) else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// How many logins have finished; a caller that saw an older count knows its bounce may be
    /// answered already.
    private(set) var count = 0
    private var inFlight: Task<Page, any Error>?

    /// Runs `login` unless one finished since the caller's `seen` count, or joins the one in
    /// flight. Returns the page the login landed on to the caller that ran it, nil to the others.
    func logIn(unlessDoneSince seen: Int, _ login: @escaping @Sendable () async throws -> Page) async throws -> Page? {
        if count > seen { return nil }
        if let inFlight {
            _ = try await inFlight.value
            return nil
        }
        // Unstructured by necessity: every request that meets the login while it runs awaits
        // this one login, and the actor must not be held while it runs.
        let task = Task { try await login() }
        inFlight = task
        do {
            let page = try await task.value
            count += 1
            inFlight = nil
            return page
        } catch {
            inFlight = nil
            throw error
        }
    }
}
