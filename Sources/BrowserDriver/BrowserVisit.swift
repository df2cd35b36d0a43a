import Foundation
import Synchronization

/// One visit in the browser's tab: opens an address, then lets the person (or the test hook)
/// act, and asks the caller after each page and every second whether the visit is over.
///
/// The protocol's events are read by a child task while the caller decides: a page loaded, the
/// hook's call, the tab or browser closed. Nothing outlives the visit.
public struct BrowserVisit: Sendable {
    /// What woke the caller.
    public enum Wake: Sendable, Equatable {
        /// A document loaded, or the address changed within one.
        case page
        /// The test hook called `unitoolHook(text)`.
        case hook(String)
        /// A second passed.
        case tick
        /// The person closed the tab or the browser (or it crashed).
        case closed
    }

    /// The name of the function the test hook may call.
    public static let hookFunction = "unitoolHook"

    public var start: URL
    /// JavaScript run in every document before the page's own (`UNITOOL_BROWSER_HOOK`): plays
    /// the person in tests.
    public var hook: String?
    /// A WebAuthn security key that answers by itself, for tests of a second factor: nil for
    /// none, else the credentials it holds from the start (possibly none).
    public var virtualAuthenticator: [DevToolsValue]?
    /// Record the traffic (`recipes new --record`).
    public var records = false
    /// Past this the visit ends with `timedOut`.
    public var timeLimit: Duration

    public init(start: URL, hook: String?, virtualAuthenticator: [DevToolsValue]? = nil, records: Bool = false, timeLimit: Duration) {
        self.start = start
        self.hook = hook
        self.virtualAuthenticator = virtualAuthenticator
        self.records = records
        self.timeLimit = timeLimit
    }

    public struct TimedOut: Error {}

    /// The browser could not open the start address (`Page.navigate`'s `errorText`, such as
    /// `net::ERR_CONNECTION_REFUSED`).
    public struct NavigationFailed: Error {
        public var url: URL
        public var reason: String
    }

    /// Whether a JavaScript dialog (`alert`, `confirm`) is answered by itself: with no window
    /// there is nobody to, and the page would wait for ever.
    public var answersDialogs = false

    /// Runs the visit until `isOver` says so; returns the recording (empty unless `records`).
    ///
    /// `isOver` is called on one wake at a time, with the tab, and may read the page. The time
    /// limit covers all of it, from the first command to the browser on: a browser or a page that
    /// stops answering ends the visit with `TimedOut` (its waiting command cancelled).
    public func run(
        in browser: Chromium, isOver: @escaping @Sendable (BrowserTab, Wake) async throws -> Bool
    ) async throws -> NetworkRecording {
        let recording = RecordingBox()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { [timeLimit] in
                try await Task.sleep(for: timeLimit)
                throw TimedOut()
            }
            group.addTask {
                try await visit(in: browser, recording: recording, isOver: isOver)
                return true
            }
            for try await over in group where over {
                group.cancelAll()
                break
            }
        }
        return recording.value.withLock { $0 }
    }

    private func visit(
        in browser: Chromium, recording: RecordingBox, isOver: @escaping @Sendable (BrowserTab, Wake) async throws -> Bool
    ) async throws {
        let tab = try await BrowserTab.first(of: browser)
        if records {
            try await tab.send(
                "Network.enable", ["maxPostDataSize": 1_048_576, "maxResourceBufferSize": 16_777_216, "maxTotalBufferSize": 67_108_864])
            // Keeps bodies of pages that replace themselves at once (an auto-posting SAML form)
            // until they are asked for; experimental, so a browser without it records anyway.
            _ = try? await tab.send(
                "Network.configureDurableMessages", ["maxTotalBufferSize": 67_108_864, "maxResourceBufferSize": 16_777_216])
        } else {
            try await tab.send("Network.enable")
        }
        if let hook {
            try await tab.addBinding(Self.hookFunction)
            try await tab.runInEveryDocument(hook)
        }
        if let credentials = virtualAuthenticator { try await tab.addVirtualAuthenticator(credentials: credentials) }
        let (wakes, wake) = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .unbounded)
        // A second's tick is one wake however long the caller takes: ticks do not pile up
        // behind a page that keeps it waiting.
        let tickPending = SharedFlag()
        // Children: the event reader, the clock, the navigation, and the caller's decisions.
        // The visit ends when the decisions say so.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { [records, answersDialogs] in
                for await event in browser.devTools.events where tab.owns(event) {
                    switch event.method {
                    case "Page.loadEventFired", "Page.navigatedWithinDocument":
                        wake.yield(.page)
                    case "Page.frameNavigated" where event.params["frame"]["parentId"].isNull:
                        wake.yield(.page)
                    case "Runtime.bindingCalled" where event["name"] == Self.hookFunction:
                        wake.yield(.hook(event["payload"] ?? ""))
                    case "Target.targetDestroyed", "Target.detachedFromTarget", "Inspector.detached", "Target.targetCrashed":
                        wake.yield(.closed)
                    case "Page.javascriptDialogOpening" where answersDialogs:
                        _ = try? await tab.send("Page.handleJavaScriptDialog", ["accept": true])
                    default:
                        guard records, event.method.hasPrefix("Network."),
                            let finished = recording.value.withLock({ $0.take(event) })
                        else { continue }
                        let body = try? await tab.send("Network.getResponseBody", ["requestId": .string(finished)])
                        recording.value.withLock { recording in
                            if let body, let text = body["body"].string {
                                recording.body(of: finished, text: text, base64: body["base64Encoded"].bool ?? false)
                            }
                            recording.finish(finished)
                        }
                    }
                }
                // The browser's end of output: it is gone.
                wake.yield(.closed)
                return false
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: .seconds(1))
                    if tickPending.value.withLock({ pending in
                        defer { pending = true }
                        return !pending
                    }) {
                        wake.yield(.tick)
                    }
                }
            }
            group.addTask { [start] in
                let answer = try await tab.navigate(to: start)
                if let reason = answer["errorText"].string, !reason.isEmpty, reason != "net::ERR_ABORTED" {
                    throw NavigationFailed(url: start, reason: reason)
                }
                return false
            }
            group.addTask {
                for await next in wakes {
                    if next == .tick { tickPending.value.withLock { $0 = false } }
                    if try await isOver(tab, next) { return true }
                }
                return false
            }
            for try await over in group where over {
                group.cancelAll()
                break
            }
        }
    }
}

/// The recording, shared by the task that reads events and the visit that returns it.
private final class RecordingBox: Sendable {
    let value = Mutex(NetworkRecording())
}

/// A flag shared by two tasks of the visit (a tick waiting to be read).
private final class SharedFlag: Sendable {
    let value = Mutex(false)
}
