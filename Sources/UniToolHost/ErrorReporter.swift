import Foundation
import UniToolKit

/// Prints a failure the same way for every command: what happened, what to do.
///
/// Messages quote portals (their error text, a terms version, a page title), so they are shown
/// escaped (`TerminalText`): no control character from a portal reaches the terminal. Line feeds
/// stay, for the few messages of several lines (a YAML error with its context). JSON escapes
/// them all as JSON does.
package enum ErrorReporter {
    package static func report(_ error: UniToolError, json: Bool) -> Int32 {
        StatusLine.shared.end()
        let text = text(of: error, json: json)
        FileHandle.standardError.write(Data((json ? text : StandardErrorText.wrapped(text, width: StandardErrorText.terminalWidth)).utf8))
        return error.kind.exitCode
    }

    /// The report of a failure as it is written to standard error.
    package static func text(of error: UniToolError, json: Bool) -> String {
        let text: String
        if json {
            text =
                "{\"error\": {\"kind\": \(JSONString.quoted(error.kind.rawValue)), \"message\": \(JSONString.quoted(error.message)), \"hint\": \(error.hint.map(JSONString.quoted) ?? "null"), \"exit_code\": \(error.kind.exitCode)}}\n"
        } else {
            let escapedMessage = TerminalText.escaped(error.message, keepingLineBreaks: true)
            var lines = localized("unitool: error: \(escapedMessage)") + "\n"
            if let hint = error.hint {
                let escapedHint = TerminalText.escaped(hint, keepingLineBreaks: true)
                lines += localized("  hint: \(escapedHint)") + "\n"
            }
            text = lines
        }
        return text
    }

    package static func report(_ error: any Error, json: Bool) -> Int32 {
        if let error = error as? UniToolError { return report(error, json: json) }
        return report(
            UniToolError(.internal, localized("unexpected error: \(error)"), hint: localized("please report this as a bug")), json: json)
    }
}
