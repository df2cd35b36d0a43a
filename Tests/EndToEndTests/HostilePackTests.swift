import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Recipe packs through the executable: `recipes lint`, `list`, `trust` and `untrust`, and the
/// password and code commands a pack's portal must not get. The ways out of a portal (fetch, read,
/// next, resolve, an action, a service, a redirect, the terms check) and the catalog's refusal of
/// an untrusted command are tested in process (UniToolKitTests/Recipes/PackTrustServiceTests).
@Suite("Security round three: a recipe pack reaches only its portal's origins")
struct HostilePackTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(_ arguments: [String], demo: DemoUniversity? = nil, stdin: String? = nil) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, demo: demo?.baseURL, stdin: stdin)
    }

    /// The demo's grades recipe with `edit` applied: the command a pack would slip in.
    func grades(_ edit: (String) -> String) throws -> String {
        edit(try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/grades.yaml"), encoding: .utf8))
    }

    @Test("lint and list say what an untrusted pack would redefine; trust given through a link is withdrawn by the real path")
    func lintListAndTrust() async throws {
        try await DemoUniversity.withRunning { demo in
            let pack = try sandbox.writePack([
                "demo/grades.yaml": try grades { $0 },
                "demo/loan-status.yaml": try grades { $0.replacingOccurrences(of: "command: grades", with: "command: loan-status") },
            ])
            let lint = try await run(["recipes", "lint", pack.path])
            #expect(lint.exitCode == 23, "lint reports what the pack would redefine: \(lint)")
            #expect(lint.stderr.contains("replaces 'grades' of portal 'demo'") && lint.stderr.contains("adds 'loan-status'"), "\(lint)")
            let lintAll = try await run(["--recipes", pack.path, "recipes", "lint"])
            #expect(lintAll.exitCode == 23, "\(lintAll)")

            let list = try await run(["--recipes", pack.path, "recipes", "list", "--json"])
            #expect(list.exitCode == 0, "\(list)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let row = try #require(rows.first { $0["command"] as? String == "loan-status" })
            #expect(row["from"] as? String == "pack, refused", "\(row)")
            let ownGrades = try #require(rows.first { $0["command"] as? String == "courses" })
            #expect(ownGrades["from"] as? String == "bundled", "\(ownGrades)")

            // Trusted through a symbolic link, withdrawn by the real path.
            let link = sandbox.root.appendingPathComponent("link-to-pack")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: pack)
            let trust = try await run(["recipes", "trust", link.path])
            #expect(trust.exitCode == 0 && trust.stderr.contains("as the command 'grades' of 'demo'"), "\(trust)")
            let trusted = try await run(["--recipes", pack.path, "--portal", "demo", "grades", "--json"], demo: demo)
            #expect(trusted.exitCode == 0, "\(trusted)")
            let listed = try await run(["--recipes", pack.path, "recipes", "list", "--json"])
            #expect(listed.stdout.contains("\"trusted pack\""), "\(listed)")
            let untrust = try await run(["recipes", "untrust", pack.path])
            #expect(untrust.exitCode == 0 && untrust.stderr.contains("Withdrew trust from 2 files"), "\(untrust)")
            let again = try await run(["--recipes", link.path, "--portal", "demo", "grades"], demo: demo)
            #expect(again.exitCode == 23, "untrusting the real path withdrew the trust given through the link: \(again)")
        }
    }

    @Test("no password or code command runs for a portal defined by a pack the user has not trusted")
    func passwordCommandForUntrustedPortal() async throws {
        try await DemoUniversity.withRunning { demo in
            let marker = sandbox.root.appendingPathComponent("command-ran")
            let folder = try sandbox.installPortalCopy("mine", at: demo.baseURL)
            let pack = sandbox.root.appendingPathComponent("pack-own-portal")
            try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: folder, to: pack.appendingPathComponent("mine"))
            try sandbox.acceptTerms(portal: "mine", version: DemoUniversity.initialTermsVersion)
            let command = "touch '\(marker.path)'; echo 123456"
            let password = try await sandbox.run(
                ["--recipes", pack.path, "--portal", "mine", "--user", "alice", "grades"], demo: demo.baseURL,
                extra: ["UNITOOL_PASSWORD_COMMAND": command])
            #expect(password.exitCode == 40, "\(password)")
            #expect(password.stderr.contains("UNITOOL_PASSWORD_COMMAND is not run for 'mine'"), "\(password)")
            #expect(password.stderr.contains("unitool recipes trust \(pack.resolvingSymlinksInPath().path)"), "\(password)")
            // yuki's password typed in, as the user may; the one-time code from the command is not.
            let code = try await sandbox.run(
                ["--recipes", pack.path, "--portal", "mine", "--user", "yuki", "--password-stdin", "grades"], demo: demo.baseURL,
                stdin: "sakura-2026", extra: ["UNITOOL_TOTP_COMMAND": command])
            #expect(code.exitCode == 40, "\(code)")
            #expect(code.stderr.contains("UNITOOL_TOTP_COMMAND is not run for 'mine'"), "\(code)")
            #expect(!FileManager.default.fileExists(atPath: marker.path), "neither command ran")
            let (accepted, passwords) = (await demo.codesAccepted, await demo.passwordsReceived)
            #expect(accepted == 0 && passwords == 1, "only the typed password reached the IdP")

            let trust = try await run(["recipes", "trust", pack.path])
            #expect(trust.exitCode == 0 && trust.stderr.contains("a portal of the pack's own"), "\(trust)")
            let trusted = try await sandbox.run(
                ["--recipes", pack.path, "--portal", "mine", "--user", "alice", "grades", "--json"], demo: demo.baseURL,
                extra: ["UNITOOL_PASSWORD_COMMAND": "touch '\(marker.path)'; echo wonderland"])
            #expect(trusted.exitCode == 0, "\(trusted)")
            #expect(FileManager.default.fileExists(atPath: marker.path), "trusted, the command runs")
        }
    }

    @Test(
        "a trusted pack that moves a portal gets no one-time code: not from the stored TOTP secret, not from the command",
        .enabled(if: Needs.testSandbox, "stores a TOTP secret in the keyring of Scripts/test.sh"))
    func movedPortalGetsNoCodes() async throws {
        try await DemoUniversity.withRunning { demo in
            // A portal of the user's own (not the shared demo id: the keyring is shared by the suites).
            let folder = try sandbox.installPortalCopy("moving", at: demo.baseURL)
            try sandbox.acceptTerms(portal: "moving", version: DemoUniversity.initialTermsVersion)
            let stored = try await run(
                ["auth", "totp", "set", "--portal", "moving", "--user", "yuki"], demo: demo,
                stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP")
            #expect(stored.exitCode == 0, "\(stored)")
            defer { Task { _ = try? await run(["auth", "logout", "--portal", "moving", "--user", "yuki"]) } }
            #expect(
                try SecretTool.run(["search", "service", "unitool", "portal", "moving", "username", "yuki", "kind", "totp"]).contains(
                    "origins = \(demo.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))"))

            let original = try String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)
            let moved = original.replacingOccurrences(
                of: "credentials_may_go_to: [idp]", with: "credentials_may_go_to: [idp, \"https://collector.example\"]")
            #expect(moved != original)
            let pack = try sandbox.writePack(["moving/portal.yaml": moved])
            let trust = try await run(["recipes", "trust", pack.path])
            #expect(trust.exitCode == 0, "\(trust)")

            let marker = sandbox.root.appendingPathComponent("code-command-ran")
            for extra in [[:], ["UNITOOL_TOTP_COMMAND": "touch '\(marker.path)'; echo 123456"]] {
                let outcome = try await sandbox.run(
                    ["--recipes", pack.path, "--portal", "moving", "--user", "yuki", "--password-stdin", "grades"], demo: demo.baseURL,
                    stdin: "sakura-2026", extra: extra)
                #expect(outcome.exitCode == 40, "\(outcome)")
                #expect(outcome.stderr.contains("https://collector.example"), "the message names where codes would go: \(outcome)")
            }
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the code command never ran")
            let (accepted, reused) = (await demo.codesAccepted, await demo.reusedCodes)
            #expect(accepted == 0 && reused == 0, "the moved portal received no one-time code")

            // Without the pack the stored secret serves the portal it was stored for.
            let own = try await sandbox.run(
                ["--portal", "moving", "--user", "yuki", "--password-stdin", "grades", "--json"], demo: demo.baseURL, stdin: "sakura-2026")
            #expect(own.exitCode == 0, "\(own)")
            let acceptedAfter = await demo.codesAccepted
            #expect(acceptedAfter == 1)
        }
    }
}
