import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The catalogs as a user gets them: `po/` compiled by the real `msgfmt` (Scripts/build-catalogs.sh),
/// read by the real `unitool` under `LANG`, with no generated locales on the machine.
enum CompiledCatalogs {
    /// The compiled catalogs of po/ and of the pseudo-locale en_XA, once per test process.
    static let folder: Result<URL, any Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-catalogs-\(UUID().uuidString)")
        let script = Fixtures.root.appendingPathComponent("Scripts/build-catalogs.sh")
        let built = try UniToolProcess.run(URL(fileURLWithPath: "/bin/bash"), [script.path, folder.path])
        guard built.exitCode == 0 else { throw CatalogError(what: "build-catalogs.sh", outcome: built) }
        let pseudoFolder = folder.appendingPathComponent("en_XA/LC_MESSAGES")
        try FileManager.default.createDirectory(at: pseudoFolder, withIntermediateDirectories: true)
        let pseudoSource = folder.appendingPathComponent("en_XA.po")
        let written = try UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [Fixtures.root.appendingPathComponent("Scripts/update-po.py").path, "--pseudo", pseudoSource.path])
        guard written.exitCode == 0 else { throw CatalogError(what: "update-po.py --pseudo", outcome: written) }
        let compiled = try UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/msgfmt"),
            ["--check", "-o", pseudoFolder.appendingPathComponent("unitool.mo").path, pseudoSource.path])
        guard compiled.exitCode == 0 else { throw CatalogError(what: "msgfmt of the pseudo-locale", outcome: compiled) }
        return folder
    }

    struct CatalogError: Error, CustomStringConvertible {
        var what: String
        var outcome: UniToolProcess.Outcome
        var description: String { "\(what) failed: \(outcome)" }
    }
}

@Suite(
    "Messages, help and tables in the person's language (gettext catalogs)",
    .enabled(if: Needs.program("/usr/bin/msgfmt") && Needs.program("/usr/bin/python3")))
struct LanguagesTests {
    static let locales = ["ja_JP.UTF-8", "hu_HU.UTF-8", "C.UTF-8"]

    /// Runs unitool with only `LANG` of the locale variables set, and the test's catalogs.
    func run(_ arguments: [String], lang: String, in sandbox: Sandbox, stdin: String? = nil) async throws -> UniToolProcess.Outcome {
        let folder = try CompiledCatalogs.folder.get()
        return try await sandbox.run(
            arguments, stdin: stdin, extra: ["LANG": lang, "UNITOOL_LOCALEDIR": folder.path, "COLUMNS": "100"],
            removing: ["LC_ALL", "LC_MESSAGES", "LANGUAGE", "LC_TIME"])
    }

    /// The language's own translation of an English key, from the compiled catalog.
    func translation(of key: String, language: String) throws -> String? {
        let folder = try CompiledCatalogs.folder.get()
        return Translation(preference: LanguagePreference(locales: [language]), directories: [folder.path]).message(key)
    }

    @Test("a mistyped option: the error and its hint in Japanese, Hungarian or English, with the same exit code")
    func mistypedOption() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        var codes: Set<Int32> = []
        for lang in Self.locales {
            let outcome = try await run(["--portal", "demo", "grades", "--trem", "current"], lang: lang, in: sandbox)
            codes.insert(outcome.exitCode)
            #expect(outcome.stdout.isEmpty, "\(lang): \(outcome)")
            let lines = outcome.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(lang): \(outcome)")
            let language = String(lang.prefix(2))
            let errorPrefix = try translation(of: "unitool: error: {0}", language: language) ?? "unitool: error: {0}"
            let hintPrefix = try translation(of: "  hint: {0}", language: language) ?? "  hint: {0}"
            #expect(lines.first?.hasPrefix(String(errorPrefix.prefix { $0 != "{" })) == true, "\(lang): \(outcome)")
            #expect(lines.last?.hasPrefix(String(hintPrefix.prefix { $0 != "{" })) == true, "\(lang): \(outcome)")
            #expect(outcome.stderr.contains("--trem") && outcome.stderr.contains("--term"), "\(lang): \(outcome)")
            if lang.hasPrefix("C") {
                #expect(
                    outcome.stderr
                        == "unitool: error: unknown option '--trem' for 'grades'\n  hint: did you mean '--term'? see 'unitool grades --help'\n"
                )
            } else {
                // The catalog's words, not the English ones.
                #expect(!outcome.stderr.contains("unknown option") && !outcome.stderr.contains("did you mean"), "\(lang): \(outcome)")
            }
        }
        #expect(codes == [64])
    }

    @Test("--help and the grades table speak Japanese; --json and CSV are byte for byte the same in every locale")
    func helpTablesAndMachineOutput() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let help = try await run(["--help"], lang: "ja_JP.UTF-8", in: sandbox)
        #expect(help.exitCode == 0, "\(help)")
        let usage = try #require(try translation(of: "USAGE:", language: "ja"))
        #expect(help.stdout.contains("\(usage) unitool [--portal <portal>]"), "\(help)")
        let builtin = try #require(try translation(of: "BUILT-IN COMMANDS:", language: "ja"))
        #expect(help.stdout.contains(builtin), "\(help)")

        let table = try await run(["--portal", "demo", "grades", "--term", "current"], lang: "ja_JP.UTF-8", in: sandbox)
        #expect(table.exitCode == 0, "\(table)")
        let heading = table.stdout.split(separator: "\n").first.map { $0.split(separator: " ").map(String.init) }
        // The labels grades.yaml gives in Japanese, in the recipe's order.
        #expect(heading == ["学期", "科目", "コード", "単位", "成績", "評点", "日付"], "\(table)")

        for format in [["--json"], ["--format", "jsonl"], ["--format", "csv"]] {
            var outputs: [String] = []
            for lang in Self.locales {
                let outcome = try await run(["--portal", "demo", "grades", "--term", "current"] + format, lang: lang, in: sandbox)
                #expect(outcome.exitCode == 0, "\(lang) \(format): \(outcome)")
                outputs.append(outcome.stdout)
            }
            #expect(Set(outputs).count == 1 && !outputs[0].isEmpty, "\(format): \(outputs)")
        }
    }

    @Test("a table's own words (yes and no, today's sections and an event's status) in Japanese; today --json keeps its names")
    func tableWords() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let yes = try #require(try translation(of: "yes", language: "ja"))
        let no = try #require(try translation(of: "no", language: "ja"))
        let loans = try await run(["--portal", "demo", "loans"], lang: "ja_JP.UTF-8", in: sandbox)
        #expect(loans.exitCode == 0, "\(loans)")
        // Each loan's first line (a long title wraps onto more): the one with its barcode.
        let flags = loans.stdout.split(separator: "\n").filter { $0.contains("3100") }.compactMap {
            $0.split(separator: " ").last.map(String.init)
        }
        #expect(!flags.isEmpty && flags.allSatisfy { $0 == yes || $0 == no }, "\(loans)")
        let english = try await run(["--portal", "demo", "loans", "--json"], lang: "C.UTF-8", in: sandbox)
        let japanese = try await run(["--portal", "demo", "loans", "--json"], lang: "ja_JP.UTF-8", in: sandbox)
        #expect(english.stdout == japanese.stdout && english.stdout.contains(#""overdue": true"#), "\(japanese)")

        let today = try await run(["--portal", "demo", "today"], lang: "ja_JP.UTF-8", in: sandbox)
        #expect(today.exitCode == 0, "\(today)")
        // The demo's portal.yaml gives the sections' titles in Japanese.
        #expect(today.stdout.contains("今日の授業") && !today.stdout.contains("Classes today"), "\(today)")
        for lang in Self.locales {
            let json = try await run(["--portal", "demo", "today", "--json"], lang: lang, in: sandbox)
            #expect(json.stdout.contains(#""classes_today""#) && json.stdout.contains(#""todays_menu""#), "\(lang): \(json)")
        }
    }

    @Test("unitool rpc answers in English whatever LANG says, and in the locale its client declares at initialize")
    func rpcLocale() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        func errorMessage(locale: String?) async throws -> String {
            let params = locale.map { "{\"locale\": \"\($0)\"}" } ?? "{}"
            let input =
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": \(params)}\n"
                + "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"recipes.run\", \"params\": {\"portal\": \"demo\", \"recipe\": \"grades\", \"options\": {\"trem\": \"current\"}}}\n"
            let outcome = try await run(["rpc"], lang: "ja_JP.UTF-8", in: sandbox, stdin: input)
            // Answers come in the order the requests finish: the one to the second request.
            let answer = try #require(outcome.stdout.split(separator: "\n").first { $0.contains(#""id":2"#) }, "\(outcome)")
            let value = try JSONParser.parse(Array(answer.utf8))
            #expect(value["error"]?["data"]?["kind"]?.stringValue == "invalid_params", "\(outcome)")
            return try #require(value["error"]?["message"]?.stringValue, "\(outcome)")
        }
        let english = try await errorMessage(locale: nil)
        #expect(english.contains("trem") && english.allSatisfy(\.isASCII), "\(english)")
        let japanese = try await errorMessage(locale: "ja")
        #expect(japanese.contains("trem") && japanese != english && !japanese.allSatisfy(\.isASCII), "\(japanese)")
    }

    @Test("every catalog passes msgfmt --check with nothing untranslated or fuzzy, and po/unitool.pot is what the sources give")
    func catalogsComplete() throws {
        let po = Fixtures.root.appendingPathComponent("po")
        let catalogs = try FileManager.default.contentsOfDirectory(atPath: po.path).filter { $0.hasSuffix(".po") }.sorted()
        #expect(catalogs == ["hu.po", "ja.po"])
        for name in catalogs {
            let checked = try UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/msgfmt"),
                ["--check", "--statistics", "-o", "/dev/null", po.appendingPathComponent(name).path])
            #expect(checked.exitCode == 0, "\(name): \(checked)")
            #expect(!checked.stderr.contains("untranslated") && !checked.stderr.contains("fuzzy"), "\(name): \(checked.stderr)")
        }
        let current = try UniToolProcess.run(
            URL(fileURLWithPath: "/usr/bin/python3"), [Fixtures.root.appendingPathComponent("Scripts/update-po.py").path, "--check"])
        #expect(current.exitCode == 0, "\(current)")
    }
}

/// The test of untranslated text: under the pseudo-locale en_XA every catalog message shows as
/// ⟦…⟧, so a word outside the marks that is not a name, an option, a value or the recipe's own
/// text reached the person without the catalog.
@Suite(
    "No text reaches a person without the catalog (the pseudo-locale en_XA)",
    .enabled(if: Needs.program("/usr/bin/msgfmt") && Needs.program("/usr/bin/python3")))
struct PseudoLocaleTests {
    func run(_ arguments: [String], lang: String, in sandbox: Sandbox) async throws -> UniToolProcess.Outcome {
        let folder = try CompiledCatalogs.folder.get()
        // A table of the recipes' summaries wide enough that no summary (their text) wraps.
        let columns = arguments.contains("list") ? "400" : "100"
        return try await sandbox.run(
            arguments, extra: ["LANG": lang, "UNITOOL_LOCALEDIR": folder.path, "COLUMNS": columns],
            removing: ["LC_ALL", "LC_MESSAGES", "LANGUAGE", "LC_TIME"])
    }

    /// The names under a heading of an English help text: `  name   text` lines until a blank one.
    static func names(under heading: String, in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return [] }
        return lines[(start + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The words of `text` outside the marks, the recipes' own texts and the allowed names.
    static func unmarkedWords(in text: String, data: [String], allowed: Set<String>) -> [String] {
        var found: [String] = []
        // A marked message may run over several lines (a help text swift-argument-parser wrapped):
        // the marks are taken out of the whole text first, each line's words are read after.
        var unmarked = text
        // A recipe's own text, also where a help text wrapped it: its words with any spaces between.
        for piece in data where !piece.isEmpty {
            let words = piece.split(whereSeparator: \.isWhitespace).map { NSRegularExpression.escapedPattern(for: String($0)) }
            unmarked = unmarked.replacingOccurrences(of: words.joined(separator: #"\s+"#), with: " ", options: .regularExpression)
        }
        unmarked = unmarked.replacingOccurrences(of: #"⟦[^⟧]*⟧"#, with: " ", options: .regularExpression)
        for line in unmarked.split(separator: "\n") {
            // An example or usage line is a command to type, names and values alone.
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("unitool") || trimmed.hasPrefix("$ unitool") || line.contains("| unitool")
                || trimmed.hasPrefix("claude mcp")
                || trimmed.hasPrefix("https://")
            {
                continue
            }
            var rest = String(line)
            rest = rest.replacingOccurrences(of: #"'[^']*'"#, with: " ", options: .regularExpression)
            for token in rest.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "|" }) {
                let word = token.trimmingCharacters(in: CharacterSet(charactersIn: "()[]{}:;.\"…"))
                guard word.count >= 2, !word.hasPrefix("-"), !word.hasPrefix("<"), !word.hasPrefix("$"),
                    !word.contains(where: { "/._=@<>0123456789".contains($0) }),
                    word.contains(where: { $0.isLowercase }), !allowed.contains(word.lowercased())
                else { continue }
                found.append("\(word)  ⟵  \(line)")
            }
        }
        return found
    }

    @Test("the overview, every built-in command's --help, every help topic, a recipe command's help and its mistakes")
    func everythingMarked() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        let overview = try await run(["--portal", "demo", "--help"], lang: "C.UTF-8", in: sandbox).stdout
        let builtins = Self.names(under: "BUILT-IN COMMANDS:", in: overview)
        let topics = Self.names(under: "HELP TOPICS", in: overview)
        let recipeCommands = Self.names(under: "RECIPE COMMANDS", in: overview)
        #expect(builtins.count > 10 && topics.count >= 3 && recipeCommands.contains("grades"), "\(overview)")

        var invocations: [[String]] = [["--portal", "demo", "--help"], ["--portal", "demo"]]
        invocations += topics.map { ["help", $0] }
        var subcommands: [String] = []
        for builtin in builtins where builtin != "help" {
            invocations.append([builtin, "--help"])
            let help = try await run([builtin, "--help"], lang: "C.UTF-8", in: sandbox).stdout
            for name in Self.names(under: "SUBCOMMANDS:", in: help) {
                subcommands.append(name)
                invocations.append([builtin, name, "--help"])
                let inner = try await run([builtin, name, "--help"], lang: "C.UTF-8", in: sandbox).stdout
                for innermost in Self.names(under: "SUBCOMMANDS:", in: inner) {
                    subcommands.append(innermost)
                    invocations.append([builtin, name, innermost, "--help"])
                }
            }
        }
        invocations += [
            ["--portal", "demo", "grades", "--help"], ["--portal", "demo", "loans", "--help"],
            ["--portal", "demo", "grades", "--trem", "current"], ["--portal", "demo", "grade"], ["--portl", "demo"],
            ["--portal", "nowhere", "grades"], ["--portal", "demo", "grades", "--term", "1999-winter"],
            ["--portal", "demo", "grades", "--fields", "nothing"], ["--portal", "demo", "loans", "renew"],
            ["--portal", "demo", "terms", "status"], ["--portal", "demo", "auth", "status"],
            ["--portal", "demo", "recipes", "list"],
            ["--portal", "demo", "history", "grades"], ["--portal", "demo", "config", "get", "nothing"],
            ["--portal", "demo", "search", "theory"], ["watch", "--help"], ["--timeout", "0", "--portal", "demo", "grades"],
        ]

        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        var data: [String] = []
        for recipe in catalog.recipes(of: "demo") {
            data.append(recipe.summary)
            data += (recipe.discussion ?? "").split(separator: "\n").map(String.init)
            data += recipe.options.compactMap(\.help)
            data += recipe.actions.map(\.summary)
        }
        data += [try catalog.portal("demo").name, Fixtures.recipes.appendingPathComponent("demo").path]
        data.sort { $0.count > $1.count }
        let allowed = Set(
            ["unitool", "demo", "alice", "table", "json", "jsonl", "csv", "ics", "bash", "zsh", "fish", "yaml", "xpath", "http", "https"]
                + builtins + topics + recipeCommands + recipeCommands.flatMap { $0.split(separator: "-").map(String.init) }
                + catalog.recipes(of: "demo").flatMap { $0.actions.map(\.name) } + subcommands
                // `help exit-codes` names each code's kind, as scripts see it.
                + UniToolError.Kind.allCases.map(\.rawValue)
                + catalog.recipes(of: "demo").flatMap { $0.primary.fields.map(\.name) + ($0.totals?.fields.map(\.name) ?? []) })

        var misses: [String] = []
        for arguments in invocations {
            let outcome = try await run(arguments, lang: "en_XA.UTF-8", in: sandbox)
            let words = Self.unmarkedWords(in: outcome.stdout + "\n" + outcome.stderr, data: data, allowed: allowed)
            misses += words.map { "unitool \(arguments.joined(separator: " ")): \($0)" }
        }
        #expect(misses.isEmpty, "\(misses.count) words outside the catalog:\n\(misses.joined(separator: "\n"))")
    }
}
