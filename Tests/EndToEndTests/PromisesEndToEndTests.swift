import DemoUniversity
import Foundation
import Synchronization
import Testing
import UniToolTestSupport

/// Promises of SECURITY.md that no test held before (issue 33, "promised but untested"), held
/// here with the real executable: each test fails when its promise is broken.
@Suite("Promises that hold, end to end: no password over plain HTTP, one code per step across processes", .timeLimit(.minutes(3)))
struct PromisesEndToEndTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// A portal of the user's own named `id` at `base`, whose password may go to `credentials`
    /// (an origin the recipe allows: only the scheme, or the host's kind, is wrong).
    func installPortal(_ id: String, base: URL, credentials: String) throws {
        let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/\(id)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        portal: \(id)
        name: Plain HTTP University
        base_url: \(base.absoluteString)
        credentials_may_go_to: ["\(credentials)"]
        login:
          start: /home
          pages:
            - name: sign in
              when: "//form[@id='login']"
              fill: { j_username: "{{username}}", j_password: "{{password}}" }
          done_when: { xpath: "//a[@id='logout']" }
        """.write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
    }

    /// A sign-in page whose form posts to `action`; the answer to a POST is the signed-in page.
    static func signInServer(host: String = "127.0.0.1", action: String) throws -> RecordingHTTPServer {
        try RecordingHTTPServer(host: host) { request in
            if request.method == "POST" { return .status(200, body: "<p>Welcome <a id='logout' href='/logout'>Sign out</a></p>") }
            return .status(
                200,
                body: """
                    <html><head><title>Sign in</title></head><body>
                    <form id="login" method="post" action="\(action)">
                    <input name="j_username"><input type="password" name="j_password">
                    <button type="submit" name="_eventId_proceed">Sign in</button></form></body></html>
                    """)
        }
    }

    /// Checks that unitool refused to post the password without HTTPS and that nothing but the
    /// sign-in page reached the server.
    func expectRefusal(_ outcome: UniToolProcess.Outcome, server: RecordingHTTPServer, password: String) {
        #expect(outcome.exitCode == 23, "\(outcome)")
        #expect(outcome.stderr.contains("without HTTPS"), "\(outcome)")
        #expect(!outcome.stderr.contains(password) && !outcome.stdout.contains(password))
        let seen = server.requests.map { "\($0.method) \($0.path)" }
        #expect(seen.contains("GET /home"), "unitool reached the sign-in page: \(seen)")
        #expect(!seen.contains { $0.hasPrefix("POST") }, "a form was posted: \(seen)")
        #expect(!server.requests.contains { $0.body.contains(password) }, "the password reached the server")
    }

    @Test(
        "a password is never posted over plain HTTP to a host that is not this machine: exit 23, and the server sees no POST",
        .enabled(if: RecordingHTTPServer.nonLoopbackIPv4Address() != nil, "needs an IPv4 address that is not loopback"))
    func noPasswordOverPlainHTTP() async throws {
        let address = try #require(RecordingHTTPServer.nonLoopbackIPv4Address())
        let server = try Self.signInServer(host: address, action: "/login")
        defer { server.stop() }
        try installPortal("plain-lan", base: server.baseURL, credentials: server.baseURL.absoluteString)
        let password = "lan-password-2026"
        let outcome = try await sandbox.run(
            ["auth", "login", "--portal", "plain-lan", "--user", "alice", "--password-stdin", "--session-only"], stdin: password)
        expectRefusal(outcome, server: server, password: password)
    }

    @Test("a host named 127.evil.example is not this machine: the password is refused before any lookup of the name")
    func lookalikeLoopbackName() async throws {
        // The portal is on loopback; its form posts to a name that merely starts with "127.".
        // Were it looked up, the name would not resolve and the run would end "cannot reach".
        let server = try Self.signInServer(action: "http://127.evil.example:8443/login")
        defer { server.stop() }
        try installPortal("lookalike", base: server.baseURL, credentials: "http://127.evil.example:8443")
        let password = "lookalike-password-2026"
        let outcome = try await sandbox.run(
            ["auth", "login", "--portal", "lookalike", "--user", "alice", "--password-stdin", "--session-only"], stdin: password)
        expectRefusal(outcome, server: server, password: password)
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
        .enabled(if: ProcessInfo.processInfo.environment["UNITOOL_TEST_SANDBOX"] != nil, "needs the keyring of Scripts/test.sh"))
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
