import UniToolHost
import UniToolKit

/// The examples at the end of each built-in command's help and man page: one place for all of
/// them, so that a test can check that every command teaches by example.
enum HelpExamples {
    static let byCommand: [String: [String]] = [
        "auth": ["unitool auth login --portal myuni --user jdoe", "unitool auth status", "unitool auth logout --keep-password"],
        "auth login": [
            "unitool auth login --portal myuni --user jdoe", "pass show uni | unitool auth login --user jdoe --password-stdin",
            "unitool auth login --user jdoe --session-only", "unitool auth login --portal myuni --user jdoe --browser",
        ],
        "auth status": ["unitool auth status", "unitool auth status --portal myuni --json"],
        "auth logout": ["unitool auth logout", "unitool auth logout --keep-password"],
        "auth totp": ["unitool auth totp set --user jdoe", "unitool auth totp remove --user jdoe"],
        "auth totp set": ["unitool auth totp set --user jdoe", "echo 'otpauth://totp/...' | unitool auth totp set --user jdoe"],
        "auth totp remove": ["unitool auth totp remove --user jdoe"],
        "search": ["unitool search \"infromation theroy\"", "unitool search kozepiskola --json"],
        "calendar": ["unitool calendar --output ~/uni.ics", "unitool calendar --offline > uni.ics", "unitool courses --format ics"],
        "today": [
            "unitool today", "unitool today --json", "unitool today --offline", "UNITOOL_NOW=2026-11-30T09:00:00+01:00 unitool today",
        ],
        "pin": ["unitool pin grades --term current", "unitool pin", "unitool pin --remove grades --term current"],
        "history": ["unitool history grades", "unitool history loans --since 7d --json"],
        "completions": ["unitool completions bash > ~/.local/share/bash-completion/completions/unitool"],
        "config get": ["unitool config get", "unitool config get user --portal myuni", "unitool config get --json"],
        "config unset": ["unitool config unset format", "unitool config unset user --portal myuni"],
        "config path": ["unitool config path", "$EDITOR \"$(unitool config path)\""],
        "demo": ["unitool demo serve", "unitool demo users", "unitool demo post-grade alice 2026-fall HUN-250 B", "unitool demo reset"],
        "demo serve": ["unitool demo serve --port 8080", "UNITOOL_DEMO_URL=http://127.0.0.1:8080 unitool grades"],
        "demo users": ["unitool demo users"],
        "demo post-grade": [
            "unitool demo post-grade alice 2026-fall HUN-250 B", "unitool demo post-grade alice 2026-fall CS-340 A- --date 2026-11-27",
        ],
        "demo record-absence": ["unitool demo record-absence alice CS-320"],
        "demo reset": ["unitool demo reset"],
        "doctor": ["unitool doctor login --portal myuni --user jdoe"],
        "page": ["unitool page /grades", "unitool page /grades --fixture Recipes/myuni/Fixtures/grades/spring.html"],
        "plugins": ["unitool plugins list", "unitool gpa    # runs unitool-gpa"],
        "plugins list": ["unitool plugins list --json"],
        "recipes": ["unitool recipes list", "unitool recipes lint Recipes/myuni/*.yaml", "unitool recipes test"],
        "recipes list": ["unitool recipes list", "unitool recipes list --json"],
        "recipes lint": [
            "unitool recipes lint", "unitool recipes lint Recipes/myuni/grades.yaml", "unitool recipes lint --explain Recipes/myuni",
        ],
        "recipes test": ["unitool recipes test", "unitool recipes test Recipes/myuni --update"],
        "recipes new": [
            "unitool recipes new myuni --record https://portal.myuni.edu/",
            "unitool recipes new myuni --from-har ~/Downloads/login.har",
            "unitool recipes new myuni --from-har login.har --from-har wrong-password.har",
            "unitool recipes new myuni --from-har ~/Downloads/loans.har --update",
            "unitool recipes new myuni --idp shibboleth --idp-url https://idp.myuni.edu/idp --base-url https://campus.myuni.edu",
            "unitool recipes new myuni --idp keycloak --idp-url https://sso.myuni.edu --base-url https://campus.myuni.edu --library koha --library-url https://opac.myuni.edu",
        ],
        "recipes trust": ["unitool recipes trust ~/packs/myuni"],
        "recipes untrust": ["unitool recipes untrust ~/packs/myuni"],
        "mcp": ["unitool --portal demo mcp", "claude mcp add unitool -- unitool --portal myuni mcp"],
        "rpc": ["unitool rpc", "python3 Examples/rpc_client.py --unitool unitool"],
        "terms": ["unitool terms status", "unitool terms show | less", "unitool terms accept --version 2026-09"],
        "terms status": ["unitool terms status", "unitool terms status --json"],
        "terms show": ["unitool terms show --portal myuni"],
        "terms accept": ["unitool terms accept", "unitool terms accept --version 2026-09"],
    ]

    /// The examples of a command, as lines to end its discussion with.
    static func text(for command: String) -> String {
        guard let examples = byCommand[command] else { return "" }
        return localized("Examples:") + "\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    }

    /// A discussion with the command's examples after it. The text's paragraphs are written
    /// wrapped for reading in the source; they are joined here, so that swift-argument-parser
    /// wraps them to the terminal instead of breaking each source line again. An indented line
    /// (a command to type) keeps its own line.
    static func discussion(_ text: String, examples command: String) -> String {
        let flowing = reflowed(text)
        return flowing.isEmpty ? Self.text(for: command) : flowing + "\n\n" + Self.text(for: command)
    }

    /// Joins the lines of each paragraph; blank lines and indented lines stay as they are.
    static func reflowed(_ text: String) -> String {
        var output: [String] = []
        for line in text.components(separatedBy: "\n") {
            let startsOwnLine = line.isEmpty || line.first == " " || line.first == "\t"
            if !startsOwnLine, let last = output.last, !last.isEmpty, last.first != " ", last.first != "\t" {
                output[output.count - 1] = last + " " + line
            } else {
                output.append(line)
            }
        }
        return output.joined(separator: "\n")
    }
}
