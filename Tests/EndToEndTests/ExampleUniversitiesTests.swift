import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// The example universities of Recipes/examples, each a dozen lines on platform recipes,
/// against the demo's pages of those products and its services on their own origins.
@Suite("Example universities from platform recipes, end to end")
struct ExampleUniversitiesTests {
    let sandbox: Sandbox
    let examples = Fixtures.root.appendingPathComponent("Recipes/examples").path

    init() throws { sandbox = try Sandbox() }

    func json(_ outcome: UniToolProcess.Outcome) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
    }

    func check(portal: String, login: String, commands: [(String, String, String)]) async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=\(login)"), serviceHosts: ["127.0.0.2", "127.0.0.3"]) {
            demo in
            let services = demo.serviceHosts.values.map(\.absoluteString).sorted().joined(separator: " ")
            // Moodle's calendar export address holds the user's own id and token: their settings.
            for (name, value) in [("userid", "2"), ("authtoken", "demo")] where commands.contains(where: { $0.0 == "deadlines" }) {
                let set = try await sandbox.run(["--recipes", examples, "--portal", portal, "config", "set", "value.\(name)", value])
                #expect(set.exitCode == 0, "\(set)")
            }
            for (command, field, expected) in commands {
                let outcome = try await sandbox.run(
                    ["--recipes", examples, "--portal", portal, command, "--json"], demo: demo.baseURL,
                    extra: ["UNITOOL_DEMO_SERVICES": services])
                #expect(outcome.exitCode == 0, "\(portal) \(command): \(outcome)")
                #expect(try json(outcome).contains { $0[field] as? String == expected }, "\(portal) \(command): \(outcome.stdout)")
            }
            #expect(await demo.passwordsReceived == 1, "one sign-on, saved, served every service")
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

    @Test(
        "Koha's renew: the item number read off the row of the barcode; a loan on hold is refused in Koha's words (exit 24); renew all renews every renewable loan"
    )
    func kohaRenew() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "login=keycloak"), serviceHosts: ["127.0.0.3"]) { demo in
            func run(_ arguments: [String]) async throws -> UniToolProcess.Outcome {
                try await sandbox.run(
                    ["--recipes", examples, "--portal", "uni-keycloak-koha"] + arguments, demo: demo.baseURL,
                    extra: ["UNITOOL_DEMO_SERVICES": demo.serviceHosts.values.map(\.absoluteString).joined(separator: " ")])
            }
            let renewed = try await run(["loans", "renew", "31000103", "--json"])
            #expect(renewed.exitCode == 0, "\(renewed)")
            #expect(try json(renewed).first?["title"] as? String == "Operating Systems: Three Easy Pieces")
            let onHold = try await run(["loans", "renew", "31000104"])
            #expect(onHold.exitCode == 24 && onHold.stderr.contains("Not renewable (on hold)"), "\(onHold)")
            // Renew all: form#renewall posts every renewable item, as Koha's opac-renew.pl renews
            // each (the demo once renewed only the first).
            let before = try json(try await run(["loans", "--json"]))
            let renewable = before.filter { $0["item"] is String }
            let all = try await run(["loans", "renew-all", "--json"])
            #expect(all.exitCode == 0, "\(all)")
            let count = try json(all).first?["renewed"] as? Int
            #expect(renewable.count > 1 && count == renewable.count, "\(all)")
            let after = try json(try await run(["loans", "--json"]))
            for loan in renewable {
                let now = after.first { $0["barcode"] as? String == loan["barcode"] as? String }
                #expect((now?["due"] as? String ?? "") > (loan["due"] as? String ?? "~"), "\(loan) → \(String(describing: now))")
            }
        }
    }

    @Test("Keycloak and Koha: loans from the OPAC on its own origin, news by RSS")
    func keycloakKoha() async throws {
        try await check(
            portal: "uni-keycloak-koha", login: "keycloak", commands: [("loans", "barcode", "31000101"), ("news", "category", "Studies")])
    }
}
