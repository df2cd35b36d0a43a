import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Input meant to hurt: hostile XML in feeds and SAML pages, a password steered elsewhere,
/// private files left readable, a certificate nobody vouches for, recipes and plugins out of place.
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

    // MARK: Hostile XML

    @Test("external entities and an external DTD in the RSS feed, the SAML page and a data page are never fetched or read")
    func externalEntities() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "hostile-xml=xxe")) { demo in
            // A fresh login passes the SAML POST page, which carries the same DOCTYPE.
            // The grades page carries it too, with the entities in every course cell.
            let login = try await run(["--portal", "demo", "grades", "--json"], demo: demo)
            #expect(login.exitCode == 0, "\(login)")
            #expect(login.stdout.contains("Probability Theory"), "\(login)")
            #expect(!login.stdout.contains("root:"))
            // A feed that declares entities is refused outright (libxml2 2.9 has no amplification limit).
            let outcome = try await run(["--portal", "demo", "news", "--source", "rss", "--json"], demo: demo)
            #expect(outcome.exitCode == 30, "\(outcome)")
            #expect(outcome.stderr.contains("declares entities"), "\(outcome)")
            #expect(!outcome.stdout.contains("root:") && !outcome.stderr.contains("root:"), "the local file's content must not appear")
            let requests = await demo.requests
            #expect(requests.contains { $0.path == "/Shibboleth.sso/SAML2/POST" }, "the login went through the hostile SAML page")
            #expect(!requests.contains { $0.path.hasPrefix("/lab/hostile") }, "nothing is fetched for a DTD or entity: \(requests)")
        }
    }

    @Test("nested entities (billion laughs) in a feed are refused quickly; on the SAML page they are inert")
    func billionLaughs() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "hostile-xml=laughs")) { demo in
            let login = try await run(["--portal", "demo", "grades", "--json"], demo: demo)
            #expect(login.exitCode == 0, "the SAML page's and the grades page's entities are not expanded: \(login)")
            #expect(!login.stdout.contains("lollol"), "\(login)")
            #expect(login.stdout.contains("Probability Theory"), "\(login)")
            let feed = try await run(["--portal", "demo", "news", "--source", "rss"], demo: demo)
            #expect(feed.exitCode == 30, "\(feed)")
            #expect(feed.stderr.contains("not well-formed XML"), "\(feed)")
            #expect(feed.stderr.lowercased().contains("entit"), "\(feed)")
            #expect(feed.seconds < 20)
        }
    }

    // MARK: Where a password may go

    @Test("a 307 that would repeat the password POST to a look-alike origin is refused; nothing is sent there")
    func passwordRedirect() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "password-redirect")) { demo in
            let outcome = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(outcome.exitCode == 23, "\(outcome)")
            #expect(outcome.stderr.contains("refusing to send the password to http://localhost:"), "\(outcome)")
            #expect(!(await demo.requests).contains { $0.host.hasPrefix("localhost") })
        }
    }

    @Test("a sign-in button whose formaction points at a look-alike origin is refused; nothing is sent there")
    func formactionLookalike() async throws {
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "formaction-lookalike")) { demo in
            let outcome = try await run(["--portal", "demo", "grades"], demo: demo)
            #expect(outcome.exitCode == 23, "\(outcome)")
            #expect(outcome.stderr.contains("refusing to send the password to http://localhost:"), "\(outcome)")
            #expect(!(await demo.requests).contains { $0.host.hasPrefix("localhost") })
        }
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
        .enabled(if: getuid() == 0, "needs root to give a file away"))
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

    @Test("a self-signed certificate is refused (exit 23); --insecure gets past it, with a warning")
    func tlsVerification() async throws {
        let server = try await SelfSignedTLSServer.start()
        defer { server.stop() }
        let portal = ["UNITOOL_DEMO_URL": "https://127.0.0.1:\(server.port)"]
        let refused = try await run(["--portal", "demo", "grades"], extra: portal)
        #expect(refused.exitCode == 23, "\(refused)")
        #expect(refused.stderr.contains("TLS certificate of https://127.0.0.1:\(server.port) is not trusted"), "\(refused)")
        #expect(!refused.stderr.contains("--insecure: TLS certificates are NOT checked"))
        let insecure = try await run(["--portal", "demo", "grades", "--insecure"], extra: portal)
        #expect(insecure.stderr.contains("warning: --insecure: TLS certificates are NOT checked"), "\(insecure)")
        #expect(!insecure.stderr.contains("is not trusted"), "the handshake went through: \(insecure)")
        #expect(insecure.exitCode != 0, "openssl's test server is not a portal: \(insecure)")
    }

    // MARK: Recipes and plugins

    @Test("a recipe cannot read local files: a file:// fetch is refused and nothing is read")
    func recipeCannotReadFiles() async throws {
        try await DemoUniversity.withRunning { demo in
            let folder = sandbox.root.appendingPathComponent("config/unitool/recipes/demo")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try """
            command: passwd
            summary: reads a local file
            fetch: file:///etc/passwd
            rows: "//body"
            fields:
              text: { xpath: "." }
            """.write(to: folder.appendingPathComponent("passwd.yaml"), atomically: true, encoding: .utf8)
            let outcome = try await run(["--portal", "demo", "passwd", "--json"], demo: demo)
            #expect(outcome.exitCode == 23, "\(outcome)")
            #expect(outcome.stderr.contains("only http and https"), "\(outcome)")
            #expect(!outcome.stdout.contains("root:"))
        }
    }

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

/// `openssl s_server` with a fresh self-signed certificate on 127.0.0.1: a real TLS peer that no
/// certificate authority vouches for.
final class SelfSignedTLSServer: @unchecked Sendable {
    let port: Int
    private let process = Process()
    private let folder: URL

    /// Starts the server and waits (without blocking a thread) until it accepts connections.
    static func start() async throws -> SelfSignedTLSServer {
        // Process's waits belong on a thread of their own, never on Swift's cooperative pool.
        let server = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try SelfSignedTLSServer() }) }
        }
        for _ in 0..<150 {
            if server.accepts() { return server }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl s_server did not start listening"])
    }

    private init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let request = Process()
        request.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        request.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder.appendingPathComponent("key.pem").path,
            "-out", folder.appendingPathComponent("cert.pem").path, "-subj", "/CN=127.0.0.1", "-days", "1",
        ]
        request.standardOutput = FileHandle.nullDevice
        request.standardError = FileHandle.nullDevice
        try request.run()
        _ = UniToolProcess.exitStatus(of: request)
        port = try InteropPeer.unusedPort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_server", "-accept", "127.0.0.1:\(port)", "-www", "-cert", folder.appendingPathComponent("cert.pem").path,
            "-key", folder.appendingPathComponent("key.pem").path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// 127.0.0.1 at `port` (0: let the system choose).
    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// A port the system has just handed out and taken back.
    private func accepts() -> Bool {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = Self.loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Stops the server without waiting for it. SIGKILL, not SIGTERM: a child inherits an ignored
    /// SIGTERM from the test process, and such servers used to outlive every test run.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }
}
