import Foundation
import MessageDigest
import OneTimeCode

/// When a one-time code may be sent: a pure decision, tested on its own.
///
/// Keycloak, CAS and most IdPs refuse a code that was already used, and count the refusal as a
/// failed attempt: five quick runs that each sent the current window's code locked an account.
/// So a code made from a TOTP secret is never made twice for the same time step, and a code from
/// elsewhere (a command, the terminal) is never sent again while it may still be the current one.
public enum OneTimeCodeSchedule {
    /// The time step to make a code for, and how long to wait until it begins: the current
    /// step, unless it (or a later one) was used already, then the one after the last used.
    public static func step(now: Date, period: Int, lastUsedStep: Int64?) -> (step: Int64, wait: TimeInterval) {
        let seconds = max(0, now.timeIntervalSince1970)
        let current = Int64(seconds / Double(period))
        guard let lastUsedStep, lastUsedStep >= current else { return (current, 0) }
        let next = lastUsedStep + 1
        return (next, Double(next) * Double(period) - seconds)
    }

    /// How long a code from outside (a command, the terminal) counts as "maybe still current":
    /// two 30-second windows, as IdPs accept the previous window's code too.
    public static let reuseWindow: TimeInterval = 60

    /// Whether a code from outside may be sent: not if it is the one sent last, within the window.
    public static func maySend(digest: String, last: OneTimeCodeLedger.Entry?, now: Date) -> Bool {
        guard let last, last.digest == digest else { return true }
        return now.timeIntervalSince(last.sentAt) >= reuseWindow
    }
}

/// The last one-time code sent for a portal and user, kept beside the saved session so that
/// every unitool process sees it: the time step (for codes made from a TOTP secret) and a
/// digest of the code (for codes from elsewhere). Never the code itself.
public struct OneTimeCodeLedger: Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var step: Int64?
        public var digest: String
        public var sentAt: Date
    }

    public let file: URL

    public init(portal: String, user: String, store: SessionStore) {
        self.file = store.file(portal: portal, user: user).deletingPathExtension().appendingPathExtension("otp.json")
    }

    /// Runs `body` holding the ledger's lock, so that two processes never decide on the same
    /// code: the second waits, then sees the first one's entry.
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        try FileLock.withExclusiveLock(beside: file, body)
    }

    public func read() -> Entry? {
        guard let data = try? PrivateFile.read(file) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Entry.self, from: data)
    }

    public func write(_ entry: Entry) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(entry), to: file, mode: 0o600)
    }

    /// A digest that tells two codes apart without keeping either.
    static func digest(_ code: String, salt: String) -> String {
        MessageDigest.sha256((salt + "\u{0}" + code).utf8).lowercaseHex
    }
}

/// Where one-time codes come from, in order, and the rule that none is sent twice.
///
/// 1. the TOTP secret in the keyring: a code for a time step no earlier process used; if the
///    current step was used, unitool waits for the next one and says so;
/// 2. `UNITOOL_TOTP_COMMAND` (`oathtool --totp -b ...`, `pass otp uni`): its first line;
///    a code equal to the last one sent is asked for again after a wait;
/// 3. the user at a terminal.
///
/// Otherwise the portal's one-time-code page is `mfaRequired`. Called only when a login page
/// asks for a code.
public struct OneTimeCodeSource: Sendable {
    public var portal: String
    public var user: String
    /// The stored TOTP secret, if any (the keyring, read only now).
    public var storedGenerator: @Sendable () throws -> TOTP?
    /// `UNITOOL_TOTP_COMMAND`, run by the front end, if it is set.
    public var command: (@Sendable () throws -> Secret)?
    /// Asks the user at a terminal; nil when there is none.
    public var prompt: (@Sendable (String) -> String?)?
    /// Tells the user why unitool waits.
    public var notify: @Sendable (String) -> Void
    /// Registers a secret with the trace before it is used.
    public var registerSecret: @Sendable (String) -> Void
    public var ledger: OneTimeCodeLedger?
    /// Waits; a test can make time pass faster.
    public var sleep: @Sendable (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) }
    public var now: @Sendable () -> Date = { Date() }

    public init(
        portal: String, user: String, storedGenerator: @escaping @Sendable () throws -> TOTP?,
        command: (@Sendable () throws -> Secret)? = nil, prompt: (@Sendable (String) -> String?)? = nil,
        notify: @escaping @Sendable (String) -> Void = { _ in }, registerSecret: @escaping @Sendable (String) -> Void = { _ in },
        ledger: OneTimeCodeLedger?
    ) {
        self.portal = portal
        self.user = user
        self.storedGenerator = storedGenerator
        self.command = command
        self.prompt = prompt
        self.notify = notify
        self.registerSecret = registerSecret
        self.ledger = ledger
    }

    /// A code that was never sent before, recorded in the ledger before it is returned.
    public func code() throws -> Secret {
        var keyringError: UniToolError?
        do {
            if let generator = try storedGenerator() {
                let base32 = Base32.encode(generator.secret)
                for form in [base32, base32.lowercased(), generator.uri] { registerSecret(form) }
                return try fresh { last in
                    let (step, wait) = OneTimeCodeSchedule.step(now: now(), period: generator.period, lastUsedStep: last?.step)
                    if wait > 0 {
                        let seconds = Int(wait.rounded(.up))
                        notify(localized("The current one-time code was already used; waiting \(seconds) s for the next one."))
                        sleep(wait)
                    }
                    return (generator.code(counter: UInt64(step)), step)
                }
            }
        } catch let error as UniToolError where error.kind == .credentialsMissing {
            // The secret is stored, but for origins this definition of the portal would send
            // codes beyond: a refusal, not an outage, so no other source stands in for it.
            throw error
        } catch let error as UniToolError {
            keyringError = error
        }
        if let command {
            return try fresh { last in
                for attempt in 0..<8 {
                    let code = try command().reveal()
                    if OneTimeCodeSchedule.maySend(digest: digest(code), last: last, now: now()) { return (code, nil) }
                    if attempt == 0 {
                        notify(localized("UNITOOL_TOTP_COMMAND gave the code that was just used; waiting for the next one."))
                    }
                    sleep(5)
                }
                throw UniToolError(
                    .mfaRequired,
                    localized("UNITOOL_TOTP_COMMAND kept giving the one-time code that was already sent for \(user) on '\(portal)'"),
                    hint: localized("a code is sent only once; check that the command makes time-based codes (oathtool --totp)"))
            }
        }
        if let prompt {
            return try fresh { last in
                // A code sent moments ago means the login is being asked again (the portal started
                // it over after an expired page): say so, or the second prompt looks like a fault.
                var question = localized("One-time code for \(user) on \(portal): ")
                if let last, now().timeIntervalSince(last.sentAt) < 120 {
                    question = localized("The portal started the login over, so it needs a new one-time code for \(user) on \(portal): ")
                }
                for _ in 0..<3 {
                    guard let code = prompt(question), !code.isEmpty else { break }
                    if OneTimeCodeSchedule.maySend(digest: digest(code), last: last, now: now()) { return (code, nil) }
                    question = localized("That code was just used, and the portal would refuse it. Wait for the next one: ")
                }
                throw UniToolError(.mfaRequired, localized("no new one-time code was typed for \(user) on '\(portal)'"))
            }
        }
        if let keyringError { throw keyringError }
        throw UniToolError(
            .mfaRequired, localized("the portal asks for a one-time code, and no TOTP secret is stored for \(user) on '\(portal)'"),
            hint: localized(
                "store the secret once with 'unitool auth totp set --portal \(portal) --user \(user)' (an otpauth:// URI or the base32 secret), set UNITOOL_TOTP_COMMAND (such as 'oathtool --totp -b SECRET'), or run on a terminal and type the code"
            )
        )
    }

    private func digest(_ code: String) -> String { OneTimeCodeLedger.digest(code, salt: "\(portal)/\(user)") }

    /// Makes a code under the ledger's lock and records it before it leaves.
    private func fresh(_ make: (OneTimeCodeLedger.Entry?) throws -> (code: String, step: Int64?)) throws -> Secret {
        guard let ledger else {
            let made = try make(nil)
            registerSecret(made.code)
            return Secret(made.code)
        }
        var failedInside: (any Error)?
        do {
            return try ledger.withLock {
                do {
                    let made = try make(ledger.read())
                    registerSecret(made.code)
                    do {
                        try ledger.write(.init(step: made.step, digest: digest(made.code), sentAt: now()))
                    } catch {
                        // Without the record the next run could send this code again; say so,
                        // but let this login go on.
                        notify(localized("could not record the one-time code's use in \(ledger.file.path): \(error)"))
                    }
                    return Secret(made.code)
                } catch {
                    failedInside = error
                    throw error
                }
            }
        } catch {
            if let failedInside { throw failedInside }
            // The lock itself failed (a read-only state folder): the login goes on unrecorded.
            notify(localized("cannot record one-time codes (\(error)); this run cannot tell whether another just used the current code"))
            let made = try make(nil)
            registerSecret(made.code)
            return Secret(made.code)
        }
    }
}
