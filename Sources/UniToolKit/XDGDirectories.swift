import Foundation

/// The process's own places on disk (`Locations.current`), for the code that has not been
/// handed a `Locations` yet.
public enum XDGDirectories {
    public static var config: URL { Locations.current.config }
    public static var state: URL { Locations.current.state }
    public static var data: URL { Locations.current.data }
    public static var cache: URL { Locations.current.cache }
}
