import Keyring
import LibXML

/// The version unitool reports in `--version`, in its User-Agent and in JSON-RPC `initialize`.
public enum UniToolVersion {
    public static let current = "0.1.0"

    /// The Swift compiler unitool was built with: what a bug report needs beside the version.
    public static var swift: String {
        #if compiler(>=6.4)
            return "6.4 or later"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "6.0"
        #endif
    }

    /// What `unitool version` prints: unitool's version and those of the parts a portal's
    /// behaviour depends on.
    public static var components: [(name: String, version: String)] {
        [("unitool", current), ("swift", swift), ("libxml2", LibXMLVersion.current), ("libsecret", Keyring.libsecretVersion)]
    }
}
