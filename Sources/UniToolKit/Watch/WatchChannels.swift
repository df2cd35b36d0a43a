import AsyncHTTPClient
import Foundation
import Logging
import MessageDigest
import NIOCore
import NIOHTTP1

/// Where a watch's events go, besides its JSON Lines on stdout. A channel that fails is logged
/// and the others still get the event: one broken webhook must not silence the notifications.
public protocol WatchChannel: Sendable {
    /// A name for messages: `--exec`, a webhook's host, desktop notifications.
    var name: String { get }
    /// The same channel on a later run, to send it the events it did not take
    /// (`PendingDelivery`). No secret: a webhook's address, which may hold a token, is hashed.
    var identity: String { get }
    func deliver(_ event: WatchEvent) async throws
}

/// `--exec CMD`: the event as JSON on the command's stdin, with `UNITOOL_EVENT` (the kind),
/// `UNITOOL_EVENT_SUMMARY`, `UNITOOL_EVENT_KEY` and `UNITOOL_EVENT_COMMAND` in its environment.
/// The variables hold text from the portal, and commands print them (`notify-send
/// "$UNITOOL_EVENT_SUMMARY"`, `echo "$UNITOOL_EVENT_KEY"`), so each passes through
/// `TerminalText.escaped` first: no control character reaches a terminal through them.
///
/// Whatever the command does with its stdin does not matter: `notify-send` and `true` close
/// it unread, `sleep 5` never reads it, a big event fills the pipe. The event is written from
/// a thread of its own, a failed write (EPIPE) is ignored, and the exit status decides. A
/// command that runs past ``timeout`` is killed, and that is a failure too.
public struct ExecChannel: WatchChannel {
    public let command: String
    public let timeout: Duration
    public var name: String { "--exec" }
    public var identity: String { "exec \(command)" }

    /// The longest a command may run for one event.
    public static let defaultTimeout: Duration = .seconds(120)
    /// The most of one variable's value that is passed on, in UTF-8 bytes. Linux refuses a
    /// single variable over 128 KiB (E2BIG, and nothing runs); a summary is meant for a line.
    public static let variableLimit = 4096

    public init(command: String, timeout: Duration = ExecChannel.defaultTimeout) {
        self.command = command
        self.timeout = timeout
    }

    public func deliver(_ event: WatchEvent) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(Self.variables(for: event)) { $1 }
        let input = Pipe()
        process.standardInput = input
        let ended = ProcessEnd()
        process.terminationHandler = { ended.finish($0.terminationStatus, reason: $0.terminationReason) }
        do {
            try process.run()
        } catch {
            throw UniToolError(
                .channelFailed, localized("--exec could not start /bin/sh: \(error.localizedDescription)"),
                hint: localized("check that /bin/sh exists"))
        }
        let writer = input.fileHandleForWriting
        let line = Data((event.json + "\n").utf8)
        Thread.detachNewThread {
            // A command that closed its stdin makes the write raise SIGPIPE, which ends the whole
            // process unless something (NIO, once it runs) ignores it. Blocked on this thread
            // alone, the write fails with EPIPE instead, and the signal dies with the thread.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? writer.write(contentsOf: line)
            try? writer.close()
        }
        guard let (status, signalled) = try await within(timeout, { await ended.status() }) ?? nil else {
            // SIGTERM first; SIGKILL if it is still there after a moment: a command started from a
            // process that blocks or ignores SIGTERM (a test runner, a service manager's child)
            // inherits that, and would otherwise run on.
            process.terminate()
            // Nil unless it ended within the moment: timed out, or this task was cancelled.
            let stopped = (try? await within(.seconds(2), { await ended.status() })) ?? nil
            if stopped == nil, process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
            let shown = TerminalText.escaped(command)
            throw UniToolError(
                .channelFailed, localized("'\(shown)' ran for more than \(timeout.components.seconds) s and was stopped"),
                hint: localized("make the --exec command quick, or start long work in the background (... &)"))
        }
        guard status == 0, !signalled else {
            let shown = TerminalText.escaped(command)
            throw UniToolError(
                .channelFailed,
                signalled ? localized("'\(shown)' was killed by signal \(status)") : localized("'\(shown)' exited with status \(status)"),
                hint: localized(
                    "the event is kept and given to the command again on the next run; try it alone with 'unitool watch ... --test'"))
        }
    }

    /// The variables a command gets for an event, each escaped as for a terminal (the key is a
    /// record's key fields, read from the portal like the summary) and cut to ``variableLimit``.
    public static func variables(for event: WatchEvent) -> [String: String] {
        [
            "UNITOOL_EVENT": event.kind.rawValue, "UNITOOL_EVENT_SUMMARY": capped(TerminalText.escaped(event.summary)),
            "UNITOOL_EVENT_KEY": capped(TerminalText.escaped(event.key ?? "")),
            "UNITOOL_EVENT_COMMAND": capped(TerminalText.escaped(event.command)),
        ]
    }

    /// `text` cut at a character boundary to fit ``variableLimit`` bytes, "…" marking the cut.
    static func capped(_ text: String) -> String {
        guard text.utf8.count > variableLimit else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= variableLimit - 3 else { break }
            result.append(character)
            bytes += size
        }
        return result + "…"
    }
}

/// The end of a child process, reported from Foundation's termination handler. Waiting for it
/// ends early when the waiting task is cancelled (`within`'s time limit), with no status.
final class ProcessEnd: @unchecked Sendable {
    private let lock = NSLock()
    private var ending: (status: Int32, signalled: Bool)?
    private var waiter: CheckedContinuation<(Int32, Bool)?, Never>?

    func finish(_ status: Int32, reason: Process.TerminationReason) {
        let waiter = lock.withLock {
            ending = (status, reason == .uncaughtSignal)
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume(returning: (status, reason == .uncaughtSignal))
    }

    /// The exit status and whether a signal ended it; nil if the waiting task was cancelled.
    func status() async -> (Int32, Bool)? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Under the lock: an end or a cancellation that came first answers at once;
                // either that comes later finds the waiter here.
                let answer: (Int32, Bool)?? = lock.withLock {
                    if let ending { return .some(ending) }
                    if Task.isCancelled { return .some(nil) }
                    waiter = continuation
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            lock.withLock {
                defer { waiter = nil }
                return waiter
            }?.resume(returning: nil)
        }
    }
}

/// `--webhook URL`: the event as a JSON POST, as ntfy, Discord, Slack and Matrix bridges take
/// generic webhooks. The URL is given on the command line or in the environment, never stored.
///
/// A webhook is a stranger's server as far as unitool can tell, so its delivery is bounded:
/// - one deadline (``deadline``) covers the whole exchange, the answer's body included: a
///   server that sends its headers and then trickles its body cannot hold a watch;
/// - no redirect is followed: a 307 would post the event again to wherever the server names,
///   and a 302 would turn the POST into a GET that drops it; either is an error, never
///   "delivered";
/// - a refused connection fails at once with a one-line message and the exit code of an
///   unreachable server (20), a timeout with that of a timeout (21), any other answer than 2xx
///   with that of a server's error (22);
/// - text from the portal cannot mention everyone or hide a link in the service's own markup
///   (``message(for:format:)``).
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
    /// The time the whole delivery may take, from connecting to the last byte of the answer.
    public let deadline: Duration
    public var name: String {
        let host = url.host ?? url.absoluteString
        return localized("the webhook at \(host)")
    }
    public var identity: String { "webhook " + MessageDigest.sha256(url.absoluteString.utf8).lowercaseHex }

    /// The deadline when `--timeout` does not name one: a webhook that takes longer is down.
    public static let defaultDeadline: Duration = .seconds(15)

    public init(url: URL, format: Format = .json, deadline: Duration = WebhookChannel.defaultDeadline) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil else {
            throw UniToolError(
                .usage, localized("'\(url.absoluteString)' is not a web address"), hint: localized("give an https:// URL to --webhook"))
        }
        self.url = url
        self.format = format
        self.deadline = deadline
    }

    /// The request's content type, extra headers and body for an event, in the service's format.
    ///
    /// The summary holds portal text, and each service reads markup of its own in a message, so
    /// the text is made inert for the service it goes to:
    /// - Discord: `allowed_mentions` with nothing to parse (no `@everyone`, `@here`, user or
    ///   role ping), and every Markdown character backslash-escaped, so that `[text](url)`
    ///   cannot mask a link and `<@id>` cannot form a mention;
    /// - Slack (and Mattermost): `&`, `<` and `>` escaped as Slack's documentation asks, so that
    ///   `<!channel>` and `<url|text>` cannot be formed, and `@channel`, `@here`, `@all` and
    ///   `@everyone` broken by a word joiner, which Mattermost would otherwise act on;
    /// - Telegram: plain text, with no `parse_mode`, so Telegram reads no markup in it;
    /// - ntfy: a plain text body, without the `Markdown` header; the title is one line.
    public static func message(for event: WatchEvent, format: Format) -> (contentType: String, headers: [(String, String)], body: String) {
        let text = TerminalText.escaped(event.summary)
        switch format {
        case .json: return ("application/json", [], event.json)
        case .ntfy: return ("text/plain; charset=utf-8", [("Title", "unitool: \(TerminalText.escaped(event.command))")], text)
        case .discord:
            return (
                "application/json", [],
                "{\"content\": \(JSONString.quoted(discordText(text))), \"allowed_mentions\": {\"parse\": []}}"
            )
        case .slack: return ("application/json", [], "{\"text\": \(JSONString.quoted(slackText(text)))}")
        case .telegram: return ("application/json", [], "{\"text\": \(JSONString.quoted(text))}")
        }
    }

    /// Text that Discord shows as it is: each character Discord's Markdown gives a meaning
    /// (emphasis, code, spoilers, quotes, headings, masked links, mentions) escaped with a
    /// backslash, which Discord removes when it shows the message. The summary is one line that
    /// starts with the command's name, so a list's `-` cannot start a line and stays as it is.
    static func discordText(_ text: String) -> String {
        let special: Set<Character> = ["\\", "*", "_", "~", "`", "|", "[", "]", "(", ")", "<", ">", "#", "@"]
        var result = ""
        for character in text {
            if special.contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Text that Slack and Mattermost show as it is: `&`, `<` and `>` escaped as Slack's
    /// "Formatting text for app surfaces" asks (the only three it decodes), and the broadcast
    /// words broken so that Mattermost, which reads `@channel` in plain text, does not notify.
    static func slackText(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "@(channel|here|all|everyone)", with: "@\u{2060}$1", options: [.regularExpression, .caseInsensitive])
    }

    public func deliver(_ event: WatchEvent) async throws {
        let message = Self.message(for: event, format: format)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: message.contentType)
        for (name, value) in message.headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "User-Agent", value: "unitool/\(UniToolVersion.current)")
        request.body = .bytes(ByteBuffer(string: message.body))
        let prepared = request
        let limit = deadline
        let answer: (status: UInt, location: String?)?
        do {
            answer = try await within(limit) {
                let response = try await Self.client.execute(prepared, deadline: .now() + .nanoseconds(limit.webhookNanoseconds))
                // Read to the end, inside the deadline: a trickling body is a failure. Nothing of it
                // is used, so past a few KiB the rest is left unread and the connection closed.
                var received = 0
                for try await chunk in response.body {
                    received += chunk.readableBytes
                    if received > Self.maximumAnswerBytes { break }
                }
                return (response.status.code, response.headers.first(name: "Location"))
            }
        } catch let error as UniToolError {
            throw error
        } catch {
            throw failure(error)
        }
        guard let answer else {
            throw UniToolError(
                .portalTimeout,
                localized("it did not answer in time: \(limit.webhookSecondsText) seconds passed before its whole answer arrived"),
                hint: localized("the service may be down or slow; allow more time with --timeout SECONDS"))
        }
        if (300..<400).contains(answer.status) {
            let target = TerminalText.escaped(
                answer.location.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL.origin } ?? localized("nowhere"))
            throw UniToolError(
                .portalError,
                localized(
                    "it answered \(answer.status), a redirect to \(target); a webhook's redirects are not followed, so the event was not delivered"
                ),
                hint: localized("give --webhook the address the event should go to, if you trust it"))
        }
        guard (200..<300).contains(answer.status) else {
            throw UniToolError(
                .portalError, localized("it answered \(answer.status)"), hint: localized("check the address given to --webhook"))
        }
    }

    /// The most of a webhook's answer that is read; nothing of it is used.
    static let maximumAnswerBytes = 64 * 1024

    /// The client every webhook is sent with: no redirects (see the type's comment), and a
    /// refused connection reported at once instead of tried again until the connect timeout.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// A transport failure as one line that names the webhook by its origin only (its path and
    /// query often carry a token), told by the error's type, never by its text.
    func failure(_ error: any Error) -> UniToolError {
        let origin = url.origin
        switch TransportFailure.of(error) {
        case .refused:
            return UniToolError(
                .portalUnreachable, localized("cannot reach \(origin): the connection was refused (nothing listens there)"),
                hint: localized("check the address given to --webhook, and that the service is running"))
        case .timedOut:
            return UniToolError(
                .portalTimeout, localized("\(origin) did not answer in time"),
                hint: localized("the service may be down or slow; allow more time with --timeout SECONDS"))
        case .untrustedTLS:
            return UniToolError(
                .unsafeRequest, localized("the TLS certificate of \(origin) is not trusted, so the event was not sent"),
                hint: localized("someone may be intercepting the connection, or the address is wrong"))
        case .tooMuch:
            return UniToolError(
                .portalError, localized("\(origin) sent an answer unitool does not accept"),
                hint: localized("check the address given to --webhook"))
        case .closedEarly, .cutShort, .broken:
            return UniToolError(
                .portalUnreachable, localized("the connection to \(origin) broke before it answered"),
                hint: localized("the service may be restarting; try again later"))
        case .unreachable:
            return UniToolError(
                .portalUnreachable, localized("cannot reach \(origin)"),
                hint: localized("check the address given to --webhook and your network connection"))
        }
    }
}

extension Duration {
    /// Whole and fractional seconds as people write them: `2`, `1.5`.
    fileprivate var webhookSecondsText: String {
        let (seconds, attoseconds) = components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? String(Int64(value)) : String(format: "%g", value)
    }

    /// The duration in nanoseconds for NIO, at most `Int64.max`.
    fileprivate var webhookNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        // At most a year: NIO adds this to the clock, where Int64.max would overflow.
        let (total, overflow) = min(seconds, 366 * 86_400).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : total + attoseconds / 1_000_000_000
    }
}

/// `--notify`: a desktop notification through the freedesktop Notifications interface on the
/// session bus, sent with `gdbus` (GLib's D-Bus tool), as libnotify would.
public struct DesktopNotificationChannel: WatchChannel {
    public var name: String { localized("desktop notifications") }
    public var identity: String { "notify" }
    public init() {}

    /// The notification's body: the record's first six fields, or a failure's hint. The
    /// freedesktop body may hold markup (`<a href>`, `<img src>`, `<b>`), which a notification
    /// daemon acts on, and the text is the portal's: `&`, `<` and `>` are escaped as the
    /// specification asks, so it shows as text and links, loads or formats nothing.
    public static func body(for event: WatchEvent) -> String {
        let text =
            event.record.map { record in
                record.fields.filter { $0.value != .null }.prefix(6).map { "\($0.name): \($0.value.text)" }.joined(separator: "\n")
            } ?? (event.error?.hint ?? "")
        return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;")
    }

    public func deliver(_ event: WatchEvent) async throws {
        let body = Self.body(for: event)
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
        do {
            try process.run()
        } catch {
            throw UniToolError(
                .channelFailed, localized("--notify needs gdbus (GLib's D-Bus tool), and /usr/bin/gdbus cannot be run"),
                hint: localized(
                    "install it (Debian and Ubuntu: apt install libglib2.0-bin; Fedora: glib2), or use --exec or --webhook instead"))
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Self.failure(gdbus: message) }
    }

    /// What gdbus's failure means, told by the D-Bus error names and GLib's messages it prints,
    /// said so that a person knows what to do: the raw `GDBus.Error:…ServiceUnknown` says neither.
    /// - No notification service: the session bus is there, but nothing owns
    ///   `org.freedesktop.Notifications` (no desktop, no dunst or mako, a bare `dbus-run-session`).
    /// - No session bus at all: cron, ssh, a container (`DBUS_SESSION_BUS_ADDRESS` unset).
    /// - Anything else: the service's own words, escaped, on one line.
    public static func failure(gdbus message: String) -> UniToolError {
        let text = message.trimmingWhitespaceAndNewlines()
        if text.contains("ServiceUnknown") || text.contains("NameHasNoOwner") || text.contains("not provided by any .service files") {
            return UniToolError(
                .channelFailed,
                localized("no notification service is running on the session bus (nothing provides org.freedesktop.Notifications)"),
                hint: localized(
                    "start your desktop's notification daemon (or dunst, mako, xfce4-notifyd) in this session, or send the events elsewhere with --exec or --webhook"
                )
            )
        }
        if text.contains("Cannot autolaunch D-Bus") || text.contains("Error connecting") || text.contains("Could not connect")
            || text.contains("DBUS_SESSION_BUS_ADDRESS")
        {
            return UniToolError(
                .channelFailed,
                localized("--notify found no D-Bus session bus to show a notification on (cron, ssh and containers have none)"),
                hint: localized(
                    "run the watch inside your desktop session (a systemd user timer: unitool watch install), or use --exec or --webhook"))
        }
        let line = TerminalText.escaped(text.split(whereSeparator: \.isNewline).joined(separator: " "))
        return UniToolError(
            .channelFailed, localized("the desktop did not take the notification: \(line)"),
            hint: localized("is a notification daemon running in this session? '--exec' or '--webhook' send events elsewhere"))
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
    public let deadline: Duration
    /// Runs the command and returns its first line.
    let address: @Sendable () throws -> String
    public var name: String { localized("the webhook from '\(command)'") }
    public var identity: String { "webhook-command \(command)" }

    public init(
        command: String, format: WebhookChannel.Format = .json, deadline: Duration = WebhookChannel.defaultDeadline,
        address: @escaping @Sendable () throws -> String
    ) {
        self.command = command
        self.format = format
        self.deadline = deadline
        self.address = address
    }

    public func deliver(_ event: WatchEvent) async throws {
        let text = try address().trimmingWhitespace()
        guard let url = URL(string: text) else {
            throw UniToolError(
                .usage, localized("'\(command)' did not print a web address"), hint: localized("check webhook_command in watches.yaml"))
        }
        try await WebhookChannel(url: url, format: format, deadline: deadline).deliver(event)
    }
}

/// Runs `operation`, cancelling it when `limit` has passed; nil then. The time limit of a
/// channel's delivery: a webhook's whole exchange (async-http-client's own deadline ends with the
/// headers, and its read timeout restarts with every byte) and an `--exec` command's run.
func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
