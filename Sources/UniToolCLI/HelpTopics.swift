import Foundation
import UniToolHost
import UniToolKit

/// The reference a script author looks up once unitool is installed and the README is not at
/// hand: `unitool help exit-codes`, `help environment` and `help files`, and the same text as
/// the EXIT STATUS, ENVIRONMENT and FILES sections of unitool(1).
enum HelpTopics {
    static let names = ["exit-codes", "environment", "files"]

    /// What each topic is, for `unitool help topics` and the overview.
    static let summaries: [(name: String, summary: String)] = [
        ("exit-codes", localized("every exit code and what it means (JSON-RPC: -32000 minus the code)")),
        ("environment", localized("the environment variables unitool reads or sets")),
        ("files", localized("where unitool keeps its settings, sessions, history and caches")),
    ]

    /// Faults `help environment` names as examples: each one `UNITOOL_DEMO_FAULTS` takes (a test
    /// holds them to `DemoFaults(parsing:)`).
    static let exampleFaults = ["latency=MS", "hang", "layout-changed", "expire-sessions", "login=keycloak"]

    /// Every exit code, from `UniToolError.Kind`: the only list, so a new kind cannot be left out.
    static var exitCodes: [(code: String, name: String, meaning: String)] {
        [("0", "", localized("success"))]
            + UniToolError.Kind.allCases.sorted { $0.exitCode < $1.exitCode }.map {
                (String($0.exitCode), $0.rawValue, $0.meaning)
            }
    }

    static var environment: [(name: String, meaning: String)] {
        let faults = exampleFaults.joined(separator: ", ")
        return [
            ("UNITOOL_PORTAL", localized("the portal when --portal is not given (then config.yaml's 'portal')")),
            ("UNITOOL_USER", localized("the user when --user is not given (then the portal's user in config.yaml)")),
            ("UNITOOL_FORMAT", localized("the output format when neither --format nor --json is given: table, json, jsonl or csv")),
            ("UNITOOL_PASSWORD_COMMAND", localized("a command whose first line of output is the password (pass show uni/myuni)")),
            ("UNITOOL_TOTP_COMMAND", localized("a command that prints the current one-time code (oathtool --totp -b SECRET)")),
            ("UNITOOL_RECIPES_DIR", localized("the bundled recipes' folder, instead of the one beside the binary")),
            ("UNITOOL_NOW", localized("the moment 'today' and due dates take as now (2026-11-30T09:00:00+01:00)")),
            ("UNITOOL_HYPERLINKS", localized("1 or 0: print links as terminal hyperlinks (OSC 8) or not, whatever the terminal says")),
            (
                "UNITOOL_DEMO_URL",
                localized("the demo university's address (unitool demo serve prints it) instead of one started for each command")
            ),
            (
                "UNITOOL_DEMO_FAULTS",
                localized("faults the demo puts on, comma-separated (\(faults), ...); see 'unitool demo serve --help'")
            ),
            (
                "UNITOOL_BROWSER",
                localized(
                    "the Chromium or Chrome program for --browser and --record (else chromium, chromium-browser or google-chrome on PATH)")
            ),
            (
                "UNITOOL_BROWSER_HOOK, UNITOOL_BROWSER_VIRTUAL_AUTHENTICATOR",
                localized(
                    "for tests: a script run in every page of the browser (it may call unitoolHook('done')), and a security key that answers by itself (1, or a file of credentials)"
                )
            ),
            ("NO_COLOR", localized("no colour in tables, whatever the terminal can show")),
            ("COLUMNS", localized("the table width when the output is not a terminal")),
            (
                "LANGUAGE, LC_ALL, LC_MESSAGES, LANG",
                localized(
                    "the language of messages, help and tables (docs/LANGUAGES.md): LANGUAGE (a list such as hu:ja) first unless the locale is C, then the first of the others that is set; JSON, CSV and exit codes never change"
                )
            ),
            ("UNITOOL_LOCALEDIR", localized("a folder of translation catalogs (LANG/LC_MESSAGES/unitool.mo) looked in first")),
            (
                "LC_ALL, LC_TIME, LANG",
                localized(
                    "the language and clock of dates in tables and 'today', the first one set wins; C or none: English with a 24-hour clock; JSON and CSV stay ISO 8601"
                )
            ),
            ("XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, XDG_CACHE_HOME", localized("where unitool's files go (see FILES)")),
            (
                "XDG_RUNTIME_DIR",
                localized("where 'unitool demo serve' leaves the file your other commands find it by (else the state folder)")
            ),
            (
                "UNITOOL_EVENT, UNITOOL_EVENT_SUMMARY, UNITOOL_EVENT_KEY, UNITOOL_EVENT_COMMAND",
                localized("set for a watch's --exec command: the event's kind, one line about it, the record's key and the command")
            ),
            ("UNITOOL_RPC_FD", localized("set for a plugin: the file descriptor of unitool's JSON-RPC channel")),
        ]
    }

    static let files: [(path: String, meaning: String)] = [
        ("$XDG_CONFIG_HOME/unitool/config.yaml", localized("your defaults: portal, user, format (unitool config)")),
        ("$XDG_CONFIG_HOME/unitool/watches.yaml", localized("the watches 'unitool watch --all' runs")),
        ("$XDG_CONFIG_HOME/unitool/recipes/<portal>/", localized("your own recipes and recipe packs")),
        ("$XDG_CONFIG_HOME/unitool/plugins/unitool-<name>", localized("plugins (then unitool-<name> on PATH)")),
        ("$XDG_CONFIG_HOME/unitool/terms/<portal>.json", localized("the terms-of-use version you accepted")),
        ("$XDG_STATE_HOME/unitool/sessions/<portal>/<user>.json", localized("saved sessions (cookies only), mode 0600")),
        ("$XDG_DATA_HOME/unitool/history.sqlite", localized("every answer (unitool history, --offline, search) and what watches keep")),
        ("$XDG_STATE_HOME/unitool/demo.json", localized("what the demo university remembers: renewals, grades posted")),
        (
            "$XDG_RUNTIME_DIR/unitool/demo-serve-*.json",
            localized("where a running 'unitool demo serve' is found, by your commands only (0600; removed when it stops)")
        ),
        ("$XDG_CACHE_HOME/unitool/drift/", localized("pages that no longer matched a recipe, form values removed")),
        (
            "$XDG_STATE_HOME/unitool/browser/",
            localized("the browser's profile while --browser or --record runs (0700; removed afterwards)")
        ),
        ("$XDG_STATE_HOME/unitool/browser-profiles/<portal>/<user>/", localized("a browser profile kept by --keep-browser-profile (0700)")),
        (localized("the keyring (Secret Service)"), localized("passwords and one-time code secrets, never a file")),
    ]

    /// The topic as text for a terminal, or nil if there is no such topic.
    static func text(_ topic: String) -> String? {
        switch topic {
        case "topics":
            return localized("Help topics (unitool help TOPIC); for a command: unitool help COMMAND") + "\n\n"
                + summaries.map { "  \($0.name.padding(toLength: 13, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n")
                + "\n"
        case "exit-codes":
            let rows = exitCodes.map {
                "  \($0.code.padding(toLength: 4, withPad: " ", startingAt: 0))\($0.name.padding(toLength: 27, withPad: " ", startingAt: 0))\($0.meaning)"
            }
            return localized("Exit codes of unitool (a JSON-RPC error code is -32000 minus the exit code):") + "\n\n"
                + rows.joined(separator: "\n") + "\n"
        case "environment":
            return localized("Environment variables unitool reads or sets:") + "\n\n"
                + environment.map { "  \($0.name)\n      \($0.meaning)" }.joined(separator: "\n") + "\n"
        case "files":
            return localized("Where unitool keeps things (XDG defaults: ~/.config, ~/.local/state, ~/.local/share, ~/.cache):") + "\n\n"
                + files.map { "  \($0.path)\n      \($0.meaning)" }.joined(separator: "\n") + "\n"
        default:
            return nil
        }
    }

    /// The three sections of unitool(1), in roff.
    static var manualSections: String {
        var roff =
            ManualPages.section(localized("EXIT STATUS"))
            + ManualPages.escape(localized("A JSON-RPC error code is -32000 minus the exit code.")) + "\n"
        for row in exitCodes {
            roff += ".TP\n.B \(row.code)\n" + ManualPages.escape(row.name.isEmpty ? row.meaning : "\(row.name): \(row.meaning)") + "\n"
        }
        roff += ManualPages.section(localized("ENVIRONMENT"))
        for row in environment { roff += ".TP\n.B \(ManualPages.escape(row.name))\n\(ManualPages.escape(row.meaning))\n" }
        roff += ManualPages.section(localized("FILES"))
        for row in files { roff += ".TP\n.I \(ManualPages.escape(row.path))\n\(ManualPages.escape(row.meaning))\n" }
        return roff
    }
}
