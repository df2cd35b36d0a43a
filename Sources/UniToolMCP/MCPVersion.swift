/// The versions of the Model Context Protocol `unitool mcp` speaks, oldest first. `initialize`
/// answers with the client's version when it is one of these, and the latest otherwise (the
/// client then decides whether it can go on); each answer after that carries only the fields
/// of the version agreed.
public enum MCPVersion: String, Sendable, CaseIterable, Comparable {
    case v2024_11_05 = "2024-11-05"
    /// Tool annotations.
    case v2025_03_26 = "2025-03-26"
    /// Titles, structured tool output.
    case v2025_06_18 = "2025-06-18"
    case v2025_11_25 = "2025-11-25"

    public static let latest = MCPVersion.v2025_11_25

    /// The version to answer a client that asked for `requested`.
    public static func negotiated(_ requested: String?) -> MCPVersion {
        requested.flatMap(MCPVersion.init(rawValue:)) ?? .latest
    }

    /// Versions are dates, `YYYY-MM-DD`: their text sorts as they do.
    public static func < (lhs: MCPVersion, rhs: MCPVersion) -> Bool { lhs.rawValue < rhs.rawValue }
}
