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

    /// A password known already (typed, piped in, given to `auth.login`).
    public init(username: String, password: Secret, oneTimeCode: (@Sendable () throws -> Secret)? = nil) {
        self.username = username
        self.password = { password }
        self.oneTimeCode = oneTimeCode
    }

    /// A password to be read only if a page asks for it (the keyring, a password command).
    public init(
        username: String, passwordSource: @escaping @Sendable () throws -> Secret, oneTimeCode: (@Sendable () throws -> Secret)? = nil
    ) {
        self.username = username
        self.password = passwordSource
        self.oneTimeCode = oneTimeCode
    }
}
