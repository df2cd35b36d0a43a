import DemoUniversity
import Foundation
import OneTimeCode
import Testing
import UniToolKit
import UniToolTestSupport

/// One-time codes on the login, in process: the service, a scripted person and the demo's
/// one-time-code page, through a copy of the demo portal under an id of the test's own. The
/// keyring items are per portal and user, and the end-to-end suite stores and removes yuki's
/// secret on "demo" meanwhile; under this id no other test reads or writes the item.
enum OneTimeCodeBench {
    static let user = "yuki"
    static let secret = "JBSWY3DPEHPK3PXP"

    /// Runs `body` with a bench whose catalog has the demo portal copied as `id`, pointed at
    /// `demo`, its terms accepted, and the copy's recipes folder removed afterwards.
    static func with<T: Sendable>(
        _ id: String, on demo: DemoUniversity, _ body: (DemoServiceBench) async throws -> T
    ) async throws -> T {
        let recipes = try Sandbox()
        defer { recipes.remove() }
        try recipes.installPortalCopy(id, at: demo.baseURL, commands: ["grades"])
        let bench = try DemoServiceBench(recipes: [recipes.root.appendingPathComponent("config/unitool/recipes")])
        defer { bench.remove() }
        try bench.sandbox.acceptTerms(portal: id, version: DemoUniversity.initialTermsVersion)
        return try await body(bench)
    }

    /// Runs `grades` of the copy `id` once for yuki, asking `person`.
    static func grades(
        _ bench: DemoServiceBench, _ id: String, on demo: DemoUniversity, _ options: [String: String] = [:],
        person: any Interaction = Unattended()
    ) async throws -> RecordSet {
        let recipe = try bench.recipe("grades", portal: id)
        let request = try bench.request("grades", options, portal: id)
        return try await bench.withService(on: demo, user: user, portal: id) { service, _ in
            try await service.execute(request, of: recipe, interaction: person).records
        }
    }

    static func courses(_ set: RecordSet) -> [String] { set.records.compactMap { $0["course"]?.text } }

    /// Whether the person was asked to type a code.
    static func askedForCode(_ person: ScriptedInteraction) -> Bool {
        person.events.contains { event in
            guard case .oneTimeCode = event else { return false }
            return true
        }
    }

    /// Whether the person was told the service waits for the next code.
    static func waitedForNextCode(_ person: ScriptedInteraction) -> Bool {
        person.events.contains { event in
            guard case .wait(let message) = event else { return false }
            return message.contains("already used; waiting")
        }
    }
}

@Suite("One-time codes on the login, in process")
struct OneTimeCodeServiceTests {
    @Test("a wrong one-time code is its own error, wrong_code, with the portal's own words")
    func wrongCode() async throws {
        try await DemoUniversity.withRunning { demo in
            try await OneTimeCodeBench.with("otp-wrong", on: demo) { bench in
                // A code of another secret: the demo's is not this one.
                let wrong = try TOTP(parsing: "GEZDGNBVGY3TQOJQ").code(at: Date())
                let person = ScriptedInteraction(codes: [wrong])
                let error = await #expect(throws: UniToolError.self) {
                    _ = try await OneTimeCodeBench.grades(bench, "otp-wrong", on: demo, person: person)
                }
                #expect(error?.kind == .wrongCode, "\(String(describing: error))")
                let text = error?.message ?? ""
                #expect(text.contains("rejected the one-time code"), "\(text)")
                #expect(text.contains("That code is not valid"), "\(text)")
                #expect(OneTimeCodeBench.askedForCode(person), "\(person.events)")
            }
        }
    }
}

/// The TOTP secret in the keyring, stored through `Account` as `auth totp set` stores it, and
/// always removed afterwards.
@Suite(
    "One-time codes from the keyring, in process",
    .enabled(if: Needs.testSandbox, "needs the keyring of Scripts/test.sh"),
    .serialized)
struct OneTimeCodeKeyringServiceTests {
    @Test("a one-time-code page is answered from the TOTP secret in the keyring; the code is never logged")
    func fromKeyring() async throws {
        try await DemoUniversity.withRunning { demo in
            try await OneTimeCodeBench.with("otp-keyring", on: demo) { bench in
                let account = try bench.account(OneTimeCodeBench.user, portal: "otp-keyring")
                try account.storeOneTimeCodeSecret(
                    TOTP(parsing: "otpauth://totp/Demo%20University:yuki?secret=\(OneTimeCodeBench.secret)&issuer=Demo"))
                defer { _ = try? account.removeOneTimeCodeSecret() }
                #expect(account.oneTimeCodeSecret == .stored)

                let person = ScriptedInteraction()
                let grades = try await OneTimeCodeBench.grades(bench, "otp-keyring", on: demo, person: person)
                let courses = OneTimeCodeBench.courses(grades)
                #expect(courses.contains("情報理論 (Information Theory)"), "\(courses)")
                // Nobody was asked: the code came from the keyring.
                #expect(!OneTimeCodeBench.askedForCode(person), "\(person.events)")
                // The log names each login page it acts on.
                #expect(bench.log.loginPages.contains("one-time code"), "\(bench.log.loginPages)")
                let totp = try TOTP(parsing: OneTimeCodeBench.secret)
                let now = Date()
                let log = bench.log.messages.joined(separator: "\n")
                for offset in [-30.0, 0, 30] {
                    #expect(!log.contains(totp.code(at: now.addingTimeInterval(offset))), "a one-time code was logged")
                }
            }
        }
    }

    @Test("five logins in a row for a TOTP user all succeed, and no code is sent twice (the service waits for the next one)")
    func codesNeverReused() async throws {
        // Codes of 2 s, so that waiting for the next one takes a moment, not half a minute.
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "totp-period=2")) { demo in
            try await OneTimeCodeBench.with("otp-reuse", on: demo) { bench in
                let account = try bench.account(OneTimeCodeBench.user, portal: "otp-reuse")
                try account.storeOneTimeCodeSecret(
                    TOTP(parsing: "otpauth://totp/Demo:yuki?secret=\(OneTimeCodeBench.secret)&period=2"))
                defer { _ = try? account.removeOneTimeCodeSecret() }
                var waited = 0
                var seconds: [Double] = []
                for run in 1...5 {
                    // Each run logs in: the saved session goes.
                    try bench.sessions.remove(portal: "otp-reuse", user: OneTimeCodeBench.user)
                    let person = ScriptedInteraction()
                    let started = Date()
                    let grades = try await OneTimeCodeBench.grades(bench, "otp-reuse", on: demo, ["term": "2026-fall"], person: person)
                    seconds.append(Date().timeIntervalSince(started))
                    #expect(!grades.records.isEmpty, "run \(run)")
                    if OneTimeCodeBench.waitedForNextCode(person) { waited += 1 }
                }
                let reused = await demo.reusedCodes
                #expect(reused == 0, "a code was sent twice")
                let codePosts = await demo.requests.filter {
                    $0.method == "POST" && $0.path.hasPrefix("/idp/profile/SAML2/Redirect/SSO")
                }.count
                #expect(codePosts >= 15, "user ID, password and code, five times")
                // A run that takes d seconds lands in the same 2-second step as the code before it with a
                // chance of 1 - d/2. When the machine is so busy that the runs are slow, none need share a
                // step; when they are quick, the chance that no run had to wait is below 1 in 250.
                let expectedWaits = seconds.dropFirst().map { max(0, 1 - $0 / 2) }.reduce(0, +)
                if expectedWaits >= 3 {
                    #expect(waited >= 1, "five quick logins (\(seconds) s) must wait for a new code at least once")
                }
                // The ledger keeps the step, never the code.
                let ledger = try String(
                    contentsOf: OneTimeCodeLedger(portal: "otp-reuse", user: OneTimeCodeBench.user, store: bench.sessions).file,
                    encoding: .utf8)
                #expect(ledger.contains("\"step\""), "\(ledger)")
            }
        }
    }
}
