import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Issue 34's smaller items end to end, with the real executable: a public command reads the
/// terms through the saved session the CLI picks, doctor names a portal's headers that reach the
/// login, and `recipes lint` refuses a header no recipe may set. The service's own behaviour
/// (logins that end where they began, one sign-on, zones, headers on the wire, read: by POST) is
/// in UniToolKitTests/Session/RealPortalServiceTests.
@Suite("Real identity providers: public commands, doctor and lint")
struct RealIdPRequestsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// The demo with its terms API behind the login, as a copy named `campus` (no default user).
    /// Runs `body` with a campus whose terms API is behind the login, stopped afterwards.
    func withProtectedTermsCampus(_ body: (DemoUniversity) async throws -> Void) async throws {
        var faults = DemoFaults()
        faults.termsAPI = .protected
        try await DemoUniversity.withRunning(faults: faults) { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["grades", "headlines"])
            try await body(demo)
        }
    }

    func samlPosts(_ demo: DemoUniversity) async -> Int {
        await demo.requests.filter { $0.method == "POST" && $0.path.hasPrefix("/Shibboleth.sso/SAML2/POST") }.count
    }

    @Test(
        "a public command on a portal whose terms API is behind the login: through the saved session, else an error that names the terms check"
    )
    func publicCommandTerms() async throws {
        defer { sandbox.remove() }
        try await withProtectedTermsCampus { demo in
            let cold = try await sandbox.run(["--portal", "campus", "--user", "alice", "headlines", "--json"], demo: demo.baseURL)
            #expect(cold.exitCode == 40, "\(cold)")
            #expect(cold.stderr.contains("terms of use") && cold.stderr.contains("behind the login"), "\(cold)")
            #expect(cold.stderr.contains("unitool auth login --portal campus") && !cold.stderr.contains("remove 'login: false'"), "\(cold)")
            #expect(await demo.passwordsReceived == 0)

            let accept = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "terms", "accept"], demo: demo.baseURL, stdin: "wonderland")
            #expect(accept.exitCode == 0, "\(accept)")
            let passwords = await demo.passwordsReceived
            let posts = await samlPosts(demo)
            let warm = try await sandbox.run(["--portal", "campus", "--user", "alice", "headlines", "--json"], demo: demo.baseURL)
            #expect(warm.exitCode == 0, "\(warm)")
            #expect(warm.stdout.contains("\"title\""), "\(warm)")
            let passwordsAfter = await demo.passwordsReceived
            let postsAfter = await samlPosts(demo)
            #expect(passwordsAfter == passwords && postsAfter == posts, "no login: the saved session answered")
        }
    }

    @Test(
        "a portal's headers: reach its login pages too: doctor login names the IdP's 401 as an answer for a script, pointing at headers:"
    )
    func portalHeadersReachTheDoctorLogin() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL) { portal in
                portal.replacingOccurrences(of: "\nlogin:\n", with: "\nheaders: { Accept: \"application/json\" }\nlogin:\n")
            }
            // The login's own error is checked in process (RealPortalServiceTests); here, what doctor prints.
            let doctor = try await sandbox.run(
                ["--portal", "campus", "--user", "alice", "--password-stdin", "doctor", "login"], demo: demo.baseURL, stdin: "wonderland")
            let said = doctor.stdout + doctor.stderr
            #expect(doctor.exitCode != 0 && said.contains("an answer for a script") && said.contains("headers:"), "\(doctor)")
            #expect(await demo.passwordsReceived == 0)
        }
    }

    @Test("recipes lint names a header no recipe may set")
    func lintRefusesCookie() async throws {
        defer { sandbox.remove() }
        let folder = sandbox.root.appendingPathComponent("pack/uni")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try
            "portal: uni\nbase_url: https://portal.example.edu\nheaders: { Cookie: \"session=stolen\" }\nlogin: { pages: [{ when: \"//form\", auto_submit: true }] }\n"
            .write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await sandbox.run(["--recipes", sandbox.root.appendingPathComponent("pack").path, "recipes", "lint"])
        #expect(outcome.exitCode == 31, "\(outcome)")
        #expect(outcome.stderr.contains("headers") && outcome.stderr.contains("Cookie"), "\(outcome)")
    }
}
