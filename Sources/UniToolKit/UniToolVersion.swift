/// The version unitool reports in `--version`, in its User-Agent and in JSON-RPC `initialize`.
public enum UniToolVersion {
    public static let current = "0.1.0"
}
