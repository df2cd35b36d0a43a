import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Where a watch's events go, besides its JSON Lines on stdout. A channel that fails is logged
/// and the others still get the event: one broken webhook must not silence the notifications.
public protocol WatchChannel: Sendable {
    /// A name for messages: `--exec`, a webhook's host, desktop notifications.
    var name: String { get }
    func deliver(_ event: WatchEvent) async throws
}

/// `--exec CMD`: the event as JSON on the command's stdin, with `UNITOOL_EVENT` (the kind),
/// `UNITOOL_EVENT_SUMMARY`, `UNITOOL_EVENT_KEY` and `UNITOOL_EVENT_COMMAND` in its environment.
public struct ExecChannel: WatchChannel {
    public let command: String
    public var name: String { "--exec" }

    public init(command: String) { self.command = command }

    public func deliver(_ event: WatchEvent) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["UNITOOL_EVENT"] = event.kind.rawValue
        environment["UNITOOL_EVENT_SUMMARY"] = TerminalText.escaped(event.summary)
        environment["UNITOOL_EVENT_KEY"] = event.key ?? ""
        environment["UNITOOL_EVENT_COMMAND"] = event.command
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
                input.fileHandleForWriting.write(Data((event.json + "\n").utf8))
                try? input.fileHandleForWriting.close()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        guard status == 0 else {
            throw UniToolError(.internal, "'\(command)' exited with status \(status)", hint: "check the command given to --exec")
        }
    }
}

/// `--webhook URL`: the event as a JSON POST, as ntfy, Discord, Slack and Matrix bridges take
/// generic webhooks. The URL is given on the command line or in the environment, never stored.
public struct WebhookChannel: WatchChannel {
    /// What the receiving service expects: the event itself, or a message in its own format.
    public enum Format: String, Sendable, CaseIterable {
        /// The event's JSON, as is.
        case json
        /// ntfy.sh: the summary as the text body, with a Title header.
        case ntfy
        /// Discord's incoming webhooks: `{"content": ...}`.
        case discord
        /// Slack's incoming webhooks (and Mattermost's): `{"text": ...}`.
        case slack
        /// Telegram's `sendMessage`, with `chat_id` in the URL's query: `{"text": ...}`.
        case telegram
    }

    public let url: URL
    public let format: Format
    public var name: String { "the webhook at \(url.host ?? url.absoluteString)" }

    public init(url: URL, format: Format = .json) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
            throw UniToolError(.usage, "'\(url.absoluteString)' is not a web address", hint: "give an https:// URL to --webhook")
        }
        self.url = url
        self.format = format
    }

    /// The request's content type, extra headers and body for an event, in the service's format.
    public static func message(for event: WatchEvent, format: Format) -> (contentType: String, headers: [(String, String)], body: String) {
        let text = TerminalText.escaped(event.summary)
        switch format {
        case .json: return ("application/json", [], event.json)
        case .ntfy: return ("text/plain; charset=utf-8", [("Title", "unitool: \(event.command)")], text)
        case .discord: return ("application/json", [], "{\"content\": \(JSONRenderer.string(text))}")
        case .slack, .telegram: return ("application/json", [], "{\"text\": \(JSONRenderer.string(text))}")
        }
    }

    public func deliver(_ event: WatchEvent) async throws {
        let message = Self.message(for: event, format: format)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: message.contentType)
        for (name, value) in message.headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "User-Agent", value: "unitool/\(UniToolVersion.current)")
        request.body = .bytes(ByteBuffer(string: message.body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(15))
        _ = try? await response.body.collect(upTo: 64 * 1024)
        guard (200..<300).contains(response.status.code) else {
            throw UniToolError(.portalError, "\(name) answered \(response.status.code)", hint: "check the address given to --webhook")
        }
    }
}

/// `--notify`: a desktop notification through the freedesktop Notifications interface on the
/// session bus, sent with `gdbus` (GLib's D-Bus tool), as libnotify would.
public struct DesktopNotificationChannel: WatchChannel {
    public var name: String { "desktop notifications" }
    public init() {}

    public func deliver(_ event: WatchEvent) async throws {
        let body =
            event.record.map { record in
                record.fields.filter { $0.value != .null }.prefix(6).map { "\($0.name): \($0.value.text)" }.joined(separator: "\n")
            } ?? (event.error?.hint ?? "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = [
            "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path", "/org/freedesktop/Notifications",
            // "--": the arguments that follow are GVariant values, even one that starts with a dash.
            "--method", "org.freedesktop.Notifications.Notify", "--", Self.gvariant("unitool"), "0", Self.gvariant(""),
            Self.gvariant(event.summary), Self.gvariant(body), "@as []", "@a{sv} {}", "-1",
        ]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw UniToolError(
                .internal, "the desktop did not take the notification: \(message.trimmingCharacters(in: .whitespacesAndNewlines))",
                hint: "is a notification daemon running in this session?")
        }
    }

    /// A string as GVariant text (`'it\'s'`), so that gdbus reads it as a string whatever it
    /// holds; control characters are escaped first, as for a terminal.
    static func gvariant(_ text: String) -> String {
        let escaped = TerminalText.escaped(text, keepingLineBreaks: true)
            .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'").replacingOccurrences(
                of: "\n", with: "\\n")
        return "'" + escaped + "'"
    }
}

/// A webhook whose address a command prints (`pass show ntfy/unitool-url`), run at each event:
/// the address, which often carries a token, is never written to `watches.yaml`. The front end
/// runs the command (bounded in time and output, as `UNITOOL_PASSWORD_COMMAND` is).
public struct CommandWebhookChannel: WatchChannel {
    public let command: String
    public let format: WebhookChannel.Format
    /// Runs the command and returns its first line.
    let address: @Sendable () throws -> String
    public var name: String { "the webhook from '\(command)'" }

    public init(command: String, format: WebhookChannel.Format = .json, address: @escaping @Sendable () throws -> String) {
        self.command = command
        self.format = format
        self.address = address
    }

    public func deliver(_ event: WatchEvent) async throws {
        let text = try address().trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text) else {
            throw UniToolError(.usage, "'\(command)' did not print a web address", hint: "check webhook_command in watches.yaml")
        }
        try await WebhookChannel(url: url, format: format).deliver(event)
    }
}
