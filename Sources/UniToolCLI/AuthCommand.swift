import ArgumentParser
import DemoUniversity
import Foundation
import OneTimeCode
import UniToolKit

/// `unitool auth login|status|logout`: the password in the keyring, and the saved session.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: "Store, check or remove your password and session.",
        discussion: """
            The password is kept in the desktop keyring (the Secret Service, such as gnome-keyring),
            never in a file, bound to the origins the portal's definition may send it to. Read it back with:
              secret-tool lookup service unitool portal <portal> username <user> kind password
            """,
        subcommands: [Login.self, Status.self, Logout.self, OneTimeCodes.self])

    struct OneTimeCodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp", abstract: "Store or remove the TOTP secret that answers one-time-code pages.",
            discussion: """
                Portals with two-factor login ask for a 6-digit code from an authenticator app. unitool can
                make the same codes (RFC 6238) from the app's secret, kept in the keyring with the attributes
                service unitool, portal <portal>, username <user> and kind totp. Without a stored secret, unitool asks for the code on the terminal.
                """,
            subcommands: [Set.self, Remove.self])

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Store a TOTP secret: an otpauth:// URI (from the QR code) or the base32 secret.",
                discussion: "Reads it from standard input, or asks on the terminal without echo. It is never taken from argv.")
            @OptionGroup var globals: GlobalOptions

            func run() async throws {
                let environment = try CommandEnvironment(options: globals)
                let portal = try environment.catalog.portal(try environment.portalID())
                let user = try environment.user(for: portal)
                let input =
                    isatty(STDIN_FILENO) == 1
                    ? try TerminalPrompt.readPassword(prompt: "TOTP secret or otpauth:// URI for \(user) on \(portal.name): ")
                    : try PasswordInput.readStandardInput()
                let generator: TOTP
                do {
                    generator = try TOTP(parsing: input.reveal())
                } catch {
                    throw UniToolError(
                        .usage, "that is not a TOTP secret: \(error)",
                        hint: "give the otpauth://totp/... URI behind the QR code, or the base32 secret your portal showed")
                }
                try OneTimeCodeKeyring(portal: portal.id).store(generator, for: user)
                FileHandle.standardError.write(
                    Data(
                        "Stored the TOTP secret of \(user) on \(portal.id) in the keyring (\(generator.digits) digits every \(generator.period) s, \(generator.algorithm.rawValue)).\n"
                            .utf8))
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove the stored TOTP secret.")
            @OptionGroup var globals: GlobalOptions

            func run() async throws {
                let environment = try CommandEnvironment(options: globals)
                let portal = try environment.catalog.portal(try environment.portalID())
                let user = try environment.user(for: portal)
                let removed = try OneTimeCodeKeyring(portal: portal.id).remove(user: user)
                FileHandle.standardError.write(
                    Data((removed ? "Removed the TOTP secret of \(user) on \(portal.id).\n" : "No TOTP secret was stored for \(user) on \(portal.id).\n").utf8))
            }
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a password by logging in, then store it in the keyring.",
            discussion: "Asks for the password without echo, or reads it with --password-stdin. A password the portal rejects is never stored.")
        @OptionGroup var globals: GlobalOptions
        @Flag(help: "Store the password without checking it by logging in.") var noVerify = false

        func run() async throws {
            let environment = try CommandEnvironment(options: globals)
            let portal = try environment.catalog.portal(try environment.portalID())
            let user = try environment.user(for: portal)
            let password =
                globals.passwordStdin
                ? try PasswordInput.readStandardInput()
                : try TerminalPrompt.readPassword(prompt: "Password for \(user) on \(portal.name): ")
            let keyring = PasswordKeyring(portal: portal)
            if !noVerify {
                try await environment.withPortal(portal, user: user, credentials: { Credentials(username: user, password: password) }) {
                    connection in
                    Progress.say("Logging in to \(portal.name) as \(user)…")
                    _ = try await connection.logIn()
                    try connection.saveSession()
                }
            }
            try keyring.store(password, for: user)
            let note =
                noVerify ? "Stored the password (not checked)" : "Logged in and stored the password"
            FileHandle.standardError.write(
                Data(
                    "\(note) for \(user) on \(portal.id) in the keyring.\nRead it back with: secret-tool lookup service unitool portal \(portal.id) username \(user) kind password\n"
                        .utf8))
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the portal, the user, whether a password is stored and whether the saved session is valid.")
        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: globals)
            let portal = try environment.catalog.portal(try environment.portalID())
            let user = try environment.user(for: portal)
            let password: FieldValue
            do {
                password = .string(try PasswordKeyring(portal: portal).isStored(for: user) ? "stored" : "not stored")
            } catch let error as UniToolError {
                password = .string("unknown: \(error.kind.rawValue)")
            }
            let totp: FieldValue
            do {
                totp = .string(try OneTimeCodeKeyring(portal: portal.id).generator(for: user) == nil ? "not stored" : "stored")
            } catch let error as UniToolError {
                totp = .string("unknown: \(error.kind.rawValue)")
            }
            let store = SessionStore()
            var session = FieldValue.string("none")
            if store.exists(portal: portal.id, user: user) {
                let valid = try await environment.withPortal(
                    portal, user: user,
                    credentials: { throw UniToolError(.credentialsMissing, "checking the saved session only") }
                ) { connection in
                    try await connection.isSessionValid()
                }
                session = .string(valid ? "valid" : "expired")
            }
            let record = Record(fields: [
                ("portal", .string(portal.id)), ("user", .string(user)), ("password", password), ("totp", totp), ("session", session),
            ])
            let set = RecordSet(columns: record.fields.map(\.name), records: [record])
            let format = globals.outputFormat
            if format == .json {
                print(JSONRenderer.object(record))
            } else {
                print(format.render(set, style: .forStandardOutput()), terminator: "")
            }
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the stored password and the saved session.")
        @OptionGroup var globals: GlobalOptions
        @Flag(help: "End the saved session only; keep the stored password and TOTP secret.") var keepPassword = false

        func run() async throws {
            let environment = try CommandEnvironment(options: globals)
            let portal = try environment.catalog.portal(try environment.portalID())
            let user = try environment.user(for: portal)
            let store = SessionStore()
            let hadSession = store.exists(portal: portal.id, user: user)
            try store.remove(portal: portal.id, user: user)
            let removed = keepPassword ? false : try PasswordKeyring(portal: portal).remove(user: user)
            let removedTOTP = keepPassword ? false : try OneTimeCodeKeyring(portal: portal.id).remove(user: user)
            let parts = [
                removed ? "the stored password" : nil, removedTOTP ? "the TOTP secret" : nil, hadSession ? "the saved session" : nil,
            ].compactMap { $0 }
            let message =
                parts.isEmpty
                ? "Nothing to remove for \(user) on \(portal.id)."
                : "Removed \(parts.joined(separator: " and ")) of \(user) on \(portal.id)."
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
    }
}

/// Short status lines for people, on stderr and only on a terminal, so scripts and pipes stay clean.
enum Progress {
    static func say(_ text: String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A line that explains a delay: on stderr whether or not it is a terminal, since a script
    /// that suddenly waits half a minute deserves to know why.
    static func explainWait(_ text: String) {
        FileHandle.standardError.write(Data(("unitool: " + text + "\n").utf8))
    }
}
