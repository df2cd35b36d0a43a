import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The password check that `auth login` and `auth.login` make, in process: `provePassword` on a
/// connection that started empty, through the service's session (which saves the session as the
/// portal left it). What only the binary shows (the keyring, exit codes as such, what `auth`
/// prints) stays in EndToEndTests/AuthCommandTests.
@Suite("The password check: a fresh login that must ask for the password, and never costs the saved session")
struct PasswordCheckServiceTests {
    /// What `auth login` asks of the service: a login from the start page, in an empty jar, that
    /// proves `password` for `user`.
    func provePassword(_ bench: DemoServiceBench, on demo: DemoUniversity, user: String, password: String) async throws {
        try await bench.withService(on: demo, user: user, password: password, startEmpty: true) { service, _ in
            try await service.session(interaction: Unattended()) { try await $0.provePassword() }
        }
    }

    /// Whether `user`'s saved session still opens the portal, as `auth status` asks: with a
    /// password source that fails, since that check never logs in.
    func savedSessionIsValid(_ bench: DemoServiceBench, on demo: DemoUniversity, user: String) async throws -> Bool {
        let noPassword: @Sendable () throws -> Secret = {
            throw UniToolError(.credentialsMissing, "the session check asked for a password")
        }
        return try await bench.withService(on: demo, user: user, passwordSource: noPassword) { _, connection in
            try await connection.isSessionValid()
        }
    }

    // MARK: From EndToEndTests/AuthCommandTests.wrongPasswordOverValidSession

    @Test(
        "a wrong password over a valid saved session (and a live IdP session) is wrong_credentials, and the saved session is kept as it was"
    )
    func wrongPasswordOverValidSession() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=idp-session")) { demo in
            // bence logs in once: his session (with the IdP's own cookie) is saved.
            _ = try await bench.run("grades", on: demo, user: "bence")
            let saved = bench.sessions.load(portal: "demo", user: "bence")
            try #require(!saved.cookies.isEmpty, "no session was saved")
            let passwordsBefore = await demo.passwordsReceived

            let error = await #expect(throws: UniToolError.self) {
                try await provePassword(bench, on: demo, user: "bence", password: "Wrong-2026")
            }
            #expect(error?.kind == .wrongCredentials, "\(String(describing: error))")
            #expect(error?.kind.exitCode == 10)
            let passwordsAfter = await demo.passwordsReceived
            #expect(passwordsAfter == passwordsBefore + 1, "the IdP's session did not let the wrong password pass unchecked")
            let kept = bench.sessions.load(portal: "demo", user: "bence")
            #expect(kept == saved, "the saved session was replaced")
            let valid = try await savedSessionIsValid(bench, on: demo, user: "bence")
            #expect(valid, "the saved session no longer opens the portal")

            // The right password is proved by the same fresh login.
            try await provePassword(bench, on: demo, user: "bence", password: "Kaland-2026")
            let passwordsRight = await demo.passwordsReceived
            #expect(passwordsRight == passwordsAfter + 1, "the right password was not asked for")
            let validAfter = try await savedSessionIsValid(bench, on: demo, user: "bence")
            #expect(validAfter)
        }
    }
}
