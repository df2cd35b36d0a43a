import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// The login where the process is the point, with the real executable: several processes sharing
/// one session file. The page types themselves are tested in process
/// (UniToolKitTests/Login/LoginPagesServiceTests); traces with no secret in them, errors that do
/// not quote the password and a recipe's refused consent too (UniToolKitTests/Session/TraceServiceTests).
@Suite("Login pages, sessions and where a password may go, end to end")
struct LoginPagesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity, stdin: String? = nil, extra: [String: String] = [:]) async throws
        -> UniToolProcess.Outcome
    {
        try await sandbox.run(arguments, demo: demo.baseURL, stdin: stdin, extra: extra)
    }

    @Test("an attribute release accepted for the person is said on stderr, once, at the login that accepted it")
    func consentIsTold() async throws {
        try await DemoUniversity.withRunning { demo in
            let first = try await run(
                ["--portal", "demo", "--user", "dora", "grades", "--password-stdin"], demo: demo, stdin: "explorer-2026\n")
            #expect(first.exitCode == 0, "\(first)")
            #expect(first.stderr.contains("note: Demo University: accepted the release of your details"), "\(first)")
            // The saved session needs no login, so nothing is accepted and nothing said.
            let second = try await run(["--portal", "demo", "--user", "dora", "grades"], demo: demo)
            #expect(second.exitCode == 0 && !second.stderr.contains("release of your details"), "\(second)")
        }
    }

    @Test("several unitool processes at once share one login and one session file, and never corrupt it")
    func concurrentRunsKeepTheSessionValid() async throws {
        try await DemoUniversity.withRunning { demo in
            let outcomes = try await withThrowingTaskGroup(of: UniToolProcess.Outcome.self) { group in
                for term in ["2025-fall", "2026-spring", "2026-fall", "2025-fall", "2026-spring", "2026-fall"] {
                    group.addTask { try await run(["--portal", "demo", "grades", "--term", term, "--json"], demo: demo) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for outcome in outcomes { #expect(outcome.exitCode == 0, "\(outcome)") }
            // They take turns at the login: the first logs in, the others wait and use its session.
            let logins = await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }
            #expect(logins.count == 1, "six processes, one login: \(logins.count)")
            let directory = sandbox.root.appendingPathComponent("state/unitool/sessions/demo")
            let session = try Data(contentsOf: directory.appendingPathComponent("alice.json"))
            #expect(try JSONSerialization.jsonObject(with: session) is [String: Any])
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            // The saved session works: the next run needs no login.
            let before = await demo.requests.count
            #expect(try await run(["--portal", "demo", "grades", "--term", "2026-fall"], demo: demo).exitCode == 0)
            #expect(await demo.requests.dropFirst(before).allSatisfy { !$0.isLogin })
        }
    }
}

/// One-time codes, against the real keyring of Scripts/test.sh. Serialized: the tests store and
/// remove the same user's TOTP secret.
@Suite(
    "One-time codes (TOTP) on the login, end to end",
    .enabled(if: Needs.testSandbox, "needs the keyring of Scripts/test.sh"),
    .serialized)
struct OneTimeCodeLoginTests {
    let pages = try! LoginPagesTests()

    /// Synchronous, for `defer`: it does not talk to the demo, only to the keyring.
    func removeSecret() {
        _ = try? UniToolProcess.run(
            ["auth", "totp", "remove", "--portal", "demo", "--user", "yuki"], environment: pages.sandbox.environment)
    }

    /// Makes the next run log in: the saved session goes.
    func forgetSession(_ user: String) {
        try? FileManager.default.removeItem(at: pages.sandbox.root.appendingPathComponent("state/unitool/sessions/demo/\(user).json"))
    }

    @Test("auth logout (CLI) and auth.logout (JSON-RPC) are the same logout: both remove the TOTP secret")
    func logoutRemovesTOTPBothWays() async throws {
        try await DemoUniversity.withRunning { demo in
            func lookup() throws -> String {
                try SecretTool.run(["lookup", "service", "unitool", "portal", "demo", "username", "yuki", "kind", "totp"])
            }
            for frontEnd in ["cli", "rpc"] {
                let store = try await pages.run(
                    ["auth", "totp", "set", "--portal", "demo", "--user", "yuki"], demo: demo, stdin: "JBSWY3DPEHPK3PXP")
                #expect(store.exitCode == 0, "\(store)")
                #expect(try !lookup().isEmpty)
                if frontEnd == "cli" {
                    let logout = try await pages.run(["auth", "logout", "--portal", "demo", "--user", "yuki"], demo: demo)
                    #expect(logout.exitCode == 0, "\(logout)")
                    #expect(logout.stderr.contains("the TOTP secret"), "\(logout)")
                } else {
                    var environment = pages.sandbox.environment
                    environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString
                    let client = try await RPCClientProcess.start(environment: environment)
                    defer { client.terminate() }
                    client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"auth.logout","params":{"portal":"demo","user":"yuki"}}"#)
                    let answer = await client.nextLine()
                    #expect(answer?["result"]?["totpRemoved"] == .bool(true), "\(String(describing: answer))")
                }
                #expect(try lookup().isEmpty, "\(frontEnd): the TOTP secret is still in the keyring")
            }
        }
    }

    @Test("auth login uses the stored TOTP secret")
    func authLoginWithTOTP() async throws {
        try await DemoUniversity.withRunning { demo in
            let store = try await pages.run(
                ["auth", "totp", "set", "--portal", "demo", "--user", "yuki"], demo: demo, stdin: "JBSWY3DPEHPK3PXP")
            #expect(store.exitCode == 0, "\(store)")
            defer { removeSecret() }
            let login = try await pages.run(
                ["auth", "login", "--portal", "demo", "--user", "yuki", "--password-stdin"], demo: demo, stdin: "sakura-2026")
            #expect(login.exitCode == 0, "\(login)")
            #expect(login.stderr.contains("Logged in and stored the password"), "\(login)")
            _ = try await pages.run(["auth", "logout", "--portal", "demo", "--user", "yuki"], demo: demo)
        }
    }

    @Test("UNITOOL_TOTP_COMMAND gives the code when no secret is stored; a failing command is exit 11")
    func codeFromCommand() async throws {
        try await DemoUniversity.withRunning { demo in
            removeSecret()
            let python =
                "import base64,hmac,struct,time,hashlib;k=base64.b32decode('JBSWY3DPEHPK3PXP');"
                + "h=hmac.new(k,struct.pack('>Q',int(time.time())//30),hashlib.sha1).digest();o=h[-1]&15;"
                + "print('%06d'%((struct.unpack('>I',h[o:o+4])[0]&0x7fffffff)%1000000))"
            let outcome = try await pages.run(
                ["--portal", "demo", "--user", "yuki", "--password-stdin", "grades", "--json"], demo: demo, stdin: "sakura-2026",
                extra: ["UNITOOL_TOTP_COMMAND": "python3 -c \"\(python)\""])
            #expect(outcome.exitCode == 0, "\(outcome)")
            forgetSession("yuki")
            let failing = try await pages.run(
                ["--portal", "demo", "--user", "yuki", "--password-stdin", "grades"], demo: demo, stdin: "sakura-2026",
                extra: ["UNITOOL_TOTP_COMMAND": "exit 3"])
            #expect(failing.exitCode == 11, "\(failing)")
            #expect(failing.stderr.contains("UNITOOL_TOTP_COMMAND failed"), "\(failing)")
        }
    }

    @Test("a secret that is not base32 or an otpauth URI is refused, and nothing is stored")
    func badSecret() async throws {
        try await DemoUniversity.withRunning { demo in
            let outcome = try await pages.run(
                ["auth", "totp", "set", "--portal", "demo", "--user", "yuki"], demo: demo, stdin: "not a secret!")
            #expect(outcome.exitCode == 64, "\(outcome)")
            #expect(outcome.stderr.contains("not a TOTP secret"))
            let status = try await pages.run(["auth", "status", "--portal", "demo", "--user", "yuki", "--json"], demo: demo)
            #expect(status.stdout.contains("\"totp\": \"not stored\""), "\(status)")
        }
    }
}
