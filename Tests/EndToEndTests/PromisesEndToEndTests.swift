import DemoUniversity
import Foundation
import Synchronization
import Testing
import UniToolTestSupport

/// Promises of SECURITY.md that no test held before (issue 33, "promised but untested"), held
/// here with the real executable: each test fails when its promise is broken. The promise of no
/// password over plain HTTP is held through the service (UniToolKitTests/Service/
/// RecipeSourcesServiceTests, OwnPortalServiceTests); here, the one that needs several processes.
@Suite("Promises that hold, end to end: one code per step across processes", .timeLimit(.minutes(3)))
struct PromisesEndToEndTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Runs `count` unitool processes with the same arguments at the same moment, each waited for
    /// on a thread of its own (not through `UniToolProcess.slots`, which would let only some run
    /// at once on a small machine).
    func runAtOnce(_ count: Int, _ arguments: [String], stdin: String) async -> [UniToolProcess.Outcome?] {
        let environment = sandbox.environment
        return await withCheckedContinuation { continuation in
            let outcomes = Outcomes()
            let group = DispatchGroup()
            for _ in 0..<count {
                group.enter()
                Thread.detachNewThread {
                    let outcome = try? UniToolProcess.run(arguments, stdin: stdin, environment: environment, timeout: 120)
                    outcomes.list.withLock { $0.append(outcome) }
                    group.leave()
                }
            }
            Thread.detachNewThread {
                group.wait()
                continuation.resume(returning: outcomes.list.withLock { $0 })
            }
        }
    }

    @Test(
        "four unitool processes logging in at once with one stored TOTP secret all get in, and the IdP never sees a code twice",
        .enabled(if: Needs.testSandbox, "needs the keyring of Scripts/test.sh"))
    func oneCodePerStepAcrossProcesses() async throws {
        // Codes of 5 s: four logins in one step must take four steps, one after another. (With
        // 2 s steps a code waited for under a loaded CI could reach the IdP two steps late and be
        // refused as stale, which is the clock's doing, not a code sent twice.)
        let demo = try await DemoUniversity.start(faults: try DemoFaults(parsing: "totp-period=5"))
        let portal = "otp-race"
        let result = await Result {
            try sandbox.installPortalCopy(portal, at: demo.baseURL)
            let store = try await sandbox.run(
                ["auth", "totp", "set", "--portal", portal, "--user", "yuki"],
                stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP&period=5")
            #expect(store.exitCode == 0, "\(store)")
            // `auth login` checks the password by a fresh login of its own, outside the session's
            // login lock: only the ledger's lock keeps two processes from choosing the same step.
            let outcomes = await runAtOnce(
                4, ["auth", "login", "--portal", portal, "--user", "yuki", "--password-stdin", "--session-only"], stdin: "sakura-2026")
            for outcome in outcomes { #expect(outcome?.exitCode == 0, "\(String(describing: outcome))") }
            #expect(await demo.reusedCodes == 0, "the IdP was sent a code it had accepted already")
            #expect(await demo.codesAccepted == 4, "each login sent one code, for a step of its own")
        }
        _ = try? await sandbox.run(["auth", "totp", "remove", "--portal", portal, "--user", "yuki"])
        await demo.stop()
        sandbox.remove()
        try result.get()
    }
}

/// What the processes of `runAtOnce` came to, gathered from their threads.
private final class Outcomes: Sendable {
    let list = Mutex<[UniToolProcess.Outcome?]>([])
}
