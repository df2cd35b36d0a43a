import Foundation

/// Where a setting's value came from, so that every message that uses one can say so: a user
/// who set `user jdoe` months ago and now sees "no password for jdoe" learns where jdoe is.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    /// A command-line flag, such as `--user`.
    case flag(String)
    /// An environment variable, such as `UNITOOL_USER`.
    case environment(String)
    /// A line of the settings file.
    case file(path: String, line: Int?)
    /// unitool's own choice: the only portal installed, the demo's default user.
    case automatic(String)

    public var description: String {
        switch self {
        case .flag(let flag): return flag
        case .environment(let variable): return "$\(variable)"
        case .file(let path, let line): return line.map { "\(path):\($0)" } ?? path
        case .automatic(let reason): return reason
        }
    }
}

/// A setting's value and where it came from.
public struct Setting: Sendable, Equatable {
    public var value: String
    public var origin: SettingOrigin

    public init(_ value: String, from origin: SettingOrigin) {
        self.value = value
        self.origin = origin
    }
}

/// The portal and user a command runs with: the flag, else the environment, else the settings
/// file, each with its origin. A pure decision over its inputs, so that the CLI and its tests
/// agree on the order, and on the rule that a user set for one portal is never used for another.
public struct Settings: Sendable {
    public var portalFlag: String?
    public var userFlag: String?
    public var environment: [String: String]
    public var config: UserConfig
    /// The settings file's path, for origins.
    public var configPath: String

    public init(
        portalFlag: String? = nil, userFlag: String? = nil, environment: [String: String], config: UserConfig,
        configPath: String
    ) {
        self.portalFlag = portalFlag
        self.userFlag = userFlag
        self.environment = environment
        self.config = config
        self.configPath = configPath
    }

    /// The portal asked for, if any was: `--portal`, `$UNITOOL_PORTAL`, then `portal:` in the file.
    public var portal: Setting? {
        if let flag = portalFlag, !flag.isEmpty { return Setting(flag, from: .flag("--portal")) }
        if let variable = environment["UNITOOL_PORTAL"], !variable.isEmpty {
            return Setting(variable, from: .environment("UNITOOL_PORTAL"))
        }
        if let file = config["portal"], !file.isEmpty {
            return Setting(file, from: .file(path: configPath, line: config.lines["portal"]))
        }
        return nil
    }

    /// The user for a portal: `--user`, `$UNITOOL_USER`, then the file's user for that portal.
    /// The demo's users are its own: a user from the file for another portal never applies to it.
    public func user(forPortal portal: String, isDemo: Bool) -> Setting? {
        if let flag = userFlag, !flag.isEmpty { return Setting(flag, from: .flag("--user")) }
        if let variable = environment["UNITOOL_USER"], !variable.isEmpty {
            return Setting(variable, from: .environment("UNITOOL_USER"))
        }
        if let (user, key) = config.user(forPortal: portal, isDemo: isDemo) {
            return Setting(user, from: .file(path: configPath, line: config.lines[key]))
        }
        return nil
    }
}
