import Foundation
import UniToolKit

/// The command line's answers to what the service asks on the way (`Interaction`), for a person
/// who may be at a terminal:
/// - progress: the one-line status on stderr (`StatusLine`), only on a terminal;
/// - terms not yet accepted: on a terminal, where to read them and a question, as a portal app's
///   agreement screen does; anywhere else (a script, cron), a refusal;
/// - the password, when none was given or stored: typed at the terminal, not echoed, for this
///   login only (`auth login` is what stores one);
/// - a one-time code: typed at the terminal, not echoed, when no stored secret or command gives one;
/// - an action: confirmed by the command line that names it (`loans renew B-1`); one that asks
///   first (`ask: true`, a purchase request) shows what it will send and asks, at a terminal only
///   (`--yes` answers for a script, and never reaches here).
package struct TerminalInteraction: Interaction {
    /// `--quiet`: what was done for the person (`tell`) is not said either.
    let quiet: Bool

    package init(quiet: Bool = false) { self.quiet = quiet }

    /// Whether a person can answer here: both stdin (to type) and stderr (to see the question)
    /// are a terminal.
    private var personPresent: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

    package func progress(_ message: String) { StatusLine.shared.update(message) }

    package func explainWait(_ message: String) { Progress.explainWait(message) }

    /// On stderr whether or not it is a terminal, as any note: a script's log keeps it too;
    /// `--quiet` leaves it out, as it leaves out every note.
    package func tell(_ message: String) { Progress.note(message, quiet: quiet) }

    package var canTypePassword: Bool { personPresent }

    package func typePassword(_ question: String) -> Secret? { try? TerminalPrompt.readPassword(prompt: question) }

    /// A code is typed as a password is: not echoed, since someone may be looking at the screen.
    package var canTypeOneTimeCode: Bool { isatty(STDIN_FILENO) == 1 || isatty(STDERR_FILENO) == 1 }

    package func typeOneTimeCode(_ question: String) -> String? {
        (try? TerminalPrompt.readPassword(prompt: question))?.reveal()
    }

    /// True to accept the current terms now. Everything shown quotes the portal (versions, the
    /// address, the terms), so it is escaped: the prompt is on the user's terminal.
    package func acceptTerms(_ status: TermsStatus, through connection: PortalConnection) async throws -> Bool {
        guard !status.isUpToDate, let current = status.current else { return true }
        guard personPresent else { return false }
        let portal = connection.portal
        let shown = { (text: String) in TerminalText.escaped(text) }
        let portalName = shown(status.portal.name)
        let version = shown(current.version)
        // What `TermsStatus.refusal` says, as a sentence of its own: nothing is fetched before
        // the answer anyway.
        var text: String
        if let accepted = status.accepted {
            let acceptedVersion = shown(accepted.version)
            text = localized(
                "The terms of use of \(portalName) changed: you accepted version \(acceptedVersion), the portal now has version \(version)."
            )
        } else {
            text = localized("You have not accepted the terms of use of \(portalName) (current version \(version)).")
        }
        text += "\n"
        if let url = current.url, !portal.isTransientDemo {
            let address = shown(url.absoluteString)
            text += localized("Read them at \(address), or answer s to show them here.") + "\n"
        } else {
            text += localized("Answer s to show them here, or read them later with 'unitool terms show --portal \(portal.id)'.") + "\n"
        }
        while true {
            guard let answer = TerminalPrompt.ask(text + localized("Accept version \(version)? [y]es, [n]o, [s]how them: ")) else {
                return false
            }
            text = ""
            switch answer.lowercased() {
            case "y", "yes":
                let name = shown(portal.name)
                Progress.say(localized("Accepted the terms of use of \(name), version \(version)."))
                return true
            case "s", "show":
                let (terms, url) = try await connection.termsText()
                let shownTerms = terms.map { TerminalText.escaped($0, keepingLineBreaks: true) }
                let readThem = url.map { address in
                    let shownAddress = shown(address.absoluteString)
                    return localized("Read them at \(shownAddress)")
                }
                TerminalPrompt.tell("\n" + (shownTerms ?? readThem ?? "") + "\n\n")
            default:
                return false
            }
        }
    }

    /// An action that asks first: what will be sent (the portal's name, the action, every value,
    /// escaped: they were typed, but may have been pasted from anywhere), and a yes or no. No
    /// terminal: no.
    package func confirm(_ action: ActionSpec, argument: String, parameters: [String: String], on portal: PortalRecipe) async throws
        -> Bool
    {
        guard action.asks else { return true }
        guard personPresent else { return false }
        let shown = { (text: String) in TerminalText.escaped(text) }
        var text = "\(shown(portal.name)): \(shown(action.summary))\n"
        if action.takesArgument { text += "  \(shown(action.argument)): \(shown(argument))\n" }
        let width = action.parameters.map(\.name.count).max() ?? 0
        for parameter in action.parameters {
            let value = parameters[parameter.name] ?? ""
            let padding = String(repeating: " ", count: width - parameter.name.count)
            text += "  \(parameter.name):\(padding) \(value.isEmpty ? localized("(empty)") : shown(value))\n"
        }
        guard let answer = TerminalPrompt.ask(text + localized("Send this? [y/N] ")) else { return false }
        return ["y", "yes"].contains(answer.lowercased())
    }
}
