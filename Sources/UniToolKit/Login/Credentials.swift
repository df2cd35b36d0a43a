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

/// Who to log in as.
public struct Credentials: Sendable {
    public var username: String
    public var password: Secret
    /// Makes a one-time code, called only if the portal shows a one-time-code page: from a TOTP
    /// secret in the keyring, or by asking the user.
    public var oneTimeCode: (@Sendable () throws -> Secret)?

    public init(username: String, password: Secret, oneTimeCode: (@Sendable () throws -> Secret)? = nil) {
        self.username = username
        self.password = password
        self.oneTimeCode = oneTimeCode
    }
}
