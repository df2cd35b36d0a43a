/// Every failure unitool reports: what happened, what to do, and a stable code for scripts.
///
/// One type serves the CLI (exit codes) and JSON-RPC (error codes and `data.kind`), so the two
/// front ends can never disagree on what a failure means.
public struct UniToolError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case wrongCredentials = "wrong_credentials"
        case mfaRequired = "mfa_required"
        /// The portal refused the one-time code unitool sent (not: unitool had none to send).
        case wrongCode = "wrong_code"
        case consentRequired = "consent_required"
        case accountLocked = "account_locked"
        case loginFailed = "login_failed"
        /// The session ended, and the portal's login works only in a browser (`login: { browser:
        /// true }`): unitool never tries a form login there.
        case loginInBrowserNeeded = "login_in_browser_needed"
        case termsNotAccepted = "terms_not_accepted"
        case termsUnavailable = "terms_unavailable"
        case termsVersionStale = "terms_version_stale"
        case portalUnreachable = "portal_unreachable"
        case portalTimeout = "portal_timeout"
        case portalError = "portal_error"
        case layoutChanged = "layout_changed"
        case recipeInvalid = "recipe_invalid"
        case recipeNotFound = "recipe_not_found"
        case credentialsMissing = "credentials_missing"
        case keyringUnavailable = "keyring_unavailable"
        case keyringLocked = "keyring_locked"
        case keyringNoService = "keyring_no_secret_service"
        case keyringPromptCancelled = "keyring_prompt_cancelled"
        case keyringFailed = "keyring_failed"
        /// No browser to sign in with (`auth login --browser`, `recipes new --record`).
        case browserUnavailable = "browser_unavailable"
        case unsafeRequest = "unsafe_request"
        case actionRefused = "action_refused"
        /// An action that changes something was put to the front end's `Interaction`, which said no.
        case declined = "declined"
        /// A watch's channel (`--exec`, `--notify`) did not take an event; the event is kept.
        case channelFailed = "channel_failed"
        case usage = "usage"
        case stateCorrupt = "state_corrupt"
        /// `--offline` found no earlier answer to the same question in the history.
        case noOfflineAnswer = "no_offline_answer"
        /// `watch --all` or `watch install` found no saved watch (no watches.yaml) to run.
        case nothingToWatch = "nothing_to_watch"
        /// `demo post-grade` or `demo record-absence` named a user, term or course the demo does not have.
        case demoUnknownName = "demo_unknown_name"
        case `internal` = "internal"

        /// The process exit code. Documented in docs/USING.md, unitool(1) and `unitool help exit-codes`; never renumber one.
        public var exitCode: Int32 {
            switch self {
            case .internal: return 1
            case .usage: return 64
            case .wrongCredentials: return 10
            case .mfaRequired: return 11
            case .consentRequired: return 12
            case .accountLocked: return 13
            case .loginFailed: return 14
            case .termsNotAccepted: return 15
            case .termsUnavailable: return 16
            case .termsVersionStale: return 17
            case .wrongCode: return 18
            case .loginInBrowserNeeded: return 19
            case .portalUnreachable: return 20
            case .portalTimeout: return 21
            case .portalError: return 22
            case .unsafeRequest: return 23
            case .actionRefused: return 24
            case .channelFailed: return 25
            case .declined: return 26
            case .layoutChanged: return 30
            case .recipeInvalid: return 31
            case .recipeNotFound: return 32
            case .credentialsMissing: return 40
            case .keyringUnavailable: return 41
            case .keyringLocked: return 42
            case .keyringNoService: return 43
            case .keyringPromptCancelled: return 44
            case .keyringFailed: return 45
            case .browserUnavailable: return 46
            case .stateCorrupt: return 50
            case .noOfflineAnswer: return 51
            case .nothingToWatch: return 52
            case .demoUnknownName: return 53
            }
        }

        /// The JSON-RPC error code, in the implementation-defined range -32000 to -32099.
        /// What the code means, for `unitool help exit-codes`, the man page's EXIT STATUS and
        /// the README's table: one text, so that the three cannot disagree.
        public var meaning: String {
            switch self {
            case .internal: return localized("a bug in unitool; please report it")
            case .wrongCredentials: return localized("the portal rejected the user name or password")
            case .mfaRequired: return localized("the portal asks for a one-time code unitool cannot give")
            case .consentRequired: return localized("the portal asks for consent (attribute release)")
            case .accountLocked: return localized("the portal says the account is locked")
            case .loginFailed: return localized("the login did not finish for another reason (a loop, an error page)")
            case .loginInBrowserNeeded:
                return localized("the session ended and this portal signs in only in a browser: run 'unitool auth login --browser'")
            case .termsNotAccepted: return localized("the portal's terms of use changed and are not accepted yet")
            case .termsUnavailable: return localized("the terms-version API answered, but not with a readable version")
            case .termsVersionStale: return localized("terms accept --version V named a version that is not the current one")
            case .wrongCode:
                return localized("the portal refused the one-time code unitool sent (11 is for a code unitool had none to send)")
            case .portalUnreachable: return localized("no connection to the portal, or it broke")
            case .portalTimeout: return localized("the portal did not answer in time")
            case .portalError: return localized("the portal answered with an error (5xx, 404, a redirect loop, an oversized page)")
            case .unsafeRequest: return localized("unitool refused to send a password where the recipe does not allow it")
            case .actionRefused: return localized("the portal refused an action such as renewing a loan (its reason is in the message)")
            case .declined: return localized("an action that changes something on the portal was not confirmed; nothing was sent")
            case .channelFailed:
                return localized(
                    "a watch's --exec command or desktop notification did not take an event (kept, and tried again on the next runs)")
            case .layoutChanged:
                return localized("a page no longer looks as the recipe expects (the page is saved under $XDG_CACHE_HOME/unitool/drift/)")
            case .recipeInvalid: return localized("a recipe file has an error (the message names file, line and key)")
            case .recipeNotFound: return localized("no such portal or recipe")
            case .credentialsMissing: return localized("no password was given and none is stored")
            case .keyringUnavailable: return localized("no D-Bus session bus, so the keyring cannot be reached")
            case .keyringLocked: return localized("the keyring is locked (or has no default collection) and cannot prompt")
            case .keyringNoService: return localized("there is a D-Bus session, but no Secret Service on it")
            case .keyringPromptCancelled: return localized("the keyring's unlock prompt was dismissed")
            case .keyringFailed: return localized("the keyring refused for another reason (the message says why)")
            case .browserUnavailable: return localized("no Chromium or Chrome to sign in or record with, or it would not start")
            case .stateCorrupt: return localized("unitool could not write its own files")
            case .noOfflineAnswer: return localized("--offline found no earlier answer to the same command and options in the history")
            case .nothingToWatch: return localized("no watch is saved in watches.yaml for 'watch --all' or 'watch install' to run")
            case .demoUnknownName: return localized("demo post-grade or record-absence named a user, term or course the demo does not have")
            case .usage: return localized("a wrong command, option or value")
            }
        }

        public var rpcCode: Int { -32000 - Int(exitCode) }
    }

    public let kind: Kind
    /// What happened, in one sentence. Never contains a secret.
    public let message: String
    /// What the user can do about it.
    public let hint: String?
    /// A recipe option's value the portal does not offer, when that is the error: each front
    /// end names the option in its own words (`--term`, `options.term`, `term`).
    public var refusedOption: RefusedOption? = nil

    /// An option value the portal does not offer, and the values it does.
    public struct RefusedOption: Sendable, Equatable {
        public var option: String
        public var value: String
        public var offered: [String]
        /// The values are those the portal offered when it was last reached (it cannot be now).
        public var lastSeen: Bool

        public init(option: String, value: String, offered: [String], lastSeen: Bool) {
            self.option = option
            self.value = value
            self.offered = offered
            self.lastSeen = lastSeen
        }

        /// The message and hint, with the option named as `label`.
        public func words(naming label: String) -> (message: String, hint: String) {
            let list = offered.joined(separator: ", ")
            if lastSeen {
                return (
                    localized("'\(value)' is not a value the portal offered for \(label) when it was last reached"),
                    localized("it offered: \(list); the portal cannot be reached now")
                )
            }
            return (localized("'\(value)' is not a value the portal offers for \(label)"), localized("the portal offers: \(list)"))
        }

        /// The usage error as the command line says it (`--term`).
        public var error: UniToolError {
            let (message, hint) = words(naming: "--\(option)")
            var error = UniToolError(.usage, message, hint: hint)
            error.refusedOption = self
            return error
        }
    }

    /// The same error with a note before its hint: where a setting it used came from.
    public func adding(note: String) -> UniToolError {
        UniToolError(kind, message, hint: hint.map { "\(note); \($0)" } ?? note)
    }

    public init(_ kind: Kind, _ message: String, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
    }

    public var description: String {
        guard let hint else { return message }
        return message + "\n" + localized("  hint: \(hint)")
    }
}

extension Result where Failure == any Error {
    /// `Result(catching:)` for async work: collects the outcome so that clean-up can run
    /// before the error is rethrown.
    public init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
