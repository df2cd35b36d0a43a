import ArgumentParser
import DemoUniversity
import Foundation
import UniToolHost
import UniToolKit

/// `unitool demo serve`: the demo university on its own, for recipe authors and for
/// pointing other tools (a browser, a Python script) at the same portal unitool uses.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Run the bundled demo university.", discussion: HelpExamples.text(for: "demo"),
        subcommands: [Serve.self, Users.self], defaultSubcommand: Serve.self)

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the demo university on 127.0.0.1 until interrupted.",
            discussion: HelpExamples.discussion(
                """
                Prints the address, then serves until Ctrl-C. Point unitool at it with
                UNITOOL_DEMO_URL=<address> so several runs share one demo.
                """, examples: "demo serve"))
        @Option(help: "The port; 0 picks a free one.") var port = 0
        @Option(help: "Faults to inject, comma-separated: \(DemoFaults.known.joined(separator: ", ")).") var faults = ""

        func run() async throws {
            let parsed: DemoFaults
            do { parsed = try DemoFaults(parsing: faults) } catch { throw ValidationError("\(error)") }
            let demo = try await DemoUniversity.start(faults: parsed, port: port, stopOnSignals: true)
            FileHandle.standardOutput.write(Data("\(demo.baseURL.absoluteString)\n".utf8))
            FileHandle.standardError.write(Data("demo university at \(demo.baseURL.absoluteString); press Ctrl-C to stop\n".utf8))
            await demo.waitUntilStopped()
        }
    }

    struct Users: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the demo users, their passwords and what each one shows.", discussion: HelpExamples.text(for: "demo users"))
        @Flag(help: "Print JSON instead of a table.") var json = false

        func run() {
            let records = DemoData.users.map { user in
                Record(fields: [
                    ("user", .string(user.username)), ("password", .string(user.password)), ("name", .string(user.displayName)),
                    ("shows", .string(Self.shows(user))),
                ])
            }
            let set = RecordSet(columns: ["user", "password", "name", "shows"], records: records)
            print((json ? OutputFormat.json : .table).render(set, style: .forStandardOutput()), terminator: "")
        }

        /// What logging in as the user demonstrates.
        static func shows(_ user: DemoUser) -> String {
            var parts: [String] = []
            if user.totpSecret != nil { parts.append("a one-time code (TOTP) after the password") }
            if user.locked { parts.append("a locked account (exit 13)") }
            if user.asksConsent { parts.append("the attribute release page") }
            return parts.isEmpty ? "a plain login" : parts.joined(separator: "; ")
        }
    }
}
