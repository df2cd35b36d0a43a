import ArgumentParser
import Foundation
import Synchronization
import UniToolHost
import UniToolKit

/// `unitool doctor login`: the login, page by page, for when it breaks.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor", abstract: localized("Explain what unitool does, step by step, to find out why something fails."),
        discussion: HelpExamples.text(for: "doctor"),
        subcommands: [Login.self])

    struct Login: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Log in from scratch and explain every page: the rule it matched, the form, the fields, where it led."),
            discussion: localized(
                """
                Use it when a login fails or a portal changed. It starts from an empty session (the saved one is
                neither used nor replaced) and prints, for each page of the login: its address, title and forms,
                the page rule of the portal recipe that matched, the form unitool submitted, the fields it set and
                where their values came from, and where the submission led. Values are never shown: a password
                or one-time code appears as "(redacted)", and the query values of every address are hidden.

                With --json it prints {"ok": ..., "steps": [...]} for scripts and bug reports. It exits with
                the login's own exit code when the login fails (10 wrong password, 11 one-time code, and so on).

                Example:
                  unitool --portal demo doctor login
                """))
        @OptionGroup var globals: GlobalOptions

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let (user, credentials) = try environment.credentialProvider(for: portal)
            let json = globals.outputFormat == .json
            let steps = StepLog()
            let style = TableStyle.forStandardOutput()
            let outcome = await Result {
                try await environment.withPortal(portal, user: user, credentials: credentials, use: .untouched) { connection in
                    if !json {
                        let start = (try? connection.portal.url(for: portal.login.start).redactedForLog) ?? portal.login.start
                        print(localized("Logging in to \(portal.name) as \(user) from an empty session, starting at \(start)") + "\n")
                    }
                    _ = try await connection.logIn { step in
                        steps.append(step)
                        if !json { print(Self.explain(step, number: steps.count, style: style)) }
                    }
                    return connection.session.requestCount
                }
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoder.keyEncodingStrategy = .convertToSnakeCase
                struct Report: Encodable {
                    let ok: Bool
                    let portal: String
                    let user: String
                    let requests: Int?
                    let steps: [LoginStep]
                }
                let report = Report(
                    ok: (try? outcome.get()) != nil, portal: portal.id, user: user, requests: try? outcome.get(), steps: steps.all)
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else if let requests = try? outcome.get() {
                print(localized("The login works: \(steps.count) pages, \(requests) HTTP requests. The saved session was left as it was."))
            } else {
                print(localized("The login stopped at page \(steps.count). What to do is below."))
            }
            _ = try outcome.get()
        }

        /// One step, as a person reads it. Titles, forms, field names, addresses and errors are
        /// the portal's text, shown escaped (`TerminalText`) so that none can act on the terminal.
        static func explain(_ step: LoginStep, number: Int, style: TableStyle) -> String {
            let shown = { (text: String) in TerminalText.escaped(text) }
            var lines: [String] = []
            let title = step.title.map { ", \"\(shown($0))\"" } ?? ""
            lines.append(style.emphasis("\(number). \(shown(step.url))") + " (HTTP \(step.status)\(title))")
            let forms = step.forms.isEmpty ? localized("none") : shown(step.forms.joined(separator: "; "))
            lines.append("   " + localized("forms:   \(forms)"))
            let matched = step.matchedRule.map { localized("page rule '\($0)'") } ?? localized("no page rule")
            lines.append("   " + localized("matched: \(matched)"))
            let submitted = shown(step.submitted ?? "")
            switch step.action {
            case .filledForm, .autoSubmitted:
                lines.append("   " + localized("action:  \(step.action.rawValue), \(submitted)"))
                let width = (step.filled.map(\.name) + step.keptFromPage).map(\.count).max() ?? 0
                let padded = { (name: String) in shown(name.padding(toLength: width, withPad: " ", startingAt: 0)) }
                for field in step.filled {
                    lines.append("     " + localized("\(padded(field.name))  set to \(field.source)"))
                }
                for name in step.keptFromPage {
                    lines.append("     " + localized("\(padded(name))  kept from the page"))
                }
            case .followedRefresh, .followedLink, .restarted:
                lines.append("   " + localized("action:  \(step.action.rawValue), \(submitted)"))
            case .loggedIn:
                let loggedIn = style.success(localized("logged in"))
                lines.append("   " + localized("action:  \(loggedIn): this page is the portal"))
            case .failed:
                if step.submitted != nil { lines.append("   " + localized("action:  tried \(submitted)")) }
                lines.append("   " + style.failure(localized("stopped: ")) + shown(step.error ?? localized("the login failed")))
            }
            if let arrivedAt = step.arrivedAt {
                let place = shown(arrivedAt)
                let count = step.redirects
                lines.append(
                    "   "
                        + (count == 0
                            ? localized("led to:  \(place)")
                            : localized(
                                "led to:  \(place) after \(count) redirect", plural: "led to:  \(place) after \(count) redirects",
                                count: count)))
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

/// Steps collected from the login's observer, which may call from another task.
private final class StepLog: Sendable {
    private let steps = Mutex<[LoginStep]>([])
    func append(_ step: LoginStep) { steps.withLock { $0.append(step) } }
    var all: [LoginStep] { steps.withLock { $0 } }
    var count: Int { steps.withLock { $0.count } }
}
