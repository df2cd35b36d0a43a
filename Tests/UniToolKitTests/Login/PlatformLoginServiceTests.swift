import DemoUniversity
import Foundation
import OneTimeCode
import Testing
import UniToolKit
import UniToolTestSupport

/// Login platform recipes (Recipes/platforms/) through the service, in process, against the
/// demo's pages with each product's structure (`login=shibboleth-v5`), via the example
/// universities in Recipes/examples that build on them. What only the binary shows (`recipes
/// list`) stays in EndToEndTests/PlatformLoginTests.
@Suite("Login platforms, through the service")
struct PlatformLoginServiceTests {
    /// What yuki types at the one-time code page: her TOTP code of now.
    func yukiTyping() throws -> ScriptedInteraction {
        let secret = try #require(DemoData.users.first { $0.username == "yuki" }?.totpSecret)
        return ScriptedInteraction(codes: [try TOTP(parsing: secret).code(at: Date())])
    }

    func codes(_ set: RecordSet) -> [String] { set.records.compactMap { $0["code"]?.text } }

    @Test(
        "Shibboleth IdP v5: the local-storage page, the sign-in form, a wrong password (wrong_credentials), a TOTP user, consent"
    )
    func shibboleth() async throws {
        let bench = try DemoServiceBench(recipes: [DemoServiceBench.examples])
        defer { bench.remove() }
        let faults = try DemoFaults(parsing: "login=shibboleth-v5")
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let grades = try await bench.run("grades", of: "shib-demo", on: demo)
            #expect(codes(grades).contains("MATH-301"), "\(grades)")

            let wrong = await #expect(throws: UniToolError.self) {
                try await bench.run("grades", of: "shib-demo", on: demo, user: "bence", password: "not-it")
            }
            #expect(wrong?.kind == .wrongCredentials, "\(String(describing: wrong))")
            #expect(wrong?.message.contains("incorrect") == true, "the IdP's own words: \(String(describing: wrong))")

            // Attribute release: the platform accepts it for this login only.
            let consent = try await bench.run("grades", of: "shib-demo", on: demo, user: "dora", password: "explorer-2026")
            #expect(codes(consent).contains("CS-100"), "\(consent)")

            let person = try yukiTyping()
            let yuki = try await bench.run(
                "grades", of: "shib-demo", on: demo, user: "yuki", password: "sakura-2026", interaction: person)
            #expect(!yuki.records.isEmpty, "\(person.events)")
            let accepted = await demo.codesAccepted
            #expect(accepted == 1)
        }
    }

    @Test(
        "Keycloak (kc-form-login, the OTP form) and Apereo CAS (fm1, a service ticket back to the portal, the token page): sign-in, a wrong password in the product's words (wrong_credentials), a TOTP user",
        arguments: [("keycloak", "kc-demo", "incorrect"), ("cas", "uni-cas-moodle", "Invalid credentials")])
    func signIn(login: String, portal: String, wrongWords: String) async throws {
        let bench = try DemoServiceBench(recipes: [DemoServiceBench.examples])
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=\(login)")) { demo in
            let grades = try await bench.run("grades", of: portal, on: demo)
            #expect(codes(grades).contains("MATH-301"), "\(grades)")

            let wrong = await #expect(throws: UniToolError.self) {
                try await bench.run("grades", of: portal, on: demo, user: "bence", password: "not-it")
            }
            #expect(wrong?.kind == .wrongCredentials, "\(String(describing: wrong))")
            #expect(wrong?.message.contains(wrongWords) == true, "\(String(describing: wrong))")

            let person = try yukiTyping()
            let yuki = try await bench.run("grades", of: portal, on: demo, user: "yuki", password: "sakura-2026", interaction: person)
            #expect(!yuki.records.isEmpty, "\(person.events)")
            let accepted = await demo.codesAccepted
            #expect(accepted == 1)
        }
    }

    @Test(
        "a locked account is account_locked in each product's own words",
        arguments: [
            ("shibboleth-v5", "shib-demo", "locked"), ("keycloak", "kc-demo", "disabled"), ("cas", "uni-cas-moodle", "locked"),
        ])
    func lockedAccount(login: String, portal: String, words: String) async throws {
        let bench = try DemoServiceBench(recipes: [DemoServiceBench.examples])
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=\(login)")) { demo in
            let error = await #expect(throws: UniToolError.self) {
                try await bench.run("grades", of: portal, on: demo, user: "laszlo", password: "locked-out-2026")
            }
            #expect(error?.kind == .accountLocked, "\(String(describing: error))")
            #expect(error?.message.contains(words) == true, "\(String(describing: error))")
        }
    }
}
