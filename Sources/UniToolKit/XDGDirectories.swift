import Foundation

/// unitool's places on disk, per the XDG base directory specification.
public enum XDGDirectories {
    /// The environment as the process started with it: unitool never changes its own, and
    /// `ProcessInfo.environment` copies all of it into a new dictionary on every call.
    private static let environment = ProcessInfo.processInfo.environment

    private static func base(_ variable: String, fallback: String) -> URL {
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(fallback)
    }

    /// Settings, recipes, plugins and accepted terms: `$XDG_CONFIG_HOME/unitool`.
    public static var config: URL { base("XDG_CONFIG_HOME", fallback: ".config").appendingPathComponent("unitool") }
    /// Saved sessions: `$XDG_STATE_HOME/unitool`. They can be thrown away at any time.
    public static var state: URL { base("XDG_STATE_HOME", fallback: ".local/state").appendingPathComponent("unitool") }
    /// What unitool keeps for the user, the history of recipe runs: `$XDG_DATA_HOME/unitool`.
    public static var data: URL { base("XDG_DATA_HOME", fallback: ".local/share").appendingPathComponent("unitool") }
    /// Caches: `$XDG_CACHE_HOME/unitool`.
    public static var cache: URL { base("XDG_CACHE_HOME", fallback: ".cache").appendingPathComponent("unitool") }
}
