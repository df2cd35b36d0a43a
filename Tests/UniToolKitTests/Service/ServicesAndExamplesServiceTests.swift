import DemoUniversity
import Foundation
import OneTimeCode
import Testing
import UniToolKit
import UniToolTestSupport

/// Universities of several services behind one IdP (Recipes/examples): the campus system, a
/// learning platform and a library, each on an origin of its own (127.0.0.1, .2 and .3), signing
/// on at one IdP, through the service in process. What only the binary shows (`recipes lint`
/// refusing a service nobody declared) stays in EndToEndTests/ServicesTests.
@Suite("Several services behind one login, and the example universities, through the service")
struct ServicesAndExamplesServiceTests {
    func isString(_ value: FieldValue?) -> Bool {
        if case .string? = value { return true }
        return false
    }

    // MARK: Several services behind one login (from EndToEndTests/ServicesTests)

    @Test("one password and one one-time code read all three services; each signs on through the IdP's session; the next run needs neither")
    func oneSignOn() async throws {
        let bench = try DemoServiceBench(recipes: [DemoServiceBench.examples])
        defer { bench.remove() }
        let portal = "demo-services"
        try await DemoUniversity.withRunning(serviceHosts: ["127.0.0.2", "127.0.0.3"]) { demo in
            /// The three sections of `today`, on one connection as `today` runs them.
            func read(_ interaction: any Interaction) async throws -> [String: [String]] {
                try await bench.withService(on: demo, user: "yuki", password: "sakura-2026", portal: portal) { service, _ in
                    var found: [String: [String]] = [:]
                    for (command, field) in [("courses", "code"), ("lms-courses", "code"), ("loans", "barcode")] {
                        let recipe = try bench.recipe(command, portal: portal)
                        let request = try bench.request(command, portal: portal)
                        let records = try await service.execute(request, of: recipe, interaction: interaction).records
                        found[command] = records.records.compactMap { $0[field]?.text }
                    }
                    return found
                }
            }
            let secret = try #require(DemoData.users.first { $0.username == "yuki" }?.totpSecret)
            let person = ScriptedInteraction(codes: [try TOTP(parsing: secret).code(at: Date())])
            let found = try await read(person)
            #expect(found["courses"] == ["JPN-301"], "\(found)")
            #expect(found["lms-courses"] == ["JPN-301"], "\(found)")
            #expect(found["loans"] == ["31000301"], "\(found)")

            let (passwords, accepted, reused) = (await demo.passwordsReceived, await demo.codesAccepted, await demo.reusedCodes)
            #expect(passwords == 1, "one password for three services")
            #expect(accepted == 1 && reused == 0, "one one-time code")
            let signOns = await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }
            #expect(Set(signOns.map(\.host)).count == 3, "each service signed on at its own address: \(signOns)")

            // The saved jar holds every service's session: the next run asks the IdP nothing.
            let again = try await read(Unattended())
            #expect(again == found)
            let (passwordsAfter, codesAfter) = (await demo.passwordsReceived, await demo.codesAccepted)
            #expect(passwordsAfter == 1 && codesAfter == 1)
        }
    }

    // MARK: The example universities (from EndToEndTests/ExampleUniversitiesTests)

    /// Each command of `portal`, on the demo's pages of `login` and its services on their own
    /// origins, finds a record whose `field` is `expected`; one sign-on, saved, serves them all.
    func check(portal: String, login: String, commands: [(String, String, String)]) async throws {
        let bench = try DemoServiceBench(recipes: [DemoServiceBench.examples])
        defer { bench.remove() }
        // Moodle's calendar export address holds the user's own id and token: their settings.
        let values = ["userid": "2", "authtoken": "demo"]
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=\(login)"), serviceHosts: ["127.0.0.2", "127.0.0.3"]) {
            demo in
            for (command, field, expected) in commands {
                let records = try await bench.run(command, of: portal, on: demo, userValues: values)
                let found = records.records.compactMap { $0[field]?.text }
                #expect(found.contains(expected), "\(portal) \(command): \(found)")
            }
            let passwords = await demo.passwordsReceived
            #expect(passwords == 1, "one sign-on, saved, served every service")
        }
    }

    @Test("Shibboleth, Moodle and Koha: courses by Moodle's AJAX, deadlines by its calendar, loans from Koha, news by RSS")
    func shibbolethMoodleKoha() async throws {
        try await check(
            portal: "uni-shib-moodle-koha", login: "shibboleth-v5",
            commands: [
                ("courses", "code", "CS-320"), ("grades", "grade", "B+"), ("deadlines", "course", "MATH-301"),
                ("loans", "barcode", "31000103"),
                ("news", "category", "Library"),
            ])
    }

    @Test("CAS and Moodle: the campus system and Moodle on two origins, the second signed on by CAS's own cookie")
    func casMoodle() async throws {
        try await check(
            portal: "uni-cas-moodle", login: "cas",
            commands: [("grades", "code", "CS-320"), ("courses", "code", "HUN-250"), ("deadlines", "course", "CS-340")])
    }

    @Test("Keycloak and Koha: loans from the OPAC on its own origin, news by RSS")
    func keycloakKoha() async throws {
        try await check(
            portal: "uni-keycloak-koha", login: "keycloak", commands: [("loans", "barcode", "31000101"), ("news", "category", "Studies")])
    }

    @Test(
        "Koha's renew: the item number read off the row of the barcode; a loan on hold is refused in Koha's words (action_refused); renew all renews every renewable loan"
    )
    func kohaRenew() async throws {
        let bench = try DemoServiceBench(recipes: [DemoServiceBench.examples])
        defer { bench.remove() }
        let portal = "uni-keycloak-koha"
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=keycloak"), serviceHosts: ["127.0.0.3"]) { demo in
            let loans = try bench.recipe("loans", portal: portal)
            let renew = try #require(loans.actions.first { $0.name == "renew" })
            let renewAll = try #require(loans.actions.first { $0.name == "renew-all" })
            func perform(_ action: ActionSpec, _ argument: String) async throws -> RecordSet {
                try await bench.withService(on: demo, portal: portal) { service, _ in
                    try await service.perform(action, of: loans, argument: argument, interaction: ScriptedInteraction())
                }
            }

            let renewed = try await perform(renew, "31000103")
            #expect(renewed.records.first?["title"] == .string("Operating Systems: Three Easy Pieces"), "\(renewed)")
            let onHold = await #expect(throws: UniToolError.self) { try await perform(renew, "31000104") }
            #expect(onHold?.kind == .actionRefused, "\(String(describing: onHold))")
            #expect(onHold?.message.contains("Not renewable (on hold)") == true, "\(String(describing: onHold))")

            // Renew all: form#renewall posts every renewable item, as Koha's opac-renew.pl renews
            // each (the demo once renewed only the first).
            let before = try await bench.run("loans", of: portal, on: demo)
            let renewable = before.records.filter { isString($0["item"]) }
            // Its preview first: the loans form#renewall carries, read with the recipe's own
            // fields, the overdue ones noted; nothing is posted.
            let posts = await demo.requests.filter { $0.method == "POST" }.count
            let listed = try await bench.withService(on: demo, portal: portal) { service, _ in
                try await service.preview(renewAll, of: loans, argument: "", interaction: ScriptedInteraction())
            }
            #expect(listed.columns == ["title", "due", "renewals_left", "note"], "\(listed)")
            #expect(Set(listed.records.map { $0["title"]?.text ?? "" }) == Set(renewable.map { $0["title"]?.text ?? "" }), "\(listed)")
            for row in listed.records {
                let overdue = renewable.first { $0["title"] == row["title"] }?["overdue"] == .bool(true)
                #expect(overdue == (row["note"] != .null), "a note beside each overdue loan, and only there: \(row)")
            }
            #expect(await demo.requests.filter { $0.method == "POST" }.count == posts, "a preview sends nothing")
            let all = try await perform(renewAll, "")
            // One record per loan renewed (the rows badged "Renewed!"), titled.
            #expect(renewable.count > 1 && all.records.count == renewable.count, "\(all)")
            #expect(all.records.allSatisfy { !($0["title"]?.text ?? "").isEmpty }, "\(all)")
            let after = try await bench.run("loans", of: portal, on: demo)
            for loan in renewable {
                let now = after.records.first { $0["barcode"] == loan["barcode"] }
                #expect((now?["due"]?.text ?? "") > (loan["due"]?.text ?? "~"), "\(loan) → \(String(describing: now))")
            }
        }
    }
}
