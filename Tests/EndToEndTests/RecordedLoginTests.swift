import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Recipes from a browser's recording, as a student makes one: Debian's chromium, driven by
/// Playwright (Scripts/record-login.py, which plays the person and knows no recipe), logs in to
/// each of the demo's login variants and opens the grades; `recipes new --from-har` turns the
/// HAR into a folder; that folder, unedited, logs in from a fresh home with the password on
/// stdin and reads the same grades as the bundled recipe. No secret of the HAR is in the folder.
@Suite(
    "Recipes from a browser recording (chromium + Playwright)",
    .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright: run through Scripts/test.sh"),
    .serialized)
struct RecordedLoginTests {
    struct Variant: Sendable, CustomTestStringConvertible {
        var name: String
        var faults: String
        var user = "alice"
        var password = "wonderland"
        var totpSecret: String?
        var clicks: [String] = []
        /// The bundled login platform the pages are told to be.
        var platform = "unitool-demo"
        var testDescription: String { name }
    }

    static let variants: [Variant] = [
        Variant(name: "demo-plain", faults: ""),
        Variant(name: "shibboleth-v5", faults: "login=shibboleth-v5", platform: "shibboleth-idp"),
        Variant(name: "keycloak", faults: "login=keycloak", platform: "keycloak"),
        Variant(name: "cas", faults: "login=cas", platform: "cas"),
        Variant(name: "post-binding", faults: "login=post-binding"),
        Variant(name: "totp", faults: "totp-period=2", user: "yuki", password: "sakura-2026", totpSecret: "JBSWY3DPEHPK3PXP"),
        Variant(name: "consent", faults: "", user: "dora", password: "explorer-2026"),
        Variant(name: "interstitial", faults: "login=local-storage"),
        Variant(name: "login-link", faults: "login=login-link", clicks: ["#login-link"]),
        Variant(name: "reminder", faults: "login=reminder-link", clicks: ["#answer-later"]),
        Variant(name: "reminder-form", faults: "login=reminder-form", clicks: ["button[name=later]"]),
    ]

    @Test("record → recipes new --from-har → grades --term current returns the bundled recipe's records", arguments: variants)
    func recordedLoginReadsTheBundledGrades(variant: Variant) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let expected = try await Self.bundledGrades(variant)
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: variant.faults)) { demo in
            let har = sandbox.root.appendingPathComponent("login.har")
            try await BrowserRecorder.record(
                start: demo.baseURL.appendingPathComponent("home"), user: variant.user, password: variant.password, done: "a#logout",
                then: ["/grades"], clicks: variant.clicks, totpSecret: variant.totpSecret, totpPeriod: 2, to: har)

            // A fresh home: the recipe goes to its own recipes, nothing else is there.
            let home = try Sandbox()
            defer { home.remove() }
            let portal = "rec-\(variant.name)"
            let made = try await home.run(["recipes", "new", portal, "--from-har", har.path])
            #expect(made.exitCode == 0, "\(made)")
            #expect(made.stdout.contains("recipes lint: passed") && made.stdout.contains("recipes test: passed"), "\(made)")
            #expect(
                made.stdout.contains("rm \(har.path)") || made.stdout.contains("rm '\(har.path)'"), "says how to delete the HAR: \(made)")
            #expect(made.stdout.contains("login.use: \(variant.platform)"), "recognised as \(variant.platform): \(made)")
            let folder = home.root.appendingPathComponent("config/unitool/recipes/\(portal)")
            try Self.expectNoSecrets(of: har, password: variant.password, in: home)

            if let secret = variant.totpSecret {
                // The recorder's code was the last of its period, and an IdP takes a code once:
                // a student running unitool within 2 s of the browser's login would wait too.
                try await Task.sleep(for: .seconds(2))
                let set = try await home.run(
                    ["auth", "totp", "set", "--portal", portal, "--user", variant.user],
                    stdin: "otpauth://totp/Demo:\(variant.user)?secret=\(secret)&period=2")
                #expect(set.exitCode == 0, "\(set)")
            }
            let grades = try await home.run(
                ["--portal", portal, "--user", variant.user, "--password-stdin", "grades", "--term", "current", "--json"],
                stdin: variant.password)
            let portalYAML = (try? String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)) ?? ""
            #expect(grades.exitCode == 0, "\(grades)\n--- portal.yaml\n\(portalYAML)")
            let records = try #require(
                (try? JSONSerialization.jsonObject(with: Data(grades.stdout.utf8))) as? [[String: Any]], "\(grades)\n\(portalYAML)")
            Self.expectSameRecords(
                records, expected, label: variant.name, having: ["term", "course", "code", "credits", "grade", "points", "date"])
        }
    }

    @Test("a service on another origin (the library's Koha OPAC): services: from the hosts, and its command reads through the one login")
    func serviceOnAnotherOrigin() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "totp-period=2"), serviceHosts: ["127.0.0.2", "127.0.0.3"]) {
            demo in
            let library = try #require(demo.serviceHosts["127.0.0.3"], "\(demo.serviceHosts)")
            let har = sandbox.root.appendingPathComponent("login.har")
            try await BrowserRecorder.record(
                start: demo.baseURL.appendingPathComponent("home"), user: "yuki", password: "sakura-2026", done: "a#logout",
                then: [library.appendingPathComponent("cgi-bin/koha/opac-user.pl").absoluteString], totpSecret: "JBSWY3DPEHPK3PXP",
                totpPeriod: 2, to: har)
            let home = try Sandbox()
            defer { home.remove() }
            let made = try await home.run(["recipes", "new", "rec-services", "--from-har", har.path])
            // The library's page is Koha's: its command builds on the koha/loans platform.
            #expect(made.exitCode == 0 && made.stdout.contains("koha/loans"), "\(made)")
            let portalYAML = try String(
                contentsOf: home.root.appendingPathComponent("config/unitool/recipes/rec-services/portal.yaml"), encoding: .utf8)
            let origin = "http://127.0.0.3:\(library.port ?? 0)"
            #expect(portalYAML.contains("library: { base_url: \"\(origin)/\" }"), "\(portalYAML)")
            try await Task.sleep(for: .seconds(2))
            _ = try await home.run(
                ["auth", "totp", "set", "--portal", "rec-services", "--user", "yuki"],
                stdin: "otpauth://totp/Demo:yuki?secret=JBSWY3DPEHPK3PXP&period=2")
            let loans = try await home.run(
                ["--portal", "rec-services", "--user", "yuki", "--password-stdin", "loans", "--json"], stdin: "sakura-2026")
            #expect(loans.exitCode == 0, "\(loans)\n\(portalYAML)")
            let records = (try? JSONSerialization.jsonObject(with: Data(loans.stdout.utf8))) as? [[String: Any]] ?? []
            #expect(records.contains { $0["barcode"] as? String == "31000301" }, "the loan the example reads: \(loans.stdout)")
        }
    }

    /// The records of the bundled demo recipe for the variant's user, from the plain demo.
    static func bundledGrades(_ variant: Variant) async throws -> [[String: Any]] {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let output = try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: variant.totpSecret == nil ? "" : "totp-period=2"))
        {
            demo in
            if let secret = variant.totpSecret {
                _ = try await sandbox.run(
                    ["auth", "totp", "set", "--portal", "demo", "--user", variant.user], demo: demo.baseURL,
                    stdin: "otpauth://totp/Demo:\(variant.user)?secret=\(secret)&period=2")
            }
            let outcome = try await sandbox.run(
                ["--portal", "demo", "--user", variant.user, "--password-stdin", "grades", "--term", "current", "--json"],
                demo: demo.baseURL, stdin: variant.password)
            try #require(outcome.exitCode == 0, "\(outcome)")
            return outcome.stdout
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
    }

    /// No secret of the HAR (read by the test itself) is in any file of the home.
    static func expectNoSecrets(of har: URL, password: String, in home: Sandbox) throws {
        let leaks = try BrowserRecorder.secrets(in: har, password: password).filter { secret in
            home.allFiles().contains { (try? String(contentsOf: $0, encoding: .utf8))?.contains(secret) == true }
        }
        #expect(leaks.isEmpty, "the folder holds secrets of the HAR: \(leaks.map { String($0.prefix(12)) + "…" })")
    }

    /// The same records, by course code: each record has the fields `having` (every field of the
    /// expected record when nil), and every field both have holds the same value.
    static func expectSameRecords(_ records: [[String: Any]], _ expected: [[String: Any]], label: String, having: Set<String>? = nil) {
        #expect(records.count == expected.count, "\(label): \(records.count) records, the other recipe reads \(expected.count)")
        #expect(!expected.isEmpty)
        for want in expected {
            let code = want["code"] as? String
            guard let got = records.first(where: { $0["code"] as? String == code }) else {
                Issue.record("\(label): no record for \(code ?? "?") in \(records)")
                continue
            }
            let shared = Set(want.keys).intersection(got.keys)
            #expect(shared.isSuperset(of: having ?? Set(want.keys)), "\(label): \(got.keys.sorted()) vs \(want.keys.sorted())")
            for field in shared.sorted() {
                #expect(
                    Self.same(want[field], got[field]),
                    "\(label) \(code ?? "?").\(field): expected \(String(describing: want[field])), recorded \(String(describing: got[field]))"
                )
            }
        }
    }

    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (is NSNull, is NSNull), (nil, nil), (is NSNull, nil), (nil, is NSNull): return true
        // The demo shows `<em>in progress</em>` for a course not yet graded: the bundled recipe
        // reads no grade there, a recorded one keeps the page's own words (as the foreign
        // portals' expected records keep 履修中).
        case (is NSNull, "in progress" as String): return true
        case (let x as NSNumber, let y as NSNumber): return x.doubleValue == y.doubleValue
        case (let x as String, let y as String): return x == y
        default: return false
        }
    }
}

/// Record → `recipes new --from-har` → log in from a fresh home with the password on stdin →
/// the grades the example recipe reads: for the interop IdPs, whose suites start the peers.
enum RecordedReplay {
    static func check(
        start: URL, user: String, password: String, done: String, then: [String], portal: String, platform: String,
        expected: [[String: Any]]
    ) async throws {
        let recording = try Sandbox()
        defer { recording.remove() }
        let har = recording.root.appendingPathComponent("login.har")
        try await BrowserRecorder.record(start: start, user: user, password: password, done: done, then: then, to: har)
        let home = try Sandbox()
        defer { home.remove() }
        let made = try await home.run(["recipes", "new", portal, "--from-har", har.path])
        #expect(made.exitCode == 0 && made.stdout.contains("recipes test: passed"), "\(made)")
        #expect(made.stdout.contains("the terms: section"), "the terms API visited after the login: \(made)")
        #expect(made.stdout.contains("login.use: \(platform)"), "recognised as \(platform): \(made)")
        try RecordedLoginTests.expectNoSecrets(of: har, password: password, in: home)
        let folder = home.root.appendingPathComponent("config/unitool/recipes/\(portal)")
        let portalYAML = (try? String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)) ?? ""
        let accept = try await home.run(["--portal", portal, "--user", user, "--password-stdin", "terms", "accept"], stdin: password)
        #expect(accept.exitCode == 0, "\(accept)\n--- portal.yaml\n\(portalYAML)")
        // The password again: a terms API outside the login (SimpleSAMLphp's portal) signs nobody in.
        let grades = try await home.run(["--portal", portal, "--user", user, "--password-stdin", "grades", "--json"], stdin: password)
        #expect(grades.exitCode == 0, "\(grades)\n--- portal.yaml\n\(portalYAML)")
        let records = try #require((try? JSONSerialization.jsonObject(with: Data(grades.stdout.utf8))) as? [[String: Any]], "\(grades)")
        RecordedLoginTests.expectSameRecords(records, expected, label: portal)
    }
}

/// The command as a user meets it, on a recording kept in Fixtures/har (no browser needed).
@Suite("recipes new --from-har: the report, the files, and each refusal")
struct RecipesNewFromHARTests {
    static let fixture = Fixtures.root.appendingPathComponent("Fixtures/har/playwright-chromium-reminder.har")

    @Test("it says what it recognised and guessed, checks the folder, says how to delete the HAR and what to try")
    func report() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let output = sandbox.root.appendingPathComponent("pack")
        let made = try await sandbox.run(["recipes", "new", "fx", "--from-har", Self.fixture.path, "-o", output.path])
        #expect(made.exitCode == 0, "\(made)")
        for line in [
            "recognised:", "login.use: unitool-demo", "the table //table[@id='grades']", "guessed (check these",
            "grades.points: numbers with a decimal comma", "recipes lint: passed", "recipes test: passed fx/grades/recorded (4 records)",
            "recipes test: passed fx/loans/recorded (5 records)",
            "try it: unitool --portal fx --recipes \(output.path) --user alice grades --term current",
        ] {
            #expect(made.stdout.contains(line), "\(line)\n\(made)")
        }
        // The recording's path, quoted for the shell where it needs it.
        let path = Self.fixture.path
        #expect(made.stdout.contains("rm \(path)\n") || made.stdout.contains("rm '\(path)'"), "\(made)")
        let tested = try await sandbox.run(["recipes", "test", output.appendingPathComponent("fx").path])
        #expect(tested.exitCode == 0, "\(tested)")
        let files = FileManager.default.enumerator(at: output, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        #expect(files.count >= 7, "\(files)")
        for file in files where !file.hasDirectoryPath {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            #expect(!text.contains("wonderland") && !text.contains("Alice Example"), "\(file.lastPathComponent)")
        }

        let again = try await sandbox.run(["recipes", "new", "fx", "--from-har", Self.fixture.path, "-o", output.path])
        #expect(again.exitCode == 64 && again.stderr.contains("exists already; nothing was written"), "\(again)")
    }

    @Test("a missing file, a file that is no HAR, flags of the other way and no way at all are usage errors that say what to do")
    func refusals() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let notHAR = sandbox.root.appendingPathComponent("page.har")
        try Data("<html>".utf8).write(to: notHAR)
        let cases: [([String], String)] = [
            (["--from-har", "/nonexistent/login.har"], "cannot read the recording /nonexistent/login.har"),
            (["--from-har", sandbox.root.path], "cannot read the recording \(sandbox.root.path)"),
            (["--from-har", notHAR.path], "is not a HAR recording: it is not JSON"),
            (["--from-har", Self.fixture.path, "--idp", "shibboleth"], "--from-har reads the portal from the recording; --idp"),
            ([], "needs a recording of your login (--from-har FILE), or --idp"),
        ]
        for (arguments, message) in cases {
            let outcome = try await sandbox.run(["recipes", "new", "fx"] + arguments)
            #expect(outcome.exitCode == 64 && outcome.stderr.contains(message), "\(arguments): \(outcome)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("config/unitool/recipes/fx").path))
    }
}
