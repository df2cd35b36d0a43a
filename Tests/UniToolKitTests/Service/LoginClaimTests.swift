import Foundation
import Testing

@testable import UniToolKit

/// `LoginCoordinator`'s claim: the first request on its way to the login service goes on, the
/// others stop at their redirect until its login is done (issue 34, part 9).
@Suite("One request signs in; the others wait at their redirect")
struct LoginClaimTests {
    let idp = URL(string: "https://idp.example.edu/idp/profile/SAML2/Redirect/SSO")!

    @Test("the first claims and goes on, again and again; another is held until the claim is released")
    func claim() async {
        let coordinator = LoginCoordinator()
        let first = LoginCoordinator.Claim()
        let second = LoginCoordinator.Claim()
        #expect(await coordinator.holds(idp, for: first, mayClaim: true) == false)
        #expect(await coordinator.holds(idp, for: first, mayClaim: true) == false, "its own next hop")
        #expect(await coordinator.holds(idp, for: second, mayClaim: true) == true)
        await coordinator.release(second)
        #expect(await coordinator.holds(idp, for: second, mayClaim: true) == true, "only the claimant releases")
        await coordinator.release(first)
        #expect(await coordinator.holds(idp, for: second, mayClaim: true) == false)
    }

    @Test("a request that may not claim (a page fetched beside the terms check) is always held, and takes no claim")
    func mayNotClaim() async {
        let coordinator = LoginCoordinator()
        let speculative = LoginCoordinator.Claim()
        let terms = LoginCoordinator.Claim()
        #expect(await coordinator.holds(idp, for: speculative, mayClaim: false) == true)
        #expect(await coordinator.holds(idp, for: terms, mayClaim: true) == false, "the terms check is not kept from claiming")
    }

    @Test("a held request waits until the claimant releases, and not at all when nobody claims")
    func waiting() async throws {
        let coordinator = LoginCoordinator()
        let claimant = LoginCoordinator.Claim()
        let held = LoginCoordinator.Claim()
        await coordinator.waitForClaim(other: held)  // nobody claims: returns at once
        _ = await coordinator.holds(idp, for: claimant, mayClaim: true)
        let released = Task {
            await coordinator.waitForClaim(other: held)
            return Date()
        }
        // Release only once the held request waits.
        while await coordinator.waitingCount == 0 { await Task.yield() }
        let releasedAt = Date()
        await coordinator.release(claimant)
        let resumedAt = await released.value
        #expect(resumedAt >= releasedAt, "the wait ended only after the release")
        await coordinator.waitForClaim(other: claimant)  // its own claim never makes it wait
    }
}
