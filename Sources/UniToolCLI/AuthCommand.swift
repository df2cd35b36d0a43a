import ArgumentParser
import DemoUniversity
import Foundation
import OneTimeCode
import UniToolHost
import UniToolKit

/// `unitool auth login|status|logout`: the password in the keyring, and the saved session.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth", abstract: localized("Store, check or remove your password and session."),
        discussion: HelpExamples.discussion(
            localized(
                """
                The password is kept in the desktop keyring (the Secret Service, such as gnome-keyring),
                never in a file, bound to the origins the portal's definition may send it to. Read it back with:
                  secret-tool lookup service unitool \\
                    portal <portal> username <user> kind password
                """), examples: "auth"),
        subcommands: [Login.self, Status.self, Logout.self, OneTimeCodes.self])

    struct OneTimeCodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "totp", abstract: localized("Store or remove the TOTP secret that answers one-time-code pages."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    Portals with two-factor login ask for a 6-digit code from an authenticator app. unitool can
                    make the same codes (RFC 6238) from the app's secret, kept in the keyring with the attributes
                    service unitool, portal <portal>, username <user> and kind totp. Without a stored secret, unitool asks for the code on the terminal.
                    """), examples: "auth totp"),
            subcommands: [Set.self, Remove.self])

        struct Set: PortalCommand {
            static let configuration = CommandConfiguration(
                abstract: localized("Store a TOTP secret: an otpauth:// URI (from the QR code) or the base32 secret."),
                discussion: HelpExamples.discussion(
                    localized("Reads it from standard input, or asks on the terminal without echo. It is never taken from argv."),
                    examples: "auth totp set"))
            @OptionGroup var globals: GlobalOptions

            func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
                let user = try environment.user(for: portal)
                let input =
                    isatty(STDIN_FILENO) == 1
                    ? try TerminalPrompt.readPassword(prompt: localized("TOTP secret or otpauth:// URI for \(user) on \(portal.name): "))
                    : try PasswordInput.readStandardInput()
                let generator: TOTP
                do {
                    generator = try TOTP(parsing: input.reveal())
                } catch {
                    throw UniToolError(
                        .usage, localized("that is not a TOTP secret: \(error)"),
                        hint: localized("give the otpauth://totp/... URI behind the QR code, or the base32 secret your portal showed"))
                }
                try environment.workspace.account(portal, user: user).storeOneTimeCodeSecret(generator)
                let algorithm = generator.algorithm.rawValue
                FileHandle.standardError.write(
                    Data(
                        (localized(
                            "Stored the TOTP secret of \(user) on \(portal.id) in the keyring (\(generator.digits) digits every \(generator.period) s, \(algorithm))."
                        ) + "\n").utf8))
            }
        }

        struct Remove: PortalCommand {
            static let configuration = CommandConfiguration(
                abstract: localized("Remove the stored TOTP secret."), discussion: HelpExamples.text(for: "auth totp remove"))
            @OptionGroup var globals: GlobalOptions

            func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
                let user = try environment.user(for: portal)
                let removed = try environment.workspace.account(portal, user: user).removeOneTimeCodeSecret()
                FileHandle.standardError.write(
                    Data(
                        ((removed
                            ? localized("Removed the TOTP secret of \(user) on \(portal.id).")
                            : localized("No TOTP secret was stored for \(user) on \(portal.id).")) + "\n").utf8))
            }
        }
    }

    struct Login: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Check a password by logging in, then store it in the keyring."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    Asks for the password without echo, or reads it with --password-stdin. The password is always
                    checked by a fresh login (in a cookie jar of its own, whatever session is saved, with the stored
                    TOTP secret if the portal asks for a code); a password the portal rejects is never stored, and
                    the saved session is left as it was. On a machine with no keyring (a server, a container),
                    --session-only logs in and keeps the session, not the password.

                    With --browser you sign in in a real browser (Chromium or Chrome) by any means the portal
                    offers: Microsoft Entra ID, Okta, a push to your phone, a security key. unitool opens the
                    portal's login, waits until the portal shows you are signed in (or you press Enter), takes
                    the portal's own cookies, checks them with one request, saves them as the session and closes
                    the browser. Your password never passes through unitool, and nothing is stored in the keyring.
                    The browser talks to unitool over a pipe, never a network port, in a fresh profile that is
                    removed afterwards (--keep-browser-profile keeps the login service's cookies for next time).
                    """), examples: "auth login"))
        @OptionGroup var globals: GlobalOptions
        @Flag(help: ArgumentHelp(localized("Store the password without checking it by logging in."))) var noVerify = false
        @Flag(help: ArgumentHelp(localized("Log in and keep the session only: the password is not stored (for machines with no keyring).")))
        var sessionOnly = false
        @Flag(
            help: ArgumentHelp(localized("Sign in in a browser (Chromium or Chrome; UNITOOL_BROWSER names another) and keep its session.")))
        var browser = false
        @Flag(help: ArgumentHelp(localized("With --browser: run the browser without a window (servers, tests)."))) var headless = false
        @Flag(
            help: ArgumentHelp(
                localized(
                    "With --browser: keep the browser's profile for this portal and user, so the next login can finish without typing.")))
        var keepBrowserProfile = false

        func validate() throws {
            if noVerify && sessionOnly {
                throw UniToolError(
                    .usage,
                    localized("--no-verify and --session-only exclude each other: one stores an unchecked password, the other no password"),
                    hint: localized("choose one"))
            }
            if browser && (noVerify || sessionOnly || globals.passwordStdin) {
                throw UniToolError(
                    .usage, localized("--browser takes no password: you sign in in the browser, and only the session is kept"),
                    hint: localized("leave out --no-verify, --session-only and --password-stdin"))
            }
            if !browser && (headless || keepBrowserProfile) {
                throw UniToolError(
                    .usage, localized("--headless and --keep-browser-profile go with --browser"), hint: localized("add --browser"))
            }
        }

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let user = try environment.user(for: portal)
            if browser {
                try await logInInBrowser(environment, portal: portal, user: user)
                return
            }
            if portal.login.browserOnly {
                throw UniToolError(
                    .usage, localized("\(portal.id) signs in only in a browser, so it takes no password"),
                    hint: localized("sign in with: unitool --portal \(portal.id) auth login --browser"))
            }
            let password =
                globals.passwordStdin
                ? try PasswordInput.readStandardInput()
                : try TerminalPrompt.readPassword(prompt: portal.passwordPrompt(user: user))
            let account = environment.workspace.account(portal, user: user)
            if !noVerify {
                // A fresh login in an empty jar that must ask for the password (`provePassword`).
                let credentials = Credentials(
                    username: user, password: password,
                    givenAs: globals.passwordStdin ? .given("--password-stdin") : .typed,
                    oneTimeCode: CommandEnvironment.oneTimeCode(for: account, trace: environment.trace))
                let provide: CredentialProvider = { credentials }
                try await environment.withPortal(portal, user: user, credentials: provide, use: .fresh) { connection in
                    Progress.say(localized("Logging in to \(TerminalText.escaped(portal.name)) as \(TerminalText.escaped(user))…"))
                    try await connection.provePassword()
                }
            }
            if sessionOnly {
                FileHandle.standardError.write(
                    Data(
                        (localized("Logged in as \(user) on \(portal.id) and saved the session; the password was not stored.") + "\n").utf8)
                )
                return
            }
            do {
                try account.storePassword(password)
            } catch let error as UniToolError where noVerify == false {
                // The login worked and its session is saved: say so, and offer what fits what was given.
                let variable = PasswordCommand.environmentVariable
                let hint =
                    globals.passwordStdin
                    ? localized(
                        "the session works until it expires; run 'unitool auth login --session-only' to keep only the session, or let data commands read the password from \(variable)"
                    )
                    : localized(
                        "the session works until it expires; run 'unitool auth login --session-only' to keep only the session, or give the password to each command with --password-stdin or \(variable)"
                    )
                throw UniToolError(
                    error.kind,
                    localized("logged in as \(user) and saved the session, but the password could not be stored: \(error.message)"),
                    hint: hint)
            }
            let note =
                noVerify
                ? localized("Stored the password (not checked) for \(user) on \(portal.id) in the keyring.")
                : localized("Logged in and stored the password for \(user) on \(portal.id) in the keyring.")
            let readBack = localized(
                "Read it back with: secret-tool lookup service unitool portal \(portal.id) username \(user) kind password")
            FileHandle.standardError.write(Data((note + "\n" + readBack + "\n").utf8))
        }

        /// `--browser`: the person signs in in a browser; its session becomes unitool's.
        private func logInInBrowser(_ environment: CommandEnvironment, portal: PortalRecipe, user: String) async throws {
            let locations = environment.workspace.locations
            let options = try BrowserSignIn.options(
                headless: headless, locations: locations,
                keptProfile: keepBrowserProfile ? locations.keptBrowserProfile(portal: portal.id, user: user) : nil)
            try await environment.withPortal(
                portal, user: user,
                credentials: PortalConnection.noLogin(because: localized("'auth login --browser' signs in in the browser")),
                use: .fresh
            ) { connection in
                try await BrowserSignIn.logIn(connection.portal, connection: connection, options: options)
            }
            FileHandle.standardError.write(
                Data(
                    (localized("Signed in as \(user) on \(portal.id) in the browser and saved the session; no password was stored.") + "\n")
                        .utf8))
        }
    }

    struct Status: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Show the portal, the user, whether a password is stored and whether the saved session is valid."),
            discussion: HelpExamples.text(for: "auth status"))
        @OptionGroup var globals: GlobalOptions

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let user = try environment.user(for: portal)
            let account = environment.workspace.account(portal, user: user)
            let kept = [("password", account.password), ("TOTP secret", account.oneTimeCodeSecret)]
            let password = FieldValue.string(kept[0].1.description)
            let totp = FieldValue.string(kept[1].1.description)
            var session = FieldValue.string("none")
            if account.hasSavedSession {
                let valid = try await environment.withPortal(
                    portal, user: user,
                    credentials: PortalConnection.noLogin(because: localized("'auth status' only checks the saved session"))
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
                // The words of the record, for people; JSON and CSV keep them as they are.
                let kept: ColumnDisplay = .words(["stored": localized("stored"), "not stored": localized("not stored")])
                let session: ColumnDisplay = .words([
                    "none": localized("none"), "valid": localized("valid"), "expired": localized("expired"),
                ])
                print(
                    format.render(set, style: .forStandardOutput(), display: ["password": kept, "totp": kept, "session": session]),
                    terminator: "")
            }
            // "unknown" is an answer only with its reason: say it once, on stderr, for people.
            if let reason = kept.lazy.compactMap(\.1.unknownBecause).first, !globals.quiet {
                let unknown = kept.filter { $0.1.unknownBecause != nil }.map(\.0)
                let note =
                    unknown.count > 1
                    ? localized("unitool: note: whether a password or TOTP secret is stored is unknown: \(reason)")
                    : unknown == ["password"]
                        ? localized("unitool: note: whether a password is stored is unknown: \(reason)")
                        : localized("unitool: note: whether a TOTP secret is stored is unknown: \(reason)")
                FileHandle.standardError.write(Data((note + "\n").utf8))
            }
        }
    }

    struct Logout: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Remove the stored password and the saved session."), discussion: HelpExamples.text(for: "auth logout"))
        @OptionGroup var globals: GlobalOptions
        @Flag(help: ArgumentHelp(localized("End the saved session only; keep the stored password and TOTP secret."))) var keepPassword =
            false

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let user = try environment.user(for: portal)
            let removed = try environment.workspace.account(portal, user: user).logOut(keepingSecrets: keepPassword)
            let message = removed.sentence(user: user, portal: portal.id)
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
    }
}
