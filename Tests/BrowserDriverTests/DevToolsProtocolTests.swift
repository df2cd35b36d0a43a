import Foundation
import Testing
import UniToolKit

@testable import BrowserDriver

/// The pure parts of the DevTools client: the pipe's framing, JSON values, and the HAR made
/// from Network events.
struct DevToolsProtocolTests {
    @Test("messages are split at NUL bytes, whatever chunks the bytes arrive in")
    func framing() throws {
        var framing = MessageFraming()
        let first = MessageFraming.framed(Data(#"{"id":1}"#.utf8))
        let second = MessageFraming.framed(Data(#"{"method":"Page.loadEventFired"}"#.utf8))
        let bytes = Array(first + second)
        var messages: [Data] = []
        // One byte at a time: no message is complete before its NUL.
        for byte in bytes.prefix(5) { messages += try framing.append([byte]) }
        #expect(messages.isEmpty)
        messages += try framing.append(bytes.dropFirst(5))
        #expect(messages.map { String(decoding: $0, as: UTF8.self) } == [#"{"id":1}"#, #"{"method":"Page.loadEventFired"}"#])
        #expect(try framing.append([]) == [])
    }

    @Test("a message longer than the limit is refused instead of growing without end")
    func framingLimit() {
        var framing = MessageFraming()
        let chunk = [UInt8](repeating: 0x41, count: 1 << 20)
        #expect(throws: DevToolsError.self) {
            for _ in 0...(MessageFraming.maximumMessageBytes >> 20) { _ = try framing.append(chunk) }
        }
    }

    @Test("JSON values keep booleans apart from numbers, and ids go out as integers")
    func values() throws {
        let value = try DevToolsValue(json: Data(#"{"a":true,"b":1,"c":[null,"x"],"d":2.5}"#.utf8))
        #expect(value["a"] == .bool(true))
        #expect(value["b"].int == 1)
        #expect(value["c"].array == [.null, .string("x")])
        #expect(value["missing"].isNull)
        let written = String(decoding: try DevToolsValue.object(["id": 7, "x": .number(2.5)]).serialized(), as: UTF8.self)
        #expect(written == #"{"id":7,"x":2.5}"#)
    }

    @Test("the arguments open no port: the protocol goes over the pipe only")
    func arguments() {
        let arguments = Chromium.arguments(profile: URL(fileURLWithPath: "/tmp/p"), headless: true, runningAsRoot: false)
        #expect(arguments.contains("--remote-debugging-pipe"))
        #expect(!arguments.contains { $0.hasPrefix("--remote-debugging-port") })
        #expect(arguments.contains("--user-data-dir=/tmp/p"))
        #expect(arguments.contains("--headless"))
        #expect(!arguments.contains("--no-sandbox"))
        #expect(Chromium.arguments(profile: URL(fileURLWithPath: "/tmp/p"), headless: false, runningAsRoot: true).contains("--no-sandbox"))
    }

    @Test("UNITOOL_BROWSER that names nothing runnable is an error, not a silent fallback")
    func locator() throws {
        #expect(throws: BrowserLocator.NotFound.self) {
            try BrowserLocator.locate(environment: ["UNITOOL_BROWSER": "/nonexistent/chrome", "PATH": "/usr/bin"])
        }
        #expect(throws: BrowserLocator.NotFound.self) { try BrowserLocator.locate(environment: ["PATH": "/nonexistent"]) }
        #expect(try BrowserLocator.locate(environment: ["UNITOOL_BROWSER": "/bin/sh"]) == "/bin/sh")
    }

    @Test("a process is the browser's only by a whole argument naming its profile, not by a prefix or a bare path")
    func processesOfAProfile() {
        let profile = URL(fileURLWithPath: "/s/browser-profiles/demo/taro")
        func line(_ arguments: String...) -> [UInt8] { Array(arguments.joined(separator: "\0").utf8) + [0] }
        #expect(
            Chromium.runs(in: profile, commandLine: line("/usr/lib/chromium/chromium", "--user-data-dir=/s/browser-profiles/demo/taro")))
        #expect(
            Chromium.runs(in: profile, commandLine: line("chrome_crashpad_handler", "--database=/s/browser-profiles/demo/taro/config/x")))
        #expect(!Chromium.runs(in: profile, commandLine: line("chromium", "--user-data-dir=/s/browser-profiles/demo/taro2")))
        #expect(!Chromium.runs(in: profile, commandLine: line("du", "/s/browser-profiles/demo/taro")))
        #expect(!Chromium.runs(in: profile, commandLine: line("vim", "/s/browser-profiles/demo/taro/Default/Preferences")))
    }

    @Test("a profile left by a unitool that no longer runs is removed; a running one's is kept")
    func abandonedProfiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A process id above the kernel's limit belongs to no process.
        let dead = folder.appendingPathComponent("\(Chromium.profilePrefix)4194305-abcd")
        let alive = folder.appendingPathComponent("\(Chromium.profilePrefix)1-abcd")
        let other = folder.appendingPathComponent("someone-elses")
        for made in [dead, alive, other] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        Chromium.removeAbandonedProfiles(in: folder)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == [alive.lastPathComponent, other.lastPathComponent].sorted())
    }

    /// Events as Chromium 156 sends them for a page that redirects once and then answers.
    static func event(_ method: String, _ params: DevToolsValue) -> DevToolsEvent {
        DevToolsEvent(method: method, params: params, sessionID: "S")
    }

    @Test("a redirect and its page become two HAR entries with the raw headers and the body, read back by HTTPArchive")
    func recording() throws {
        var recording = NetworkRecording()
        let request: DevToolsValue = ["url": "http://127.0.0.1:1/home", "method": "GET", "headers": ["Accept": "text/html"]]
        #expect(
            recording.take(
                Self.event(
                    "Network.requestWillBeSent", ["requestId": "R", "request": request, "type": "Document", "wallTime": 1_800_000_000]))
                == nil)
        _ = recording.take(
            Self.event("Network.requestWillBeSentExtraInfo", ["requestId": "R", "headers": ["Accept": "text/html", "Cookie": "a=1"]]))
        let hop: DevToolsValue = ["url": "http://127.0.0.1:1/login", "method": "POST", "headers": [:], "postData": "user=alice&password=x"]
        _ = recording.take(
            Self.event(
                "Network.requestWillBeSent",
                [
                    "requestId": "R", "request": hop, "type": "Document", "wallTime": 1_800_000_001,
                    "redirectResponse": ["status": 302, "headers": ["Location": "/login"], "mimeType": ""],
                ]))
        // The redirect's raw headers come after the next hop began, as the protocol allows.
        _ = recording.take(
            Self.event(
                "Network.responseReceivedExtraInfo",
                ["requestId": "R", "headers": ["Location": "/login", "Set-Cookie": "s=1; Path=/\nt=2; Path=/"]]))
        _ = recording.take(
            Self.event("Network.requestWillBeSentExtraInfo", ["requestId": "R", "headers": ["Cookie": "a=1; s=1; t=2"]]))
        _ = recording.take(
            Self.event("Network.responseReceivedExtraInfo", ["requestId": "R", "headers": ["Content-Type": "text/html", "X-Final": "1"]]))
        _ = recording.take(
            Self.event(
                "Network.responseReceived",
                ["requestId": "R", "response": ["status": 200, "headers": ["Content-Type": "text/html"], "mimeType": "text/html"]]))
        let finished = recording.take(Self.event("Network.loadingFinished", ["requestId": "R"]))
        #expect(finished == "R")
        recording.body(of: "R", text: "<html><body>hi</body></html>", base64: false)
        recording.finish("R")

        let archive = try HTTPArchive(data: try recording.archive(), name: "test")
        #expect(archive.exchanges.count == 2)
        let (redirect, page) = (archive.exchanges[0], archive.exchanges[1])
        #expect(redirect.status == 302)
        #expect(redirect.redirect?.absoluteString == "http://127.0.0.1:1/login")
        #expect(redirect.requestHeaders.contains { $0.name == "Cookie" && $0.value == "a=1" })
        #expect(redirect.responseHeaders.filter { $0.name == "Set-Cookie" }.count == 2)
        #expect(redirect.isPageLoad)
        #expect(!page.responseHeaders.contains { $0.name == "Set-Cookie" }, "the redirect's cookies stay with the redirect")
        #expect(page.responseHeaders.contains { $0.name == "X-Final" })
        #expect(page.requestHeaders.contains { $0.name == "Cookie" && $0.value == "a=1; s=1; t=2" })
        #expect(page.method == "POST")
        #expect(page.formFields?.map(\.name) == ["user", "password"])
        #expect(page.body.map { String(decoding: $0, as: UTF8.self) } == "<html><body>hi</body></html>")
    }

    @Test("a hop the browser answered itself (an HSTS upgrade) takes none of the next hop's raw headers")
    func internalRedirect() throws {
        var recording = NetworkRecording()
        _ = recording.take(
            Self.event("Network.requestWillBeSent", ["requestId": "H", "request": ["url": "http://portal.example.edu/", "method": "GET"]]))
        _ = recording.take(
            Self.event(
                "Network.requestWillBeSent",
                [
                    "requestId": "H", "request": ["url": "https://portal.example.edu/", "method": "GET"], "redirectHasExtraInfo": false,
                    "redirectResponse": ["status": 307, "headers": ["Location": "https://portal.example.edu/"]],
                ]))
        _ = recording.take(Self.event("Network.requestWillBeSentExtraInfo", ["requestId": "H", "headers": ["Cookie": "c=1"]]))
        _ = recording.take(Self.event("Network.responseReceivedExtraInfo", ["requestId": "H", "headers": ["Set-Cookie": "d=2"]]))
        _ = recording.take(
            Self.event("Network.responseReceived", ["requestId": "H", "response": ["status": 200, "headers": [:]], "hasExtraInfo": true]))
        recording.finish("H")
        let exchanges = try HTTPArchive(data: try recording.archive(), name: "test").exchanges
        #expect(exchanges.map(\.status) == [307, 200])
        #expect(!exchanges[0].requestHeaders.contains { $0.name == "Cookie" })
        #expect(exchanges[1].requestHeaders.contains { $0.name == "Cookie" && $0.value == "c=1" })
        #expect(exchanges[1].responseHeaders.contains { $0.name == "Set-Cookie" && $0.value == "d=2" })
    }

    @Test("a request that failed before any answer is left out; data: addresses are never recorded")
    func recordingSkips() throws {
        var recording = NetworkRecording()
        _ = recording.take(
            Self.event("Network.requestWillBeSent", ["requestId": "A", "request": ["url": "http://127.0.0.1:1/x", "method": "GET"]]))
        _ = recording.take(Self.event("Network.loadingFailed", ["requestId": "A"]))
        _ = recording.take(Self.event("Network.requestWillBeSent", ["requestId": "B", "request": ["url": "data:,hi", "method": "GET"]]))
        #expect(recording.isEmpty)
    }
}
