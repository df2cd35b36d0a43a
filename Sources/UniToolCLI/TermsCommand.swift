import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool terms status|show|accept`: the portal's terms of use, and the version the user agreed to.
struct TermsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "terms", abstract: "Check, read and accept the portal's terms of use.",
        discussion: HelpExamples.discussion(
            """
            Portals publish terms of use with a version. unitool asks the portal for the current
            version before every data command and acts for you only if you accepted that version.
            When it changes, data commands stop until you accept the new one: on a terminal they
            ask; in scripts they exit with code 15.

            The accepted version is kept in $XDG_CONFIG_HOME/unitool/terms/<portal>.json.
            """, examples: "terms"),
        subcommands: [Status.self, Show.self, Accept.self])

    struct Status: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the current version, the accepted version and whether they match.",
            discussion: HelpExamples.discussion(
                "Exits 0 whether or not they match; see 'up_to_date' in --json. Exits 16 if the version cannot be read.",
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
                return "\(shown(portal.name)) publishes no terms-of-use version; there is nothing to accept."
            }
            let accepted = status.accepted.map { "\(shown($0.version)), on \(ISO8601DateFormatter().string(from: $0.acceptedAt))" }
            var lines = [
                "portal:    \(portal.id) (\(shown(portal.name)))",
                "current:   \(shown(current.version))",
                "accepted:  \(accepted ?? "none")",
            ]
            if status.isUpToDate {
                lines.append("status:    up to date")
            } else {
                lines.append("status:    not accepted; data commands refuse to run")
                lines.append("           read them: unitool terms show --portal \(portal.id)")
                lines.append("           accept:    unitool terms accept --portal \(portal.id)")
            }
            return lines.joined(separator: "\n")
        }
    }

    struct Show: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the current terms of use, or where to read them.", discussion: HelpExamples.text(for: "terms show"))
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
                print("\(shown(portal.name)) publishes no terms-of-use version; there is nothing to accept.")
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
            print("Terms of use of \(shown(portal.name)), version \(shown(current.version))\n")
            if let text { print(TerminalText.escaped(text, keepingLineBreaks: true) + "\n") }
            if let url { print("Published at: \(shown(Self.lasting(url, portal: located)))") }
            if !status.isUpToDate {
                print("To accept them: unitool terms accept --portal \(portal.id) --version \(shown(current.version))")
            }
        }

        /// A demo started for this command stops with it, so its terms are pointed to by path
        /// instead; a served demo's address lasts, as a real portal's does.
        static func lasting(_ url: URL, portal: PortalRecipe) -> String {
            portal.isTransientDemo ? "\(url.path) on the demo university (unitool demo serve)" : url.absoluteString
        }
    }

    struct Accept: PortalCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record that you accept the current terms of use.",
            discussion: HelpExamples.discussion(
                """
                With --version, unitool accepts only if that is the current version, so that a script
                cannot accept terms it has not shown: read them with 'unitool terms show' first.
                """, examples: "terms accept"))
        @OptionGroup var globals: GlobalOptions
        @Option(help: "Accept only if this is the current version.") var version: String?

        func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
            let store = environment.workspace.acceptedTerms
            let identity = try environment.termsIdentity(for: portal)
            let accepted = try await environment.withPortal(
                portal, user: identity.user, credentials: identity.credentials, use: identity.savedSession ? .saved : .untouched
            ) {
                try await $0.acceptTerms(
                    version: version, store: store,
                    staleHint: {
                        "read the current terms with 'unitool terms show --portal \(portal.id)', then accept them with --version \($0)"
                    })
            }
            let name = TerminalText.escaped(portal.name)
            guard let accepted else {
                FileHandle.standardError.write(Data("\(name) publishes no terms-of-use version; there is nothing to accept.\n".utf8))
                return
            }
            FileHandle.standardError.write(
                Data("Accepted the terms of use of \(name), version \(TerminalText.escaped(accepted)).\n".utf8))
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
                    .credentialsMissing, "the terms-of-use version of '\(portalID)' is behind the login, and no user is given",
                    hint: "say who you are: --user NAME (or UNITOOL_USER, or 'unitool config set user NAME')")
            }, false
        )
    }
}
