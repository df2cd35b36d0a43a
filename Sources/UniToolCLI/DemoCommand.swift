import ArgumentParser
import DemoUniversity
import Foundation
import UniToolHost
import UniToolKit

/// The faults `demo serve --faults` knows, as its help lists them.
private let knownFaults = DemoFaults.known.joined(separator: ", ")

/// `unitool demo serve`: the demo university on its own, for recipe authors and for
/// pointing other tools (a browser, a Python script) at the same portal unitool uses.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: localized("Run the bundled demo university."), discussion: HelpExamples.text(for: "demo"),
        subcommands: [Serve.self, Users.self, PostGrade.self, RecordAbsence.self, Reset.self], defaultSubcommand: Serve.self)

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Serve the demo university on 127.0.0.1 until interrupted."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    Prints the address, then serves until Ctrl-C. Your own commands with --portal demo
                    (the same user and $XDG_STATE_HOME) find it and use it, so the links they print
                    stay valid: it writes its port and a random key to a file under
                    $XDG_RUNTIME_DIR/unitool (the state folder if that is unset; mode 0600, removed
                    when it stops), and a command uses the server only if the file is the user's own
                    and the server proves it holds the key. Another user's or another HOME's commands
                    never use it; point them, or a browser, at the address with
                    UNITOOL_DEMO_URL=<address>. Renewals, grades posted and absences are kept in
                    $XDG_STATE_HOME/unitool/demo.json, by this demo and the commands' own alike; 'demo
                    post-grade', 'demo record-absence' and 'demo reset' change them while it serves.
                    """), examples: "demo serve"))
        @Option(help: ArgumentHelp(localized("The port on 127.0.0.1. Default: a free one, which commands find all the same.")))
        var port: Int?
        @Option(
            help: ArgumentHelp(
                localized(
                    "Faults to inject, comma-separated: \(knownFaults). Default: $\(DemoFaults.environmentVariable), as for every command's own demo."
                ))
        )
        var faults: String?

        func validate() throws {
            if let port, !(0...65535).contains(port) { throw ValidationError(localized("--port must be from 0 to 65535, not \(port)")) }
        }

        func run() async throws {
            let given = faults ?? ProcessInfo.processInfo.environment[DemoFaults.environmentVariable] ?? ""
            let parsed: DemoFaults
            do { parsed = try DemoFaults(parsing: given) } catch { throw ValidationError("\(error)") }
            let stateFile = SharedDemo.stateFile
            if let running = SharedDemo.running() {
                throw UniToolError(
                    .usage, localized("a demo university already serves \(stateFile.path) at \(running.absoluteString)"),
                    hint: localized("use it (your commands with --portal demo find it), or stop it first"))
            }
            var rendezvous = DemoRendezvous(port: 0, stateFile: stateFile.standardizedFileURL.path)
            let demo: DemoUniversity
            do {
                // The same memory as the commands' own demo: a loan renewed before stays renewed.
                demo = try await DemoUniversity.start(
                    faults: parsed, port: port ?? 0, stopOnSignals: true, stateFile: stateFile, rendezvous: rendezvous)
            } catch {
                throw UniToolError(
                    .usage, localized("the demo cannot listen on port \(port ?? 0): \(error)"),
                    hint: localized("another program has the port: leave out --port for a free one, or give another"))
            }
            rendezvous.port = demo.baseURL.port ?? 0
            let location = DemoRendezvous.location(stateFile: stateFile)
            var published = true
            do {
                try rendezvous.publish(at: location)
            } catch {
                published = false
                let address = demo.baseURL.absoluteString
                FileHandle.standardError.write(
                    Data(
                        (localized(
                            "unitool: warning: cannot write \(location.path) (\(error)); your commands will not find this demo: give them UNITOOL_DEMO_URL=\(address)"
                        ) + "\n").utf8))
            }
            FileHandle.standardOutput.write(Data("\(demo.baseURL.absoluteString)\n".utf8))
            FileHandle.standardError.write(
                Data((localized("demo university at \(demo.baseURL.absoluteString); press Ctrl-C to stop") + "\n").utf8))
            // Ctrl-C, SIGTERM and SIGHUP stop the server gracefully; then the file goes.
            await demo.waitUntilStopped()
            if published { rendezvous.withdraw(at: location) }
        }
    }

    struct PostGrade: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "post-grade", abstract: localized("Post a grade in the demo, as a lecturer does (what 'watch grades' announces)."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    Gives USER the grade GRADE in the course CODE of TERM: the grades page shows it from
                    now on, in the demo a command starts and in a running 'unitool demo serve' alike
                    (both keep their memory in $XDG_STATE_HOME/unitool/demo.json, and a running demo
                    reads it again at its next request). A grade posted before is replaced.

                    The points follow the grade on the demo's 4.0 scale (A 4.0, A- 3.7, B+ 3.3, B 3.0,
                    B- 2.7, C+ 2.3, C 2.0, C- 1.7, D 1.0, F 0) unless --points gives them; the date is
                    today unless --date gives one. 'unitool demo reset' takes every change back.

                    Exits 53 for a user, term or course the demo does not have, naming the ones it
                    has: 'unitool demo users' lists the users, 'unitool --portal demo grades --term all
                    --user USER' (password from 'demo users') their courses.
                    """), examples: "demo post-grade"))
        @Argument(help: ArgumentHelp(localized("The demo user, such as alice ('unitool demo users' lists them)."))) var user: String
        @Argument(help: ArgumentHelp(localized("The term, such as 2026-fall."))) var term: String
        @Argument(help: ArgumentHelp(localized("The course code, such as HUN-250."))) var code: String
        @Argument(help: ArgumentHelp(localized("The grade, such as B or A-."))) var grade: String
        @Option(help: ArgumentHelp(localized("The grade points. Default: the grade's on the 4.0 scale; none for another grade.")))
        var points: Double?
        @Option(help: ArgumentHelp(localized("The date the grade was posted, YYYY-MM-DD. Default: today, campus time."))) var date: String?
        @Flag(help: ArgumentHelp(localized("Print the grade posted as JSON."))) var json = false

        func validate() throws {
            guard !grade.isEmpty, grade.count <= 16, !grade.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true })
            else { throw ValidationError(localized("the grade must be 1 to 16 printable characters, such as B or A-")) }
            if let points, !(points.isFinite && (0...10).contains(points)) {
                throw ValidationError(localized("--points must be a number from 0 to 10, not \(points)"))
            }
            if let date, date.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) == nil || Self.day(date) == nil {
                throw ValidationError(localized("--date must be a date as YYYY-MM-DD, such as 2026-11-25, not '\(date)'"))
            }
        }

        static func day(_ text: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "yyyy-MM-dd"
            formatter.isLenient = false
            return formatter.date(from: text)
        }

        func run() throws {
            let posted = try DemoCommand.changing {
                try DemoStateFile(SharedDemo.stateFile).postGrade(
                    user: user, term: term, code: code, grade: grade, points: points, date: date)
            }
            let record = Record(fields: [
                ("user", .string(posted.user)), ("term", .string(posted.term)), ("code", .string(posted.code)),
                ("course", .string(posted.course)), ("grade", .string(posted.grade)),
                ("points", posted.points.map { .number($0) } ?? .null), ("date", .string(posted.date)),
            ])
            if json {
                print(JSONRenderer.object(record))
            } else {
                let course = "\(posted.course) (\(posted.code)), \(posted.term)"
                let line: String
                if let value = posted.points {
                    let points = String(format: "%.1f", value)
                    line = localized("posted \(posted.grade) for \(posted.user) in \(course), \(points) points, dated \(posted.date)")
                } else {
                    line = localized("posted \(posted.grade) for \(posted.user) in \(course), dated \(posted.date)")
                }
                print(TerminalText.escaped(line))
            }
        }
    }

    struct RecordAbsence: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record-absence", abstract: localized("Record an absence in the demo today, as a lecturer's roll call does."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    USER missed today's class of CODE: the attendance page shows one more absence and
                    one fewer left, and 'unitool today' warns when one is left. Like 'demo post-grade',
                    it changes $XDG_STATE_HOME/unitool/demo.json, which a running 'unitool demo serve'
                    reads again at its next request; 'unitool demo reset' takes it back.

                    Exits 53 for a user or course the demo keeps no attendance for, naming the ones it
                    has ('unitool --portal demo attendance' shows alice's).
                    """), examples: "demo record-absence"))
        @Argument(help: ArgumentHelp(localized("The demo user, such as alice."))) var user: String
        @Argument(help: ArgumentHelp(localized("The course code, such as CS-320."))) var code: String
        @Flag(help: ArgumentHelp(localized("Print the absence recorded as JSON."))) var json = false

        func run() throws {
            let recorded = try DemoCommand.changing { try DemoStateFile(SharedDemo.stateFile).recordAbsence(user: user, code: code) }
            if json {
                print(
                    JSONRenderer.object(
                        Record(fields: [
                            ("user", .string(recorded.user)), ("code", .string(recorded.code)), ("date", .string(recorded.date)),
                            ("absences_left", .integer(recorded.left)),
                        ])))
            } else {
                let count = recorded.left
                let left = localized("\(count) absence left", plural: "\(count) absences left", count: count)
                print(
                    TerminalText.escaped(
                        localized("recorded an absence for \(recorded.user) in \(recorded.code) on \(recorded.date): \(left)")))
            }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Take the demo back to its start."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    Forgets every renewal, posted grade, purchase request and recorded absence: removes
                    $XDG_STATE_HOME/unitool/demo.json, so that the demo a command starts and a running
                    'unitool demo serve' both show the demo as it ships. Saved sessions, accepted terms
                    and the history are unitool's own and stay.
                    """), examples: "demo reset"))
        @Flag(help: ArgumentHelp(localized("Print what was reset as JSON."))) var json = false

        func run() throws {
            let file = SharedDemo.stateFile
            try DemoCommand.changing { try DemoStateFile(file).reset() }
            if json {
                print(JSONRenderer.object(Record(fields: [("reset", .bool(true)), ("state_file", .string(file.path))])))
            } else {
                print(TerminalText.escaped(localized("the demo is back at its start (\(file.path) removed)")))
            }
        }
    }

    /// Runs a change to the demo's state, its failures worded as unitool's errors: a name the
    /// demo does not have is exit 53 with the names it has; a file that cannot be written, 50.
    static func changing<T>(_ change: () throws -> T) throws -> T {
        do {
            return try change()
        } catch let error as DemoChangeError {
            if case .unwritable = error {
                throw UniToolError(.stateCorrupt, "\(error)", hint: localized("check that $XDG_STATE_HOME/unitool is yours and writable"))
            }
            let known = error.known.joined(separator: ", ")
            let hint =
                error.known.isEmpty
                ? localized("the demo has none there; 'unitool demo users' says what each user shows")
                : localized("the demo has: \(known)")
            throw UniToolError(.demoUnknownName, "\(error)", hint: hint)
        }
    }

    struct Users: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("List the demo users, their passwords and what each one shows."),
            discussion: HelpExamples.text(for: "demo users"))
        @Flag(help: ArgumentHelp(localized("Print JSON instead of a table."))) var json = false

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
