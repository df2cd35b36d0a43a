import Foundation
import Keyring
import Testing
import UniToolTestSupport

/// Against the real gnome-keyring that `Scripts/test.sh` starts in a private D-Bus session.
/// Skipped outside that script, so a bare `swift test` never touches your own keyring.
@Suite("Keyring over the Secret Service", .enabled(if: TestKeyring.isPrivate, "run through Scripts/test.sh"), .serialized)
struct KeyringTests {
    let keyring = Keyring(service: "unitool-test:\(UUID().uuidString)")

    @Test("store, look up, overwrite and clear a password")
    func roundTrip() throws {
        #expect(try keyring.lookup(username: "alice") == nil)
        try keyring.store(password: Array("first-pässword".utf8), username: "alice", label: "test")
        #expect(try keyring.lookup(username: "alice") == Array("first-pässword".utf8))
        try keyring.store(password: Array("second".utf8), username: "alice", label: "test")
        #expect(try keyring.lookup(username: "alice") == Array("second".utf8))
        #expect(try keyring.lookup(username: "bob") == nil)
        #expect(try keyring.clear(username: "alice"))
        #expect(try keyring.lookup(username: "alice") == nil)
        #expect(try keyring.clear(username: "alice") == false)
    }

    @Test("a password stored by unitool is read by secret-tool")
    func secretToolReadsOurEntry() throws {
        try keyring.store(password: Array("from-unitool".utf8), username: "carol", label: "test")
        let output = try TestKeyring.secretTool(["lookup", "service", keyring.service, "username", "carol"])
        #expect(output == "from-unitool")
        try keyring.clear(username: "carol")
    }

    @Test("a password stored by secret-tool is read by unitool")
    func weReadSecretToolEntry() throws {
        _ = try TestKeyring.secretTool(
            ["store", "--label=test", "service", keyring.service, "username", "dave"], input: "from-secret-tool")
        #expect(try keyring.lookup(username: "dave") == Array("from-secret-tool".utf8))
        #expect(try keyring.clear(username: "dave"))
    }
}

enum TestKeyring {
    /// True inside Scripts/test.sh, whose keyring is private and throw-away.
    static var isPrivate: Bool {
        ProcessInfo.processInfo.environment["UNITOOL_TEST_SANDBOX"] != nil
            && ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil
    }

    static func secretTool(_ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
