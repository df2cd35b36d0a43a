import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Input meant to hurt, where the process is the point: private files left readable, the
/// `--insecure` warning, plugins out of place. Hostile XML, a password steered elsewhere, a
/// certificate nobody vouches for and a recipe reaching for local files are tested in process
/// (UniToolKitTests/Session/HostilePortalServiceTests).
@Suite("Hostile input and credential safety, end to end")
struct HostileInputTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    func run(
        _ arguments: [String], demo: DemoUniversity? = nil, extra: [String: String] = [:], currentDirectory: URL? = nil
    ) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, demo: demo?.baseURL, extra: extra, currentDirectory: currentDirectory)
    }

    // MARK: Private files

    @Test("a session, settings or terms file that others can read is fixed to 0600 with a warning")
    func loosePermissionsAreFixed() async throws {
        try await DemoUniversity.withRunning { demo in
            #expect(try await run(["config", "set", "format", "json"], demo: demo).exitCode == 0)
            #expect(try await run(["--portal", "demo", "grades"], demo: demo).exitCode == 0)
            let files = [
                "state/unitool/sessions/demo/alice.json", "config/unitool/config.yaml", "config/unitool/terms/demo.json",
            ].map { sandbox.root.appendingPathComponent($0) }
            for file in files {
                #expect(try mode(of: file) == 0o600, "\(file.path) is written private")
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            }
            let outcome = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(outcome.exitCode == 0, "\(outcome)")
            for file in files {
                #expect(
                    outcome.stderr.contains("\(file.lastPathComponent) was readable by others (mode 644); it is now 0600"), "\(outcome)")
                #expect(try mode(of: file) == 0o600)
            }
        }
    }

    @Test(
        "a state file that belongs to another user is refused, not trusted",
        .enabled(if: Needs.root, "needs root to give a file away"))
    func foreignOwnerRefused() async throws {
        try await DemoUniversity.withRunning { demo in
            let terms = sandbox.root.appendingPathComponent("config/unitool/terms/demo.json")
            #expect(chown(terms.path, 65534, 65534) == 0)
            let outcome = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(outcome.exitCode == 50, "\(outcome)")
            #expect(outcome.stderr.contains("belongs to another user"), "\(outcome)")
        }
    }

    func mode(of file: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int ?? 0) & 0o777
    }

    // MARK: TLS

    @Test("--insecure warns that TLS certificates are not checked; without it there is no warning")
    func insecureWarns() async throws {
        // The handshake itself (refused, or let through with --insecure) is tested in process:
        // UniToolKitTests/Session/HostilePortalServiceTests.tlsVerification.
        try await DemoUniversity.withRunning { demo in
            let checked = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(checked.exitCode == 0, "\(checked)")
            #expect(!checked.stderr.contains("--insecure: TLS certificates are NOT checked"), "\(checked)")
            let insecure = try await run(["--portal", "demo", "grades", "--insecure"], demo: demo)
            #expect(insecure.exitCode == 0, "\(insecure)")
            #expect(insecure.stderr.contains("warning: --insecure: TLS certificates are NOT checked"), "\(insecure)")
        }
    }

    // MARK: Plugins

    @Test("a plugin is never run from the current folder, even with '.' on PATH")
    func pluginNotFromCurrentFolder() async throws {
        let folder = sandbox.root.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let marker = sandbox.root.appendingPathComponent("plugin-ran")
        // One copy in the current folder ('.' on PATH), one in a relative folder ('work').
        for directory in [sandbox.root, folder] {
            let plugin = directory.appendingPathComponent("unitool-evil")
            try "#!/bin/sh\ntouch '\(marker.path)'\n".write(to: plugin, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugin.path)
        }
        let path = ".:work:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let outcome = try await run(["evil"], extra: ["PATH": path], currentDirectory: sandbox.root)
        #expect(outcome.exitCode == 64, "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin ran")
    }
}
