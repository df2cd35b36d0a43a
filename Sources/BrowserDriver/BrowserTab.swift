import Foundation
import Localization

/// The browser's one tab, as unitool drives it: the page the person signs in on or records.
public struct BrowserTab: Sendable {
    public let browser: Chromium
    /// The DevTools session of the tab's target (`Target.attachToTarget` with `flatten`).
    public let session: String
    public let targetID: String

    /// The page's address and markup at one moment: what the login watch reads.
    public struct Snapshot: Sendable, Equatable {
        public var url: String
        public var contentType: String
        public var markup: String
    }

    /// Attaches to the tab the browser opened with, or opens one.
    public static func first(of browser: Chromium) async throws -> BrowserTab {
        var targetID: String?
        // The first answer says the pipe works. A wrapper that does not hand descriptors 3 and
        // 4 on (a snap, a flatpak) leaves it unanswered: that is an error, not a wait forever.
        let firstAnswer = try await withThrowingTaskGroup(of: DevToolsValue?.self) { group in
            group.addTask { try await browser.devTools.send("Target.getTargets") }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let firstAnswer else {
            throw BrowserStartFailure(
                reason: localized(
                    "the browser did not answer on its DevTools pipe within 30 seconds; a wrapper such as a snap or flatpak may not pass descriptors 3 and 4 on: set UNITOOL_BROWSER to the browser's own program"
                )
            )
        }
        var answer = firstAnswer
        // The first tab is there at once or within moments of the start.
        for attempt in 0..<50 {
            if attempt > 0 { answer = try await browser.devTools.send("Target.getTargets") }
            let targets = answer["targetInfos"].array
            targetID = targets.first { $0["type"].string == "page" }?["targetId"].string
            if targetID != nil { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let id: String
        if let targetID {
            id = targetID
        } else {
            guard let created = try await browser.devTools.send("Target.createTarget", ["url": "about:blank"])["targetId"].string else {
                throw DevToolsError.commandFailed(method: "Target.createTarget", message: localized("no target id"))
            }
            id = created
        }
        let attached = try await browser.devTools.send("Target.attachToTarget", ["targetId": .string(id), "flatten": true])
        guard let session = attached["sessionId"].string else {
            throw DevToolsError.commandFailed(method: "Target.attachToTarget", message: localized("no session id"))
        }
        // Learn when the person closes the tab or the window.
        try await browser.devTools.send("Target.setDiscoverTargets", ["discover": true])
        let tab = BrowserTab(browser: browser, session: session, targetID: id)
        try await tab.send("Page.enable")
        try await tab.send("Runtime.enable")
        return tab
    }

    @discardableResult
    public func send(_ method: String, _ params: DevToolsValue = [:]) async throws -> DevToolsValue {
        try await browser.devTools.send(method, params, session: session)
    }

    /// Whether an event is this tab's (its own session's, or the browser's about this target).
    public func owns(_ event: DevToolsEvent) -> Bool {
        if event.sessionID == session { return true }
        guard event.sessionID == nil else { return false }
        return event["targetId"] == targetID || event.params["targetInfo"]["targetId"].string == targetID
    }

    /// Opens `url`; the answer's `errorText` says when the browser could not.
    @discardableResult
    public func navigate(to url: URL) async throws -> DevToolsValue {
        try await send("Page.navigate", ["url": .string(url.absoluteString)])
    }

    /// The page as it stands; nil while it is between documents (a navigation under way).
    public func snapshot() async throws -> Snapshot? {
        let expression = "[location.href, document.contentType || '', document.documentElement ? document.documentElement.outerHTML : '']"
        let result: DevToolsValue
        do {
            result = try await send("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true])
        } catch DevToolsError.commandFailed {
            return nil
        }
        let parts = result["result"]["value"].array.compactMap(\.string)
        guard parts.count == 3 else { return nil }
        return Snapshot(url: parts[0], contentType: parts[1], markup: parts[2])
    }

    /// Runs `source` at the start of every document, in every frame, before the page's own scripts.
    public func runInEveryDocument(_ source: String) async throws {
        try await send("Page.addScriptToEvaluateOnNewDocument", ["source": .string(source)])
    }

    /// A global function `name(text)` in every page, whose calls arrive as `Runtime.bindingCalled`.
    public func addBinding(_ name: String) async throws {
        try await send("Runtime.addBinding", ["name": .string(name)])
    }

    /// Every cookie the browser holds, whatever its domain and path: the caller keeps those of
    /// the origins it wants (a portal's session cookie may well be on a path of its own).
    public func allCookies() async throws -> [BrowserCookie] {
        let result = try await browser.devTools.send("Storage.getCookies")
        return result["cookies"].array.compactMap(BrowserCookie.init)
    }

    /// A security key for WebAuthn that answers by itself (user present and verified): what
    /// plays the person's key in tests. `credentials` are keys it holds from the start
    /// (`WebAuthn.Credential`: `credentialId`, `rpId`, `privateKey` as base64 PKCS#8, …), as a key
    /// registered with the login service beforehand.
    public func addVirtualAuthenticator(credentials: [DevToolsValue] = []) async throws {
        try await send("WebAuthn.enable", ["enableUI": false])
        let added = try await send(
            "WebAuthn.addVirtualAuthenticator",
            [
                "options": [
                    "protocol": "ctap2", "transport": "usb", "hasResidentKey": true, "hasUserVerification": true, "isUserVerified": true,
                    "automaticPresenceSimulation": true,
                ]
            ])
        guard let authenticator = added["authenticatorId"].string else {
            throw DevToolsError.commandFailed(
                method: "WebAuthn.addVirtualAuthenticator", message: localized("no authenticator id came back"))
        }
        for credential in credentials {
            try await send("WebAuthn.addCredential", ["authenticatorId": .string(authenticator), "credential": credential])
        }
    }
}

extension DevToolsEvent {
    public subscript(key: String) -> String? { params[key].string }
}

/// One cookie as the browser keeps it (`Network.Cookie`).
public struct BrowserCookie: Sendable, Equatable {
    public var name: String
    public var value: String
    /// With a leading dot for a domain cookie; the bare host for a host-only one.
    public var domain: String
    public var path: String
    /// Seconds since 1970; nil for a session cookie.
    public var expires: Double?
    public var secure: Bool
    public var httpOnly: Bool

    init?(_ value: DevToolsValue) {
        guard let name = value["name"].string, let cookieValue = value["value"].string, let domain = value["domain"].string else {
            return nil
        }
        self.name = name
        self.value = cookieValue
        self.domain = domain
        self.path = value["path"].string ?? "/"
        let isSession = value["session"].bool ?? true
        self.expires = isSession ? nil : value["expires"].number
        self.secure = value["secure"].bool ?? false
        self.httpOnly = value["httpOnly"].bool ?? false
    }

    public init(name: String, value: String, domain: String, path: String, expires: Double?, secure: Bool, httpOnly: Bool) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
    }
}
