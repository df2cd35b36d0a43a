import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool terms status|show|accept`: the portal's terms of use, and the version the user agreed to.
struct TermsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terms", abstract: localized("Check, read and accept the portal's terms of use."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Portals publish terms of use with a version. unitool asks the portal for the current
                version before every data command and acts for you only if you accepted that version.
                When it changes, data commands stop until you accept the new one: on a terminal they
                ask; in scripts they exit with code 15.

                The accepted version is kept in $XDG_CONFIG_HOME/unitool/terms/<portal>.json.
                """), examples: "terms"),
        subcommands: [Status.self, Show.self, Accept.self])

    struct Status: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Show the current version, the accepted version and whether they match."),
            discussion: HelpExamples.discussion(
                localized("Exits 0 whether or not they match; see 'up_to_date' in --json. Exits 16 if the version cannot be read."),
                examples: "terms status"))
        @OptionGroup var globals: GlobalOptions

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let identity = try environment.termsIdentity(for: portal)
            let status = try await environment.withPortal(
                portal, user: identity.user, credentials: identity.credentials, use: identity.savedSession ? .saved : .untouched
            ) {
                try await $0.termsStatus(environment.workspace.acceptedTerms)
            }
            let record = Record(fields: [
                ("portal", .string(portal.id)),
                ("current", status.current.map { .string($0.version) } ?? .null),
                ("accepted", status.accepted.map { .string($0.version) } ?? .null),
                ("accepted_at", status.accepted.map { .string(ISO8601DateFormatter().string(from: $0.acceptedAt)) } ?? .null),
                ("up_to_date", .bool(status.isUpToDate)),
                ("url", status.current?.url.map { .string($0.absoluteString) } ?? .null),
            ])
            if globals.outputFormat == .json {
                print(JSONRenderer.object(record))
            } else if globals.outputFormat != .table {
                print(
                    globals.outputFormat.render(
                        RecordSet(columns: record.fields.map(\.name), records: [record]), style: .forStandardOutput()),
                    terminator: "")
            } else {
                print(Self.describe(status, portal: portal))
            }
        }

        /// The status for a person. Versions and names come from the portal and the recipe, so
        /// they are shown escaped (`TerminalText`): a version is never a terminal command.
        static func describe(_ status: TermsStatus, portal: PortalRecipe) -> String {
            let shown = { (text: String) in TerminalText.escaped(text) }
            guard let current = status.current else {
                return localized("\(shown(portal.name)) publishes no terms-of-use version; there is nothing to accept.")
            }
            let accepted = status.accepted.map {
                let day = ISO8601DateFormatter().string(from: $0.acceptedAt)
                return localized("\(shown($0.version)), on \(day)")
            }
            let acceptedShown = accepted ?? localized("none")
            var lines = [
                localized("portal:    \(portal.id) (\(shown(portal.name)))"),
                localized("current:   \(shown(current.version))"),
                localized("accepted:  \(acceptedShown)"),
            ]
            if status.isUpToDate {
                lines.append(localized("status:    up to date"))
            } else {
                lines.append(localized("status:    not accepted; data commands refuse to run"))
                lines.append("           " + localized("read them: unitool terms show --portal \(portal.id)"))
                lines.append("           " + localized("accept:    unitool terms accept --portal \(portal.id)"))
            }
            return lines.joined(separator: "\n")
        }
    }

    struct Show: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Print the current terms of use, or where to read them."), discussion: HelpExamples.text(for: "terms show"))
        @OptionGroup var globals: GlobalOptions

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let identity = try environment.termsIdentity(for: portal)
            let (status, text, url, located) = try await environment.withPortal(
                portal, user: identity.user, credentials: identity.credentials, use: identity.savedSession ? .saved : .untouched
            ) { connection in
                let status = try await connection.termsStatus(environment.workspace.acceptedTerms)
                let (text, url) = try await connection.termsText()
                return (status, text, url, connection.portal)
            }
            let shown = { (text: String) in TerminalText.escaped(text) }
            guard let current = status.current else {
                print(localized("\(shown(portal.name)) publishes no terms-of-use version; there is nothing to accept."))
                return
            }
            if globals.outputFormat == .json {
                let record = Record(fields: [
                    ("portal", .string(portal.id)), ("version", .string(current.version)),
                    ("url", url.map { .string(Self.lasting($0, portal: located)) } ?? .null), ("text", text.map { .string($0) } ?? .null),
                ])
                print(JSONRenderer.object(record))
                return
            }
            // The portal's words, shown escaped: the text keeps its paragraphs, nothing else.
            print(localized("Terms of use of \(shown(portal.name)), version \(shown(current.version))") + "\n")
            if let text { print(TerminalText.escaped(text, keepingLineBreaks: true) + "\n") }
            if let url { print(localized("Published at: \(shown(Self.lasting(url, portal: located, forPeople: true)))")) }
            if !status.isUpToDate {
                print(localized("To accept them: unitool terms accept --portal \(portal.id) --version \(shown(current.version))"))
            }
        }

        /// A demo started for this command stops with it, so its terms are pointed to by path
        /// instead; a served demo's address lasts, as a real portal's does. In the current
        /// language `forPeople`; in English for --json.
        static func lasting(_ url: URL, portal: PortalRecipe, forPeople: Bool = false) -> String {
            guard portal.isTransientDemo else { return url.absoluteString }
            return forPeople
                ? localized("\(url.path) on the demo university (unitool demo serve)")
                : "\(url.path) on the demo university (unitool demo serve)"
        }
    }

    struct Accept: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Record that you accept the current terms of use."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    With --version, unitool accepts only if that is the current version, so that a script
                    cannot accept terms it has not shown: read them with 'unitool terms show' first.
                    """), examples: "terms accept"))
        @OptionGroup var globals: GlobalOptions
        @Option(help: ArgumentHelp(localized("Accept only if this is the current version."))) var version: String?

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let store = environment.workspace.acceptedTerms
            let identity = try environment.termsIdentity(for: portal)
            let accepted = try await environment.withPortal(
                portal, user: identity.user, credentials: identity.credentials, use: identity.savedSession ? .saved : .untouched
            ) {
                try await $0.acceptTerms(
                    version: version, store: store,
                    staleHint: {
                        localized(
                            "read the current terms with 'unitool terms show --portal \(portal.id)', then accept them with --version \($0)")
                    })
            }
            let name = TerminalText.escaped(portal.name)
            guard let accepted else {
                FileHandle.standardError.write(
                    Data((localized("\(name) publishes no terms-of-use version; there is nothing to accept.") + "\n").utf8))
                return
            }
            FileHandle.standardError.write(
                Data((localized("Accepted the terms of use of \(name), version \(TerminalText.escaped(accepted)).") + "\n").utf8))
        }
    }
}

extension CommandEnvironment {
    /// Who asks for the terms. Terms belong to the portal, not to a user: with no user known,
    /// the terms commands ask anonymously, with no saved session, and only a portal whose terms
    /// API is behind the login needs one (and says so). With a user, the API is asked through
    /// that user's session, logging in under the usual credential rules if the portal wants it.
    func termsIdentity(for portal: PortalRecipe) throws -> (user: String, credentials: CredentialProvider, savedSession: Bool) {
        if namedUser(for: portal) != nil || portal.isDemo {
            let credentials = try credentialProvider(for: portal)
            return (credentials.user, credentials.provide, true)
        }
        let portalID = portal.id
        return (
            "",
            {
                throw UniToolError(
                    .credentialsMissing, localized("the terms-of-use version of '\(portalID)' is behind the login, and no user is given"),
                    hint: localized("say who you are: --user NAME (or UNITOOL_USER, or 'unitool config set user NAME')"))
            }, false
        )
    }
}
