import Foundation
import Yams

/// The user's defaults: `$XDG_CONFIG_HOME/unitool/config.yaml`.
///
///     portal: myuni
///     user: jdoe
///     format: table
///
/// Flags win over environment variables (`UNITOOL_PORTAL`, `UNITOOL_USER`, `UNITOOL_FORMAT`),
/// which win over this file.
public struct UserConfig: Sendable, Equatable {
    public static let keys = ["portal", "user", "format"]

    public var values: [String: String] = [:]

    public init(values: [String: String] = [:]) { self.values = values }

    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public static var file: URL { XDGDirectories.config.appendingPathComponent("config.yaml") }

    /// The file's settings; none if there is no file. A broken file is an error that says where.
    public static func load(from file: URL = UserConfig.file) throws -> UserConfig {
        guard let data = try PrivateFile.read(file, allowSymlink: true) else { return UserConfig() }
        let text = String(decoding: data, as: UTF8.self)
        // A file of comments alone (what 'config unset' of the last key leaves) holds no settings.
        let settings = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
        if settings.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { return UserConfig() }
        do {
            let reader = try RecipeReader(file: file.path, text: text.isEmpty ? "{}" : text)
            let top = try reader.top
            try top.allowOnly(keys)
            var config = UserConfig()
            for key in keys {
                if let value = try top.string(key) { config.values[key] = value }
            }
            if let format = config.values["format"], OutputFormat(rawValue: format) == nil {
                throw top.error("format", "'\(format)' is not one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return config
        } catch let error as UniToolError {
            // The reader speaks of recipes; this is the settings file, and a usage problem.
            throw UniToolError(
                .usage, "the settings file is not valid: \(error.message)",
                hint: error.hint ?? "fix it, or change it with 'unitool config set'")
        }
    }

    /// The settings, or none when the file cannot be read: for places that must not fail, after
    /// `load()` has already reported any problem.
    public static var current: UserConfig { (try? load()) ?? UserConfig() }

    /// Checks a value before `set` writes it.
    public static func validate(key: String, value: String) throws {
        guard keys.contains(key) else {
            let nearest = closestMatch(to: key, in: keys)
            throw UniToolError(
                .usage, "there is no setting '\(key)'",
                hint: "settings: \(keys.joined(separator: ", "))" + (nearest.map { "; did you mean '\($0)'?" } ?? ""))
        }
        if key == "format", OutputFormat(rawValue: value) == nil {
            throw UniToolError(
                .usage, "'\(value)' is not a format", hint: "use one of: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Writes the file atomically, in a fixed key order so that diffs stay small.
    public func save(to file: URL = UserConfig.file) throws {
        var text = "# unitool settings; see 'unitool config --help'\n"
        for key in Self.keys {
            if let value = values[key] {
                text += "\(key): \(try Yams.dump(object: value).trimmingCharacters(in: .whitespacesAndNewlines))\n"
            }
        }
        try AtomicFile.write(Data(text.utf8), to: file, mode: 0o600)
    }
}
