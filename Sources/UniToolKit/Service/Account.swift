import Foundation
import OneTimeCode

/// A user's account on a portal as unitool keeps it: the password and the TOTP secret in the
/// keyring, the saved session, the record of one-time codes sent. The front ends ask it, never
/// the keyring or the session store, so that "log out" or "where does the password come from"
/// means the same from the command line and over JSON-RPC.
public struct Account: Sendable {
    public let portal: PortalRecipe
    public let user: String
    public let sessions: SessionStore

    public init(portal: PortalRecipe, user: String, sessions: SessionStore) {
        self.portal = portal
        self.user = user
        self.sessions = sessions
    }

    private var passwords: PasswordKeyring { PasswordKeyring(portal: portal) }
    private var codes: OneTimeCodeKeyring { OneTimeCodeKeyring(portal: portal) }

    // MARK: What is kept

    /// Whether a secret is in the keyring; a keyring that cannot be asked says why.
    public enum Kept: Sendable, Equatable, CustomStringConvertible {
        case stored, notStored
        case unknown(UniToolError.Kind)

        public var description: String {
            switch self {
            case .stored: return "stored"
            case .notStored: return "not stored"
            case .unknown(let kind): return "unknown: \(kind.rawValue)"
            }
        }

        /// Why the keyring could not say, and what to do, for a note beside the answer: a locked
        /// keyring is not an empty one, and "not stored" would send the person to store it again.
        public var unknownBecause: String? {
            guard case .unknown(let kind) = self else { return nil }
            switch kind {
            case .keyringLocked:
                return localized(
                    "the keyring is locked, so unitool cannot tell; unlock it (log in to the desktop, or use your keyring's unlock command) and ask again"
                )
            case .keyringNoService:
                return localized(
                    "no Secret Service (such as gnome-keyring) is running on the session bus; start gnome-keyring-daemon --components=secrets"
                )
            case .keyringUnavailable:
                return localized(
                    "there is no D-Bus session bus, so the keyring cannot be reached; run inside a desktop session or 'dbus-run-session'")
            default:
                return localized("the keyring could not be asked (\(kind.rawValue)); 'unitool doctor' checks it")
            }
        }

        init(_ read: () throws -> Bool) {
            do {
                self = try read() ? .stored : .notStored
            } catch let error as UniToolError {
                self = .unknown(error.kind)
            } catch {
                self = .unknown(.keyringFailed)
            }
        }
    }

    public var password: Kept { Kept { try passwords.isStored(for: user) } }
    public var oneTimeCodeSecret: Kept { Kept { try codes.isStored(for: user) } }
    public var hasSavedSession: Bool { sessions.exists(portal: portal.id, user: user) }

    /// The stored password, if it may go where this definition of the portal sends it.
    public func storedPassword() throws -> Secret? { try passwords.password(for: user) }

    /// Stores a password (`auth login`, `auth.login`), bound to the portal's credential origins.
    public func storePassword(_ password: Secret) throws { try passwords.store(password, for: user) }

    public func storeOneTimeCodeSecret(_ generator: TOTP) throws { try codes.store(generator, for: user) }

    @discardableResult
    public func removeOneTimeCodeSecret() throws -> Bool { try codes.remove(user: user) }

    // MARK: Logging out

    /// What a logout removed.
    public struct Removed: Sendable, Equatable {
        public var session: Bool
        public var password: Bool
        public var oneTimeCodeSecret: Bool

        /// "Removed the stored password and the saved session of jdoe on myuni."
        public func sentence(user: String, portal: String) -> String {
            let parts = [
                password ? localized("the stored password") : nil, oneTimeCodeSecret ? localized("the TOTP secret") : nil,
                session ? localized("the saved session") : nil,
            ].compactMap { $0 }
            switch parts.count {
            case 0: return localized("Nothing to remove for \(user) on \(portal).")
            case 1: return localized("Removed \(parts[0]) of \(user) on \(portal).")
            case 2: return localized("Removed \(parts[0]) and \(parts[1]) of \(user) on \(portal).")
            default: return localized("Removed \(parts[0]) and \(parts[1]) and \(parts[2]) of \(user) on \(portal).")
            }
        }
    }

    /// The one logout: the saved session (and its stale temporaries), and unless the secrets are
    /// kept, the password and the TOTP secret. `auth logout` and `auth.logout` both call it.
    public func logOut(keepingSecrets: Bool = false) throws -> Removed {
        let hadSession = hasSavedSession
        try sessions.remove(portal: portal.id, user: user)
        guard !keepingSecrets else { return Removed(session: hadSession, password: false, oneTimeCodeSecret: false) }
        let password = try passwords.remove(user: user)
        let secret = try codes.remove(user: user)
        try? FileManager.default.removeItem(at: OneTimeCodeLedger(portal: portal.id, user: user, store: sessions).file)
        return Removed(session: hadSession, password: password, oneTimeCodeSecret: secret)
    }

    // MARK: Where credentials come from

    /// The credential policy, one for every front end. The password, read only when a login
    /// page asks for it, comes from, in order:
    ///
    /// 1. `given`: typed, piped in (`--password-stdin`), or passed to `auth.login` (`givenAs`
    ///    says which, for the hint when the portal refuses it);
    /// 2. `command`: `UNITOOL_PASSWORD_COMMAND`, run by the front end, and only for a definition of
    ///    the portal that sends the password nowhere the one it replaced did not;
    /// 3. the keyring, under the release rules of `PasswordKeyring`;
    /// 4. `known`: a password known without asking (a demo user's), when nothing above has one;
    /// 5. the person behind the call's `Interaction`, if one can type it (a terminal): used for
    ///    this login only, never stored.
    ///
    /// Nothing left is `credentialsMissing`, with `missingHint` saying what this front end can do.
    public func credentials(
        given: Secret? = nil, givenAs: PasswordOrigin = .given("--password-stdin"),
        command: (source: String, run: @Sendable () throws -> Secret)? = nil,
        known: Secret? = nil, oneTimeCode: (@Sendable () throws -> Secret)?, missingHint: String
    ) -> Credentials {
        let account = self
        let origin = PasswordOriginRecord()
        return Credentials(
            username: user, origin: origin,
            passwordSource: {
                if let given {
                    origin.note(givenAs)
                    return given
                }
                if let command {
                    try PasswordKeyring.checkOutsideSecret(for: account.portal, source: command.source)
                    origin.note(.command(command.source))
                    return try command.run()
                }
                let interaction = CurrentInteraction.value
                var keyringFailure: UniToolError?
                do {
                    if let stored = try account.storedPassword() {
                        origin.note(.keyring)
                        return stored
                    }
                } catch let error as UniToolError
                    where (known != nil || interaction.canTypePassword) && error.kind != .credentialsMissing
                {
                    // No keyring here (a server, CI): the known or typed password still serves.
                    keyringFailure = error
                }
                if let known {
                    origin.note(.known)
                    return known
                }
                if interaction.canTypePassword,
                    let typed = interaction.typePassword(account.portal.passwordPrompt(user: account.user)), !typed.isEmpty
                {
                    origin.note(.typed)
                    return typed
                }
                if let keyringFailure { throw keyringFailure }
                throw UniToolError(
                    .credentialsMissing,
                    localized("no password was given and none is stored for \(account.user) on portal '\(account.portal.id)'"),
                    hint: missingHint)
            }, oneTimeCode: oneTimeCode)
    }

    /// Where one-time codes come from for this account (`OneTimeCodeSource`): the TOTP secret in
    /// the keyring, then `command`, then the person behind the call's `Interaction`, if one can
    /// type; never the same code twice. The secret and the command serve only where the password
    /// would (`OneTimeCodeKeyring`, `checkOutsideSecret`): a code opens the account as the password does.
    public func oneTimeCodes(
        command: (@Sendable () throws -> Secret)? = nil, registerSecret: @escaping @Sendable (String) -> Void = { _ in }
    ) -> @Sendable () throws -> Secret {
        let codes = self.codes
        let user = self.user
        let portal = self.portal
        let checkedCommand = command.map { command in
            { @Sendable () throws -> Secret in
                try PasswordKeyring.checkOutsideSecret(for: portal, source: "UNITOOL_TOTP_COMMAND", what: localized("one-time codes"))
                return try command()
            }
        }
        let ledger = OneTimeCodeLedger(portal: portal.id, user: user, store: sessions)
        return { @Sendable () throws -> Secret in
            // Asked when the portal shows its code page, inside the call, so the call's own interaction answers.
            let interaction = CurrentInteraction.value
            let source = OneTimeCodeSource(
                portal: portal.id, user: user, storedGenerator: { try codes.generator(for: user) }, command: checkedCommand,
                prompt: interaction.canTypeOneTimeCode ? { @Sendable question in interaction.typeOneTimeCode(question) } : nil,
                notify: { interaction.explainWait($0) }, registerSecret: registerSecret, ledger: ledger)
            return try source.code()
        }
    }
}
