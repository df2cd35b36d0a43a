import Foundation
import Synchronization
import UniToolKit

/// The one-line status that a slow command shows on stderr ("signing in to Demo University:
/// page 3 of the login"), so that a cold login of several seconds is not a silent wait.
///
/// Only on a terminal, never with `--quiet`, and only once the command has taken about 300 ms:
/// a quick command never flickers. The line is erased before anything else is written (the
/// output, an error, a prompt), so it never ends up in what the user reads or copies.
package final class StatusLine: Sendable {
    package static let shared = StatusLine()
    /// How long a command runs before its status appears.
    package static let delay = Duration.milliseconds(300)

    private struct State {
        var active = false
        /// Past the delay: updates are drawn as they come.
        var visible = false
        /// A prompt is on the terminal: nothing is drawn until it is answered.
        var suspended = false
        var message = ""
        /// Whether the terminal shows a status line now, which must be erased.
        var drawn = false
    }

    private let state = Mutex(State())

    /// Runs `body` with the status showing `message`: it appears after ``delay`` unless `body`
    /// has finished by then, and is erased when `body` ends, whichever way. Shows nothing when
    /// stderr is not a terminal, or with `--quiet`. The delay is a child task of this call, so no
    /// timer outlives the command.
    package func showing<T: Sendable>(_ message: String, quiet: Bool, _ body: () async throws -> T) async throws -> T {
        guard !quiet, isatty(STDERR_FILENO) == 1, ProcessInfo.processInfo.environment["TERM"] != "dumb" else {
            return try await body()
        }
        state.withLock {
            $0.active = true
            $0.message = message
        }
        return try await withThrowingTaskGroup(of: Void.self) { delay in
            delay.addTask { [self] in
                try await Task.sleep(for: Self.delay)
                state.withLock { state in
                    guard state.active else { return }
                    state.visible = true
                    draw(&state)
                }
            }
            let result = await Result { try await body() }
            end()
            delay.cancelAll()
            return try result.get()
        }
    }

    /// A new message: shown at once if the status is visible.
    package func update(_ message: String) {
        state.withLock { state in
            guard state.active else { return }
            state.message = message
            draw(&state)
        }
    }

    /// Erases the status for good: the command is about to write its result or its error.
    package func end() {
        state.withLock { state in
            erase(&state)
            state.active = false
        }
    }

    /// Runs `body` (a prompt) with the status erased and held back, then brings it back.
    package func suspended<T>(_ body: () throws -> T) rethrows -> T {
        state.withLock { state in
            erase(&state)
            state.suspended = true
        }
        defer {
            state.withLock { state in
                state.suspended = false
                draw(&state)
            }
        }
        return try body()
    }

    /// Writes a line of its own above the status (a note, a "renewing…"), then the status again.
    package func printAbove(_ line: String) {
        state.withLock { state in
            erase(&state)
            FileHandle.standardError.write(Data(StandardErrorText.wrapped(line + "\n", width: StandardErrorText.terminalWidth).utf8))
            draw(&state)
        }
    }

    private func draw(_ state: inout State) {
        guard state.active, state.visible, !state.suspended else { return }
        // One line, never wrapped: a wrapped status could not be erased with one escape.
        let text = DisplayWidth.truncate(TerminalText.escaped(state.message) + "…", to: max(10, Self.width() - 1))
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        state.drawn = true
    }

    private func erase(_ state: inout State) {
        guard state.drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        state.drawn = false
    }

    private static func width() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }
}

/// Short status lines for people, on stderr and only on a terminal, so scripts and pipes stay clean.
package enum Progress {
    package static func say(_ text: String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        StatusLine.shared.printAbove(text)
    }

    /// A line that explains a delay: on stderr whether or not it is a terminal, since a script
    /// that suddenly waits half a minute deserves to know why.
    package static func explainWait(_ text: String) {
        StatusLine.shared.printAbove("unitool: " + text)
    }

    /// Something the user should know about the output (columns left out to fit), on stderr
    /// whether or not it is a terminal, unless `--quiet`.
    package static func note(_ text: String, quiet: Bool = false) {
        guard !quiet else { return }
        let shown = TerminalText.escaped(text)
        StatusLine.shared.printAbove(localized("unitool: note: \(shown)"))
    }
}

/// Standard output that survives a reader going away. NIO ignores SIGPIPE for the whole
/// process, so a write to a closed pipe (`unitool watch ... | head -3`) fails with EPIPE, which
/// Foundation's `FileHandle.write` turns into a crash; this reports it instead.
package enum StandardOutput {
    /// Writes all of `text`; false when the reader has gone, and nothing more should be written.
    @discardableResult
    package static func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
}

/// Messages for people on stderr, broken at spaces to the terminal's width: a 40-column terminal
/// would otherwise cut words in two. A line's continuation is indented two cells past its own
/// indentation, so that a hint reads as one. A word longer than a line (a path, a command to
/// copy) is never split: it gets a line of its own. Only for a terminal: a pipe or a log file
/// keeps one line per message, for grep.
package enum StandardErrorText {
    /// `text` wrapped to `width` cells; unchanged when `width` is nil.
    package static func wrapped(_ text: String, width: Int?) -> String {
        guard let width, width > 0 else { return text }
        let trailingNewline = text.hasSuffix("\n")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(trailingNewline ? 1 : 0)
        let wrapped = lines.map { line -> String in
            let line = String(line)
            guard DisplayWidth.of(line) > width else { return line }
            let indent = line.prefix { $0 == " " }.count
            let continuation = String(repeating: " ", count: indent + 2)
            var output: [String] = []
            var current = String(repeating: " ", count: indent)
            var currentWidth = indent
            var atStart = true
            for word in line.dropFirst(indent).split(separator: " ", omittingEmptySubsequences: true) {
                let wordWidth = DisplayWidth.of(String(word))
                if !atStart, currentWidth + 1 + wordWidth > width {
                    output.append(current)
                    current = continuation + word
                    currentWidth = continuation.count + wordWidth
                } else {
                    current += (atStart ? "" : " ") + word
                    currentWidth += (atStart ? 0 : 1) + wordWidth
                }
                atStart = false
            }
            output.append(current)
            return output.joined(separator: "\n")
        }
        return wrapped.joined(separator: "\n") + (trailingNewline ? "\n" : "")
    }

    /// The width to wrap stderr at: the terminal's, when stderr is one; else nil.
    package static var terminalWidth: Int? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init)
    }
}
