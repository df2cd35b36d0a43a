import BrowserDriver
import Foundation
import Synchronization
import UniToolKit

/// The person signs in in a real browser; unitool takes the session (`auth login --browser`),
/// or records the visit (`recipes new --record`).
///
/// The split of `openconnect-sso` and `aws-azure-login`: a browser for what only a browser can
/// do (Entra ID's script-built form, Duo's push, a security key), the engine for everything after.
/// The password never passes through unitool.
package enum BrowserSignIn {
    /// JavaScript run in every page before the page's own, playing the person in tests: it may
    /// call `unitoolHook("done")` to end the visit as closing the window (or pressing Enter) would.
    package static let hookVariable = "UNITOOL_BROWSER_HOOK"
    /// A WebAuthn security key that answers by itself (Chromium's virtual authenticator), for
    /// tests of a second factor: `1`, or a JSON file of the credentials it holds from the start
    /// (a list of `WebAuthn.Credential` objects: a key registered with the login service beforehand).
    package static let virtualAuthenticatorVariable = "UNITOOL_BROWSER_VIRTUAL_AUTHENTICATOR"
    /// How long the person has to sign in.
    static let loginTimeLimit: Duration = .seconds(600)
    /// How long a recording may last.
    static let recordingTimeLimit: Duration = .seconds(1800)

    /// The browser to start: found, or a clear error that says what to install.
    package static func options(
        headless: Bool, locations: Locations, keptProfile: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> BrowserOptions {
        let executable: String
        do {
            executable = try BrowserLocator.locate(environment: environment)
        } catch {
            throw UniToolError(
                .browserUnavailable, "\(error)",
                hint: localized(
                    "install Chromium (Debian: sudo apt install chromium; elsewhere your distribution's chromium package, or Google Chrome), or set \(BrowserLocator.variable) to a Chromium or Chrome program"
                )
            )
        }
        return BrowserOptions(
            executable: executable, headless: headless, profilesFolder: locations.browserProfiles, keptProfile: keptProfile,
            environment: environment)
    }

    /// The test hook's script, if one is given.
    static func hook(environment: [String: String]) throws -> String? {
        guard let path = environment[hookVariable], !path.isEmpty else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            let shownPath = TerminalText.escaped(path)
            throw UniToolError(.usage, localized("\(hookVariable) names \(shownPath), which cannot be read"), hint: localized("unset it"))
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The test's virtual security key, if one is asked for.
    static func virtualAuthenticator(environment: [String: String]) throws -> [DevToolsValue]? {
        guard let given = environment[virtualAuthenticatorVariable], !given.isEmpty, given != "0" else { return nil }
        if given == "1" { return [] }
        guard let data = FileManager.default.contents(atPath: given), case .array(let credentials) = try? DevToolsValue(json: data) else {
            let shownPath = TerminalText.escaped(given)
            throw UniToolError(
                .usage, localized("\(virtualAuthenticatorVariable) names \(shownPath), which is not a JSON list of credentials"),
                hint: localized("set it to 1, or to a file holding a list of WebAuthn.Credential objects"))
        }
        return credentials
    }

    /// Opens the portal's login in the browser, waits until the person is signed in (the
    /// portal's `done_when` holds on one of its own pages, or they press Enter), takes the
    /// cookies of the portal's own origins, and hands them to `connection`, which checks them
    /// with one request and saves them. The browser is closed and its profile removed.
    package static func logIn(
        _ portal: PortalRecipe, connection: PortalConnection, options: BrowserOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        let watch = BrowserLoginWatch(portal: portal)
        var visit = BrowserVisit(
            start: try portal.url(for: portal.login.start), hook: try hook(environment: environment),
            virtualAuthenticator: try virtualAuthenticator(environment: environment), timeLimit: loginTimeLimit)
        visit.answersDialogs = options.headless
        let taken = Mutex<[BrowserCookie]?>(nil)
        let said = Mutex("")
        let enter = EnterKey()
        let portalName = TerminalText.escaped(portal.name)
        Progress.explainWait(
            enter.isAvailable
                ? localized("opening \(portalName) in the browser: sign in there (press Enter here once you are in)")
                : localized("opening \(portalName) in the browser: sign in there"))
        try await running(options, what: localized("the login")) { browser in
            _ = try await visit.run(in: browser) { tab, wake in
                var finished = false
                switch wake {
                case .closed:
                    throw UniToolError(
                        .loginFailed, localized("the browser was closed before the login finished; nothing was saved"),
                        hint: localized("run the command again and sign in: unitool closes the browser itself once you are in"))
                case .hook(let text):
                    finished = text == "done"
                case .page, .tick:
                    finished = enter.wasPressed()
                }
                if !finished, let page = try await tab.snapshot() {
                    switch watch.verdict(url: page.url, contentType: page.contentType, markup: page.markup) {
                    case .signedIn: finished = true
                    case .waiting(let what):
                        let isNew = said.withLock { last in
                            defer { last = what }
                            return last != what
                        }
                        if isNew {
                            let shownWhat = TerminalText.escaped(what)
                            Progress.say(localized("Waiting \(shownWhat)…"))
                        }
                    }
                }
                guard finished else { return false }
                // All of them: `adoptBrowserSession` keeps those of the portal's own origins.
                let cookies = try await tab.allCookies()
                taken.withLock { $0 = cookies }
                return true
            }
        }
        let cookies = taken.withLock { $0 } ?? []
        Progress.say(localized("Signed in; checking the session with \(portalName)…"))
        try await connection.adoptBrowserSession(cookies.map(Self.cookie))
    }

    /// Records the person's visit from `start` until they close the window (or the test hook
    /// says done), in memory: the HAR 1.2 text.
    package static func record(
        from start: URL, options: BrowserOptions, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        async throws -> Data
    {
        var visit = BrowserVisit(
            start: start, hook: try hook(environment: environment),
            virtualAuthenticator: try virtualAuthenticator(environment: environment), records: true, timeLimit: recordingTimeLimit)
        visit.answersDialogs = options.headless
        Progress.explainWait(localized("recording in the browser: sign in and open the pages you want, then close the browser window"))
        let recording = try await running(options, what: localized("the recording")) { browser in
            try await visit.run(in: browser) { _, wake in
                switch wake {
                case .closed: return true
                case .hook(let text): return text == "done"
                case .page, .tick: return false
                }
            }
        }
        guard !recording.isEmpty else {
            throw UniToolError(
                .usage, localized("the browser recorded nothing: it was closed before any page loaded"),
                hint: localized("run the command again and open the portal's pages before closing the window"))
        }
        return try recording.archive()
    }

    /// Runs `body` with a browser, and says what went wrong with it in unitool's words.
    private static func running<T>(_ options: BrowserOptions, what: String, _ body: (Chromium) async throws -> T) async throws -> T {
        do {
            return try await Chromium.withBrowser(options, body)
        } catch let error as BrowserStartFailure {
            throw UniToolError(
                .browserUnavailable, localized("the browser could not be started: \(error.reason)"),
                hint: localized("check that \(options.executable) runs, or set \(BrowserLocator.variable) to another Chromium or Chrome"))
        } catch let failure as BrowserVisit.NavigationFailed {
            let address = failure.url.redactedForLog
            let reason = TerminalText.escaped(failure.reason)
            throw UniToolError(
                .portalUnreachable, localized("the browser could not open \(address): \(reason)"),
                hint: localized("check the address and that the portal is up, then run the command again"))
        } catch is BrowserVisit.TimedOut {
            throw UniToolError(
                .loginFailed, localized("\(what) in the browser took too long; nothing was saved"), hint: localized("run the command again")
            )
        } catch DevToolsError.closed {
            throw UniToolError(
                .loginFailed, localized("the browser closed before \(what) finished; nothing was saved"),
                hint: localized("run the command again"))
        } catch let error as DevToolsError {
            throw UniToolError(
                .browserUnavailable, localized("\(what) in the browser ended: \(error)"),
                hint: localized("run the command again; if it happens again, try --headless"))
        }
    }

    /// The browser's cookie as unitool's saved session keeps it.
    static func cookie(_ cookie: BrowserCookie) -> Cookie {
        let hostOnly = !cookie.domain.hasPrefix(".")
        return Cookie(
            name: cookie.name, value: cookie.value, domain: String(cookie.domain.drop { $0 == "." }).lowercased(), hostOnly: hostOnly,
            path: cookie.path, expires: cookie.expires.map { Date(timeIntervalSince1970: $0) }, secure: cookie.secure,
            httpOnly: cookie.httpOnly, created: Date())
    }
}

/// Enter pressed on the terminal, read without blocking: how a person says "I am signed in"
/// when the portal's pages do not show it in a way the recipe knows.
private struct EnterKey: Sendable {
    let isAvailable = isatty(STDIN_FILENO) == 1

    func wasPressed() -> Bool {
        guard isAvailable else { return false }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = read(STDIN_FILENO, &bytes, bytes.count)
        return count > 0 && bytes[0..<count].contains(UInt8(ascii: "\n"))
    }
}
