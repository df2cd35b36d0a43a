import Foundation
import Synchronization
import Testing

@testable import UniToolKit

@Suite("Account: what is kept for a user, the one logout's report, and where a password comes from")
struct AccountTests {
    static let portal = try! PortalRecipe.load(
        file: "portal.yaml",
        text:
            "portal: acct\nbase_url: https://portal.example.edu\nlogin:\n  pages:\n    - { when: \"//form\", fill: { p: \"{{password}}\" } }\n"
    )

    func account() -> Account {
        Account(
            portal: Self.portal, user: "nobody-\(UUID().uuidString.prefix(6))",
            sessions: SessionStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("acct-\(UUID().uuidString)")))
    }

    @Test("a logout's report names what went, in order, or says there was nothing")
    func removedSentence() {
        let all = Account.Removed(session: true, password: true, oneTimeCodeSecret: true)
        #expect(
            all.sentence(user: "jdoe", portal: "myuni")
                == "Removed the stored password and the TOTP secret and the saved session of jdoe on myuni.")
        let none = Account.Removed(session: false, password: false, oneTimeCodeSecret: false)
        #expect(none.sentence(user: "jdoe", portal: "myuni") == "Nothing to remove for jdoe on myuni.")
        #expect(Account.Kept.unknown(.keyringLocked).description == "unknown: keyring_locked")
        // An unknown answer comes with its reason and what to do; a known one needs none.
        #expect(Account.Kept.unknown(.keyringLocked).unknownBecause?.contains("unlock it") == true)
        #expect(Account.Kept.unknown(.keyringNoService).unknownBecause?.contains("gnome-keyring-daemon") == true)
        #expect(Account.Kept.stored.unknownBecause == nil && Account.Kept.notStored.unknownBecause == nil)
    }

    @Test("a password given wins; no command runs and no keyring is read until a page asks")
    func givenFirst() throws {
        let ran = Mutex(0)
        let credentials = account().credentials(
            given: Secret("typed"),
            command: (
                "UNITOOL_PASSWORD_COMMAND",
                {
                    ran.withLock { $0 += 1 }
                    return Secret("from-command")
                }
            ),
            oneTimeCode: nil, missingHint: "h")
        #expect(ran.withLock { $0 } == 0, "nothing is read before a page asks")
        #expect(try credentials.password().reveal() == "typed")
        #expect(ran.withLock { $0 } == 0)
    }

    @Test(
        "without a given password, the command; without either, a known password; without any, credentials_missing with the front end's hint"
    )
    func order() throws {
        let command = account().credentials(
            command: ("UNITOOL_PASSWORD_COMMAND", { Secret("from-command") }), oneTimeCode: nil, missingHint: "h")
        #expect(try command.password().reveal() == "from-command")
        let known = account().credentials(known: Secret("demo-password"), oneTimeCode: nil, missingHint: "h")
        #expect(try known.password().reveal() == "demo-password")
        let nothing = account().credentials(oneTimeCode: nil, missingHint: "pass 'password'")
        #expect {
            try nothing.password()
        } throws: { error in
            guard let error = error as? UniToolError else { return false }
            // With a keyring: nothing is stored. Without one: the keyring's own error.
            return error.kind == .credentialsMissing ? error.hint == "pass 'password'" : error.kind.rawValue.hasPrefix("keyring")
        }
    }

    @Test("the saved session: there once saved, gone after the logout")
    func session() throws {
        let account = account()
        #expect(!account.hasSavedSession)
        try account.sessions.save(CookieJar(), portal: account.portal.id, user: account.user)
        #expect(account.hasSavedSession)
        try account.sessions.remove(portal: account.portal.id, user: account.user)
        #expect(!account.hasSavedSession)
    }
}
