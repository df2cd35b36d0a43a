import Foundation
import Yams

/// Supplies a value the user keeps in their own settings (`user_values:` of a recipe), by name,
/// for the recipe that needs it.
public typealias UserValueProvider = @Sendable (String, DataRecipe) throws -> String

/// The user's defaults: `$XDG_CONFIG_HOME/unitool/config.yaml`.
///
///     portal: myuni
///     format: table
///     users:
///       myuni: jdoe
///
/// The user is kept per portal, so that the user of one university is never sent to another
/// (or to the demo). Flags win over environment variables (`UNITOOL_PORTAL`, `UNITOOL_USER`,
/// `UNITOOL_FORMAT`), which win over this file; ``Settings`` decides, and says which one won.
public struct UserConfig: Sendable, Equatable {
    /// The settings `config get|set|unset` take. `user` is stored per portal.
    public static let keys = ["portal", "user", "format", "history_days"]

    /// `portal` and `format`.
    public var values: [String: String] = [:]
    /// The user per portal id.
    public var users: [String: String] = [:]
    /// The user's own values per portal (`values: { myuni: { authtoken: … } }`), for recipes'
    /// `user_values` (`UserValues`); set with `config set value.NAME VALUE`.
    public var portalValues: [String: [String: String]] = [:]
    /// A `user:` at the top level, as files written before users were per portal have it. It is
    /// read as the user of the file's `portal`, and never for the demo; `config set user`
    /// replaces it with a per-portal entry.
    public var legacyUser: String?
    /// The line each setting is on (`portal`, `format`, `user`, `users.myuni`), for messages that
    /// say where a setting came from.
    public var lines: [String: Int] = [:]

    public init(values: [String: String] = [:], users: [String: String] = [:], legacyUser: String? = nil) {
        self.values = values
        self.users = users
        self.legacyUser = legacyUser
    }

    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public static func == (lhs: UserConfig, rhs: UserConfig) -> Bool {
        lhs.values == rhs.values && lhs.users == rhs.users && lhs.legacyUser == rhs.legacyUser && lhs.portalValues == rhs.portalValues
    }

    /// The file's settings; none if there is no file. A broken file is an error that says where.
    public static func load(from file: URL) throws -> UserConfig {
        guard let data = try PrivateFile.read(file, allowSymlink: true) else { return UserConfig() }
        let text = String(decoding: data, as: UTF8.self)
        // A file of comments alone (what 'config unset' of the last key leaves) holds no settings.
        let settings = text.split(separator: "\n").filter { !$0.trimmingWhitespace().hasPrefix("#") }
        if settings.allSatisfy({ $0.trimmingWhitespace().isEmpty }) { return UserConfig() }
        do {
            let reader = try RecipeReader(file: file.path, text: text.isEmpty ? "{}" : text)
            let top = try reader.top
            try top.allowOnly(["portal", "user", "format", "users", "history_days", "values"])
            var config = UserConfig()
            for key in ["portal", "format", "history_days"] {
                if let value = try top.string(key) {
                    config.values[key] = value
                    config.lines[key] = top.line(of: key)
                }
            }
            if let user = try top.string("user") {
                config.legacyUser = user
                config.lines["user"] = top.line(of: "user")
            }
            if let users = try top.mappingReader("users") {
                for portal in users.keys {
                    try PortalID.validate(portal)
                    config.users[portal] = try users.requiredString(portal)
                    config.lines["users.\(portal)"] = users.line(of: portal)
                }
            }
            if let values = try top.mappingReader("values") {
                for portal in values.keys {
                    try PortalID.validate(portal)
                    let own = try values.mappingReader(portal)
                    for name in own?.keys ?? [] {
                        guard NameSyntax.isValueName(name) else {
                            throw values.error(
                                portal, localized("'\(name)' is not a value name: lowercase letters, digits and underscores"))
                        }
                        config.portalValues[portal, default: [:]][name] = try own?.string(name) ?? ""
                    }
                }
            }
            if let format = config.values["format"], OutputFormat(rawValue: format) == nil {
                let formats = OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw top.error("format", localized("'\(format)' is not one of \(formats)"))
            }
            if let days = config.values["history_days"], Self.historyDays(days) == nil {
                throw top.error("history_days", localized("'\(days)' is not a number of days from 1 to 36500"))
            }
            return config
        } catch let error as UniToolError {
            // The reader speaks of recipes; this is the settings file, and a usage problem.
            throw UniToolError(
                .usage, localized("the settings file is not valid: \(error.message)"),
                hint: error.hint ?? localized("fix it, or change it with 'unitool config set'"))
        }
    }

    /// How many days of history are kept (`history_days`, default 365).
    public var historyDays: Int { values["history_days"].flatMap(Self.historyDays) ?? 365 }

    static func historyDays(_ text: String) -> Int? {
        guard let days = Int(text), (1...36_500).contains(days) else { return nil }
        return days
    }

    /// The user the file names for a portal: its own entry, or a top-level `user:` from an older
    /// file, which belongs to the file's `portal` (never to the demo), with the key it came from.
    public func user(forPortal portal: String, isDemo: Bool) -> (user: String, key: String)? {
        if let user = users[portal] { return (user, "users.\(portal)") }
        if let legacyUser, !isDemo, values["portal"] == nil || values["portal"] == portal { return (legacyUser, "user") }
        return nil
    }

    /// Checks a value before `set` writes it.
    public static func validate(key: String, value: String) throws {
        if let name = valueName(key) {
            guard NameSyntax.isValueName(name) else {
                throw UniToolError(
                    .usage, localized("'\(name)' is not a value name"),
                    hint: localized("use lowercase letters, digits and underscores: value.authtoken"))
            }
            return
        }
        guard keys.contains(key) else {
            let settings = keys.joined(separator: ", ")
            let hint =
                typoSuggestion(for: key, among: keys).map { nearest in localized("settings: \(settings); did you mean '\(nearest)'?") }
                ?? localized("settings: \(settings)")
            throw UniToolError(.usage, localized("there is no setting '\(key)'"), hint: hint)
        }
        if key == "history_days", historyDays(value) == nil {
            throw UniToolError(
                .usage, localized("'\(value)' is not a number of days"),
                hint: localized("give a number from 1 to 36500; the default is 365"))
        }
        if key == "format", OutputFormat(rawValue: value) == nil {
            let formats = OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw UniToolError(.usage, localized("'\(value)' is not a format"), hint: localized("use one of: \(formats)"))
        }
    }

    /// `value.NAME`: one of the user's own values for the portal in use.
    public static func valueName(_ key: String) -> String? {
        key.hasPrefix("value.") ? String(key.dropFirst("value.".count)) : nil
    }

    /// Writes the file atomically, in a fixed key order so that diffs stay small.
    public func save(to file: URL) throws {
        func quoted(_ value: String) throws -> String {
            try Yams.dump(object: value).trimmingWhitespaceAndNewlines()
        }
        var text = "# unitool settings; see 'unitool config --help'\n"
        for key in ["portal", "format", "history_days"] {
            if let value = values[key] { text += "\(key): \(try quoted(value))\n" }
        }
        if let legacyUser { text += "user: \(try quoted(legacyUser))\n" }
        if !users.isEmpty {
            text += "users:\n"
            for portal in users.keys.sorted() { text += "  \(try quoted(portal)): \(try quoted(users[portal]!))\n" }
        }
        let valued = portalValues.filter { !$0.value.isEmpty }
        if !valued.isEmpty {
            text += "values:\n"
            for (portal, values) in valued.sorted(by: { $0.key < $1.key }) {
                text += "  \(try quoted(portal)):\n"
                for (name, value) in values.sorted(by: { $0.key < $1.key }) { text += "    \(name): \(try quoted(value))\n" }
            }
        }
        try AtomicFile.write(Data(text.utf8), to: file, mode: 0o600)
    }
}

/// The values a user keeps for a portal in their settings (`values:` in config.yaml), for the
/// recipes that need one of their own (`user_values:`): a Moodle calendar export's user id and
/// token. They belong to the user, so never to the university's recipe folder.
public enum UserValues {
    /// The provider for `portal`, reading the settings file once.
    public static func provider(portal: String, config: UserConfig) -> UserValueProvider {
        let values = config.portalValues[portal] ?? [:]
        return { name, recipe in
            guard let value = values[name], !value.isEmpty else { throw missing(name, recipe: recipe) }
            return value
        }
    }

    static func missing(_ name: String, recipe: DataRecipe) -> UniToolError {
        UniToolError(
            .credentialsMissing,
            localized("'\(recipe.command)' needs your own \(name) for portal '\(recipe.portal)', and your settings have none"),
            hint: recipe.platform.map { use in
                localized(
                    "give it once: unitool config set value.\(name) VALUE --portal \(recipe.portal) (see 'use: \(use.platform)' in Recipes/platforms for where to find it)"
                )
            } ?? localized("give it once: unitool config set value.\(name) VALUE --portal \(recipe.portal)")
        )
    }
}
