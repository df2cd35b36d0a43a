import Foundation

/// Where unitool keeps things on disk, decided in one place: the XDG base directory
/// specification for the user (`.xdg`), or a folder of a test's own (`.sandbox`). Every store
/// (sessions, accepted terms, offered values, drift reports, the history) is found from one of
/// these values, so a test that passes `Locations.sandbox(root)` writes nothing in the user's
/// folders, and a bare `swift test` leaves HOME alone.
public struct Locations: Sendable, Equatable {
    /// Settings, recipes, plugins and accepted terms: `$XDG_CONFIG_HOME/unitool`.
    public var config: URL
    /// Saved sessions: `$XDG_STATE_HOME/unitool`. They can be thrown away at any time.
    public var state: URL
    /// What unitool keeps for the user, the history of recipe runs: `$XDG_DATA_HOME/unitool`.
    public var data: URL
    /// Caches: `$XDG_CACHE_HOME/unitool`.
    public var cache: URL

    public init(config: URL, state: URL, data: URL, cache: URL) {
        self.config = config
        self.state = state
        self.data = data
        self.cache = cache
    }

    /// The specification's rules over `environment`: each `XDG_*_HOME` when it is an absolute
    /// path (a relative one is ignored, as the specification says), else its place under HOME.
    public static func xdg(_ environment: [String: String]) -> Locations {
        func base(_ variable: String, fallback: String) -> URL {
            if let value = environment[variable], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            let home = environment["HOME"] ?? NSHomeDirectory()
            return URL(fileURLWithPath: home).appendingPathComponent(fallback)
        }
        return Locations(
            config: base("XDG_CONFIG_HOME", fallback: ".config").appendingPathComponent("unitool"),
            state: base("XDG_STATE_HOME", fallback: ".local/state").appendingPathComponent("unitool"),
            data: base("XDG_DATA_HOME", fallback: ".local/share").appendingPathComponent("unitool"),
            cache: base("XDG_CACHE_HOME", fallback: ".cache").appendingPathComponent("unitool"))
    }

    /// A folder of a test's own, laid out as a sandbox's `XDG_*` variables lay it out
    /// (`root/config/unitool`, `root/state/unitool`, …), so the binary run with that sandbox's
    /// environment and the library given these locations use the same files.
    public static func sandbox(_ root: URL) -> Locations {
        xdg([
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
            "HOME": root.path,
        ])
    }

    /// The process's own, from the environment it started with: unitool never changes its
    /// environment, and `ProcessInfo.environment` copies all of it on every call.
    public static let current = Locations.xdg(ProcessInfo.processInfo.environment)

    /// Saved sessions, one file per portal and user.
    public var sessions: URL { state.appendingPathComponent("sessions") }
    /// Accepted terms of use, one file per portal.
    public var acceptedTerms: URL { config.appendingPathComponent("terms") }
    /// The values a portal offered for an option (`--term`), for completion and "did you mean".
    public var offeredValues: URL { cache.appendingPathComponent("values") }
    /// Pages saved when a recipe no longer matched them.
    public var driftReports: URL { cache.appendingPathComponent("drift") }
    /// The history of recipe runs.
    public var historyFile: URL { data.appendingPathComponent("history.sqlite") }
    /// `config.yaml`: the user's settings (`UserConfig`).
    public var configFile: URL { config.appendingPathComponent("config.yaml") }
    /// The user's own recipes, one folder per portal.
    public var userRecipes: URL { config.appendingPathComponent("recipes") }
    /// The recipe packs the user trusts (`RecipeTrust`).
    public var trustFile: URL { config.appendingPathComponent("trusted-portals.json") }
    /// Saved watches (`WatchFile`).
    public var watchFile: URL { config.appendingPathComponent("watches.yaml") }
    /// Plugins the user installed.
    public var plugins: URL { config.appendingPathComponent("plugins") }
    /// Recent commands and pins (`ShortcutsStore`).
    public var shortcutsFile: URL { state.appendingPathComponent("shortcuts.json") }
    /// The state of a demo university a command or `demo serve` runs.
    public var demoStateFile: URL { state.appendingPathComponent("demo.json") }
    /// The browser's temporary profiles (`auth login --browser`, `recipes new --record`), each
    /// removed when its browser closes; 0700, since a profile holds the login's cookies.
    public var browserProfiles: URL { state.appendingPathComponent("browser") }
    /// The profile `--keep-browser-profile` keeps for a portal and user: the login service's own
    /// cookies, so that the next browser login can finish without typing.
    public func keptBrowserProfile(portal: String, user: String) -> URL {
        // Letters and digits as they are, anything else (a slash, a dot) percent-encoded.
        let name = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "_" }
        return state.appendingPathComponent("browser-profiles").appendingPathComponent(name(portal)).appendingPathComponent(name(user))
    }
}
