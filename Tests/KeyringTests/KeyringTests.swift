import CLibSecret
import CLibSecretABICheck
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

/// libsecret is loaded with dlopen on first use, through declarations of its ABI of unitool's own
/// (Sources/CLibSecret/secret_abi.h). These need no keyring.
@Suite("libsecret loaded on demand")
struct SecretLibraryTests {
    @Test("the declared ABI matches libsecret's and GLib's real headers")
    func declaredABIMatchesHeaders() {
        var assumed = unitool_secret_abi_facts()
        var real = unitool_secret_abi_facts()
        unitool_secret_assumed_abi(&assumed)
        unitool_secret_real_abi(&real)
        #expect(assumed.schema_size == real.schema_size)
        #expect(assumed.schema_flags_offset == real.schema_flags_offset)
        #expect(assumed.schema_attributes_offset == real.schema_attributes_offset)
        #expect(assumed.schema_attribute_size == real.schema_attribute_size)
        #expect(assumed.error_size == real.error_size)
        #expect(assumed.error_code_offset == real.error_code_offset)
        #expect(assumed.error_message_offset == real.error_message_offset)
        #expect(assumed.list_size == real.list_size)
        #expect(assumed.list_next_offset == real.list_next_offset)
        #expect(assumed.dont_match_name == real.dont_match_name)
        #expect(assumed.search_all == real.search_all)
        #expect(assumed.search_unlock == real.search_unlock)
        #expect(assumed.search_load_secrets == real.search_load_secrets)
        #expect(assumed.attribute_string == real.attribute_string)
        #expect(assumed.error_is_locked == real.error_is_locked)
        #expect(assumed.io_error_cancelled == real.io_error_cancelled)
        #expect(assumed.service_none == real.service_none)
        #expect(assumed.collection_none == real.collection_none)
        #expect(String(cString: assumed.collection_default) == String(cString: real.collection_default))
    }

    @Test("the installed libsecret has every function unitool calls")
    func installedLibraryServes() {
        #expect(Keyring.probeLibrary(named: "libsecret-1.so.0") == nil)
    }

    @Test("a missing library, or one that is not libsecret, is refused with the reason")
    func wrongLibrariesAreRefused() {
        let missing = Keyring.probeLibrary(named: "libunitool-no-such-library.so.0")
        #expect(missing?.contains("cannot load libunitool-no-such-library.so.0") == true)
        // GLib itself: it loads, but has none of libsecret's functions.
        let notSecret = Keyring.probeLibrary(named: "libglib-2.0.so.0")
        #expect(notSecret == "libglib-2.0.so.0 was loaded but has no function secret_password_storev_sync")
    }

    @Test("the version reported is the one of the headers unitool was built with")
    func versionFromHeaders() {
        #expect(Keyring.libsecretVersion.hasPrefix("0."))
    }
}
