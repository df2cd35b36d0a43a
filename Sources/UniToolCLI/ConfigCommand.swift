import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool config get|set|unset|path`: the defaults in `config.yaml`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: localized("Read and change your defaults: portal, user and output format."),
        discussion: localized(
            """
            The settings live in $XDG_CONFIG_HOME/unitool/config.yaml (default ~/.config/unitool/config.yaml).
            A flag wins over an environment variable (UNITOOL_PORTAL, UNITOOL_USER, UNITOOL_FORMAT), which
            wins over the file. Examples:
              unitool config set portal myuni
              unitool config set user jdoe
              unitool config get
            """),
        subcommands: [Get.self, Set.self, Unset.self, Path.self], defaultSubcommand: Get.self)

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Print one setting, or all of them."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    'user' is the user of the portal in use (--portal, UNITOOL_PORTAL, the 'portal' setting, or the
                    only portal installed). Without a key, every setting, with the users of every portal.
                    """), examples: "config get"))
        @OptionGroup var globals: GlobalOptions
        @Argument(help: ArgumentHelp(localized("portal, user, format, history_days or value.NAME. Without it, every setting.")))
        var key: String?

        func run() async throws {
            let config = try UserConfig.load(from: Locations.current.configFile)
            if let key {
                try UserConfig.validate(key: key, value: key == "format" ? "table" : "")
                if key == "user" {
                    let portal = try ConfigCommand.portal(globals)
                    guard let user = config.user(forPortal: portal.id, isDemo: portal.isDemo) else {
                        throw UniToolError(
                            .usage, localized("no user is set for portal '\(portal.id)'"),
                            hint: localized("set one with 'unitool config set user NAME --portal \(portal.id)'"))
                    }
                    print(user.user)
                    return
                }
                if let name = UserConfig.valueName(key) {
                    let portal = try ConfigCommand.portal(globals)
                    guard let value = config.portalValues[portal.id]?[name] else {
                        throw UniToolError(
                            .usage, localized("no value '\(name)' is set for portal '\(portal.id)'"),
                            hint: localized("set it with 'unitool config set value.\(name) VALUE --portal \(portal.id)'"))
                    }
                    print(TerminalText.escaped(value))
                    return
                }
                guard let value = config[key] else {
                    throw UniToolError(
                        .usage, localized("'\(key)' is not set"), hint: localized("set it with 'unitool config set \(key) VALUE'"))
                }
                print(value)
                return
            }
            var rows: [(String, String?)] = [
                ("portal", config["portal"]), ("format", config["format"]), ("history_days", config["history_days"]),
            ]
            if let legacy = config.legacyUser { rows.append(("user", legacy)) }
            rows += config.users.keys.sorted().map { ("users.\($0)", config.users[$0]) }
            let records = rows.map { Record(fields: [("key", .string($0.0)), ("value", $0.1.map(FieldValue.string) ?? .null)]) }
            let set = RecordSet(columns: ["key", "value"], records: records)
            print(globals.outputFormat.render(set, style: .forStandardOutput()), terminator: "")
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Change a setting."),
            discussion: localized(
                """
                'user' is kept per portal: 'config set user jdoe' sets the user of the portal in use, and
                '--portal myuni' names another. The demo never uses a user set for another portal.
                Examples:
                  unitool config set portal myuni
                  unitool config set user jdoe --portal myuni
                  unitool config set format json
                  unitool config set history_days 90
                """))
        @OptionGroup var globals: GlobalOptions
        @Argument(
            help: ArgumentHelp(
                localized("portal, user, format, history_days or value.NAME (a value of your own for a recipe, such as a calendar token)."))
        )
        var key: String
        @Argument(help: ArgumentHelp(localized("The new value."))) var value: String

        func run() async throws {
            try UserConfig.validate(key: key, value: value)
            var config = try UserConfig.load(from: Locations.current.configFile)
            var forPortal: String?
            switch key {
            case "portal":
                // A default portal that does not exist would break every later command.
                let catalog = try RecipeCatalog(
                    directories: CommandEnvironment.ownRecipeDirectories, reservedCommands: Dispatcher.reservedCommands)
                try PortalID.validate(value)
                guard catalog.portals[value] != nil else { throw catalog.unknownPortal(value) }
                config[key] = value
            case "user":
                let portal = try ConfigCommand.portal(globals)
                // The demo has users of its own: a user meant for "my university" must not land on
                // it only because no other portal was named (the README's example, copied as is).
                let named =
                    globals.portal != nil || config["portal"] != nil
                    || !(ProcessInfo.processInfo.environment["UNITOOL_PORTAL"] ?? "").isEmpty
                if portal.isDemo, !named {
                    throw UniToolError(
                        .usage,
                        localized(
                            "'config set user' would set the user of the demo university, the portal in use, which has its own users (unitool demo users)"
                        ),
                        hint: localized(
                            "name your university's portal: unitool config set user \(value) --portal myuni (first 'unitool config set portal myuni'; a new university is a folder of recipes, see 'unitool recipes new --help'), or --portal demo to change the demo's user"
                        )
                    )
                }
                // A top-level user from an older file becomes this portal's, if it was.
                if config.user(forPortal: portal.id, isDemo: portal.isDemo)?.key == "user" { config.legacyUser = nil }
                config.users[portal.id] = value
                forPortal = portal.id
            default:
                guard let name = UserConfig.valueName(key) else {
                    config[key] = value
                    break
                }
                // The user's own value for a recipe (a calendar token): never echoed back.
                let portal = try ConfigCommand.portal(globals)
                config.portalValues[portal.id, default: [:]][name] = value
                try config.save(to: Locations.current.configFile)
                let file = Locations.current.configFile.path
                FileHandle.standardError.write(Data((localized("\(key) set for portal \(portal.id) (in \(file))") + "\n").utf8))
                return
            }
            try config.save(to: Locations.current.configFile)
            let shown = TerminalText.escaped(value)
            let file = Locations.current.configFile.path
            let line =
                forPortal.map { localized("\(key) = \(shown) for portal \($0) (in \(file))") }
                ?? localized("\(key) = \(shown) (in \(file))")
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Remove a setting."),
            discussion: HelpExamples.discussion(
                localized("'user' is the user of the portal in use, or of --portal."), examples: "config unset"))
        @OptionGroup var globals: GlobalOptions
        @Argument(
            help: ArgumentHelp(
                localized("portal, user, format, history_days or value.NAME (a value of your own for a recipe, such as a calendar token)."))
        )
        var key: String

        func run() async throws {
            try UserConfig.validate(key: key, value: key == "format" ? "table" : "")
            var config = try UserConfig.load(from: Locations.current.configFile)
            if key == "user" {
                let portal = try ConfigCommand.portal(globals)
                if config.user(forPortal: portal.id, isDemo: portal.isDemo)?.key == "user" { config.legacyUser = nil }
                config.users[portal.id] = nil
            } else if let name = UserConfig.valueName(key) {
                let portal = try ConfigCommand.portal(globals)
                config.portalValues[portal.id]?[name] = nil
            } else {
                config[key] = nil
            }
            try config.save(to: Locations.current.configFile)
        }
    }

    /// The portal a `user` setting is about: the one in use.
    static func portal(_ globals: GlobalOptions) throws -> PortalRecipe {
        let environment = try CommandEnvironment.open(globals)
        return try environment.catalog.portal(try environment.portalID())
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Print where the settings file is."), discussion: HelpExamples.text(for: "config path"))
        func run() async throws { print(Locations.current.configFile.path) }
    }
}
