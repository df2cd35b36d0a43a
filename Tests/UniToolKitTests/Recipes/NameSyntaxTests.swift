import Foundation
import Testing
import UniToolKit

/// The byte-wise name checks against the regular expressions they replaced, on every short
/// name over an alphabet with each kind of character they treat differently.
@Suite("Name syntax: commands, plugins and platforms")
struct NameSyntaxTests {
    static func matches(_ name: String, _ pattern: String) -> Bool { name.range(of: pattern, options: .regularExpression) != nil }

    /// Every name of up to three characters over a small alphabet, and some longer ones.
    static let names: [String] = {
        let alphabet = ["a", "z", "0", "9", "-", "_", "/", "A", ".", " ", "é"]
        var names = ["", "grades", "loans-renew", "moodle/grades", "koha/loans/x", "a//b", "/a", "a/", "unitool-gpa", "2fa"]
        for first in alphabet {
            names.append(first)
            for second in alphabet {
                names.append(first + second)
                for third in alphabet { names.append(first + second + third) }
            }
        }
        return names
    }()

    @Test("each check accepts exactly what its regular expression accepts")
    func sameAsTheRegularExpressions() {
        for name in Self.names {
            #expect(NameSyntax.isCommandName(name) == Self.matches(name, "^[a-z][a-z0-9-]*$"), "command '\(name)'")
            #expect(NameSyntax.isPluginName(name) == Self.matches(name, "^[a-z0-9][a-z0-9_-]*$"), "plugin '\(name)'")
            #expect(NameSyntax.isPlatformName(name) == Self.matches(name, "^[a-z0-9-]+(/[a-z0-9-]+)?$"), "platform '\(name)'")
        }
    }
}
