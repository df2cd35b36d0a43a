import Foundation
import Keyring
import OneTimeCode

/// unitool's passwords in the desktop keyring, one entry per portal and user, readable with
/// `secret-tool lookup service unitool:<portal> username <user>`.
public struct PasswordKeyring: Sendable {
    public let portal: String
    private let keyring: Keyring

    public init(portal: String) {
        self.portal = portal
        self.keyring = Keyring(service: Self.service(for: portal))
    }

    /// The `service` attribute of the keyring entry.
    public static func service(for portal: String) -> String { "unitool:\(portal)" }

    public func password(for user: String) throws -> Secret? {
        do {
            return try keyring.lookup(username: user).map { Secret(bytes: $0) }
        } catch {
            throw Self.translate(error, doing: "read the password of \(user) from")
        }
    }

    public func store(_ password: Secret, for user: String) throws {
        do {
            try keyring.store(
                password: password.revealBytes(), username: user, label: "unitool: \(user) on \(portal)")
        } catch {
            throw Self.translate(error, doing: "store the password of \(user) in")
        }
    }

    @discardableResult
    public func remove(user: String) throws -> Bool {
        do {
            return try keyring.clear(username: user)
        } catch {
            throw Self.translate(error, doing: "remove the password of \(user) from")
        }
    }

    static let alternatives =
        "give the password with --password-stdin, or set UNITOOL_PASSWORD_COMMAND to a command that prints it (for example 'pass show uni/portal')"

    /// Turns libsecret's error into one that names the cause and the alternatives.
    static func translate(_ error: KeyringError, doing action: String) -> UniToolError {
        switch error.reason {
        case .noSessionBus:
            return UniToolError(
                .keyringUnavailable,
                "cannot \(action) the keyring: there is no D-Bus session bus, so the Secret Service cannot be reached (\(error.detail))",
                hint: "\(alternatives); or run inside a desktop session or 'dbus-run-session'")
        case .noSecretService:
            return UniToolError(
                .keyringNoService,
                "cannot \(action) the keyring: no Secret Service (such as gnome-keyring) is running on the session bus (\(error.detail))",
                hint: "start gnome-keyring-daemon --components=secrets, or \(alternatives)")
        case .locked:
            return UniToolError(
                .keyringLocked, "cannot \(action) the keyring: the keyring is locked (\(error.detail))",
                hint: "unlock it (log in to the desktop, or use your keyring's unlock command), or \(alternatives)")
        case .cancelled:
            return UniToolError(
                .keyringPromptCancelled, "cannot \(action) the keyring: the unlock prompt was cancelled",
                hint: "run the command again and unlock the keyring, or \(alternatives)")
        case .failed:
            return UniToolError(
                .keyringFailed, "cannot \(action) the keyring: \(error.detail)", hint: alternatives)
        }
    }
}

/// TOTP secrets in the keyring, beside the passwords, under the service `unitool:<portal>:totp`.
/// They are stored as an `otpauth://` URI so that digits, period and algorithm stay with the
/// secret; `secret-tool lookup service unitool:<portal>:totp username <user>` reads one back.
public struct OneTimeCodeKeyring: Sendable {
    public let portal: String
    private let keyring: Keyring

    public init(portal: String) {
        self.portal = portal
        self.keyring = Keyring(service: Self.service(for: portal))
    }

    public static func service(for portal: String) -> String { "unitool:\(portal):totp" }

    /// The user's code generator, or nil if no secret is stored.
    public func generator(for user: String) throws -> TOTP? {
        let bytes: [UInt8]?
        do {
            bytes = try keyring.lookup(username: user)
        } catch {
            throw PasswordKeyring.translate(error, doing: "read the TOTP secret of \(user) from")
        }
        guard var bytes else { return nil }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        do {
            return try TOTP(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw UniToolError(
                .stateCorrupt, "the TOTP secret stored for \(user) on '\(portal)' cannot be read: \(error)",
                hint: "store it again with 'unitool auth totp set --portal \(portal) --user \(user)'")
        }
    }

    public func store(_ generator: TOTP, for user: String) throws {
        do {
            try keyring.store(
                password: Array(generator.uri.utf8), username: user, label: "unitool: TOTP secret of \(user) on \(portal)")
        } catch {
            throw PasswordKeyring.translate(error, doing: "store the TOTP secret of \(user) in")
        }
    }

    @discardableResult
    public func remove(user: String) throws -> Bool {
        do {
            return try keyring.clear(username: user)
        } catch {
            throw PasswordKeyring.translate(error, doing: "remove the TOTP secret of \(user) from")
        }
    }
}

/// `UNITOOL_PASSWORD_COMMAND`: a command whose first line of output is the password, as with
/// `pass show uni/portal`. It runs through `/bin/sh -c` with `UNITOOL_PORTAL` and `UNITOOL_USER`
/// set, so one command can serve several accounts.
public enum PasswordCommand {
    public static let environmentVariable = "UNITOOL_PASSWORD_COMMAND"

    public static func run(_ command: String, portal: String, user: String, timeout: TimeInterval = 120) throws -> Secret {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["UNITOOL_PORTAL"] = portal
        environment["UNITOOL_USER"] = user
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw UniToolError(
                .credentialsMissing, "\(environmentVariable) could not be started: \(error)",
                hint: "check the command in \(environmentVariable)")
        }
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        var bytes = Array(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        timer.cancel()
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard process.terminationStatus == 0 else {
            throw UniToolError(
                .credentialsMissing,
                "\(environmentVariable) failed (exit status \(process.terminationStatus)); its output was not used",
                hint: "run the command by hand to see what is wrong")
        }
        let firstLine = Array(bytes.prefix { $0 != 0x0A && $0 != 0x0D })
        guard !firstLine.isEmpty else {
            throw UniToolError(
                .credentialsMissing, "\(environmentVariable) printed nothing",
                hint: "the command must print the password on its first line")
        }
        return Secret(bytes: firstLine)
    }
}
