import CLibPSL

/// The Public Suffix List through libpsl, the library curl and wget use: which domains are
/// suffixes under which anyone may register a name (`edu`, `ac.jp`, `github.io`), so that no
/// site may set a cookie for all of them. The only Swift code that touches libpsl.
public enum PublicSuffixList {
    /// The newest list on the machine: libpsl's built-in copy or the system's
    /// (`/usr/share/publicsuffix`), whichever is newer. Loaded once; read-only afterwards, so it
    /// may be used from any thread.
    nonisolated(unsafe) private static let context: OpaquePointer? = psl_latest(nil) ?? psl_builtin()

    /// Whether a list could be loaded at all. Without one, every domain with a dot is treated
    /// as registrable and only single labels (`edu`) as suffixes: see ``isPublicSuffix(_:)``.
    public static var isAvailable: Bool { context != nil }

    /// Whether `domain` (lowercase, without a leading dot) is a public suffix: ICANN and private
    /// rules both, and, by the list's implicit `*` rule, any top-level label the list does not
    /// know (so `localhost` is one).
    public static func isPublicSuffix(_ domain: String) -> Bool {
        guard let context else { return !domain.contains(".") }
        return psl_is_public_suffix(context, domain) != 0
    }
}
