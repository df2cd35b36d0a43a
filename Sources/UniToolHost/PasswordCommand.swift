import Foundation
import UniToolKit

/// `UNITOOL_PASSWORD_COMMAND`: a command whose first line of output is the password, as with
/// `pass show uni/portal`. It runs through `/bin/sh -c` with `UNITOOL_PORTAL` and `UNITOOL_USER`
/// set, so one command can serve several accounts.
///
/// It is bounded like any other input: at most `maximumOutputBytes` are read in all, first line
/// or not, and past them or at the time limit its whole process group is killed, so neither
/// `yes` (stopped as soon as it passes the cap) nor a background child that keeps the pipe open
/// can make unitool wait or grow.
package enum PasswordCommand {
    package static let environmentVariable = "UNITOOL_PASSWORD_COMMAND"
    /// `UNITOOL_TOTP_COMMAND`: the same, for a one-time code (`oathtool --totp -b SECRET`, `pass otp uni`).
    package static let oneTimeCodeVariable = "UNITOOL_TOTP_COMMAND"
    package static let maximumOutputBytes = 64 * 1024

    package static func run(
        _ command: String, portal: String, user: String, variable: String = environmentVariable, what: String = localized("a password"),
        failureKind: UniToolError.Kind = .credentialsMissing, timeout: Duration = .seconds(120)
    ) throws -> Secret {
        let environmentVariable = variable
        var environment = ProcessInfo.processInfo.environment
        environment["UNITOOL_PORTAL"] = portal
        environment["UNITOOL_USER"] = user
        let outcome: ChildProcess.FirstLine
        do {
            outcome = try ChildProcess.firstLine(
                of: "/bin/sh", arguments: ["-c", command], environment: environment, maximumBytes: maximumOutputBytes,
                timeout: timeout)
        } catch {
            throw UniToolError(
                failureKind, localized("\(environmentVariable) could not be started: \(error)"),
                hint: localized("check the command in \(environmentVariable)"))
        }
        var line = outcome.line
        defer { for index in line.indices { line[index] = 0 } }
        switch outcome.ending {
        case .timedOut:
            let seconds = timeout.components.seconds
            throw UniToolError(
                failureKind,
                localized(
                    "\(environmentVariable) did not print \(what) within \(seconds) seconds; it was stopped, with every process it started"),
                hint: localized("run the command by hand; if it asks for something (a passphrase), unlock that first"))
        case .tooLong:
            let kibibytes = maximumOutputBytes / 1024
            throw UniToolError(
                failureKind,
                localized(
                    "\(environmentVariable) printed more than \(kibibytes) KiB; it was stopped at once, with every process it started, and its output was not used"
                ),
                hint: localized(
                    "the command must print \(what) on its first line and then end; one that keeps printing (such as 'yes') is stopped"))
        case .exited(let status) where status != 0:
            throw UniToolError(
                failureKind, localized("\(environmentVariable) failed (exit status \(status)); its output was not used"),
                hint: localized("run the command by hand to see what is wrong"))
        case .exited:
            break
        }
        guard !line.isEmpty else {
            throw UniToolError(
                failureKind, localized("\(environmentVariable) printed nothing"),
                hint: localized("the command must print \(what) on its first line"))
        }
        return Secret(bytes: line)
    }
}
