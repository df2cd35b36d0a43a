import Foundation
import UniToolKit

/// Asks for a password on the terminal without echoing it, as `sudo` and `ssh` do.
package enum TerminalPrompt {
    package static func readPassword(prompt: String) throws -> Secret {
        try StatusLine.shared.suspended { try readPasswordWithoutStatus(prompt: prompt) }
    }

    private static func readPasswordWithoutStatus(prompt: String) throws -> Secret {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw UniToolError(
                .credentialsMissing, localized("there is no terminal to ask for the password on"),
                hint: localized("pipe the password in with --password-stdin"))
        }
        defer { close(tty) }
        // The prompt names the portal and user, which a recipe pack may spell with escapes.
        _ = TerminalText.escaped(prompt, keepingLineBreaks: true).withCString { write(tty, $0, strlen($0)) }
        var original = termios()
        let hasTermios = tcgetattr(tty, &original) == 0
        if hasTermios {
            TerminalRestorer.arm(descriptor: tty, settings: original)
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(tty, TCSAFLUSH, &silent)
        }
        defer {
            if hasTermios {
                tcsetattr(tty, TCSAFLUSH, &original)
                TerminalRestorer.disarm()
            }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != 0x0A, byte != 0x0D {
            bytes.append(byte)
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard !bytes.isEmpty else {
            throw UniToolError(.credentialsMissing, localized("no password was entered"))
        }
        return Secret(bytes: bytes)
    }

    /// Asks a question on the terminal and returns the answer line, or nil if there is no
    /// terminal or it was closed.
    package static func ask(_ question: String) -> String? {
        StatusLine.shared.suspended { askWithoutStatus(question) }
    }

    private static func askWithoutStatus(_ question: String) -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        _ = question.withCString { write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(tty, &byte, 1)
            if count != 1 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A || byte == 0x0D { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    }

    /// Writes to the terminal, where the question was asked.
    package static func tell(_ text: String) {
        let tty = open("/dev/tty", O_WRONLY | O_CLOEXEC)
        guard tty >= 0 else { return }
        defer { close(tty) }
        _ = text.withCString { write(tty, $0, strlen($0)) }
    }
}

/// Puts the terminal back when a signal ends unitool at a prompt with echo off.
///
/// Without it, Ctrl-C at the password prompt left the shell with echo off, and everything typed
/// after it invisible. The handler does only what is safe in a signal handler: `tcsetattr`, then
/// the default action of the same signal, so the exit status still says what ended unitool.
package enum TerminalRestorer {
    nonisolated(unsafe) private static var descriptor: Int32 = -1
    nonisolated(unsafe) private static var settings = termios()
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    package static func arm(descriptor: Int32, settings: termios) {
        Self.settings = settings
        Self.descriptor = descriptor
        for signalNumber in signals {
            signal(signalNumber) { received in
                if TerminalRestorer.descriptor >= 0 {
                    tcsetattr(TerminalRestorer.descriptor, TCSANOW, &TerminalRestorer.settings)
                }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }

    package static func disarm() {
        for signalNumber in signals { signal(signalNumber, SIG_DFL) }
        descriptor = -1
    }
}
