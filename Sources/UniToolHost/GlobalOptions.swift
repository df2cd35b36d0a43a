import ArgumentParser
import Foundation
import UniToolKit

/// Options every command takes. They may stand before or after the command name:
/// `unitool --portal demo grades` and `unitool grades --portal demo` are the same.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    /// Each default in one wording, which the option's help and the overview both print.
    package enum Defaults {
        package static let portal = localized("Default: $UNITOOL_PORTAL, then config.yaml, then the only portal installed.")
        package static let user = localized("Default: $UNITOOL_USER, then config.yaml, then the demo's own user.")
        package static let timeout = localized("Default: no limit for the whole command, 30 seconds for each request.")
    }

    @Option(name: .long, help: ArgumentHelp(localized("The portal to use (a folder of recipes). \(Defaults.portal)")))
    package var portal: String?

    @Option(name: .long, help: ArgumentHelp(localized("The user to log in as. \(Defaults.user)")))
    package var user: String?

    @Flag(name: .long, help: ArgumentHelp(localized("Read the password from standard input (for scripts). It is never taken from argv.")))
    package var passwordStdin = false

    @Option(
        name: .long,
        help: ArgumentHelp(localized("A further recipe directory, searched after the bundled and user recipes."), valueName: "dir"))
    package var recipes: [String] = []

    @Option(name: .long, help: ArgumentHelp(localized("Output format: table, json, jsonl or csv. Default: table.")))
    package var format: OutputFormatOption?

    @Flag(name: .long, help: ArgumentHelp(localized("Shorthand for --format json.")))
    package var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(localized("Only these fields, in this order, comma-separated: --fields course,grade."), valueName: "a,b,c"))
    package var fields: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            localized("Sort the records by these fields, comma-separated; -field for descending: --sort due,-title."), valueName: "a,-b"))
    package var sort: String?

    @Flag(name: [.short, .long], help: ArgumentHelp(localized("Log every request and login step to stderr (secrets are never logged).")))
    package var verbose = false

    @Flag(
        name: [.short, .long],
        help: ArgumentHelp(localized("No status line while a command works, and no notes about the output; errors still show.")))
    package var quiet = false

    @Flag(
        name: .long,
        help: ArgumentHelp(
            localized("Answer from the history of earlier runs, without asking the portal; stderr says how old the answer is.")))
    package var offline = false

    @Option(
        name: .long,
        help: ArgumentHelp(localized("Write every request and response of the run to this HAR file, secrets redacted."), valueName: "file"))
    package var trace: String?

    @Flag(name: .long, help: ArgumentHelp(localized("With --trace, include response bodies (scrubbed of secrets and SAML messages).")))
    package var traceBodies = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            localized(
                "Give up when the command has run this many seconds: every request, retry and login step together. \(Defaults.timeout)"),
            valueName: "seconds"))
    package var timeout: Double?

    @Option(name: .long, help: ArgumentHelp(localized("Give up on connecting after this many seconds. Default: 10."), valueName: "seconds"))
    package var connectTimeout: Double?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            localized(
                "Do not check the portal's TLS certificate. Only for a test portal with a self-signed certificate: anyone on the network path could read your password. unitool warns on every run that uses it."
            )
        ))
    package var insecure = false

    /// The longest time limit unitool accepts: a day. A larger one is a mistake, not a wish.
    package static let maximumSeconds = 86_400.0

    package mutating func validate() throws {
        for (name, value) in [("--timeout", timeout), ("--connect-timeout", connectTimeout)] {
            guard let value else { continue }
            if let problem = Self.problem(withSeconds: value, option: name) {
                throw ValidationError(problem)
            }
        }
    }

    /// Why a number of seconds is no time limit, or nil when it is one: it must be a finite
    /// number above zero and at most a day (NaN or infinity once crashed the conversion). The
    /// sentence names the option (`--timeout must be more than 0 seconds`).
    package static func problem(withSeconds value: Double, option name: String = "--timeout") -> String? {
        guard value.isFinite else { return localized("\(name) must be a number of seconds, not \(value)") }
        guard value > 0 else { return localized("\(name) must be more than 0 seconds") }
        let maximum = Int(maximumSeconds)
        guard value <= maximumSeconds else { return localized("\(name) must be at most \(maximum) seconds (a day)") }
        return nil
    }

    /// Options that take a value, for the dispatcher that moves them behind the command name.
    package static let valueOptions: Set<String> = [
        "--portal", "--user", "--recipes", "--format", "--fields", "--sort", "--trace", "--timeout", "--connect-timeout",
    ]
    package static let flagOptions: Set<String> = [
        "--password-stdin", "--json", "--verbose", "-v", "--quiet", "-q", "--offline", "--trace-bodies", "--insecure",
    ]

    /// --json or --format, then $UNITOOL_FORMAT, then config.yaml, then a table.
    package var outputFormat: OutputFormat {
        if json { return .json }
        if let format { return format.format }
        if let name = ProcessInfo.processInfo.environment["UNITOOL_FORMAT"], let format = OutputFormat(rawValue: name.lowercased()) {
            return format
        }
        return UserConfig.current["format"].flatMap(OutputFormat.init(rawValue:)) ?? .table
    }
}

package struct OutputFormatOption: ExpressibleByArgument {
    package let format: OutputFormat
    package init?(argument: String) {
        guard let format = OutputFormat(rawValue: argument.lowercased()) else { return nil }
        self.format = format
    }
    package static var allValueStrings: [String] { OutputFormat.allCases.map(\.rawValue) }
}

extension GlobalOptions {
    /// What to do with an argument that is not a global option with a value.
    package enum Other { case keep, skip, stop }

    /// The one reading of argv's global options, for every place that must find them before
    /// swift-argument-parser does: walks `arguments`, keeping each global option with its value
    /// (`--portal demo` or `--portal=demo`), and asks `other` about anything else (its index too).
    /// Returns the kept arguments and the index where the walk stopped, if it did.
    package static func scan(_ arguments: [String], other: (String, Int) -> Other) -> (globals: [String], stoppedAt: Int?) {
        var globals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let flagName = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if valueOptions.contains(flagName) {
                globals.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    globals.append(arguments[index + 1])
                    index += 1
                }
            } else {
                switch other(argument, index) {
                case .keep: globals.append(argument)
                case .skip: break
                case .stop: return (globals, index)
                }
            }
            index += 1
        }
        return (globals, nil)
    }

    /// The arguments that belong to the global options, wherever they stand, with everything else left out.
    /// `--sort -due` as `--sort=-due`: a descending sort key starts with a dash, which
    /// swift-argument-parser would otherwise read as an option of its own.
    package static func joiningDashedValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--", index > 0 {
                result += arguments[index...]
                break
            }
            if argument == "--sort", index + 1 < arguments.count, arguments[index + 1].hasPrefix("-"), !arguments[index + 1].hasPrefix("--")
            {
                result.append("--sort=" + arguments[index + 1])
                index += 2
                continue
            }
            result.append(argument)
            index += 1
        }
        return result
    }

    package static func arguments(in arguments: [String]) -> [String] {
        scan(arguments) { argument, _ in flagOptions.contains(argument) ? .keep : .skip }.globals
    }
}

extension UserConfig {
    /// The process's own `config.yaml` (`Locations.current`), or no settings when it cannot be
    /// read: for places that must not fail, after `CommandEnvironment.open` has already
    /// reported any problem.
    package static var current: UserConfig { (try? load(from: Locations.current.configFile)) ?? UserConfig() }
}

extension GlobalOptions {
    /// The global options of `arguments`, which hold nothing else (`arguments(in:)`).
    ///
    /// The usual arguments are read here directly; anything unusual (an option given twice, a
    /// value that is missing, starts with a dash or is no valid value, a failed validation) goes
    /// to swift-argument-parser, whose messages the user then sees. Its parse finds the options
    /// by reflection (`Mirror`) and looked up a dozen protocol conformances, which was 2 ms of
    /// every recipe command's start (issue 54). `ArgumentsTests` checks that both readings agree.
    package static func read(_ arguments: [String]) throws -> GlobalOptions {
        if let options = readDirectly(arguments) { return options }
        return try parse(arguments)
    }

    /// The options as swift-argument-parser would parse them, or nil to let it.
    package static func readDirectly(_ arguments: [String]) -> GlobalOptions? {
        var values: [String: String] = [:]
        var recipes: [String] = []
        var flags = Set<String>()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if flagOptions.contains(argument) {
                let long = ["-v": "--verbose", "-q": "--quiet"][argument] ?? argument
                guard flags.insert(long).inserted else { return nil }
                continue
            }
            let name: String
            let value: String
            if let equals = argument.firstIndex(of: "=") {
                // `--sort=-due` is a value; `--portal=` is a missing one.
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
                guard !value.isEmpty else { return nil }
            } else {
                // `--user -v` is a missing value followed by an option.
                guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
                name = argument
                value = arguments[index]
                index += 1
            }
            guard valueOptions.contains(name) else { return nil }
            if name == "--recipes" {
                recipes.append(value)
            } else {
                guard values.updateValue(value, forKey: name) == nil else { return nil }
            }
        }
        var options = GlobalOptions()
        options.portal = values["--portal"]
        options.user = values["--user"]
        options.recipes = recipes
        if let format = values["--format"] {
            guard let parsed = OutputFormatOption(argument: format) else { return nil }
            options.format = parsed
        } else {
            options.format = nil
        }
        options.fields = values["--fields"]
        options.sort = values["--sort"]
        options.trace = values["--trace"]
        func seconds(_ name: String) -> Double?? {
            guard let text = values[name] else { return .some(nil) }
            return Double(text).map { .some($0) }
        }
        guard let timeout = seconds("--timeout"), let connectTimeout = seconds("--connect-timeout") else { return nil }
        options.timeout = timeout
        options.connectTimeout = connectTimeout
        options.passwordStdin = flags.contains("--password-stdin")
        options.json = flags.contains("--json")
        options.verbose = flags.contains("--verbose")
        options.quiet = flags.contains("--quiet")
        options.offline = flags.contains("--offline")
        options.traceBodies = flags.contains("--trace-bodies")
        options.insecure = flags.contains("--insecure")
        guard (try? options.validate()) != nil else { return nil }
        return options
    }
}
