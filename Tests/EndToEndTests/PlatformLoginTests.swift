import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Login platform recipes (Recipes/platforms/) through the real executable, against the demo's
/// pages with each product's structure (`login=shibboleth-v5`), via the example universities
/// in Recipes/examples that build on them.
@Suite("Login platforms, end to end")
struct PlatformLoginTests {
    let sandbox: Sandbox
    let examples = Fixtures.root.appendingPathComponent("Recipes/examples").path

    init() throws { sandbox = try Sandbox() }

    func run(_ arguments: [String], demo: DemoUniversity, stdin: String? = nil) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(["--recipes", examples, "--portal", "shib-demo"] + arguments, demo: demo.baseURL, stdin: stdin)
    }

    @Test("Shibboleth IdP v5: the local-storage page, the sign-in form, a wrong password (exit 10), a TOTP user, consent")
    func shibboleth() async throws {
        let faults = try DemoFaults(parsing: "login=shibboleth-v5")
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let grades = try await run(["grades", "--json"], demo: demo)
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(grades.stdout.contains("MATH-301"))

            let wrong = try await run(["grades", "--user", "bence", "--password-stdin"], demo: demo, stdin: "not-it")
            #expect(wrong.exitCode == 10, "\(wrong)")
            #expect(wrong.stderr.contains("incorrect"), "the IdP's own words: \(wrong)")

            // Attribute release: the platform accepts it for this login only.
            let consent = try await run(["grades", "--user", "dora", "--password-stdin", "--json"], demo: demo, stdin: "explorer-2026")
            #expect(consent.exitCode == 0 && consent.stdout.contains("CS-100"), "\(consent)")

            let secret = try await run(
                ["auth", "totp", "set", "--user", "yuki"], demo: demo, stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP")
            #expect(secret.exitCode == 0, "\(secret)")
            let yuki = try await run(["grades", "--user", "yuki", "--password-stdin", "--json"], demo: demo, stdin: "sakura-2026")
            #expect(yuki.exitCode == 0, "\(yuki)")
            #expect(await demo.codesAccepted == 1)
        }
    }

    @Test(
        "Keycloak (kc-form-login, the OTP form) and Apereo CAS (fm1, a service ticket back to the portal, the token page): sign-in, a wrong password in the product's words (exit 10), a TOTP user",
        arguments: [("keycloak", "kc-demo", "incorrect"), ("cas", "uni-cas-moodle", "Invalid credentials")])
    func signIn(login: String, portal: String, wrongWords: String) async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=\(login)")) { demo in
            func run(_ arguments: [String], stdin: String? = nil) async throws -> UniToolProcess.Outcome {
                try await sandbox.run(["--recipes", examples, "--portal", portal] + arguments, demo: demo.baseURL, stdin: stdin)
            }
            let grades = try await run(["grades", "--json"])
            #expect(grades.exitCode == 0 && grades.stdout.contains("MATH-301"), "\(grades)")
            let wrong = try await run(["grades", "--user", "bence", "--password-stdin"], stdin: "not-it")
            #expect(wrong.exitCode == 10 && wrong.stderr.contains(wrongWords), "\(wrong)")
            let secret = try await run(
                ["auth", "totp", "set", "--user", "yuki"], stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP")
            #expect(secret.exitCode == 0, "\(secret)")
            let yuki = try await run(["grades", "--user", "yuki", "--password-stdin", "--json"], stdin: "sakura-2026")
            #expect(yuki.exitCode == 0, "\(yuki)")
            #expect(await demo.codesAccepted == 1)
        }
    }

    @Test(
        "a locked account is exit 13 in each product's own words",
        arguments: [
            ("shibboleth-v5", "shib-demo", "locked"), ("keycloak", "kc-demo", "disabled"), ("cas", "uni-cas-moodle", "locked"),
        ])
    func lockedAccount(login: String, portal: String, words: String) async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=\(login)")) { demo in
            let outcome = try await sandbox.run(
                ["--recipes", examples, "--portal", portal, "grades", "--user", "laszlo", "--password-stdin"], demo: demo.baseURL,
                stdin: "locked-out-2026")
            #expect(outcome.exitCode == 13, "\(outcome)")
            #expect(outcome.stderr.contains(words), "\(outcome)")
        }
    }

    @Test("recipes list says what a portal took from its platform")
    func listed() async throws {
        let list = try await sandbox.run(["--recipes", examples, "recipes", "list", "--json"])
        #expect(list.exitCode == 0, "\(list)")
        #expect(list.stdout.contains("\"builds_on\": \"shibboleth-idp: 10 rules from it, 0 of its own\""), "\(list)")
    }
}
