import Foundation
import Testing

@testable import UniToolKit

/// The login rendezvous as a pure value (`LoginRendezvous`): every decision of the requests of
/// one connection at the login, without a socket, a task or a clock.
@Suite("LoginRendezvous: who goes on to the login service, who waits, who signs in")
struct LoginRendezvousTests {
    final class Request {}
    let first = Request(), second = Request(), third = Request()
    func id(_ request: Request) -> ObjectIdentifier { ObjectIdentifier(request) }

    @Test("the first request to the login service takes the claim and goes on; the others stop at their redirect")
    func firstClaims() {
        var rendezvous = LoginRendezvous()
        #expect(rendezvous.redirectToLogin(by: id(first), mayClaim: true) == false)
        #expect(rendezvous.claimant == id(first))
        #expect(rendezvous.redirectToLogin(by: id(second), mayClaim: true) == true)
        #expect(rendezvous.redirectToLogin(by: id(first), mayClaim: true) == false, "the claimant's next redirect goes on too")
    }

    @Test("a request that may not claim (a page beside the terms check) always stops, and takes no claim")
    func mayNotClaim() {
        var rendezvous = LoginRendezvous()
        #expect(rendezvous.redirectToLogin(by: id(first), mayClaim: false) == true)
        #expect(rendezvous.claimant == nil)
        #expect(rendezvous.redirectToLogin(by: id(second), mayClaim: true) == false)
    }

    @Test("each claim taken is counted, a sign-on by redirects alone too, though it finishes no login; a redirect that stops takes none")
    func claimsAreCounted() {
        var rendezvous = LoginRendezvous()
        #expect(rendezvous.claimsGranted == 0)
        _ = rendezvous.redirectToLogin(by: id(first), mayClaim: false)
        _ = rendezvous.redirectToLogin(by: id(second), mayClaim: true)
        _ = rendezvous.redirectToLogin(by: id(second), mayClaim: true)
        _ = rendezvous.redirectToLogin(by: id(third), mayClaim: true)
        #expect(rendezvous.claimsGranted == 1, "the claimant's second redirect and a stopped one take no claim")
        _ = rendezvous.release(by: id(second))
        #expect(rendezvous.finishedLogins == 0)
        _ = rendezvous.redirectToLogin(by: id(third), mayClaim: true)
        #expect(rendezvous.claimsGranted == 2)
    }

    @Test("stopped requests wait for the claimant and are all woken, in order, when it gives the claim back")
    func releaseWakesWaiters() {
        var rendezvous = LoginRendezvous()
        _ = rendezvous.redirectToLogin(by: id(first), mayClaim: true)
        #expect(rendezvous.waitForClaim(by: id(second)) == .waitForRelease)
        #expect(rendezvous.waitForClaim(by: id(third)) == .waitForRelease)
        #expect(rendezvous.release(by: id(second)) == [], "only the claimant can give the claim back")
        #expect(rendezvous.release(by: id(first)) == [id(second), id(third)])
        #expect(rendezvous.claimant == nil && rendezvous.waiting.isEmpty)
        #expect(rendezvous.release(by: id(first)) == [], "a second release wakes nobody")
    }

    @Test("with no other claimant a stopped request asks again at once, and so does the claimant itself")
    func askAgainWhenFree() {
        var rendezvous = LoginRendezvous()
        #expect(rendezvous.waitForClaim(by: id(first)) == .askAgain)
        _ = rendezvous.redirectToLogin(by: id(first), mayClaim: true)
        #expect(rendezvous.waitForClaim(by: id(first)) == .askAgain)
        #expect(rendezvous.waiting.isEmpty)
    }

    @Test("one login at a time: the first starts it, others join it, and a later one after a success is skipped")
    func oneLogin() {
        var rendezvous = LoginRendezvous()
        #expect(rendezvous.loginNeeded(seen: 0) == .start)
        #expect(rendezvous.loginNeeded(seen: 0) == .join)
        rendezvous.loginEnded(succeeded: true)
        #expect(rendezvous.finishedLogins == 1 && !rendezvous.loginRunning)
        #expect(rendezvous.loginNeeded(seen: 0) == .alreadyDone, "a request that saw none: its bounce may be answered now")
        #expect(rendezvous.loginNeeded(seen: 1) == .start, "a request that saw that login meets the login again: a new one")
    }

    @Test("a failed login counts for nothing: the next request that meets the login starts another")
    func failedLogin() {
        var rendezvous = LoginRendezvous()
        #expect(rendezvous.loginNeeded(seen: 0) == .start)
        rendezvous.loginEnded(succeeded: false)
        #expect(rendezvous.finishedLogins == 0)
        #expect(rendezvous.loginNeeded(seen: 0) == .start)
    }
}
