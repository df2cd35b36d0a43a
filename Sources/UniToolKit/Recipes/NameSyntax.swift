/// The names recipes and plugins give commands and platforms, checked byte by byte. Each check
/// was a regular expression (`range(of:options: .regularExpression)`), which compiles an ICU
/// pattern every time: loading the recipes and looking for a plugin cost a data command a
/// sixth of its CPU that way (found with perf).
public enum NameSyntax {
    /// A recipe's command: `^[a-z][a-z0-9-]*$`.
    public static func isCommandName(_ name: String) -> Bool {
        check(name) { byte, index in isLowercase(byte) || (index > 0 && (isDigit(byte) || byte == UInt8(ascii: "-"))) }
    }

    /// A user value's name (`user_values:`, `config set value.NAME`): `^[a-z][a-z0-9_]*$`.
    public static func isValueName(_ name: String) -> Bool {
        check(name) { byte, index in isLowercase(byte) || (index > 0 && (isDigit(byte) || byte == UInt8(ascii: "_"))) }
    }

    /// A plugin's command (`unitool-NAME`): `^[a-z0-9][a-z0-9_-]*$`.
    public static func isPluginName(_ name: String) -> Bool {
        check(name) { byte, index in
            isLowercase(byte) || isDigit(byte) || (index > 0 && (byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")))
        }
    }

    /// A platform a recipe builds on (`use: moodle/grades`): `^[a-z0-9-]+(/[a-z0-9-]+)?$`.
    public static func isPlatformName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        return (1...2).contains(parts.count)
            && parts.allSatisfy { part in check(String(part)) { byte, _ in isLowercase(byte) || isDigit(byte) || byte == UInt8(ascii: "-") }
            }
    }

    private static func isLowercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// True when the name is not empty and every byte passes `allowed` (given its position).
    private static func check(_ name: String, _ allowed: (UInt8, Int) -> Bool) -> Bool {
        guard !name.isEmpty else { return false }
        for (index, byte) in name.utf8.enumerated() where !allowed(byte, index) { return false }
        return true
    }
}
