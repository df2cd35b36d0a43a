import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// Commands that come from files: recipes dropped into the user's folder, unitool-NAME plugins,
/// and config.yaml, with completions and the overview that show them.
@Suite("Recipe commands, plugins, completions and config, end to end")
struct PluginsAndConfigTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    var userRecipes: URL { sandbox.root.appendingPathComponent("config/unitool/recipes/demo") }
    var pluginFolder: URL { sandbox.root.appendingPathComponent("config/unitool/plugins") }

    func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> UniToolProcess.Outcome {
        try await sandbox.run(arguments, extra: extra)
    }

    func writeExecutable(_ text: String, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
    }

    static let dueSoonRecipe = """
        command: due-soon
        summary: Loans due within the next days
        options:
          since:
            help: "only loans due from this date on"
            default: today
            filter: { field: due, test: since }
        fetch: /library/loans
        next: "//a[@rel='next']/@href"
        rows: "//table[@id='loans']/tbody/tr"
        fields:
          title: { xpath: "td[@class='title']", required: true }
          due:   { xpath: "td[@class='due']", type: date, format: dd/MM/yyyy, required: true }
        """

    @Test("a recipe dropped into the user's folder is a command: in --help, completions and recipes list, and it runs")
    func droppedRecipe() async throws {
        try FileManager.default.createDirectory(at: userRecipes, withIntermediateDirectories: true)
        try Self.dueSoonRecipe.write(to: userRecipes.appendingPathComponent("due-soon.yaml"), atomically: true, encoding: .utf8)

        let overview = try await run(["--portal", "demo", "--help"])
        #expect(
            overview.stdout.split(separator: "\n").contains {
                $0.hasPrefix("  due-soon ") && $0.hasSuffix("Loans due within the next days")
            }, "\(overview)")
        let help = try await run(["--portal", "demo", "due-soon", "--help"])
        #expect(help.stdout.contains("--since <since>"))
        #expect(try await run(["__complete", "--portal", "demo", "due"]).stdout == "due-soon\n")
        #expect(try await run(["__complete", "--portal", "demo", "due-soon", "--"]).stdout.contains("--since"))
        let list = try await run(["recipes", "list", "--json"])
        #expect(
            list.stdout.contains(#""command": "due-soon""#)
                && list.stdout.contains(userRecipes.appendingPathComponent("due-soon.yaml").path))

        let result = try await run(["--portal", "demo", "due-soon", "--json"])
        #expect(result.exitCode == 0, "\(result)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(records.count == 9, "the twelve demo loans less the three overdue ones")
    }

    @Test("--help lists from the recipe index while no recipe changed, and sees a recipe dropped, edited or removed at once")
    func overviewFollowsRecipeChanges() async throws {
        func listed(_ command: String) async throws -> String? {
            let overview = try await run(["--portal", "demo", "--help"])
            #expect(overview.exitCode == 0, "\(overview)")
            return overview.stdout.split(separator: "\n").first { $0.hasPrefix("  \(command) ") }.map(String.init)
        }
        #expect(try await listed("due-soon") == nil)
        let index = sandbox.root.appendingPathComponent("cache/unitool/recipe-index")
        #expect(FileManager.default.fileExists(atPath: index.path), "the first overview wrote the index")
        let written = try FileManager.default.attributesOfItem(atPath: index.path)
        #expect(try await listed("grades")?.hasSuffix("Grades for a term") == true)
        let after = try FileManager.default.attributesOfItem(atPath: index.path)
        #expect(
            after[.systemFileNumber] as? Int == written[.systemFileNumber] as? Int
                && after[.modificationDate] as? Date == written[.modificationDate] as? Date,
            "the second overview read the index and wrote nothing")

        try FileManager.default.createDirectory(at: userRecipes, withIntermediateDirectories: true)
        let recipe = userRecipes.appendingPathComponent("due-soon.yaml")
        try Self.dueSoonRecipe.write(to: recipe, atomically: true, encoding: .utf8)
        #expect(try await listed("due-soon")?.hasSuffix("Loans due within the next days") == true)
        try Self.dueSoonRecipe.replacingOccurrences(of: "Loans due within the next days", with: "Loans due soon, edited")
            .write(to: recipe, atomically: true, encoding: .utf8)
        #expect(try await listed("due-soon")?.hasSuffix("Loans due soon, edited") == true)
        try FileManager.default.removeItem(at: recipe)
        #expect(try await listed("due-soon") == nil)
    }

    @Test("the bash completion script completes the dropped recipe, its options and their values")
    func bashCompletion() async throws {
        try FileManager.default.createDirectory(at: userRecipes, withIntermediateDirectories: true)
        try Self.dueSoonRecipe.write(to: userRecipes.appendingPathComponent("due-soon.yaml"), atomically: true, encoding: .utf8)
        let script = try await run(["completions", "bash"]).stdout
        let folder = sandbox.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("unitool"), withDestinationURL: UniToolProcess.executable)
        try script.write(to: sandbox.root.appendingPathComponent("completion.bash"), atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let command = """
                source '\(sandbox.root.path)/completion.bash'
                COMP_WORDS=(unitool \(quoted)); COMP_CWORD=\(words.count); _unitool; printf '%s\\n' "${COMPREPLY[@]}"
                """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", command]
            var environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }
            environment["PATH"] = folder.path + ":" + (environment["PATH"] ?? "")
            environment["UNITOOL_PORTAL"] = "demo"
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            _ = UniToolProcess.exitStatus(of: process)
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(try complete(["du"]) == ["due-soon"])
        #expect(try complete(["grades", "--te"]) == ["--term"])
        #expect(try complete(["grades", "--term", ""]) == ["all", "current"])
        #expect(try complete(["courses", "--day", "t"]) == ["today", "tomorrow", "tue", "thu"])
        #expect(try complete(["library", "re"]) == ["request"])
        #expect(try complete(["library", "request", "--"]).prefix(5) == ["--title", "--author", "--isbn", "--reason", "--yes"])
        #expect(try complete(["loans", ""]) == ["renew", "renew-all"])
        #expect(try complete(["con"]) == ["config"])
        // watch: its subcommands beside the commands it can watch, its own options beside the
        // watched command's, and a saved watch's name after 'remove'.
        #expect(try complete(["watch", "l"]) == ["list", "library", "library-calendar", "links", "lms-courses", "loans"])
        #expect(try complete(["watch", "--ev"]) == ["--every"])
        #expect(try complete(["watch", "grades", "--te"]) == ["--term", "--test"])
        #expect(try complete(["watch", "grades", "--term", ""]) == ["all", "current"])
        #expect(try complete(["watch", "--webhook-format", "n"]) == ["ntfy"])
        let saved = try await sandbox.run(["--portal", "demo", "watch", "grades", "--save", "--name", "my-grades"])
        #expect(saved.exitCode == 0, "\(saved)")
        #expect(try complete(["watch", "remove", ""]) == ["my-grades"])
    }

    @Test("a user recipe replaces the bundled one of the same command, and recipes list says which file won")
    func overrideIsShown() async throws {
        try FileManager.default.createDirectory(at: userRecipes, withIntermediateDirectories: true)
        let bundled = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/news.yaml"), encoding: .utf8)
        try bundled.replacingOccurrences(of: #"(?m)^summary: .*$"#, with: "summary: My own news", options: .regularExpression)
            .write(to: userRecipes.appendingPathComponent("news.yaml"), atomically: true, encoding: .utf8)
        let list = try await run(["recipes", "list", "--format", "jsonl"])
        let line = try #require(list.stdout.split(separator: "\n").first { $0.contains(#""command": "news""#) })
        #expect(line.contains("My own news"))
        #expect(line.contains(userRecipes.appendingPathComponent("news.yaml").path))
        #expect(line.contains(#""replaces": ""#) && line.contains("Recipes/demo/news.yaml"))
    }

    @Test("recipes lint --explain prints the login rules in the order they are tried, each with its origin; with --json as one document")
    func lintExplain() async throws {
        let folder = sandbox.root.appendingPathComponent("explained/myuni")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The portal's own fail rule, written after its own password rule, and the platform's.
        try """
        portal: myuni
        base_url: https://portal.myuni.example
        idp_url: https://cas.myuni.example
        credentials_may_go_to: [idp]
        login:
          use: cas
          pages:
            - { name: our sign in, when: "//form[@id='ours']", fill: { user: "{{username}}", pass: "{{password}}" } }
            - { name: maintenance, when: "//p[@id='maintenance']", fail: error }
        """.write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        let text = try await run(["recipes", "lint", "--explain", folder.path])
        #expect(text.exitCode == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let order = lines.filter { $0.hasPrefix("  ") }
        #expect(order.first?.contains("maintenance") == true && order.first?.contains("own") == true, "\(text.stdout)")
        let ours = try #require(order.firstIndex { $0.contains("our sign in") })
        let platformSignIn = try #require(order.firstIndex { $0.contains(" sign in ") && $0.contains("from cas") })
        let lastFail = try #require(order.lastIndex { $0.contains("fail:") })
        #expect(lastFail < ours && ours < platformSignIn, "every fail rule, then our password rule, then the platform's:\n\(text.stdout)")
        #expect(order[ours].hasSuffix("sends the password"))

        let json = try await run(["recipes", "lint", "--explain", "--json", folder.path, folder.appendingPathComponent("portal.yaml").path])
        #expect(json.exitCode == 0, "\(json)")
        let portals = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], "\(json.stdout)")
        #expect(portals.count == 2 && portals.allSatisfy { $0["platform"] as? String == "cas" })
        let rules = try #require(portals.first?["rules"] as? [[String: Any]])
        #expect(rules.first?["name"] as? String == "maintenance" && rules.first?["platform"] == nil)
    }

    @Test("a recipe cannot take a built-in command's name")
    func builtinsCannotBeShadowed() async throws {
        try FileManager.default.createDirectory(at: userRecipes, withIntermediateDirectories: true)
        try Self.dueSoonRecipe.replacingOccurrences(of: "command: due-soon", with: "command: auth")
            .write(to: userRecipes.appendingPathComponent("auth.yaml"), atomically: true, encoding: .utf8)
        let outcome = try await run(["recipes", "lint"])
        #expect(outcome.exitCode == 31)
        #expect(outcome.stderr.contains("auth.yaml:1: command: 'auth' is a built-in command"), "\(outcome)")
    }

    @Test("unitool-hello on PATH is 'unitool hello': it gets its arguments, portal and user, and reads grades over fd 3 without a password")
    func pathPlugin() async throws {
        let folder = sandbox.root.appendingPathComponent("path-bin")
        try writeExecutable(
            """
            #!/bin/sh
            echo "args: $*"
            echo "portal=$UNITOOL_PORTAL user=$UNITOOL_USER"
            env | grep -i -q -e wonderland -e password= && echo "A PASSWORD LEAKED"
            printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"recipes.run","params":{"recipe":"grades","options":{"term":"2025-fall"}}}' >&3
            read -r answer <&3
            echo "$answer"
            exit 3
            """, to: folder.appendingPathComponent("unitool-hello"))
        let path = folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        let outcome = try await run(["--portal", "demo", "hello", "one", "--two"], extra: ["PATH": path])
        #expect(outcome.exitCode == 3, "the plugin's exit code is unitool's: \(outcome)")
        #expect(outcome.stdout.contains("args: one --two"))
        #expect(outcome.stdout.contains("portal=demo user=alice"))
        #expect(outcome.stdout.contains(#""course":"Linear Algebra I""#))
        #expect(!outcome.stdout.contains("A PASSWORD LEAKED"))
        let list = try await run(["plugins", "list", "--json"], extra: ["PATH": path])
        #expect(list.stdout.contains(#""command": "hello""#) && list.stdout.contains(folder.appendingPathComponent("unitool-hello").path))
        #expect(try await run(["--help"], extra: ["PATH": path]).stdout.contains("hello"))
    }

    @Test("a plugin cannot log in with a password or accept the terms over fd 3: those methods are not offered")
    func pluginChannelWithholdsMethods() async throws {
        let folder = sandbox.root.appendingPathComponent("path-bin")
        try writeExecutable(
            """
            #!/bin/sh
            printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"auth.login","params":{"password":"x"}}' >&3
            read -r answer <&3
            echo "$answer"
            printf '%s\\n' '{"jsonrpc":"2.0","id":2,"method":"terms.accept","params":{}}' >&3
            read -r answer <&3
            echo "$answer"
            printf '%s\\n' '{"jsonrpc":"2.0","id":3,"method":"initialize"}' >&3
            read -r answer <&3
            echo "$answer"
            """, to: folder.appendingPathComponent("unitool-grabby"))
        let path = folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        let outcome = try await run(["--portal", "demo", "grabby"], extra: ["PATH": path])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let lines = outcome.stdout.split(separator: "\n")
        try #require(lines.count == 3, "\(outcome)")
        #expect(lines[0].contains(#""id":1"#) && lines[0].contains(#""code":-32601"#), "\(lines[0])")
        #expect(lines[1].contains(#""id":2"#) && lines[1].contains(#""code":-32601"#), "\(lines[1])")
        #expect(lines[2].contains("recipes.run") && !lines[2].contains("auth.login") && !lines[2].contains("terms.accept"))
    }

    @Test("a plugin in the plugin folder comes before one on PATH, and plugins list shows the one it hides")
    func pluginOrder() async throws {
        let onPath = sandbox.root.appendingPathComponent("path-bin")
        try writeExecutable("#!/bin/sh\necho from-path\n", to: onPath.appendingPathComponent("unitool-which"))
        try writeExecutable("#!/bin/sh\necho from-folder\n", to: pluginFolder.appendingPathComponent("unitool-which"))
        let path = onPath.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
        #expect(try await run(["which"], extra: ["PATH": path]).stdout == "from-folder\n")
        let list = try await run(["plugins", "list", "--format", "csv"], extra: ["PATH": path])
        #expect(list.stdout.contains(onPath.appendingPathComponent("unitool-which").path), "the hidden one is listed")
    }

    @Test("the example plugin unitool-gpa computes the GPA of every term through unitool")
    func examplePlugin() async throws {
        let examples = Fixtures.root.appendingPathComponent("Examples/plugins").path
        let outcome = try await run(
            ["--portal", "demo", "gpa", "--json"], extra: ["PATH": examples + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let terms = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        #expect(terms.count == 3)
        #expect(terms.first { $0["term"] as? String == "2026-fall" }?["gpa"] as? Double == 3.52)
        #expect(!outcome.stdout.contains(".0,"), "whole credits are integers: \(outcome.stdout)")
    }

    @Test("the committed man pages under docs/man are current, and man reads them without a warning")
    func manPagesAreCurrent() async throws {
        let written = sandbox.root.appendingPathComponent("man")
        let outcome = try await run(["__man", written.path])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let committed = Fixtures.root.appendingPathComponent("docs/man")
        let names = try FileManager.default.contentsOfDirectory(atPath: written.path).sorted()
        #expect(names.contains("unitool.1") && names.contains("unitool-auth-login.1") && names.contains("unitool-config-set.1"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: committed.path).filter { $0.hasSuffix(".1") }.sorted() == names,
            "run Scripts/update-man.sh")
        for name in names {
            let fresh = try String(contentsOf: written.appendingPathComponent(name), encoding: .utf8)
            let kept = try? String(contentsOf: committed.appendingPathComponent(name), encoding: .utf8)
            #expect(fresh == kept, "docs/man/\(name) is out of date: run Scripts/update-man.sh")
        }
        // groff, as man uses it, with every warning on: the roff is clean.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let lint = try await UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/groff"), ["-man", "-ww", "-z"] + names.map { committed.appendingPathComponent($0).path })
            #expect(lint.exitCode == 0 && lint.stderr.isEmpty, "\(lint)")
        }
    }

    @Test(
        "the committed man pages in every language (docs/man/LANG) are current, and man's groff reads them without a warning",
        arguments: ["ja", "hu"])
    func translatedManPagesAreCurrent(language: String) async throws {
        let catalogs = try CompiledCatalogs.folder.get()
        let written = sandbox.root.appendingPathComponent("man-\(language)")
        let outcome = try await sandbox.run(
            ["__man", written.path], extra: ["LANG": "\(language).UTF-8", "UNITOOL_LOCALEDIR": catalogs.path],
            removing: ["LC_ALL", "LC_MESSAGES", "LANGUAGE"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let committed = Fixtures.root.appendingPathComponent("docs/man/\(language)")
        let names = try FileManager.default.contentsOfDirectory(atPath: written.path).sorted()
        #expect(names.contains("unitool.1") && names.contains("unitool-auth-login.1"))
        #expect(
            (try? FileManager.default.contentsOfDirectory(atPath: committed.path).filter { $0.hasSuffix(".1") }.sorted()) == names,
            "run Scripts/update-man.sh")
        for name in names {
            let fresh = try String(contentsOf: written.appendingPathComponent(name), encoding: .utf8)
            let kept = try? String(contentsOf: committed.appendingPathComponent(name), encoding: .utf8)
            #expect(fresh == kept, "docs/man/\(language)/\(name) is out of date: run Scripts/update-man.sh")
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            // As man runs it for a UTF-8 page: preconv (-k) and the utf8 device; every warning
            // but line breaking (-Wbreak), which Japanese, a script without spaces, always meets
            // and man never shows.
            let lint = try await UniToolProcess.run(
                URL(fileURLWithPath: "/usr/bin/groff"),
                ["-k", "-Tutf8", "-man", "-ww", "-Wbreak", "-z"] + names.map { committed.appendingPathComponent($0).path })
            #expect(lint.exitCode == 0 && lint.stderr.isEmpty, "\(lint)")
        }
    }

    @Test("the built-in command tree is dumped for swift-argument-parser's man page generator")
    func manualSource() async throws {
        let outcome = try await run(["--experimental-dump-help"])
        #expect(outcome.exitCode == 0, "\(outcome)")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let command = try #require(info["command"] as? [String: Any])
        #expect(command["commandName"] as? String == "unitool")
        let names = (command["subcommands"] as? [[String: Any]] ?? []).compactMap { $0["commandName"] as? String }
        for name in ["auth", "completions", "config", "doctor", "plugins", "recipes", "rpc", "terms"] { #expect(names.contains(name)) }
        #expect((command["discussion"] as? String)?.contains("grades (demo)") == true)
    }

    @Test("zsh and fish completion scripts call back into unitool")
    func otherShells() async throws {
        let zsh = try await run(["completions", "zsh"])
        #expect(zsh.stdout.hasPrefix("#compdef unitool") && zsh.stdout.contains("unitool __complete"))
        let fish = try await run(["completions", "fish"])
        #expect(fish.stdout.contains("complete -c unitool") && fish.stdout.contains("unitool __complete"))
        #expect(try await run(["completions", "tcsh"]).exitCode == 64)
    }

    @Test("config set and get, and flags win over environment variables, which win over config.yaml")
    func configPrecedence() async throws {
        #expect(try await run(["config", "path"]).stdout == sandbox.root.appendingPathComponent("config/unitool/config.yaml").path + "\n")
        #expect(try await run(["config", "set", "format", "csv"]).exitCode == 0)
        #expect(try await run(["config", "set", "portal", "demo"]).exitCode == 0)
        #expect(try await run(["config", "get", "format"]).stdout == "csv\n")
        let typo = try await run(["config", "set", "fromat", "json"])
        #expect(typo.exitCode == 64 && typo.stderr.contains("did you mean 'format'"))
        let badValue = try await run(["config", "set", "format", "xml"])
        #expect(badValue.exitCode == 64)

        let fromFile = try await run(["library-calendar"])
        #expect(fromFile.stdout.hasPrefix("title,term,url\r\n"), "portal and format from config.yaml: \(fromFile)")
        let fromEnvironment = try await run(["library-calendar"], extra: ["UNITOOL_FORMAT": "jsonl"])
        #expect(fromEnvironment.stdout.hasPrefix("{\"title\""))
        let fromFlag = try await run(["library-calendar", "--format", "json"], extra: ["UNITOOL_FORMAT": "jsonl"])
        #expect(fromFlag.stdout.hasPrefix("[\n"))

        // The user is per portal: set for 'campus', it is used there (and the error says where it
        // came from), while the demo keeps its own default user.
        try await DemoUniversity.withRunning { demo in
            try sandbox.installPortalCopy("campus", at: demo.baseURL, commands: ["grades"])
            try sandbox.acceptTerms(portal: "campus", version: DemoUniversity.initialTermsVersion)
            try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
            let set = try await run(["config", "set", "user", "jdoe", "--portal", "campus"])
            #expect(set.exitCode == 0 && set.stderr.contains("for portal campus"), "\(set)")
            #expect(try await run(["config", "get", "user", "--portal", "campus"]).stdout == "jdoe\n")
            let demoGrades = try await sandbox.run(["--portal", "demo", "grades", "--format", "json"], demo: demo.baseURL)
            #expect(demoGrades.exitCode == 0, "the demo does not take campus's user: \(demoGrades)")
            let campus = try await run(["--portal", "campus", "grades"], extra: ["UNITOOL_PASSWORD_COMMAND": "false"])
            #expect(campus.exitCode != 0, "\(campus)")
            #expect(campus.stderr.contains("the user 'jdoe' comes from ") && campus.stderr.contains("config.yaml:"), "\(campus)")
        }

        try "format: [oops\n".write(
            to: sandbox.root.appendingPathComponent("config/unitool/config.yaml"), atomically: true, encoding: .utf8)
        let broken = try await run(["library-calendar"])
        #expect(broken.exitCode == 64)
        #expect(broken.stderr.contains("config.yaml"), "\(broken)")
    }
}
