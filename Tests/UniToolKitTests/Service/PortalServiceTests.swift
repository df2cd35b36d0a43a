import DemoUniversity
import Foundation
import OneTimeCode
import Testing
import UniToolKit
import UniToolTestSupport

/// `PortalService` as every front end calls it, with a scripted `Interaction` in place of the
/// person: what the service asks, when, and what it does with the answer.
@Suite("The portal service asks its interaction, and only it")
struct PortalServiceTests {
    /// A request checked as every front end checks one.
    func request(_ recipe: DataRecipe, _ options: [String: String] = [:]) throws -> RecipeRequest {
        try RecipeRequest(recipe: recipe, options: options.map { ($0.key, .string($0.value)) }, naming: .rpc)
    }

    @Test("terms not yet accepted are put to the interaction; a refusal carries the front end's own hint and fetches nothing")
    func termsRefusedWithTheFrontEndsHint() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let person = ScriptedInteraction(acceptsTerms: false, termsRefusalHint: "call terms.accept")
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.execute(try request(bench.recipe("grades")), of: try bench.recipe("grades"), interaction: person)
                }
            }
            #expect(error?.kind == .termsNotAccepted)
            #expect(error?.hint == "call terms.accept")
            #expect(person.events == [.terms(version: DemoUniversity.initialTermsVersion)])
            let requests = await demo.requests
            #expect(requests.allSatisfy { $0.isTermsCheck }, "nothing but the terms API was asked")
            let accepted = try bench.acceptedTerms.load(portal: "demo")
            #expect(accepted == nil)
        }
    }

    @Test("terms the interaction accepts are recorded, and the run goes on")
    func termsAcceptedByTheInteraction() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let person = ScriptedInteraction(acceptsTerms: true)
            let outcome = try await bench.withService(on: demo) { service, _ in
                try await service.execute(
                    try request(bench.recipe("grades"), ["term": "2026-spring"]), of: try bench.recipe("grades"), interaction: person)
            }
            #expect(outcome.records.records.count == 4)
            #expect(try bench.acceptedTerms.load(portal: "demo")?.version == DemoUniversity.initialTermsVersion)
            #expect(person.events.first == .terms(version: DemoUniversity.initialTermsVersion))
        }
    }

    @Test("an action the interaction declines is 'declined' (exit 26), and not one request is sent")
    func declinedActionSendsNothing() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let loans = try bench.recipe("loans")
            let renew = try #require(loans.actions.first { $0.name == "renew" })
            let person = ScriptedInteraction(confirms: false)
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { service, _ in
                    try await service.perform(renew, of: loans, argument: "31000103", interaction: person)
                }
            }
            #expect(error?.kind == .declined)
            #expect(error?.kind.exitCode == 26)
            #expect(person.events == [.confirm(action: "renew", argument: "31000103")])
            let requests = await demo.requests
            #expect(requests.isEmpty, "\(requests.map(\.path))")
        }
    }

    @Test("an action the interaction confirms is submitted once")
    func confirmedActionIsSubmitted() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let loans = try bench.recipe("loans")
            let renew = try #require(loans.actions.first { $0.name == "renew" })
            let person = ScriptedInteraction(confirms: true)
            let result = try await bench.withService(on: demo) { service, _ in
                try await service.perform(renew, of: loans, argument: "31000103", interaction: person)
            }
            #expect(result.records.count == 1)
            let posts = await demo.requests.filter { $0.method == "POST" && $0.path.hasPrefix("/library/renew") }
            #expect(posts.count == 1)
        }
    }

    @Test("a one-time code no secret or command gives is typed by the interaction, and the login finishes")
    func oneTimeCodeTypedByTheInteraction() async throws {
        // A copy of the demo portal of this test's own: yuki's TOTP secret in the keyring, which
        // other suites store under "demo", is never found here.
        try await DemoUniversity.withRunning { demo in
            try await OneTimeCodeBench.with("otp-typed", on: demo) { bench in
                let code = try TOTP(parsing: OneTimeCodeBench.secret).code(at: Date())
                let person = ScriptedInteraction(codes: [code])
                let records = try await OneTimeCodeBench.grades(bench, "otp-typed", on: demo, person: person)
                #expect(!records.records.isEmpty)
                #expect(person.events.contains(.oneTimeCode(question: "One-time code for yuki on otp-typed: ")), "\(person.events)")
            }
        }
    }

    @Test(
        "with nobody to type a code, the login stops at the code page: mfa_required, saying how to give one",
        .enabled(if: Needs.testSandbox, "looks for a stored secret in the keyring of Scripts/test.sh"))
    func noOneToTypeACode() async throws {
        try await DemoUniversity.withRunning { demo in
            try await OneTimeCodeBench.with("otp-none", on: demo) { bench in
                let error = await #expect(throws: UniToolError.self) {
                    try await OneTimeCodeBench.grades(bench, "otp-none", on: demo, person: Unattended())
                }
                #expect(error?.kind == .mfaRequired)
                #expect(error?.hint?.contains("UNITOOL_TOTP_COMMAND") == true, "\(String(describing: error))")
                #expect(
                    error?.hint?.contains("'unitool auth totp set --portal otp-none --user yuki'") == true, "\(String(describing: error))")
            }
        }
    }

    @Test("the login's progress reaches the interaction of the call, page by page")
    func progressOfTheLogin() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let person = ScriptedInteraction()
            _ = try await bench.withService(on: demo) { service, _ in
                try await service.execute(try request(bench.recipe("courses")), of: try bench.recipe("courses"), interaction: person)
            }
            let messages = person.progressMessages
            #expect(messages.first == "signing in to Demo University: page 1 of the login", "\(messages)")
            #expect(messages.contains("signing in to Demo University: page 2 of the login"), "\(messages)")
        }
    }

    @Test("the service's clock is every front end's: a recipe's relative dates follow it")
    func clockOfTheService() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let loans = try bench.recipe("loans")
            let fixed = try #require(ISO8601DateFormatter().date(from: "2030-01-15T10:00:00Z"))
            let outcome = try await bench.withService(on: demo) { _, connection in
                try await PortalService(connection: connection, clock: { fixed }).execute(
                    try request(loans), of: loans, interaction: Unattended())
            }
            // Every demo loan is due within weeks of the real today, so all are overdue in 2030.
            let overdue = outcome.records.records.map { $0["overdue"] }
            #expect(!overdue.isEmpty && overdue.allSatisfy { $0 == .bool(true) }, "\(overdue)")
        }
    }
}

/// The password as the last of the credential sources (`Account.credentials`): asked of the
/// person behind the call, used for that login, never stored.
@Suite("A password nobody gave or stored is asked of the interaction")
struct TypedPasswordTests {
    /// Runs `grades` of a copy of the demo portal (a keyring item of its own: none stored) with
    /// the credential policy every front end uses, asking `person`.
    func grades(on demo: DemoUniversity, _ id: String, person: any Interaction) async throws -> (RecordSet, Account) {
        try await OneTimeCodeBench.with(id, on: demo) { bench in
            let account = try bench.account("alice", portal: id)
            let recipe = try bench.recipe("grades", portal: id)
            let request = try bench.request("grades", portal: id)
            let records = try await bench.withService(
                on: demo, passwordSource: { try account.credentials(oneTimeCode: nil, missingHint: "store one").password() }, portal: id
            ) { service, _ in
                try await service.execute(request, of: recipe, interaction: person).records
            }
            return (records, account)
        }
    }

    @Test("a person at the terminal types it: the login goes on, the question names user and portal, and nothing is stored")
    func typedOnce() async throws {
        try await DemoUniversity.withRunning { demo in
            let person = ScriptedInteraction(password: "wonderland")
            let (records, account) = try await grades(on: demo, "pw-typed", person: person)
            #expect(!records.records.isEmpty)
            #expect(person.events.contains(.password(question: "Password for alice on Demo University: ")), "\(person.events)")
            let stored = try? account.storedPassword()
            #expect(stored == nil, "a typed password is for this login only")
        }
    }

    @Test("with nobody to type it, the login stops at the password page: credentials_missing, or the keyring's own failure")
    func nobodyToType() async throws {
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) { _ = try await grades(on: demo, "pw-none", person: Unattended()) }
            // Without the test keyring, the keyring's own failure is the error: it says why none was found.
            #expect([.credentialsMissing, .keyringUnavailable, .keyringNoService].contains(error?.kind), "\(String(describing: error))")
            let received = await demo.passwordsReceived
            #expect(received == 0, "no password form was posted")
        }
    }
}
