import Foundation
import Testing
import UniToolKit

/// What the watch's channels make of hostile portal text: each service's own markup made
/// inert, the `--exec` variables escaped, intervals that fit the clock.
@Suite("Watch channels: portal text made inert for each service")
struct WatchChannelSecurityTests {
    init() {
        // As in unitool, where NIO ignores SIGPIPE: a write to a command that is gone fails with
        // EPIPE instead of ending the process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// A record key as a hostile portal could shape it: mentions, a masked link, Slack's own
    /// link and broadcast syntax, an ampersand.
    static let hostileKey = "2026-fall/@everyone [click here](https://evil.example/) <!channel> <https://evil.example|your bank> @here & co"

    func event(key: String = hostileKey, command: String = "grades") -> WatchEvent {
        WatchEvent(
            kind: .added, portal: "demo", user: "alice", command: command, options: "", time: Date(timeIntervalSince1970: 0), key: key)
    }

    func json(_ body: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
    }

    @Test("Discord: allowed_mentions parses nothing, and masked links, mentions and Markdown are backslash-escaped")
    func discord() throws {
        let message = WebhookChannel.message(for: event(), format: .discord)
        let payload = try json(message.body)
        let mentions = try #require(payload["allowed_mentions"] as? [String: Any], "\(message.body)")
        #expect((mentions["parse"] as? [Any])?.isEmpty == true, "\(message.body)")
        let content = try #require(payload["content"] as? String)
        #expect(!content.contains("[click here](") && content.contains("\\[click here\\]\\(https"), "\(content)")
        #expect(!content.contains(" @everyone") && content.contains("\\@everyone"), "\(content)")
        #expect(!content.contains(" <!channel>") && !content.contains(" <https"), "\(content)")
    }

    @Test("Slack: &, < and > escaped as Slack asks, so <!channel> and <url|text> cannot form; @channel and @here broken")
    func slack() throws {
        let text = try #require(try json(WebhookChannel.message(for: event(), format: .slack).body)["text"] as? String)
        #expect(!text.contains("<") && !text.contains(">"), "\(text)")
        #expect(text.contains("&lt;!channel&gt;") && text.contains("&lt;https://evil.example|your bank&gt;"), "\(text)")
        #expect(text.contains(" &amp; co") && !text.contains(" & co"), "\(text)")
        #expect(!text.contains("@here") && !text.contains("@everyone"), "\(text)")
    }

    @Test("Telegram: plain text with no parse_mode, so no markup is read; ntfy: no Markdown header and a one-line title")
    func telegramAndNtfy() throws {
        let telegram = try json(WebhookChannel.message(for: event(), format: .telegram).body)
        #expect(Set(telegram.keys) == ["text"], "\(telegram)")
        #expect(telegram["text"] as? String == "grades: new \(Self.hostileKey)")
        let ntfy = WebhookChannel.message(for: event(command: "grades\r\nMarkdown: yes"), format: .ntfy)
        #expect(ntfy.contentType.hasPrefix("text/plain"))
        #expect(!ntfy.headers.contains { $0.0.lowercased() == "markdown" || $0.0.lowercased() == "x-markdown" }, "\(ntfy.headers)")
        let title = ntfy.headers.first { $0.0 == "Title" }?.1 ?? ""
        #expect(!title.contains("\n") && !title.contains("\r"), "\(title)")
    }

    @Test("--exec: UNITOOL_EVENT_KEY is escaped as the summary is, so a key cannot write escape sequences to a terminal")
    func execKeyEscaped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("key")
        let channel = ExecChannel(command: "printf %s \"$UNITOOL_EVENT_KEY\" > '\(output.path)'")
        try await channel.deliver(event(key: "2026-fall/\u{1B}]0;owned\u{07}\u{9B}2J"))
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written == "2026-fall/\\x1b]0;owned\\x07\\u009b2J", "\(written.debugDescription)")
    }

    @Test("--exec: a command that ends without reading its stdin, the event larger than a pipe holds, is delivered, never a crash")
    func execWithoutReading() async throws {
        var large = event()
        large.record = Record(fields: [("text", .string(String(repeating: "x", count: 300_000)))])
        try await ExecChannel(command: "exit 0").deliver(large)
        let failure = await #expect(throws: UniToolError.self) { try await ExecChannel(command: "exit 3").deliver(large) }
        #expect(failure?.kind == .channelFailed && failure?.kind.exitCode == 25, "\(String(describing: failure))")
        #expect(failure?.message.contains("status 3") == true, "\(String(describing: failure))")
    }

    @Test("a watch interval is from 1m to 366d: 106751991167d, 367d and 59s are refused, the bounds taken")
    func intervalRange() {
        #expect(WatchFile.interval("106751991167d") == nil)
        #expect(WatchFile.interval("367d") == nil)
        #expect(WatchFile.interval("59s") == nil)
        #expect(WatchFile.interval("366d") == .seconds(366 * 86_400))
        #expect(WatchFile.interval("1m") == .seconds(60))
    }

    @Test("a desktop notification's body escapes &, < and > of portal text, so a link or an image from file:// shows as text")
    func notificationBody() {
        var failing = event()
        failing.kind = .failing
        failing.error = UniToolError(.layoutChanged, "changed", hint: "see <a href=\"https://evil.example/\">here</a> & there")
        #expect(DesktopNotificationChannel.body(for: failing) == "see &lt;a href=\"https://evil.example/\"&gt;here&lt;/a&gt; &amp; there")
        var added = event()
        added.record = Record(fields: [("course", .string("<img src=\"file:///etc/passwd\">")), ("grade", .null), ("code", .string("A&B"))])
        #expect(DesktopNotificationChannel.body(for: added) == "course: &lt;img src=\"file:///etc/passwd\"&gt;\ncode: A&amp;B")
    }

    @Test("ExecStart: a plain path as it is; spaces quoted, % doubled, $ kept; a quote, backslash or control character refused")
    func systemdExecutable() {
        #expect(SchedulerQuoting.systemdExecutable("/usr/local/bin/unitool") == "/usr/local/bin/unitool")
        #expect(SchedulerQuoting.systemdExecutable("/home/a b/100%/$HOME/unitool") == "\"/home/a b/100%%/$HOME/unitool\"")
        #expect(SchedulerQuoting.systemdExecutable("/opt/%h/unitool") == "\"/opt/%%h/unitool\"")
        for refused in ["/opt/it's/unitool", "/opt/a\"b/unitool", "/opt/a\\b/unitool", "/opt/a\nb/unitool", ""] {
            #expect(SchedulerQuoting.systemdExecutable(refused) == nil, "\(refused.debugDescription)")
        }
    }

    @Test("crontab: the path single-quoted for the shell, with ' as '\\'' and % as \\% (cron's line break otherwise)")
    func crontabWord() {
        #expect(SchedulerQuoting.crontabWord("/home/a b/it's 100%/unitool") == "'/home/a b/it'\\''s 100\\%/unitool'")
    }

    @Test("--exec: every variable is escaped, the command's name too")
    func execVariables() {
        var hostile = event(key: "k\u{1B}[2J", command: "grades\u{9B}")
        hostile.kind = .changed
        let variables = ExecChannel.variables(for: hostile)
        #expect(variables["UNITOOL_EVENT"] == "changed")
        #expect(variables["UNITOOL_EVENT_KEY"] == "k\\x1b[2J")
        #expect(variables["UNITOOL_EVENT_COMMAND"] == "grades\\u009b")
        #expect(variables.values.allSatisfy { !$0.unicodeScalars.contains(where: TerminalText.isControl) })
    }
}
