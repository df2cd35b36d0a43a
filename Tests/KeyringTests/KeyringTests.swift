import Foundation
import Keyring
import Testing
import UniToolTestSupport

/// Against the real gnome-keyring that `Scripts/test.sh` starts in a private D-Bus session.
/// Skipped outside that script, so a bare `swift test` never touches your own keyring.
@Suite(
    "Keyring over the Secret Service",
    .enabled(if: Needs.check(TestKeyring.isPrivate, "the private keyring of Scripts/test.sh"), "run through Scripts/test.sh"), .serialized)
struct KeyringTests {
    let keyring = Keyring()
    let service = "unitool-test:\(UUID().uuidString)"

    func attributes(_ user: String, kind: String = "password") -> [String: String] {
        ["service": service, "username": user, "kind": kind]
    }

    @Test("store, search, overwrite and clear a secret by its attributes")
    func roundTrip() throws {
        #expect(try keyring.search(attributes("alice")).isEmpty)
        try keyring.store(secret: Array("first-pässword".utf8), attributes: attributes("alice"), label: "test")
        #expect(try keyring.search(attributes("alice")).map(\.secret) == [Array("first-pässword".utf8)])
        try keyring.store(secret: Array("second".utf8), attributes: attributes("alice"), label: "test")
        let found = try keyring.search(attributes("alice"))
        #expect(found.map(\.secret) == [Array("second".utf8)])
        #expect(found.first?.attributes["kind"] == "password")
        #expect(try keyring.search(attributes("bob")).isEmpty)
        #expect(try keyring.clear(attributes("alice")))
        #expect(try keyring.search(attributes("alice")).isEmpty)
        #expect(try keyring.clear(attributes("alice")) == false)
    }

    @Test("items that differ only in the kind attribute are told apart, never mixed up")
    func kindAttributeSeparatesItems() throws {
        try keyring.store(secret: Array("the-password".utf8), attributes: attributes("erin"), label: "test")
        try keyring.store(
            secret: Array("otpauth://totp/x?secret=JBSWY3DP".utf8), attributes: attributes("erin", kind: "totp"), label: "test")
        #expect(try keyring.search(attributes("erin")).map(\.secret) == [Array("the-password".utf8)])
        #expect(try keyring.search(attributes("erin", kind: "totp")).map(\.secret) == [Array("otpauth://totp/x?secret=JBSWY3DP".utf8)])
        try keyring.clear(attributes("erin"))
        try keyring.clear(attributes("erin", kind: "totp"))
    }

    @Test("a secret stored by unitool is read by secret-tool")
    func secretToolReadsOurEntry() throws {
        try keyring.store(secret: Array("from-unitool".utf8), attributes: attributes("carol"), label: "test")
        let output = try SecretTool.run(["lookup", "service", service, "username", "carol", "kind", "password"])
        #expect(output == "from-unitool")
        try keyring.clear(attributes("carol"))
    }

    @Test("a secret stored by secret-tool is read by unitool")
    func weReadSecretToolEntry() throws {
        _ = try SecretTool.run(
            ["store", "--label=test", "service", service, "username", "dave", "kind", "password"], input: "from-secret-tool")
        #expect(try keyring.search(attributes("dave")).map(\.secret) == [Array("from-secret-tool".utf8)])
        #expect(try keyring.clear(attributes("dave")))
    }
}

enum TestKeyring {
    /// True inside Scripts/test.sh, whose keyring is private and throw-away.
    static var isPrivate: Bool {
        ProcessInfo.processInfo.environment["UNITOOL_TEST_SANDBOX"] != nil
            && ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil
    }
}
