import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// A hostile or faulty portal against the service, in process: hostile XML in feeds and SAML
/// pages, a password steered elsewhere, a certificate nobody vouches for, a recipe that reaches
/// for local files, a page that trickles, a 431, a redirect to a foreign origin. What only the
/// process shows (exit codes, the `--insecure` warning, a run's own CPU time and peak memory)
/// stays in EndToEndTests/HostileInputTests and EndToEndTests/SecurityRoundTwoTests.
@Suite("Hostile and faulty portals, through the service")
struct HostilePortalServiceTests {
    /// Every value of every record, for checks that something never shows up in the output.
    func shown(_ set: RecordSet) -> String {
        set.records.flatMap { record in record.fields.map { field in field.value.text } }.joined(separator: "\n")
    }

    // MARK: Hostile XML

    @Test("external entities and an external DTD in the RSS feed, the SAML page and a data page are never fetched or read")
    func externalEntities() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "hostile-xml=xxe")) { demo in
            // A fresh login passes the SAML POST page, which carries the same DOCTYPE.
            // The grades page carries it too, with the entities in every course cell.
            let grades = try await bench.run("grades", on: demo)
            let text = shown(grades)
            #expect(text.contains("Probability Theory"), "\(text)")
            #expect(!text.contains("root:"))
            // A feed that declares entities is refused outright (libxml2 2.9 has no amplification limit).
            let error = await #expect(throws: UniToolError.self) { try await bench.run("news", source: "rss", on: demo) }
            #expect(error?.kind == .layoutChanged, "\(String(describing: error))")
            let description = error?.description ?? ""
            #expect(description.contains("declares entities"), "\(description)")
            #expect(!description.contains("root:"), "the local file's content must not appear")
            #expect(!bench.log.messages.contains { $0.contains("root:") }, "the local file's content must not appear in the log")
            let requests = await demo.requests
            #expect(requests.contains { $0.path == "/Shibboleth.sso/SAML2/POST" }, "the login went through the hostile SAML page")
            #expect(!requests.contains { $0.path.hasPrefix("/lab/hostile") }, "nothing is fetched for a DTD or entity: \(requests)")
        }
    }

    @Test("nested entities (billion laughs) in a feed are refused; on the SAML page they are inert")
    func billionLaughs() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "hostile-xml=laughs")) { demo in
            // The SAML page's and the grades page's entities are not expanded.
            let grades = try await bench.run("grades", on: demo)
            let text = shown(grades)
            #expect(!text.contains("lollol"), "\(text)")
            #expect(text.contains("Probability Theory"), "\(text)")
            let error = await #expect(throws: UniToolError.self) { try await bench.run("news", source: "rss", on: demo) }
            #expect(error?.kind == .layoutChanged, "\(String(describing: error))")
            let description = error?.description ?? ""
            #expect(description.contains("not well-formed XML"), "\(description)")
            #expect(description.lowercased().contains("entit"), "\(description)")
        }
    }

    // MARK: Where a password may go

    @Test("a 307 that would repeat the password POST to a look-alike origin is refused (unsafe_request, exit 23); nothing is sent there")
    func passwordRedirect() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "password-redirect")) { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(error?.kind == .unsafeRequest, "\(String(describing: error))")
            #expect(error?.message.contains("refusing to send the password to http://localhost:") == true, "\(String(describing: error))")
            let requests = await demo.requests
            #expect(!requests.contains { $0.host.hasPrefix("localhost") }, "\(requests)")
        }
    }

    @Test("a sign-in button whose formaction points at a look-alike origin is refused (unsafe_request, exit 23); nothing is sent there")
    func formactionLookalike() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "formaction-lookalike")) { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(error?.kind == .unsafeRequest, "\(String(describing: error))")
            #expect(error?.message.contains("refusing to send the password to http://localhost:") == true, "\(String(describing: error))")
            let requests = await demo.requests
            #expect(!requests.contains { $0.host.hasPrefix("localhost") }, "\(requests)")
        }
    }

    // MARK: TLS

    @Test("a self-signed certificate is refused (unsafe_request, exit 23); skipping TLS verification (--insecure) gets past it")
    func tlsVerification() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let server = try await SelfSignedTLSServer.start()
        defer { server.stop() }
        let portal = try #require(URL(string: "https://127.0.0.1:\(server.port)"))
        let recipe = try bench.recipe("grades")
        let request = try bench.request("grades")
        func grades(_ configuration: HTTPSession.Configuration) async throws -> RecordSet {
            try await bench.withService(at: portal, configuration: configuration) { service, _ in
                try await service.execute(request, of: recipe, interaction: Unattended()).records
            }
        }
        let refused = await #expect(throws: UniToolError.self) { try await grades(HTTPSession.Configuration()) }
        #expect(refused?.kind == .unsafeRequest, "\(String(describing: refused))")
        #expect(
            refused?.message.contains("TLS certificate of https://127.0.0.1:\(server.port) is not trusted") == true,
            "\(String(describing: refused))")
        let insecure = {
            var configuration = HTTPSession.Configuration()
            configuration.skipTLSVerification = true
            return configuration
        }()
        // openssl's test server is not a portal: the run fails, but past the handshake.
        let failure = await #expect(throws: UniToolError.self) { try await grades(insecure) }
        #expect(failure?.description.contains("is not trusted") == false, "the handshake went through: \(String(describing: failure))")
    }

    // MARK: Recipes

    @Test("a recipe cannot read local files: a file:// fetch is refused and nothing is read")
    func recipeCannotReadFiles() async throws {
        // The user's own recipe folder, written before the catalog reads it.
        let recipes = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-recipes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: recipes) }
        let folder = recipes.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        command: passwd
        summary: reads a local file
        fetch: file:///etc/passwd
        rows: "//body"
        fields:
          text: { xpath: "." }
        """.write(to: folder.appendingPathComponent("passwd.yaml"), atomically: true, encoding: .utf8)
        let bench = try DemoServiceBench(recipes: [recipes])
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("passwd", on: demo) }
            #expect(error?.kind == .unsafeRequest, "\(String(describing: error))")
            #expect(error?.message.contains("only http and https") == true, "\(String(describing: error))")
            #expect(error?.description.contains("root:") == false)
            #expect(!bench.log.messages.contains { $0.contains("root:") })
        }
    }

    // MARK: Time limits, oversized requests, foreign redirects

    // A byte every 2 s never lets a deadline per read fire: only a deadline over the whole request
    // gives up before the demo has sent the body's last byte (two minutes on).
    @Test(
        "a 5 s request timeout (--timeout 5) against a server that trickles one byte every 2 s is portal_timeout (exit 21) before the body's end"
    )
    func tricklingServer() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let configuration = {
            var configuration = HTTPSession.Configuration()
            configuration.requestTimeout = .seconds(5)
            return configuration
        }()
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "trickle")) { demo in
            let recipe = try bench.recipe("grades")
            let request = try bench.request("grades")
            let error = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo, configuration: configuration) { service, _ in
                    try await service.execute(request, of: recipe, interaction: Unattended()).records
                }
            }
            #expect(error?.kind == .portalTimeout, "\(String(describing: error))")
            #expect(error?.message.contains("did not answer in time") == true, "\(String(describing: error))")
            #expect(await demo.tricklesFinished == 0, "the call waited for the body's end")
        }
    }

    @Test("431 from the portal says it got more than it accepts and hints 'auth logout', with no retry")
    func requestTooLarge() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "request-too-large")) { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(error?.kind == .portalError, "\(String(describing: error))")
            #expect(error?.message.contains("more than unitool accepts") == true, "\(String(describing: error))")
            #expect(error?.hint?.contains("unitool auth logout") == true, "\(String(describing: error))")
            #expect(error?.description.contains("try again later") == false, "\(String(describing: error))")
            let grades = await demo.requests.filter { $0.path == "/grades" }
            #expect(grades.count == 1, "431 is not retried: \(grades)")
        }
    }

    @Test("a data page that redirects to a foreign origin is named as such (unsafe_request, exit 23); no login is tried there")
    func foreignRedirect() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: "foreign-redirect")) { demo in
            let user = "nobody-\(UUID().uuidString.prefix(6))"
            let error = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo, user: user) }
            #expect(error?.kind == .unsafeRequest, "\(String(describing: error))")
            let description = error?.description ?? ""
            #expect(description.contains("neither the portal"), "\(description)")
            #expect(!description.contains("keyring") && !description.contains("password"), "no login was started: \(description)")
            let logins = await demo.requests.filter(\.isLogin)
            #expect(logins.isEmpty, "no login was started: \(logins)")
        }
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

    /// Whether the server accepts a connection yet.
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
