import Foundation
import Testing

@testable import UniToolKit

/// `--exec` against real commands through /bin/sh: whatever a command does with its stdin, the
/// exit status decides, and nothing traps.
@Suite("--exec: commands that close their input, never read it, run long or get a huge summary")
struct ExecChannelTests {
    func event(summaryKey: String = "31000103", record: Record? = nil) -> WatchEvent {
        WatchEvent(
            kind: .dueSoon, portal: "demo", user: "alice", command: "loans", options: "", time: Date(), key: summaryKey, record: record)
    }

    @Test("commands that close stdin unread, exit at once or never read a 1 MB event are delivered, 5 times each")
    func inputIgnored() async throws {
        let big = event(record: Record(fields: [("text", .string(String(repeating: "y", count: 1_000_000)))]))
        for command in ["exec 0<&-; true", "true", "sleep 0.05", "read -r first; exit 0"] {
            for _ in 0..<5 { try await ExecChannel(command: command).deliver(big) }
        }
    }

    @Test("a key of 200 KiB reaches the command cut to 4 KiB with a mark, not as E2BIG")
    func variableCapped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("key")
        let long = String(repeating: "é", count: 100_000)
        try await ExecChannel(command: "printf %s \"$UNITOOL_EVENT_KEY\" > '\(output.path)'").deliver(event(summaryKey: long))
        let written = try String(contentsOf: output, encoding: .utf8)
        #expect(written.utf8.count <= ExecChannel.variableLimit && written.utf8.count > ExecChannel.variableLimit - 8)
        #expect(written.hasSuffix("…") && written.dropLast().allSatisfy { $0 == "é" })
    }

    @Test("a command that runs past its time limit is stopped: channel_failed (exit 25), saying how long it ran")
    func timeLimit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-exec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid")
        let failure = await #expect(throws: UniToolError.self) {
            try await ExecChannel(command: "echo $$ > '\(pidFile.path)'; exec sleep 300", timeout: .seconds(1)).deliver(event())
        }
        #expect(failure?.kind == .channelFailed && failure?.message.contains("more than 1 s") == true, "\(String(describing: failure))")
        // Stopped, not left to run out: the command's process ends (it would sleep five minutes).
        // Waited for as a condition, however loaded the machine is; no time is asserted.
        let pid = try #require(Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        func running() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
            // The state follows the command name in parentheses; a zombie (Z) has ended.
            return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
        }
        var checks = 0
        while running(), checks < 1200 {
            try await Task.sleep(for: .milliseconds(100))
            checks += 1
        }
        #expect(!running(), "the command (pid \(pid)) still runs")
    }

    @Test("a command killed by a signal is a failure that says so")
    func killedBySignal() async throws {
        let failure = await #expect(throws: UniToolError.self) { try await ExecChannel(command: "kill -KILL $$").deliver(event()) }
        #expect(failure?.kind == .channelFailed && failure?.message.contains("signal 9") == true, "\(String(describing: failure))")
    }
}
