import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Issue 53: a real Chromium signs in where a form replay cannot, and hands its session to the
/// engine; a portal whose login is browser-only never gets a form login. The person is played by
/// Fixtures/browser-hooks/demo.js (UNITOOL_BROWSER_HOOK), run in each page through the protocol.
@Suite(
    "Browser login: auth login --browser with a real Chromium", .serialized,
    .enabled(if: Needs.check(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium")))
struct BrowserLoginTests {
    static let hook = Fixtures.root.appendingPathComponent("Fixtures/browser-hooks/demo.js").path
    static var browser: [String: String] { ["UNITOOL_BROWSER_HOOK": hook, "UNITOOL_BROWSER": "/usr/bin/chromium"] }
    /// A browser's start shares two cores with the other suites of CI's third part.
    static let browserTimeout: TimeInterval = 300

    static func scriptBuilt() -> DemoFaults {
        var faults = DemoFaults()
        faults.loginVariants.insert(.scriptBuilt)
        return faults
    }

    /// The requests a `--trace` file holds, as `METHOD path`.
    static func requests(in trace: URL) throws -> [String] {
        let har = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) as? [String: Any])
        let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        return entries.compactMap { entry in
            guard let request = entry["request"] as? [String: Any], let method = request["method"] as? String,
                let url = (request["url"] as? String).flatMap(URL.init(string:))
            else { return nil }
            return "\(method) \(url.path)"
        }
    }

    /// The browser's temporary profiles left in the sandbox.
    static func profilesLeft(in sandbox: Sandbox) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: sandbox.root.appendingPathComponent("state/unitool/browser").path)) ?? []
    }

    @Test(
        "a login page built by script: the form login says it needs a browser; the browser signs in, and grades then makes one data request"
    )
    func scriptBuiltLogin() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning(faults: Self.scriptBuilt()) { demo in
            let plain = try await sandbox.run(
                ["--portal", "demo", "auth", "login", "--password-stdin", "--session-only", "--user", "alice"], demo: demo.baseURL,
                stdin: "wonderland")
            #expect(plain.exitCode == UniToolError.Kind.loginFailed.exitCode, "\(plain)")
            #expect(plain.stderr.contains("no form in its HTML, only scripts"), "\(plain)")
            #expect(plain.stderr.contains("auth login --browser"), "\(plain)")

            let login = try await sandbox.run(
                ["--portal", "demo", "auth", "login", "--browser", "--headless", "--user", "alice"], demo: demo.baseURL, extra: Self.browser
            )
            #expect(login.exitCode == 0, "\(login)")
            #expect(login.stderr.contains("no password was stored"), "\(login)")
            #expect(Self.profilesLeft(in: sandbox).isEmpty, "the browser's profile is removed")

            let trace = sandbox.root.appendingPathComponent("grades.har")
            let grades = try await sandbox.run(
                ["--portal", "demo", "grades", "--term", "current", "--user", "alice", "--trace", trace.path], demo: demo.baseURL)
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(grades.stdout.contains("MATH-301"), "\(grades)")
            // The terms check asks its API; the data is one request, and no login page is met.
            let data = try Self.requests(in: trace).filter { !$0.hasSuffix("/api/terms/version") }
            #expect(data == ["GET /grades"], "\(data)")
        }
    }

    @Test(
        "a browser-only portal: no form login ever; an ended session is exit 19 naming auth login --browser; a watch says login_needed once, then recovered"
    )
    func browserOnlyPortal() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            try sandbox.installPortalCopy("uni", at: demo.baseURL) {
                $0.replacingOccurrences(of: "\nlogin:\n", with: "\nlogin:\n  browser: true\n")
            }
            try sandbox.acceptTerms(portal: "uni", version: DemoUniversity.initialTermsVersion)
            let user = ["--portal", "uni", "--user", "alice"]
            let passwordGiven = ["UNITOOL_PASSWORD_COMMAND": "echo wonderland"]

            let ended = try await sandbox.run(user + ["grades", "--term", "current"], extra: passwordGiven)
            #expect(ended.exitCode == UniToolError.Kind.loginInBrowserNeeded.exitCode, "\(ended)")
            #expect(ended.exitCode == 19)
            #expect(ended.stderr.contains("auth login --browser"), "\(ended)")

            let typed = try await sandbox.run(user + ["auth", "login", "--password-stdin"], stdin: "wonderland")
            #expect(typed.exitCode == 64, "a password is refused for a browser-only portal: \(typed)")

            let watch = user + ["watch", "grades", "--term", "current", "--json"]
            let first = try await sandbox.run(watch, extra: passwordGiven)
            #expect(first.exitCode == 19, "\(first)")
            #expect(first.stdout.contains(#""event": "login_needed""#), "\(first)")
            let again = try await sandbox.run(watch, extra: passwordGiven)
            #expect(again.exitCode == 19, "\(again)")
            #expect(!again.stdout.contains("login_needed"), "announced once: \(again)")

            let login = try await sandbox.run(
                user + ["auth", "login", "--browser", "--headless"], extra: Self.browser, timeout: Self.browserTimeout)
            #expect(login.exitCode == 0, "\(login)")
            let recovered = try await sandbox.run(watch)
            #expect(recovered.exitCode == 0, "\(recovered)")
            #expect(recovered.stdout.contains(#""event": "recovered""#), "\(recovered)")
            let grades = try await sandbox.run(user + ["grades", "--term", "current"])
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(Self.profilesLeft(in: sandbox).isEmpty)
        }
    }

    @Test("interrupted while the person signs in: the browser and its profile go, and unitool ends by the signal")
    func interrupted() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            var environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
            environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString
            environment["UNITOOL_BROWSER"] = "/usr/bin/chromium"
            // No hook: nobody signs in, so unitool waits until it is stopped.
            let process = try await RPCClientProcess.start(
                command: "--portal", arguments: ["demo", "auth", "login", "--browser", "--headless", "--user", "alice"],
                environment: environment, readsOutput: false)
            let profiles = sandbox.root.appendingPathComponent("state/unitool/browser")
            #expect(await eventually { !Self.profilesLeft(in: sandbox).isEmpty }, "the browser started")
            let profile = profiles.appendingPathComponent(Self.profilesLeft(in: sandbox).first ?? "none").path
            #expect(await eventually { Self.anyProcess(naming: profile) }, "the browser runs")
            process.terminate()
            let status = await process.waitForExit()
            #expect(status == SIGTERM, "ended by SIGTERM: \(String(describing: status)): \(process.stderr)")
            #expect(Self.profilesLeft(in: sandbox).isEmpty, "the profile is removed")
            #expect(await eventually { !Self.anyProcess(naming: profile) }, "no browser process is left")
        }
    }

    @Test(
        "headed, as a person runs it: the browser in a window of its own (on Xvfb's display) signs in, and the session works",
        .enabled(if: Needs.check(FileManager.default.isExecutableFile(atPath: "/usr/bin/xvfb-run"), "xvfb-run (xvfb)")))
    func headed() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning(faults: Self.scriptBuilt()) { demo in
            var environment = sandbox.environment.merging(Self.browser) { $1 }
            environment["UNITOOL_DEMO_URL"] = demo.baseURL.absoluteString
            // No --headless: the default a person gets. xvfb-run gives it a display (-a: a free one).
            let login = try await UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/xvfb-run"),
                ["-a", UniToolProcess.executable.path, "--portal", "demo", "auth", "login", "--browser", "--user", "alice"],
                environment: environment, timeout: Self.browserTimeout)
            #expect(login.exitCode == 0, "\(login)")
            #expect(Self.profilesLeft(in: sandbox).isEmpty)
            let grades = try await sandbox.run(["--portal", "demo", "grades", "--term", "current", "--user", "alice"], demo: demo.baseURL)
            #expect(grades.exitCode == 0, "\(grades)")
            #expect(grades.stdout.contains("MATH-301"), "\(grades)")
        }
    }

    @Test("a portal the browser cannot reach is exit 20 at once, not a wait until the time limit")
    func unreachable() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        // Port 1 on loopback: nothing listens there.
        try sandbox.installPortalCopy("gone", at: URL(string: "http://127.0.0.1:1")!)
        let login = try await sandbox.run(
            ["--portal", "gone", "--user", "alice", "auth", "login", "--browser", "--headless"], extra: Self.browser,
            timeout: Self.browserTimeout)
        #expect(login.exitCode == UniToolError.Kind.portalUnreachable.exitCode, "\(login)")
        #expect(login.stderr.contains("could not open"), "\(login)")
        #expect(Self.profilesLeft(in: sandbox).isEmpty)
    }

    @Test("recipes new --record on the demo: the folder is the one --from-har writes from the same visit (--save-har)")
    func recordDemo() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let har = sandbox.root.appendingPathComponent("visit.har")
        try await DemoUniversity.withRunning { demo in
            let recorded = try await sandbox.run(
                [
                    "recipes", "new", "myuni", "--record", demo.baseURL.appendingPathComponent("home").absoluteString, "--headless",
                    "--save-har", har.path, "-o", sandbox.root.appendingPathComponent("recorded").path,
                ], extra: Self.browser, timeout: Self.browserTimeout)
            try #require(recorded.exitCode == 0, "\(recorded)")
            #expect(recorded.stdout.contains("grades"), "a command for the grades page: \(recorded)")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: har.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "the saved recording holds the password: 0600")
        let converted = try await sandbox.run(
            ["recipes", "new", "myuni", "--from-har", har.path, "-o", sandbox.root.appendingPathComponent("converted").path])
        try #require(converted.exitCode == 0, "\(converted)")
        let recorded = try Self.files(in: sandbox.root.appendingPathComponent("recorded/myuni"))
        let fromHar = try Self.files(in: sandbox.root.appendingPathComponent("converted/myuni"))
        #expect(recorded.keys.sorted() == fromHar.keys.sorted())
        #expect(recorded == fromHar)
        #expect(recorded.keys.contains("grades.yaml"), "\(recorded.keys.sorted())")
        #expect(Self.profilesLeft(in: sandbox).isEmpty)
    }

    @Test("--keep-browser-profile keeps the browser's profile for the portal and user (0700), and the next login's browser runs in it")
    func keptProfile() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { demo in
            let login = ["--portal", "demo", "auth", "login", "--browser", "--headless", "--keep-browser-profile", "--user", "alice"]
            let first = try await sandbox.run(login, demo: demo.baseURL, extra: Self.browser, timeout: Self.browserTimeout)
            #expect(first.exitCode == 0, "\(first)")
            let kept = sandbox.root.appendingPathComponent("state/unitool/browser-profiles/demo/alice")
            let attributes = try FileManager.default.attributesOfItem(atPath: kept.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            let made = try FileManager.default.contentsOfDirectory(atPath: kept.path)
            #expect(made.contains("Default"), "the browser's own profile is in it: \(made)")
            let localState = kept.appendingPathComponent("Local State")
            let before = try FileManager.default.attributesOfItem(atPath: localState.path)[.modificationDate] as? Date
            let again = try await sandbox.run(login, demo: demo.baseURL, extra: Self.browser, timeout: Self.browserTimeout)
            #expect(again.exitCode == 0, "\(again)")
            #expect(Self.profilesLeft(in: sandbox).isEmpty, "no temporary profile was made")
            let after = try FileManager.default.attributesOfItem(atPath: localState.path)[.modificationDate] as? Date
            #expect(before != nil && after != nil && after! > before!, "the second browser ran in the kept profile and wrote to it")
        }
    }

    /// A folder's files by path, with their bytes.
    static func files(in folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        for case let file as URL in enumerator?.allObjects ?? [] where !file.hasDirectoryPath {
            files[String(file.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))] = try Data(contentsOf: file)
        }
        return files
    }

    static func anyProcess(naming text: String) -> Bool {
        let marker = Array(text.utf8)
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).contains { entry in
            guard pid_t(entry) != nil, let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else {
                return false
            }
            let state = (try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8))?.split(separator: ")").last?
                .split(separator: " ").first
            return state != "Z" && Array(commandLine).firstRange(of: marker) != nil
        }
    }
}
