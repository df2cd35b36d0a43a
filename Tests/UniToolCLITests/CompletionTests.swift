import ArgumentParser
import Foundation
import Testing
import UniToolHost
import UniToolKit

@testable import UniToolCLI

/// The pure parts of completion: options read from a command's help, and comma-separated lists.
@Suite("Completion candidates")
struct CompletionTests {
    @Test("options are read from the OPTIONS section only, with whether they take a value")
    func optionsFromHelp() {
        let help = """
            OVERVIEW: Serve the demo.

            Mention of --not-an-option in the discussion.

            USAGE: demo serve [--port <port>] [--verbose]

            OPTIONS:
              --port <port>           The port.
                                      Continued --nor-this.
              -v, --verbose           Log.
              --connect-timeout <seconds>
                                      Give up.
              -h, --help              Show help information.

            """
        let options = Completion.options(inHelp: help)
        #expect(options.map(\.name) == ["--port", "--verbose", "--connect-timeout", "--help"])
        #expect(options.map(\.takesValue) == [true, false, true, false])
    }

    @Test("a built-in subcommand offers its own options, and no global flag it would reject")
    func builtinOptions() {
        let serve = Completion.options(of: DemoCommand.Serve.self).map(\.name)
        #expect(serve.contains("--port"))
        #expect(!serve.contains("--portal"))
        let test = Completion.options(of: RecipesCommand.Test.self).map(\.name)
        #expect(test.contains("--update"))
        #expect(Completion.options(of: DemoCommand.Serve.self).first { $0.name == "--port" }?.takesValue == true)
    }

    @Test("--fields and --sort complete one item of a comma-separated list at a time")
    func listItems() {
        let fields = ["term", "course", "code", "credits"]
        #expect(Completion.listItems(fields, "", descending: false) == fields)
        #expect(Completion.listItems(fields, "c", descending: false) == ["course", "code", "credits"])
        #expect(Completion.listItems(fields, "course,c", descending: false) == ["course,code", "course,credits"])
        #expect(Completion.listItems(fields, "course,", descending: false) == ["course,term", "course,code", "course,credits"])
        #expect(Completion.listItems(fields, "-cr", descending: true) == ["-credits"])
        #expect(Completion.listItems(fields, "-term,-c", descending: true) == ["-term,-course", "-term,-code", "-term,-credits"])
        #expect(Completion.listItems(fields, "-c", descending: false).isEmpty, "no descending for --fields")
    }
}

@Suite("Help that teaches")
struct HelpExamplesTests {
    @Test("every built-in command and subcommand ends its help with an example of unitool in use")
    func everyCommandHasAnExample() {
        func visit(_ type: any ParsableCommand.Type, path: [String]) {
            let discussion = type.configuration.discussion
            #expect(
                discussion.split(separator: "\n").contains { $0.hasPrefix("  ") && $0.contains("unitool") },
                "'\(path.joined(separator: " "))' has no example in its help")
            for subcommand in type.configuration.subcommands { visit(subcommand, path: path + [Completion.name(of: subcommand)]) }
        }
        for (name, type) in Dispatcher.builtins { visit(type, path: [name]) }
    }

    @Test("every built-in command's example parses as written: its options exist and its values are accepted")
    func examplesParse() throws {
        var parsed = 0
        for (command, examples) in HelpExamples.byCommand {
            for example in examples {
                // The unitool part of the line: after any VAR=value, before a pipe's other side or a redirection.
                let line = example.split(separator: "|").last.map(String.init) ?? example
                var words = line.split(separator: " ").map(String.init).prefix { $0 != ">" && $0 != "#" }.map { $0 }
                while let first = words.first, first.contains("="), first.first?.isUppercase == true { words.removeFirst() }
                guard words.first == "unitool", words.count > 1 else { continue }
                words.removeFirst()
                // Global options before the command go after it, as the dispatcher moves them.
                var globals: [String] = []
                while let first = words.first, first.hasPrefix("--") {
                    globals.append(words.removeFirst())
                    if GlobalOptions.valueOptions.contains(globals.last!), !words.isEmpty { globals.append(words.removeFirst()) }
                }
                guard let name = words.first, Dispatcher.builtins[name] != nil else { continue }
                let arguments = words.map { $0.replacingOccurrences(of: "\"", with: "") } + globals
                do {
                    _ = try RootCommand.parseAsRoot(arguments)
                    parsed += 1
                } catch {
                    Issue.record("'\(example)' (help of '\(command)') does not parse: \(RootCommand.message(for: error))")
                }
            }
        }
        #expect(parsed >= 40, "only \(parsed) examples were parsed")
    }

    @Test("every example names a command that exists")
    func examplesNameRealCommands() {
        for (command, examples) in HelpExamples.byCommand {
            let words = command.split(separator: " ").map(String.init)
            var type: (any ParsableCommand.Type)? = Dispatcher.builtins[words[0]]
            for word in words.dropFirst() { type = type?.configuration.subcommands.first { Completion.name(of: $0) == word } }
            #expect(type != nil, "'\(command)' is not a built-in command")
        }
    }
}

@Suite("watch's own options")
struct WatchOptionsTests {
    @Test("intervals of at least a minute; jitter of at most a tenth; longer waits after failures, up to 8 times")
    func intervalsAndBackoff() throws {
        #expect(try WatchCommandRunner.Options.interval("15m") == .seconds(900))
        #expect { try WatchCommandRunner.Options.interval("10s") } throws: { ($0 as? UniToolError)?.kind == .usage }
        #expect { try WatchCommandRunner.Options.interval("hourly") } throws: { ($0 as? UniToolError)?.kind == .usage }
        #expect(WatchCommandRunner.pause(every: .seconds(3600), failures: 0, random: 0) == .seconds(3600))
        #expect(WatchCommandRunner.pause(every: .seconds(3600), failures: 0, random: 1) == .seconds(3960))
        #expect(WatchCommandRunner.pause(every: .seconds(3600), failures: 2, random: 0) == .seconds(4 * 3600))
        #expect(WatchCommandRunner.pause(every: .seconds(3600), failures: 9, random: 0) == .seconds(8 * 3600))
    }

    @Test("the watch's options, the recipe command and the global options are told apart")
    func parsing() throws {
        let options = try WatchCommandRunner.Options(parsing: [
            "--portal", "demo", "grades", "--term", "current", "--every", "1h", "--exec", "cat", "--notify", "--due-within", "3d:due", "-v",
        ])
        #expect(options.command == "grades")
        #expect(options.every == .seconds(3600))
        #expect(options.exec == ["cat"] && options.notify)
        #expect(options.dueWithin == 3 && options.dueField == "due")
        #expect(options.rest == ["--portal", "demo", "--term", "current", "-v"])
        #expect { try WatchCommandRunner.Options(parsing: ["grades", "--once", "--every", "1h"]) } throws: {
            ($0 as? UniToolError)?.kind == .usage
        }
        #expect(
            WatchCommandRunner.arguments(
                for: WatchFile.Entry(
                    name: "g", portal: nil, command: "grades", options: ["term": "current"], source: nil, every: .seconds(3600), exec: nil,
                    webhookCommand: nil, notify: true, dueWithin: nil, announceExisting: false)) == [
                    "grades", "--once", "--term", "current", "--notify",
                ])
    }
}

@Suite("A descending sort key")
struct DashedSortValueTests {
    @Test("--sort -due reads as --sort=-due; other arguments and those after -- are left alone")
    func joined() {
        #expect(GlobalOptions.joiningDashedValues(["loans", "--sort", "-due"]) == ["loans", "--sort=-due"])
        #expect(GlobalOptions.joiningDashedValues(["loans", "--sort", "due", "-v"]) == ["loans", "--sort", "due", "-v"])
        #expect(GlobalOptions.joiningDashedValues(["loans", "--sort", "--json"]) == ["loans", "--sort", "--json"])
        #expect(GlobalOptions.joiningDashedValues(["x", "--", "--sort", "-a"]) == ["x", "--", "--sort", "-a"])
    }
}
