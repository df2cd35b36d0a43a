import Synchronization

/// A password that does not show itself: printing, logging or interpolating it gives
/// `<redacted>`. Its bytes are wiped when the last copy goes away.
public final class Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    nonisolated(unsafe) private var bytes: [UInt8]

    public init(_ text: String) { self.bytes = Array(text.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The secret as text, for the one place that must send it.
    public func reveal() -> String { String(decoding: bytes, as: UTF8.self) }

    /// The secret's bytes, for the keyring.
    public func revealBytes() -> [UInt8] { bytes }

    public var isEmpty: Bool { bytes.isEmpty }
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }

    deinit {
        for index in bytes.indices { bytes[index] = 0 }
    }
}

/// Where a login's password came from, once a page asked for it: what the hint of a refused
/// password names, since "give it again with --password-stdin" is no help to a cron job whose
/// password came from `UNITOOL_PASSWORD_COMMAND`.
public enum PasswordOrigin: Sendable, Equatable {
    /// Given with the request: piped to `--password-stdin`, passed to `auth.login` (in words).
    case given(String)
    /// A command's output: the environment variable that named it.
    case command(String)
    /// The password stored in the keyring.
    case keyring
    /// A password known without asking (a demo user's).
    case known
    /// Typed at a prompt for this login.
    case typed

    /// What to do when the portal refused this password.
    public func refusedHint(portal: String, user: String) -> String {
        switch self {
        case .given(let how):
            return localized("check the user name, then give the password again (\(how))")
        case .command(let variable):
            return localized(
                "the password came from \(variable): check the user name, and that the command prints the current password for \(user) on \(portal) (and nothing else)"
            )
        case .keyring:
            return localized(
                "the password came from the keyring: if it changed, store the new one with 'unitool auth login --portal \(portal) --user \(user)'"
            )
        case .known:
            return localized(
                "the demo's own password for \(user) was refused: check the user name ('unitool demo users' lists the demo's users)")
        case .typed:
            return localized("check the user name, then type the password again")
        }
    }
}

/// Which `PasswordOrigin` served a login, noted by the password source when it is read. A
/// reference, so that the copies of `Credentials` a login passes around share it.
public final class PasswordOriginRecord: Sendable {
    private let origin = Mutex<PasswordOrigin?>(nil)

    public init() {}

    public func note(_ origin: PasswordOrigin) { self.origin.withLock { $0 = origin } }
    public var value: PasswordOrigin? { origin.withLock { $0 } }
}

/// Who to log in as, and where the secrets come from.
///
/// The password and the one-time code are produced at the moment a login page's rule fills
/// `{{password}}` or `{{totp}}`, and not before: a login through a live IdP session, which
/// answers with the SAML POST at once, never reads the keyring or runs a password command, so a
/// cron job with no keyring re-logs in through it.
public struct Credentials: Sendable {
    public var username: String
    /// Produces the password; called at most once per login, and only if a page asks for it.
    public var password: @Sendable () throws -> Secret
    /// Makes a one-time code, called only if the portal shows a one-time-code page
    /// (`OneTimeCodeSource.code`).
    public var oneTimeCode: (@Sendable () throws -> Secret)?

    /// Where the password came from, once it was read (nil before, or when the source did not say).
    public let origin: PasswordOriginRecord

    /// A password known already (typed, piped in, given to `auth.login`), `givenAs` saying how.
    public init(
        username: String, password: Secret, givenAs: PasswordOrigin = .given(localized("--password-stdin, or 'unitool auth login'")),
        oneTimeCode: (@Sendable () throws -> Secret)? = nil
    ) {
        let origin = PasswordOriginRecord()
        self.username = username
        self.password = {
            origin.note(givenAs)
            return password
        }
        self.oneTimeCode = oneTimeCode
        self.origin = origin
    }

    /// A password to be read only if a page asks for it (the keyring, a password command), which
    /// notes in `origin` where it came from.
    public init(
        username: String, origin: PasswordOriginRecord = PasswordOriginRecord(), passwordSource: @escaping @Sendable () throws -> Secret,
        oneTimeCode: (@Sendable () throws -> Secret)? = nil
    ) {
        self.username = username
        self.password = passwordSource
        self.oneTimeCode = oneTimeCode
        self.origin = origin
    }
}
