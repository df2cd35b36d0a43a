import ArgumentParser
import Foundation
import UniToolKit

/// Runs a recipe's command: `unitool grades --term current`.
///
/// The options come from the recipe, so they are parsed here rather than by a static
/// swift-argument-parser type; the global options are still parsed by `GlobalOptions`.
struct RecipeCommandRunner {
    let name: String
    let arguments: [String]

    func run() async -> Int32 {
        let wantsJSON = arguments.contains("--json") || arguments.contains("--format=json")
            || zip(arguments, arguments.dropFirst()).contains { $0 == "--format" && $1 == "json" }
        do {
            // The recipe decides which options exist, so the portal must be known first.
            let globalsOnly = try GlobalOptions.parse(Self.globalArguments(in: arguments))
            let environment = try CommandEnvironment(options: globalsOnly)
            let portalID = try environment.portalID()
            let recipe: DataRecipe
            do {
                recipe = try environment.catalog.recipe(portal: portalID, command: name)
            } catch let error as UniToolError where error.kind == .recipeNotFound {
                throw UniToolError(
                    .usage, "unknown command '\(name)' for portal '\(portalID)'",
                    hint: "run 'unitool --help' to see the commands; \(error.hint ?? "")")
            }
            if arguments.contains("--help") || arguments.contains("-h") {
                print(RecipeHelp.text(for: recipe), terminator: "")
                return 0
            }
            let (values, rest) = try Self.recipeOptions(in: arguments, recipe: recipe)
            let options = try GlobalOptions.parse(rest)
            return try await execute(recipe, values: values, options: options, environment: environment)
        } catch let error as UniToolError {
            return ErrorReporter.report(error, json: wantsJSON)
        } catch {
            let message = GlobalOptions.message(for: error)
            return ErrorReporter.report(
                UniToolError(.usage, message, hint: "see 'unitool \(name) --help'"), json: wantsJSON)
        }
    }

    private func execute(_ recipe: DataRecipe, values: [String: String], options: GlobalOptions, environment: CommandEnvironment)
        async throws -> Int32
    {
        let portal = try environment.catalog.portal(try environment.portalID())
        let credentials = try environment.credentialProvider(for: portal)
        let records = try await environment.withPortal(portal, user: credentials.user, credentials: credentials.provide) {
            connection in
            try await TermsGate.ensureAccepted(connection)
            let termsRequests = connection.session.requestCount
            let records = try await connection.run(recipe, options: values)
            try connection.saveSession()
            environment.logger.debug(
                "HTTP requests: \(termsRequests) for the terms-of-use check, \(connection.session.requestCount - termsRequests) for the data")
            return records
        }
        let format = options.outputFormat
        let output = format.render(records, style: format == .table ? .forStandardOutput() : .plain)
        FileHandle.standardOutput.write(Data(output.utf8))
        return 0
    }

    /// The arguments that belong to the global options, with everything else left out.
    static func globalArguments(in arguments: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let flagName = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if GlobalOptions.valueOptions.contains(flagName) {
                result.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    result.append(arguments[index + 1])
                    index += 1
                }
            } else if GlobalOptions.flagOptions.contains(argument) {
                result.append(argument)
            }
            index += 1
        }
        return result
    }

    /// Takes the recipe's own `--name value` options out of argv and leaves the rest.
    static func recipeOptions(in arguments: [String], recipe: DataRecipe) throws -> ([String: String], [String]) {
        var values: [String: String] = [:]
        var rest: [String] = []
        var index = 0
        let names = Set(recipe.options.map(\.name))
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("-") && !argument.hasPrefix("--") {
                rest.append(argument)  // short flags such as -v belong to the global options
                index += 1
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UniToolError(
                    .usage, "unexpected argument '\(argument)'", hint: "see 'unitool \(recipe.command) --help'")
            }
            let body = argument.dropFirst(2)
            let parts = body.split(separator: "=", maxSplits: 1).map(String.init)
            if let name = parts.first, names.contains(name) {
                if parts.count == 2 {
                    values[name] = parts[1]
                } else {
                    guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") else {
                        throw UniToolError(.usage, "--\(name) needs a value", hint: "see 'unitool \(recipe.command) --help'")
                    }
                    values[name] = arguments[index + 1]
                    index += 1
                }
            } else {
                rest.append(argument)
                let flagName = "--" + (parts.first ?? "")
                if GlobalOptions.valueOptions.contains(flagName), parts.count == 1, index + 1 < arguments.count {
                    rest.append(arguments[index + 1])
                    index += 1
                }
            }
            index += 1
        }
        return (values, rest)
    }
}

/// The `--help` of a recipe command, written from the recipe.
enum RecipeHelp {
    static func text(for recipe: DataRecipe) -> String {
        var text = "OVERVIEW: \(recipe.summary)\n\n"
        if let discussion = recipe.discussion {
            text += discussion.trimmingCharacters(in: .whitespacesAndNewlines) + "\n\n"
        }
        let usage = recipe.options.map { "[--\($0.name) <\($0.name)>]" }.joined(separator: " ")
        text += "USAGE: unitool [--portal \(recipe.portal)] \(recipe.command) \(usage) [--format <format>]\n\n"
        text += "OPTIONS:\n"
        for option in recipe.options {
            var help = option.help ?? ""
            let choices = option.allowedValues + option.resolve.keys.sorted()
            if !option.allowedValues.isEmpty { help += " (values: \(choices.joined(separator: ", ")))" }
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            text += "  --\(option.name) <\(option.name)>".padding(toLength: 26, withPad: " ", startingAt: 0) + help + "\n"
        }
        text += """
              --format <format>       table, json, jsonl or csv (default: table)
              --json                  Shorthand for --format json
              --portal, --user, --password-stdin, --recipes, --verbose: see 'unitool --help'

            OUTPUT FIELDS: \(recipe.fields.map(\.name).joined(separator: ", "))
            RECIPE: \(recipe.file)

            """
        return text
    }
}

extension GlobalOptions {
    /// swift-argument-parser's message for a parse error, without its usage block.
    static func message(for error: any Error) -> String {
        let full = fullMessage(for: error)
        return full.split(separator: "\n").first.map { String($0).replacingOccurrences(of: "Error: ", with: "") } ?? full
    }
}
