import UniToolKit

/// Which global options a built-in command has no use for. Every command takes the global
/// options (swift-argument-parser's one group), but `--fields`, `--sort` and `--offline` only
/// mean something where records are printed; elsewhere its `--help` leaves them out, and giving
/// one is a usage error rather than a silent no-op.
enum OptionScope {
    /// Options about records: which, in what order, from the portal or the history.
    static let recordOptions: Set<String> = ["--fields", "--sort", "--offline"]

    /// Commands (as typed: `auth login`) that print no records.
    static let withoutRecords: Set<String> = [
        "auth login", "auth logout", "auth totp", "auth totp set", "auth totp remove", "terms accept", "config", "config get",
        "config set", "config unset", "config path", "demo", "demo serve", "completions", "rpc", "mcp", "plugins",
        "recipes new", "recipes trust", "recipes untrust", "recipes lint",
    ]

    /// The options `path` (`["auth", "login"]`, positional arguments allowed after it) does not take.
    static func notApplying(to path: [String]) -> Set<String> {
        for length in stride(from: path.count, through: 1, by: -1)
        where withoutRecords.contains(path.prefix(length).joined(separator: " ")) {
            return recordOptions
        }
        return []
    }

    /// The first option in `arguments` that the command does not take, as a usage error.
    static func refusal(for path: [String], arguments: [String]) -> UniToolError? {
        let excluded = notApplying(to: path)
        guard let given = arguments.first(where: { excluded.contains(String($0.split(separator: "=").first ?? "")) }) else {
            return nil
        }
        let name = String(given.split(separator: "=").first ?? "")
        let command = path.joined(separator: " ")
        return UniToolError(
            .usage, localized("\(name) does not apply to 'unitool \(command)': it prints no records"),
            hint: localized("leave \(name) out; see 'unitool \(command) --help'"))
    }

    /// Help text without the entries of the options `path` does not take (an entry is its
    /// two-space-indented line and the deeper-indented lines that continue it).
    static func help(_ text: String, for path: [String]) -> String {
        let excluded = notApplying(to: path)
        guard !excluded.isEmpty else { return text }
        var kept: [Substring] = []
        var skipping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let body = line.drop { $0 == " " }
            let indent = line.count - body.count
            if indent == 2, body.hasPrefix("-") {
                let name = String(body.prefix { $0 != " " && $0 != "," })
                skipping = excluded.contains(name)
            } else if indent <= 2 {
                skipping = false
            }
            if !skipping { kept.append(line) }
        }
        return kept.joined(separator: "\n")
    }
}
