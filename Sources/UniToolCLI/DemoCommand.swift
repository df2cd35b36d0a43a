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
                Prints the address, then serves until Ctrl-C. While it serves on its default port
                (28080, or $UNITOOL_DEMO_PORT), every unitool command with --portal demo uses it, so
                the links they print stay valid; on another port, point them at it with
                UNITOOL_DEMO_URL=<address>. Renewals and grades posted are kept in
                $XDG_STATE_HOME/unitool/demo.json, by this demo and the commands' own alike.
                """, examples: "demo serve"))
        @Option(help: "The port; 0 picks a free one. Default: $UNITOOL_DEMO_PORT, else 28080, where other commands find it.")
        var port: Int?
        @Option(
            help:
                "Faults to inject, comma-separated: \(DemoFaults.known.joined(separator: ", ")). Default: $\(DemoFaults.environmentVariable), as for every command's own demo."
        )
        var faults: String?

        func run() async throws {
            let given = faults ?? ProcessInfo.processInfo.environment[DemoFaults.environmentVariable] ?? ""
            let parsed: DemoFaults
            do { parsed = try DemoFaults(parsing: given) } catch { throw ValidationError("\(error)") }
            let shared = DemoUniversity.sharedPort()
            let chosen = port ?? shared
            if chosen > 0, SharedDemo.running(onPort: chosen) != nil {
                throw UniToolError(
                    .usage, "a demo university already serves on port \(chosen)",
                    hint: "use it (commands with --portal demo find it), or start another with --port 0")
            }
            let demo: DemoUniversity
            do {
                // The same memory as the commands' own demo: a loan renewed before stays renewed.
                demo = try await DemoUniversity.start(
                    faults: parsed, port: chosen, stopOnSignals: true, stateFile: XDGDirectories.state.appendingPathComponent("demo.json"))
            } catch {
                throw UniToolError(
                    .usage, "the demo cannot listen on port \(chosen): \(error)",
                    hint: "another program has the port: give --port 0 for a free one, or another --port")
            }
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
