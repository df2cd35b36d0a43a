import ArgumentParser
import Foundation
import UniToolKit

/// `unitool config get|set|unset|path`: the defaults in `config.yaml`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Read and change your defaults: portal, user and output format.",
        discussion: """
            The settings live in $XDG_CONFIG_HOME/unitool/config.yaml (default ~/.config/unitool/config.yaml).
            A flag wins over an environment variable (UNITOOL_PORTAL, UNITOOL_USER, UNITOOL_FORMAT), which
            wins over the file. Examples:
              unitool config set portal myuni
              unitool config set user jdoe
              unitool config get
            """,
        subcommands: [Get.self, Set.self, Unset.self, Path.self], defaultSubcommand: Get.self)

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one setting, or all of them.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "portal, user or format. Without it, every setting.") var key: String?

        func run() async throws {
            let config = try UserConfig.load()
            if let key {
                try UserConfig.validate(key: key, value: key == "format" ? "table" : "")
                guard let value = config[key] else {
                    throw UniToolError(.usage, "'\(key)' is not set", hint: "set it with 'unitool config set \(key) VALUE'")
                }
                print(value)
                return
            }
            let records = UserConfig.keys.map {
                Record(fields: [("key", .string($0)), ("value", config[$0].map(FieldValue.string) ?? .null)])
            }
            let set = RecordSet(columns: ["key", "value"], records: records)
            print(globals.outputFormat.render(set, style: .forStandardOutput()), terminator: "")
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a setting.")
        @Argument(help: "portal, user or format.") var key: String
        @Argument(help: "The new value.") var value: String

        func run() async throws {
            try UserConfig.validate(key: key, value: value)
            if key == "portal" {
                // A default portal that does not exist would break every later command.
                let catalog = try RecipeCatalog(
                    directories: CommandEnvironment.ownRecipeDirectories, reservedCommands: Dispatcher.reservedCommands)
                try PortalID.validate(value)
                guard catalog.portals[value] != nil else {
                    let known = catalog.portals.keys.sorted()
                    let nearest = closestMatch(to: value, in: known)
                    throw UniToolError(
                        .usage, "there is no portal '\(value)'",
                        hint: "installed portals: \(known.joined(separator: ", "))" + (nearest.map { "; did you mean '\($0)'?" } ?? "")
                            + "; a new university is a folder of recipes in \(RecipeCatalog.userDirectory.path)")
                }
            }
            var config = try UserConfig.load()
            config[key] = value
            try config.save()
            FileHandle.standardError.write(Data("\(key) = \(value) (in \(UserConfig.file.path))\n".utf8))
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a setting.")
        @Argument(help: "portal, user or format.") var key: String

        func run() async throws {
            try UserConfig.validate(key: key, value: key == "format" ? "table" : "")
            var config = try UserConfig.load()
            config[key] = nil
            try config.save()
        }
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print where the settings file is.")
        func run() async throws { print(UserConfig.file.path) }
    }
}
