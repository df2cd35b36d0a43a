import Foundation

/// A tab's traffic as HAR 1.2, made from the DevTools protocol's Network events: what DevTools'
/// "Save all as HAR" writes, kept in memory.
///
/// A value type fed one event at a time, so that the bookkeeping (redirect hops under one request
/// id, the raw headers that come in separate `ExtraInfo` events, bodies fetched afterwards) is
/// tested apart from a browser.
public struct NetworkRecording: Sendable {
    private struct Hop: Sendable {
        var order: Int
        var requestID: String
        /// Which hop of its request id this is: 0, then one more after each redirect.
        var hop: Int
        /// Whether the browser sends the raw headers of this hop's response in an ExtraInfo
        /// event (`hasExtraInfo`, `redirectHasExtraInfo`): a response from the cache has none.
        var responseHasExtraInfo = true
        var request: DevToolsValue
        var resourceType: String?
        var initiator: String?
        var started: Double
        var response: DevToolsValue?
        var body: (text: String, base64: Bool)?
    }

    private var open: [String: Hop] = [:]
    private var done: [Hop] = []
    private var nextOrder = 0
    private var hops: [String: Int] = [:]
    /// The raw headers of each hop (with Cookie and Set-Cookie), in the order the hops went.
    private var rawRequestHeaders: [String: [DevToolsValue]] = [:]
    private var rawResponseHeaders: [String: [DevToolsValue]] = [:]

    public init() {}

    /// Whether anything was recorded.
    public var isEmpty: Bool { open.isEmpty && done.isEmpty }

    /// Takes one event of the tab. Returns the request id whose body should now be asked for
    /// (`Network.getResponseBody`) and handed to `body(of:text:base64:)`, then `finish(_:)`.
    public mutating func take(_ event: DevToolsEvent) -> String? {
        let params = event.params
        guard let id = params["requestId"].string else { return nil }
        switch event.method {
        case "Network.requestWillBeSent":
            if var previous = open.removeValue(forKey: id), !params["redirectResponse"].isNull {
                previous.response = params["redirectResponse"]
                previous.responseHasExtraInfo = params["redirectHasExtraInfo"].bool ?? true
                done.append(previous)
            }
            guard let url = params["request"]["url"].string, url.hasPrefix("http:") || url.hasPrefix("https:") else { return nil }
            let initiator = params["initiator"]
            let hop = hops[id, default: 0]
            hops[id] = hop + 1
            open[id] = Hop(
                order: nextOrder, requestID: id, hop: hop, request: params["request"], resourceType: params["type"].string?.lowercased(),
                initiator: initiator["url"].string ?? initiator["stack"]["callFrames"].array.first?["url"].string,
                started: params["wallTime"].number ?? Date().timeIntervalSince1970)
            nextOrder += 1
        case "Network.requestWillBeSentExtraInfo":
            rawRequestHeaders[id, default: []].append(params["headers"])
        case "Network.responseReceivedExtraInfo":
            rawResponseHeaders[id, default: []].append(params["headers"])
        case "Network.responseReceived":
            open[id]?.response = params["response"]
            open[id]?.responseHasExtraInfo = params["hasExtraInfo"].bool ?? true
        case "Network.loadingFinished":
            guard open[id]?.response != nil else { return nil }
            return id
        case "Network.loadingFailed":
            if let hop = open.removeValue(forKey: id), hop.response != nil { done.append(hop) }
        default:
            break
        }
        return nil
    }

    /// The body the browser gave for a finished request.
    public mutating func body(of id: String, text: String, base64: Bool) {
        open[id]?.body = (text, base64)
    }

    /// Ends a request once its body was asked for (given or not).
    public mutating func finish(_ id: String) {
        if let hop = open.removeValue(forKey: id) { done.append(hop) }
    }

    /// The hops with their raw headers (Cookie, Set-Cookie), matched when the recording is
    /// written, not as events come: the protocol may send a hop's ExtraInfo after the next hop
    /// has begun. The raw headers of an id go, in order, to its hops that went to the network
    /// (whose response has them).
    private func merged(_ hops: [Hop]) -> [Hop] {
        var requestIndex: [String: Int] = [:]
        var responseIndex: [String: Int] = [:]
        return hops.sorted { $0.order < $1.order }.map { hop in
            var hop = hop
            // A hop the browser answered itself (an HSTS upgrade, a cached redirect) went to no
            // network: it has raw headers on neither side, and takes none of the next hop's.
            guard hop.responseHasExtraInfo else { return hop }
            let request = requestIndex[hop.requestID, default: 0]
            requestIndex[hop.requestID] = request + 1
            if let raw = rawRequestHeaders[hop.requestID], request < raw.count {
                hop.request = merging(hop.request, headers: raw[request])
            }
            if let response = hop.response {
                let index = responseIndex[hop.requestID, default: 0]
                responseIndex[hop.requestID] = index + 1
                if let raw = rawResponseHeaders[hop.requestID], index < raw.count { hop.response = merging(response, headers: raw[index]) }
            }
            return hop
        }
    }

    private func merging(_ message: DevToolsValue, headers: DevToolsValue) -> DevToolsValue {
        guard case .object(var members) = message, case .object = headers else { return message }
        members["headers"] = headers
        return .object(members)
    }

    /// The recording as a HAR 1.2 file. Requests still open (a page left before its answer was
    /// complete) are kept with what arrived.
    public func archive(creator: String = "unitool") throws -> Data {
        var hops = done
        for (_, hop) in open where hop.response != nil { hops.append(hop) }
        let entries = merged(hops).compactMap(Self.entry)
        let log: DevToolsValue = [
            "log": [
                "version": "1.2", "creator": ["name": .string(creator), "version": "1"], "pages": [],
                "entries": .array(entries),
            ]
        ]
        return try log.serialized()
    }

    /// Headers as the protocol gives them (an object; several values of one name joined by a line
    /// break) as HAR's list of pairs.
    static func pairs(_ headers: DevToolsValue) -> [DevToolsValue] {
        guard case .object(let members) = headers else { return [] }
        return members.sorted { $0.key < $1.key }.flatMap { name, value in
            (value.string ?? "").split(separator: "\n", omittingEmptySubsequences: false).map {
                ["name": .string(name), "value": .string(String($0))]
            }
        }
    }

    private static func entry(_ hop: Hop) -> DevToolsValue? {
        guard let response = hop.response, let url = hop.request["url"].string, let method = hop.request["method"].string else {
            return nil
        }
        var request: [String: DevToolsValue] = [
            "method": .string(method), "url": .string(url), "httpVersion": "HTTP/1.1", "headers": .array(pairs(hop.request["headers"])),
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
        ]
        if let text = hop.request["postData"].string ?? hop.request["postDataEntries"].array.first?["bytes"].string.flatMap(Self.decoded) {
            let type = header("Content-Type", in: hop.request["headers"]) ?? ""
            request["postData"] = ["mimeType": .string(type), "text": .string(text)]
        }
        let status = response["status"].int ?? 0
        var content: [String: DevToolsValue] = ["mimeType": .string(response["mimeType"].string ?? ""), "size": -1]
        if let body = hop.body {
            content["text"] = .string(body.text)
            if body.base64 { content["encoding"] = "base64" }
            content["size"] = .number(Double(body.base64 ? (Data(base64Encoded: body.text)?.count ?? 0) : body.text.utf8.count))
        }
        var entry: [String: DevToolsValue] = [
            "startedDateTime": .string(Self.timestamp(hop.started)), "time": 0,
            "request": .object(request),
            "response": [
                "status": .number(Double(status)), "statusText": .string(response["statusText"].string ?? ""), "httpVersion": "HTTP/1.1",
                "headers": .array(pairs(response["headers"])), "cookies": [], "content": .object(content),
                "redirectURL": .string((300..<400).contains(status) ? header("Location", in: response["headers"]) ?? "" : ""),
                "headersSize": -1, "bodySize": -1,
            ],
            "cache": [:], "timings": ["send": 0, "wait": 0, "receive": 0],
        ]
        if let type = hop.resourceType { entry["_resourceType"] = .string(type) }
        if let initiator = hop.initiator { entry["_initiator"] = ["type": "script", "url": .string(initiator)] }
        return .object(entry)
    }

    private static func decoded(_ base64: String) -> String? {
        Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
    }

    static func header(_ name: String, in headers: DevToolsValue) -> String? {
        guard case .object(let members) = headers else { return nil }
        return members.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value.string
    }

    private static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
