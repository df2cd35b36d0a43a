import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Logins as the CLI makes them: a public command (no user, no password command run) and
/// `doctor login`'s report of a failed done_when. The login itself (through a live IdP session,
/// the pages around it, the portal's time-out page) is tested in process, in
/// UniToolKitTests/Login/PortalFaultsServiceTests.
@Suite("Real logins, end to end: a public command, and doctor login on done_when")
struct RealLoginsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(
        _ arguments: [String], demo: DemoUniversity, stdin: String? = nil, extra: [String: String] = [:], removing: [String] = []
    ) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, demo: demo.baseURL, stdin: stdin, extra: extra, removing: removing)
    }

    func samlPosts(_ demo: DemoUniversity) async -> Int {
        await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }.count
    }

    @Test("a public command (login: false) needs no user and never logs in; a portal that asks for one is a clear error")
    func publicCommand() async throws {
        try await DemoUniversity.withRunning { demo in
            let folder = try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["headlines"])
            try sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            let outcome = try await run(
                ["--portal", "campus", "headlines", "--json"], demo: demo, extra: ["UNITOOL_PASSWORD_COMMAND": "exit 9"],
                removing: ["UNITOOL_USER", "DBUS_SESSION_BUS_ADDRESS"])
            #expect(outcome.exitCode == 0, "\(outcome)")
            #expect(outcome.stdout.contains("\"title\""))
            #expect(await samlPosts(demo) == 0)
            #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("state/unitool/sessions/campus").path))

            // The same recipe pointed at a page behind the login.
            let recipe = try String(contentsOf: folder.appendingPathComponent("headlines.yaml"), encoding: .utf8)
            try recipe.replacingOccurrences(of: "fetch: /feeds/news.rss", with: "fetch: /news")
                .write(to: folder.appendingPathComponent("headlines.yaml"), atomically: true, encoding: .utf8)
            let refused = try await run(["--portal", "campus", "headlines"], demo: demo, removing: ["UNITOOL_USER"])
            #expect(refused.exitCode == 14, "\(refused)")
            #expect(refused.stderr.contains("public command (login: false"), "\(refused)")
            #expect(await samlPosts(demo) == 0)
        }
    }

    @Test("done_when.url sees the path as requested, trailing slash included; a failed done_when is named as such")
    func doneWhenTrailingSlash() async throws {
        try await DemoUniversity.withRunning { demo in
            func portal(done: String) throws {
                try sandbox.installPortalCopy("campus", at: demo.baseURL) { text in
                    text.replacingOccurrences(of: "  start: /home\n", with: "  start: /campus/\n")
                        .replacingOccurrences(
                            of: "  done_when: { xpath: \"//a[@id='logout']\" }", with: "  done_when: { url: \"\(done)\" }")
                }
            }
            try portal(done: "^/campus/$")
            let ok = try await run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "doctor", "login"], demo: demo, stdin: "wonderland")
            #expect(ok.exitCode == 0, "\(ok)")

            try portal(done: "^/campus$")
            let failed = try await run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "doctor", "login"], demo: demo, stdin: "wonderland")
            #expect(failed.exitCode == 30, "\(failed)")
            #expect(failed.stdout.contains("fails login.done_when"), "\(failed)")
            #expect(failed.stdout.contains("does not match \"/campus/\""), "\(failed)")
        }
    }
}
