import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// A university of several services behind one IdP (Recipes/examples/demo-services): the
/// campus system, a learning platform and a library, each on an origin of its own (127.0.0.1,
/// .2 and .3), signing on at one IdP.
@Suite("Several services behind one login, end to end")
struct ServicesTests {
    let sandbox: Sandbox
    let examples = Fixtures.root.appendingPathComponent("Recipes/examples").path

    init() throws { sandbox = try Sandbox() }

    func run(_ arguments: [String], demo: DemoUniversity, stdin: String? = nil) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(
            ["--recipes", examples, "--portal", "demo-services"] + arguments, demo: demo.baseURL, stdin: stdin,
            extra: ["UNITOOL_DEMO_SERVICES": demo.serviceHosts.values.map(\.absoluteString).sorted().joined(separator: " ")])
    }

    @Test("one password and one one-time code read all three services; each signs on through the IdP's session; the next run needs neither")
    func oneSignOn() async throws {
        try await DemoUniversity.withRunning(serviceHosts: ["127.0.0.2", "127.0.0.3"]) { demo in
            let stored = try await run(
                ["auth", "totp", "set", "--user", "yuki"], demo: demo, stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP")
            #expect(stored.exitCode == 0, "\(stored)")
            let today = try await run(["today", "--json", "--user", "yuki", "--password-stdin"], demo: demo, stdin: "sakura-2026")
            #expect(today.exitCode == 0, "\(today)")
            let sections = try #require(
                (try JSONSerialization.jsonObject(with: Data(today.stdout.utf8)) as? [String: Any])?["sections"] as? [String: Any])
            func codes(_ key: String, _ field: String) -> [String] {
                ((sections[key] as? [String: Any])?["records"] as? [[String: Any]] ?? []).compactMap { $0[field] as? String }
            }
            #expect(codes("classes_today", "code") == ["JPN-301"])
            #expect(codes("courses_on_the_learning_platform", "code") == ["JPN-301"])
            #expect(codes("loans", "barcode") == ["31000301"])

            let (passwords, accepted, reused) = (await demo.passwordsReceived, await demo.codesAccepted, await demo.reusedCodes)
            #expect(passwords == 1, "one password for three services")
            #expect(accepted == 1 && reused == 0, "one one-time code")
            let signOns = await demo.requests.filter { $0.method == "POST" && $0.path == "/Shibboleth.sso/SAML2/POST" }
            #expect(Set(signOns.map(\.host)).count == 3, "each service signed on at its own address: \(signOns)")

            // The saved jar holds every service's session: the next run asks the IdP nothing.
            let again = try await run(
                ["today", "--refresh", "--json", "--user", "yuki", "--password-stdin"], demo: demo, stdin: "sakura-2026")
            #expect(again.exitCode == 0, "\(again)")
            let (passwordsAfter, codesAfter) = (await demo.passwordsReceived, await demo.codesAccepted)
            #expect(passwordsAfter == 1 && codesAfter == 1)
        }
    }

    @Test("a command naming a service its portal does not declare is refused when the recipes are read")
    func unknownService() async throws {
        let folder = sandbox.root.appendingPathComponent("pack/uni")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try
            "portal: uni\nbase_url: https://portal.example.edu\nservices: { lms: { base_url: \"https://lms.example.edu/\" } }\nlogin: { pages: [{ when: \"//form\", auto_submit: true }] }\n"
            .write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try "command: loans\nservice: library\nfetch: /loans\nrows: //tr\nfields: { title: { xpath: td } }\n".write(
            to: folder.appendingPathComponent("loans.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await UniToolProcess.run(
            ["--recipes", sandbox.root.appendingPathComponent("pack").path, "recipes", "lint"], environment: sandbox.environment)
        #expect(outcome.exitCode == 31, "\(outcome)")
        #expect(outcome.stderr.contains("service: 'library' is not a service of portal 'uni' (services: lms)"), "\(outcome)")
    }
}
