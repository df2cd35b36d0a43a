import Foundation

/// `secret-tool`, libsecret's own command-line client: the outside program that proves unitool's
/// keyring items are readable (and writable) by other tools.
public enum SecretTool {
    /// Runs `secret-tool` with `arguments`, writing `input` (a secret to store) to its stdin,
    /// and returns what it printed (a secret looked up, or the attributes of a search).
    @discardableResult
    public static func run(_ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        // `search` prints the attributes on stderr.
        process.standardError = stdout
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
