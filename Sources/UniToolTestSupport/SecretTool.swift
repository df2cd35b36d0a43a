import Foundation

/// `secret-tool`, libsecret's own command-line client: the outside program that proves unitool's
/// keyring items are readable (and writable) by other tools.
public enum SecretTool {
    /// Runs `secret-tool` with `arguments`, writing `input` (a secret to store) to its stdin,
    /// and returns what it printed (a secret looked up, or the attributes of a search).
    @discardableResult
    public static func run(_ arguments: [String], input: String? = nil) throws -> String {
        let outcome = try UniToolProcess.run(URL(fileURLWithPath: "/usr/bin/secret-tool"), arguments, stdin: input)
        // `search` prints the attributes on stderr.
        return outcome.stdout + outcome.stderr
    }
}
