import ArgumentParser
import Foundation
import Testing
import UniToolHost
import UniToolKit
import UniToolTestSupport

@testable import UniToolCLI

/// The command line read in process: the global options, a recipe command's own arguments,
/// help, and error reports, without a process per case.
@Suite("Command line, in process: global options, recipe arguments, help and error reports")
struct ArgumentsTests {
    static let grades: DataRecipe = {
        let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
        return try! catalog.recipe(portal: "demo", command: "grades")
    }()

    static let loans: DataRecipe = {
        let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
        return try! catalog.recipe(portal: "demo", command: "loans")
    }()

    /// Every field of the options, to compare two readings.
    static func fields(_ options: GlobalOptions) -> String {
        [
            "\(options.portal as Any)", "\(options.user as Any)", "\(options.passwordStdin)", "\(options.recipes)",
            "\(options.format?.format as Any)", "\(options.json)", "\(options.fields as Any)", "\(options.sort as Any)",
            "\(options.verbose)", "\(options.quiet)", "\(options.offline)", "\(options.trace as Any)", "\(options.traceBodies)",
            "\(options.timeout as Any)", "\(options.connectTimeout as Any)", "\(options.insecure)",
        ].joined(separator: "|")
    }

    @Test(
        "the direct reading of the global options is swift-argument-parser's, or leaves the case to it",
        arguments: [
            [], ["--portal", "demo"], ["--portal=demo", "--user", "jdoe", "-v", "--json"], ["--format", "CSV", "--quiet", "--offline"],
            ["--recipes", "a", "--recipes=b", "--sort=-due,title", "--fields", "a,b"], ["--timeout", "2.5", "--connect-timeout=1e1"],
            ["--trace", "t.har", "--trace-bodies", "--insecure", "--password-stdin"], ["--user", ""], ["--verbose", "-q"],
            // Left to swift-argument-parser: its answer, or its error, stands.
            ["--portal=", "--user", ""], ["--portal", "a", "--portal", "b"], ["-v", "--verbose"], ["--portal"], ["--format", "xml"],
            ["--timeout", "0"],
            ["--timeout", "nan"], ["--timeout", "soon"], ["--user", "-v"], ["--json", "--json"],
        ] as [[String]])
    func directReading(arguments: [String]) throws {
        let direct = GlobalOptions.readDirectly(arguments)
        let parsed = Result { try GlobalOptions.parse(arguments) }
        if let direct {
            #expect(Self.fields(direct) == Self.fields(try parsed.get()))
        } else {
            // Only what is not the usual case goes to the parser: a repeat, a missing or invalid value.
            let unusual =
                Set(arguments.map { $0 == "-v" ? "--verbose" : $0 }.filter { $0.hasPrefix("--") }).count
                < arguments.filter { $0.hasPrefix("-") }.count || (try? parsed.get()) == nil
            #expect(unusual, "read by the parser though it is the usual case: \(arguments)")
        }
        let read = Result { try GlobalOptions.read(arguments) }
        #expect((try? read.get()).map(Self.fields) == (try? parsed.get()).map(Self.fields))
    }

    @Test("global options are found wherever they stand, with their values, in both spellings")
    func globals() throws {
        let arguments = ["--portal", "demo", "grades", "--term=all", "--user=jdoe", "-v", "--json", "--format", "csv", "extra"]
        #expect(GlobalOptions.arguments(in: arguments) == ["--portal", "demo", "--user=jdoe", "-v", "--json", "--format", "csv"])
        let (globals, stop) = GlobalOptions.scan(["--portal", "demo", "-v", "grades", "--term", "all"]) { argument, _ in
            argument.hasPrefix("-") ? .keep : .stop
        }
        #expect(globals == ["--portal", "demo", "-v"])
        #expect(stop == 3)
        #expect(GlobalOptions.arguments(in: ["loans", "--sort", "-due", "--term", "x"]) == ["--sort", "-due"])
        #expect(try GlobalOptions.parse(["--sort", "due,-title"]).sort == "due,-title")
        // A value option at the very end keeps what it has: the parser reports the missing value.
        #expect(GlobalOptions.arguments(in: ["--portal"]) == ["--portal"])
    }

    @Test("the names no recipe may take are the CLI's own commands and those its dispatcher answers")
    func reservedCommandsAreTheCommandTable() {
        #expect(CommandEnvironment.reservedCommands == Set(Dispatcher.builtins.keys).union(Dispatcher.dispatchedCommands))
    }

    @Test("a recipe command's own options, help and an action with its argument")
    func recipeInvocation() throws {
        let run = try RecipeInvocation(parsing: ["--term", "2026-fall", "--summary", "-v"], recipe: Self.grades)
        #expect(run.values == ["term": "2026-fall"])
        #expect(run.summary && run.rest == ["-v"])
        #expect(try RecipeInvocation(parsing: ["--help"], recipe: Self.grades).wantsHelp)
        let renew = try RecipeInvocation(parsing: ["renew", "31000101"], recipe: Self.loans)
        #expect(renew.action?.name == "renew" && renew.actionArgument == "31000101")
        #expect {
            try RecipeInvocation(parsing: ["renew"], recipe: Self.loans)
        } throws: { error in
            (error as? UniToolError)?.kind == .usage && "\(error)".contains("needs the barcode")
        }
        #expect {
            try RecipeInvocation(parsing: ["--no-such-option", "x"], recipe: Self.grades)
        } throws: { error in
            (error as? UniToolError)?.kind == .usage && "\(error)".contains("unitool grades")
        }
    }

    @Test("a recipe's help lists its options and their values")
    func recipeHelp() {
        let help = RecipeHelp.text(for: Self.grades)
        #expect(help.contains("--term"))
        #expect(help.contains("current") && help.contains("all"))
        #expect(RecipeHelp.text(for: Self.loans).contains("renew"))
    }

    @Test("an error report for people (escaped, with its hint) and for scripts (JSON with the exit code)")
    func errorReports() {
        let error = UniToolError(.portalError, "the portal said \u{1B}[2J no", hint: "try again")
        let text = ErrorReporter.text(of: error, json: false)
        #expect(text == "unitool: error: the portal said \\x1b[2J no\n  hint: try again\n")
        let json = ErrorReporter.text(of: error, json: true)
        #expect(json.contains("\"exit_code\": 22") && json.contains("\\u001b[2J") && json.contains("\"kind\": \"portal_error\""))
    }

    @Test("time limits: finite, positive and at most a day")
    func timeLimits() {
        #expect(GlobalOptions.problem(withSeconds: 5) == nil)
        #expect(GlobalOptions.problem(withSeconds: .nan) != nil)
        #expect(GlobalOptions.problem(withSeconds: .infinity) != nil)
        #expect(GlobalOptions.problem(withSeconds: 0) != nil)
        #expect(GlobalOptions.problem(withSeconds: 1e300) != nil)
    }

    @Test("the completion scripts call back into unitool for every shell")
    func completionScripts() {
        for shell in CompletionsCommand.Shell.allCases {
            #expect(CompletionsCommand.script(for: shell).contains("__complete"), "\(shell)")
        }
    }

    @Test("the built-in commands are the one list of reserved names, and a recipe may not take one")
    func reservedNames() throws {
        #expect(Dispatcher.reservedCommands == Set(Dispatcher.builtins.keys).union(["help", "version", "watch"]))
        let recipe = "command: rpc\nfetch: /x\nrows: \"//tr\"\nfields:\n  a: { xpath: td }\n"
        #expect {
            try DataRecipe.load(file: "rpc.yaml", text: recipe, portal: "demo", reserved: Dispatcher.reservedCommands)
        } throws: { error in
            "\(error)".contains("'rpc' is a built-in command")
        }
        // Outside the CLI (a library user's own front end) the name is free.
        #expect(try DataRecipe.load(file: "rpc.yaml", text: recipe, portal: "demo").command == "rpc")
    }

    @Test("errors are JSON when the command line asks for JSON, in each of its spellings; a flag for another format wins")
    func jsonErrorsFromFlags() {
        #expect(Dispatcher.wantsJSON(["grades", "--json"]))
        #expect(Dispatcher.wantsJSON(["grades", "--format=json"]))
        #expect(Dispatcher.wantsJSON(["--portal", "demo", "grades", "--format", "json"]))
        // Decided by the flag alone, so neither UNITOOL_FORMAT nor config.yaml is read.
        #expect(!Dispatcher.wantsJSON(["grades", "--format", "csv"]))
    }
}

@Suite("Help text")
struct HelpTextTests {
    @Test("a discussion's paragraphs are joined for the terminal to wrap; blank and indented lines stay")
    func reflow() {
        let text = "First line of a paragraph\ncontinues here.\n\nSecond paragraph:\n  unitool grades --term current\nafter the command."
        #expect(
            HelpExamples.reflowed(text)
                == "First line of a paragraph continues here.\n\nSecond paragraph:\n  unitool grades --term current\nafter the command.")
    }
}
