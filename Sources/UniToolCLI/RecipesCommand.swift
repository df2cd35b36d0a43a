import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// `unitool recipes list|lint|test|trust|untrust`: what recipes there are, whether they are valid, whether they
/// still extract what their saved pages hold, and which recipe packs may redefine a portal.
struct RecipesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipes", abstract: localized("List and check recipes."), discussion: HelpExamples.text(for: "recipes"),
        subcommands: [List.self, Lint.self, Test.self, New.self, Trust.self, Untrust.self], defaultSubcommand: List.self)

    /// A catalog of what a path names: a recipes directory (portal folders inside) or one portal
    /// folder (recipe files inside).
    static func catalog(at path: String) throws -> (RecipeCatalog, portal: String?) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UniToolError(.recipeNotFound, localized("\(path): no such directory"))
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        if entries.contains(where: { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }) {
            return (
                try RecipeCatalog(
                    directories: [url.deletingLastPathComponent()], only: url.lastPathComponent,
                    reservedCommands: Dispatcher.reservedCommands), url.lastPathComponent
            )
        }
        return (try RecipeCatalog(directories: [url], reservedCommands: Dispatcher.reservedCommands), nil)
    }

    struct List: UniToolCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("List every portal and recipe command, the file each comes from, and the files it replaces."),
            discussion:
                HelpExamples.discussion(
                    localized(
                        "Recipes are read from the bundled Recipes/, then $XDG_CONFIG_HOME/unitool/recipes/, then each --recipes DIR; a later file for the same portal and command wins."
                    ),
                    examples: "recipes list")
        )
        @OptionGroup var globals: GlobalOptions

        func run(_ environment: CommandEnvironment) async throws {
            let catalog = environment.catalog
            let bundled = RecipeCatalog.bundledDirectory().standardizedFileURL.path + "/"
            /// Where a file comes from: the bundled recipes, the user's own, or a pack, trusted or not.
            func from(_ file: String) -> FieldValue {
                if let trusted = catalog.packFiles[file] { return .string(trusted ? "trusted pack" : "pack") }
                return .string(URL(fileURLWithPath: file).standardizedFileURL.path.hasPrefix(bundled) ? "bundled" : "yours")
            }
            var rows: [Record] = []
            for portal in catalog.portals.values.sorted(by: { $0.id < $1.id }) {
                rows.append(
                    Record(fields: [
                        ("portal", .string(portal.id)), ("command", .null), ("summary", .string(portal.name)),
                        ("file", .string(portal.file)), ("from", from(portal.file)),
                        ("builds_on", portal.platform.map { .string($0.summary) } ?? .null),
                        (
                            "replaces",
                            (catalog.replacedPortals[portal.id] ?? []).isEmpty
                                ? .null : .string((catalog.replacedPortals[portal.id] ?? []).joined(separator: ", "))
                        ),
                    ]))
                for recipe in catalog.recipes(of: portal.id) {
                    let replaced = catalog.replaced[portal.id]?[recipe.command] ?? []
                    rows.append(
                        Record(fields: [
                            ("portal", .string(portal.id)), ("command", .string(recipe.command)), ("summary", .string(recipe.summary)),
                            ("file", .string(recipe.file)), ("from", from(recipe.file)),
                            ("builds_on", recipe.platform.map { .string($0.summary) } ?? .null),
                            ("replaces", replaced.isEmpty ? .null : .string(replaced.joined(separator: ", "))),
                        ]))
                }
                // A pack's command that is refused until the pack is trusted: listed, so that the
                // user sees why it does not run.
                for (command, refused) in (catalog.refusedCommands[portal.id] ?? [:]).sorted(by: { $0.key < $1.key }) {
                    rows.append(
                        Record(fields: [
                            ("portal", .string(portal.id)), ("command", .string(command)),
                            ("summary", .string("refused until trusted: 'unitool recipes trust'")), ("file", .string(refused.file)),
                            ("from", .string("pack, refused")), ("builds_on", .null), ("replaces", .null),
                        ]))
                }
            }
            let set = RecordSet(columns: ["portal", "command", "summary", "file", "from", "builds_on", "replaces"], records: rows)
            // Where a file comes from, in the person's words in a table; JSON and CSV keep the value.
            let from: ColumnDisplay = .words([
                "bundled": localized("bundled"), "yours": localized("yours"), "pack": localized("pack"),
                "trusted pack": localized("trusted pack"), "pack, refused": localized("pack, refused"),
            ])
            print(globals.outputFormat.render(set, style: .forStandardOutput(), display: ["from": from]), terminator: "")
        }
    }

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Start a university's recipe folder: from a recording of your login, or from the platforms it runs."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    From a recording (--from-har): save your login and a visit to your grades as a HAR file in the browser
                    (docs/SUPPORTING.md, "Record your login"). unitool reads it in memory, writes the login rules (on a
                    bundled platform where it recognises the pages), a command for each page of records you opened, and
                    fixtures of those pages with your name and every secret taken out; then it checks the folder as
                    'recipes lint' and 'recipes test' do, and says what it guessed. Nothing of your password, codes or
                    cookies is written. Delete the HAR afterwards: it holds them.

                    A wrong password's recording beside the good one (--from-har login.har --from-har wrong.har: you
                    typed a wrong password once and saved when the portal's message showed) adds the rule that reports
                    wrong credentials, by the element that showed the message. A later recording given with --update
                    adds its commands to the folder: files you have not edited are replaced, files you edited are kept
                    (the new version beside them as FILE.new), portal.yaml gets the new services; .draft.sha256 in the
                    folder records what was made (docs/RECIPES.md, "Adding a later recording").

                    Or let unitool record it (--record URL): it opens the portal in a browser (Chromium or Chrome), you
                    sign in and open the pages you want, and close the window; the recording stays in memory (nothing is
                    written but the folder, unless --save-har FILE) and becomes the folder as --from-har would.

                    From platforms: a folder that builds on unitool's platform recipes: the identity provider's login
                    rules, and Moodle, Koha and an RSS feed for data when you name them.

                    The folder goes to your own recipes ($XDG_CONFIG_HOME/unitool/recipes/NAME), or to --output. Then log
                    in; if the login stops on a page the recipe does not know, 'unitool doctor login' says which rule to add.
                    """), examples: "recipes new"))
        @OptionGroup var globals: GlobalOptions
        @Argument(help: ArgumentHelp(localized("The portal's name: lowercase letters, digits and dashes (myuni)."))) var name: String
        @Option(
            name: .customLong("from-har"),
            help: ArgumentHelp(localized("A browser's recording of your login and of the pages to read (repeatable)."), valueName: "file"))
        var fromHar: [String] = []
        @Option(
            help: ArgumentHelp(
                localized("Record your visit in a browser instead: it opens at this address; close the window when you are done."),
                valueName: "url"))
        var record: String?
        @Flag(help: ArgumentHelp(localized("With --record: run the browser without a window (servers, tests)."))) var headless = false
        @Option(
            help: ArgumentHelp(
                localized("With --record: also keep the recording in this HAR file (it holds your password)."), valueName: "file"))
        var saveHar: String?
        @Option(help: ArgumentHelp(localized("The identity provider's product: shibboleth, simplesamlphp, keycloak or cas.")))
        var idp: String?
        @Option(help: ArgumentHelp(localized("The identity provider's address, as its login page shows it (https://idp.example.edu/idp).")))
        var idpUrl: String?
        @Option(help: ArgumentHelp(localized("The portal's address: where commands without a service read (https://campus.example.edu).")))
        var baseUrl: String?
        @Option(help: ArgumentHelp(localized("The learning platform's product: moodle."))) var lms: String?
        @Option(help: ArgumentHelp(localized("The learning platform's address (https://moodle.example.edu)."))) var lmsUrl: String?
        @Option(help: ArgumentHelp(localized("The library system's product: koha."))) var library: String?
        @Option(help: ArgumentHelp(localized("The library OPAC's address (https://opac.example.edu)."))) var libraryUrl: String?
        @Option(help: ArgumentHelp(localized("The news feed's path or address (/news/rss)."))) var newsFeed: String?
        @Option(help: ArgumentHelp(localized("A friendly name for the university."))) var title: String?
        @Option(
            name: [.short, .long], help: ArgumentHelp(localized("Write the folder here instead of your own recipes."), valueName: "dir"))
        var output: String?
        @Flag(help: ArgumentHelp(localized("Use the name of a portal unitool comes with (such as demo): your folder then replaces it.")))
        var replaceBundled = false
        @Flag(
            help: ArgumentHelp(
                localized("Add what a new recording shows to the existing folder NAME (with --from-har), keeping your edits."),
                discussion: localized(
                    "New commands are added; a file you have not edited since it was made is replaced; a file you edited is kept and the new version written beside it as FILE.new; portal.yaml gets the new services, password destinations and today: items. .draft.sha256 in the folder records what was made."
                )
            ))
        var update = false

        var parent: URL { URL(fileURLWithPath: output ?? Locations.current.userRecipes.path) }
        var packFlag: String { output == nil ? "" : " --recipes \(URL(fileURLWithPath: output!).standardizedFileURL.path)" }

        func run() async throws {
            try RecipeScaffold.checkBundledName(name, bundled: RecipeCatalog.bundledDirectory(), replacing: replaceBundled)
            if record != nil, !fromHar.isEmpty {
                throw UniToolError(
                    .usage, localized("--record and --from-har exclude each other"),
                    hint: localized("record a new visit, or give a saved one"))
            }
            if record == nil, headless || saveHar != nil {
                throw UniToolError(.usage, localized("--headless and --save-har go with --record"), hint: localized("add --record URL"))
            }
            if let record { return try await recordInBrowser(from: record) }
            if !fromHar.isEmpty { return try fromRecording(try fromHar.map { try HTTPArchive(file: $0) }, files: fromHar) }
            if update {
                throw UniToolError(
                    .usage, localized("--update adds what a recording shows to an existing folder: it needs --from-har FILE"),
                    hint: localized("unitool recipes new \(name) --from-har FILE --update"))
            }
            func url(_ text: String?, _ option: String) throws -> URL {
                guard let text, let url = URL(string: text), url.host != nil else {
                    let host = option == "idp-url" ? "idp" : "portal"
                    throw UniToolError(
                        .usage,
                        localized("--\(option) needs a whole web address, such as https://\(host).example.edu"),
                        hint: localized("or record your login in the browser and give the recording: --from-har login.har"))
                }
                return url
            }
            guard let idp else {
                throw UniToolError(
                    .usage,
                    localized("'recipes new' needs a recording of your login (--from-har FILE), or --idp with --idp-url and --base-url"),
                    hint: localized("docs/SUPPORTING.md, \"Record your login\", says how to save one from Chromium or Firefox"))
            }
            var scaffold = try RecipeScaffold(
                portal: name, name: title, baseURL: try url(baseUrl, "base-url"), identityProvider: idp.lowercased(),
                idpURL: try url(idpUrl, "idp-url"))
            if let lms {
                guard RecipeScaffold.learningPlatforms.contains(lms.lowercased()) else {
                    throw UniToolError(
                        .usage, localized("'\(lms)' is not a learning platform unitool has recipes for"), hint: localized("it has: moodle"))
                }
                scaffold.lms = (lms.lowercased(), try url(lmsUrl, "lms-url"))
            }
            if let library {
                guard RecipeScaffold.libraries.contains(library.lowercased()) else {
                    throw UniToolError(
                        .usage, localized("'\(library)' is not a library system unitool has recipes for"), hint: localized("it has: koha"))
                }
                scaffold.library = (library.lowercased(), try url(libraryUrl, "library-url"))
            }
            scaffold.newsFeed = newsFeed
            // What is written must load, platforms and all, as lint would load it; if it does
            // not, nothing is left behind.
            var commands: [String] = []
            let folder = try scaffold.write(into: parent) { staged in
                let (catalog, _) = try RecipesCommand.catalog(at: staged.path)
                commands = (catalog.dataRecipes[name] ?? [:]).keys.sorted()
            }
            let files = "portal.yaml" + commands.map { ", \($0).yaml" }.joined()
            print(localized("wrote \(TerminalText.escaped(folder.path)): \(files)"))
            print(localized("next: unitool --portal \(name)\(packFlag) auth login --user YOU"))
        }

        /// `--record`: the person's visit, recorded in a browser in memory, then read as a recording
        /// given with `--from-har` is.
        func recordInBrowser(from address: String) async throws {
            guard let start = URL(string: address), start.scheme == "http" || start.scheme == "https", start.host != nil else {
                throw UniToolError(
                    .usage, localized("--record needs the portal's whole web address, such as https://portal.example.edu"),
                    hint: localized("give the address you open in the browser to sign in"))
            }
            let options = try BrowserSignIn.options(headless: headless, locations: Locations.current)
            let data = try await BrowserSignIn.record(from: start, options: options)
            if let saveHar {
                try AtomicFile.write(data, to: URL(fileURLWithPath: saveHar), mode: 0o600)
            }
            let archive = try HTTPArchive(data: data, name: localized("the recording"))
            try fromRecording([archive], files: saveHar.map { [$0] } ?? [])
        }

        /// `--from-har`: the folder a recording suggests, checked as lint and test check it
        /// before it is put in place.
        func fromRecording(_ archives: [HTTPArchive], files: [String]) throws {
            let platformFlags = [
                ("idp", idp), ("idp-url", idpUrl), ("base-url", baseUrl), ("lms", lms), ("lms-url", lmsUrl),
                ("library", library), ("library-url", libraryUrl), ("news-feed", newsFeed),
            ]
            if let given = platformFlags.first(where: { $0.1 != nil }) {
                throw UniToolError(
                    .usage, localized("--from-har reads the portal from the recording; --\(given.0) is for a folder built from platforms"),
                    hint: localized("leave out --\(given.0), or leave out --from-har"))
            }
            let (good, failures) = try Self.sorted(archives, files: files.isEmpty ? [localized("the recording")] : files)
            let draft = try RecipeDraft(
                portal: name, title: title, archive: HTTPArchive(good), failures: failures,
                reservedCommands: Dispatcher.reservedCommands)
            let target = parent.appendingPathComponent(name).standardizedFileURL
            if !update, FileManager.default.fileExists(atPath: target.path) {
                throw UniToolError(
                    .usage, localized("\(TerminalText.escaped(target.path)) exists already; nothing was written"),
                    hint: localized(
                        "add what this recording shows to it, keeping your edits: --update; or choose another name, or remove it first"))
            }
            var outcomes: [RecipeTester.Outcome] = []
            var warnings: [String] = []
            var manifest = DraftManifest()
            // recipes lint and recipes test on the staged folder; `made` are the files this run
            // wrote (their fixtures' records are filled in here, then recorded in the manifest).
            func check(_ staged: URL, made: Set<String>) throws {
                // recipes lint: the portal and every command load, platforms and all.
                let (catalog, _) = try RecipesCommand.catalog(at: staged.path)
                // Named by the folder's final path: the staging folder is gone once this returns.
                warnings = (catalog.dataRecipes[name] ?? [:]).values.sorted { $0.command < $1.command }.flatMap(\.warnings)
                    .map { $0.replacingOccurrences(of: staged.standardizedFileURL.path, with: target.path) }
                // recipes test --update, then recipes test: each command's records from its recorded
                // page (only the fixtures written now: a kept one's records are the person's).
                let cases = RecipeTester.cases(in: catalog)
                for testCase in cases {
                    let path = String(testCase.expected.standardizedFileURL.path.dropFirst(staged.standardizedFileURL.path.count + 1))
                    guard made.contains(path) else { continue }
                    let update = RecipeTester.run(testCase, update: true)
                    guard update.passed else {
                        let detail = update.detail ?? ""
                        throw UniToolError(
                            .recipeInvalid,
                            localized("the command made for \(testCase.name) does not read its own recorded page: \(detail)"),
                            hint: localized("please report this with the page's structure (not the HAR)"))
                    }
                }
                outcomes = cases.map { RecipeTester.run($0, update: false) }
                for path in made {
                    if let data = try? Data(contentsOf: staged.appendingPathComponent(path)) {
                        manifest.hashes[path] = DraftManifest.hash(data)
                    }
                }
                try AtomicFile.write(Data(manifest.text.utf8), to: staged.appendingPathComponent(DraftManifest.fileName), mode: 0o600)
            }
            let folder: URL
            var plan: DraftUpdate?
            if update {
                (folder, plan) = try Self.updateFolder(target, draft: draft) { staged, made, kept in
                    manifest = kept
                    try check(staged, made: made)
                }
            } else {
                folder = try RecipeScaffold.writeFolder(name, files: draft.files.map { ($0.path, $0.data) }, into: parent) { staged in
                    try check(staged, made: Set(draft.files.map(\.path)))
                }
            }
            let out = { (line: String) in print(line) }
            let portalShown = TerminalText.escaped(draft.portal)
            let read = archives.count
            if failures.isEmpty {
                out(localized("read \(read) recording (\(portalShown))", plural: "read \(read) recordings (\(portalShown))", count: read))
            } else {
                out(
                    localized(
                        "read \(read) recording (\(portalShown)), \(failures.count) of them of a failed login",
                        plural: "read \(read) recordings (\(portalShown)), \(failures.count) of them of a failed login", count: read))
            }
            out(localized("recognised:"))
            for line in draft.recognised { out("  - \(TerminalText.escaped(line))") }
            if !draft.guessed.isEmpty {
                out(localized("guessed (check these; each is marked 'guess:' in the files):"))
                for line in draft.guessed { out("  - \(TerminalText.escaped(line))") }
            }
            if let plan {
                out(localized("updated \(TerminalText.escaped(folder.path)):"))
                for entry in plan.entries where entry.outcome != .unchanged {
                    let label = Self.label(entry.outcome)
                    out("  - \(TerminalText.escaped(entry.path)): \(label): \(TerminalText.escaped(entry.why))")
                }
                let same = plan.entries.filter { $0.outcome == .unchanged }.count
                if same > 0 {
                    out(
                        "  - "
                            + localized(
                                "\(same) file the same as the new recording makes them",
                                plural: "\(same) files the same as the new recording makes them", count: same))
                }
            } else {
                let made =
                    "portal.yaml" + draft.commands.map { ", \($0).yaml" }.joined() + (draft.commands.isEmpty ? "" : ", Fixtures/")
                    + ", \(DraftManifest.fileName)"
                out(localized("wrote \(TerminalText.escaped(folder.path)): \(made) (what was made, for --update)"))
            }
            if warnings.isEmpty {
                out(localized("recipes lint: passed"))
            } else {
                let count = warnings.count
                let list = warnings.map { TerminalText.escaped($0) }.joined(separator: "; ")
                out(
                    localized(
                        "recipes lint: passed with \(count) warning: \(list)",
                        plural: "recipes lint: passed with \(count) warnings: \(list)",
                        count: count))
            }
            for outcome in outcomes {
                let detail = outcome.detail.map { " (\(TerminalText.escaped($0)))" } ?? ""
                out(
                    outcome.passed
                        ? localized("recipes test: passed \(outcome.name)\(detail)")
                        : localized("recipes test: FAILED \(outcome.name)\(detail)"))
            }
            if !draft.skipped.isEmpty {
                out(localized("skipped:"))
                for line in draft.skipped { out("  - \(TerminalText.escaped(line))") }
            }
            out(localized("no password, code, cookie or token of the recording was written (each file was checked)"))
            // A folder written elsewhere (-o) is a recipe pack: until trusted, no password or TOTP
            // command runs for it. The person made it from their own recording, so it is trusted
            // here, file by file as 'recipes trust' does, but only the files of this portal and
            // only when it defines a portal of its own (never a redefinition of one they have).
            var recipesFlag = ""
            if output != nil {
                let pack = try RecipesCommand.packDirectory(folder.deletingLastPathComponent().path)
                recipesFlag = " --recipes " + Self.shellQuoted(pack.path)
                let items = try RecipeCatalog.packItems(
                    in: pack, over: CommandEnvironment.ownRecipeDirectories, reservedCommands: Dispatcher.reservedCommands
                ).filter { $0.portal == name }
                let redefines = items.contains { if case .redefinition = $0.kind { return true } else { return false } }
                if redefines {
                    let packShown = TerminalText.escaped(pack.path)
                    out(
                        localized(
                            "not trusted: \(packShown) redefines your portal '\(name)'; if you mean it, run 'unitool recipes trust \(packShown)'"
                        ))
                } else if !items.isEmpty {
                    // Under --update, only what this run made from the recording is trusted: a
                    // file kept, merged with what was there, or never made by 'recipes new' may
                    // be someone else's, and is the person's to review.
                    let ours = Set(
                        (plan?.entries ?? []).filter { [.added, .updated, .unchanged].contains($0.outcome) }.map {
                            folder.appendingPathComponent($0.path).standardizedFileURL.resolvingSymlinksInPath().path
                        })
                    let trusted = plan == nil ? items : items.filter { ours.contains($0.file) }
                    let review = items.filter { item in !trusted.contains { $0.file == item.file } }
                    var trust = try RecipeTrust.load(from: Locations.current.trustFile)
                    for item in trusted { trust.trust(portal: item.portal, file: item.file, content: item.content) }
                    try trust.save(to: Locations.current.trustFile)
                    // Where the password may go is what the folder's portal.yaml now says.
                    let portalFile = items.first { if case .newPortal = $0.kind { return true } else { return false } }
                    let origins =
                        portalFile.flatMap { try? PortalRecipe.load(file: $0.file, text: String(decoding: $0.content, as: UTF8.self)) }
                        .map(\.credentialOrigins) ?? draft.credentialOrigins
                    let folderShown = TerminalText.escaped(folder.path)
                    let packShown = TerminalText.escaped(pack.path)
                    if !trusted.isEmpty {
                        let count = trusted.count
                        let destinations = origins.map { TerminalText.escaped($0) }.joined(separator: ", ")
                        out(
                            localized(
                                "trusted: \(count) file of \(folderShown), made from your own recording: your password and codes may go to \(destinations) as there; 'unitool recipes untrust \(packShown)' withdraws it",
                                plural:
                                    "trusted: \(count) files of \(folderShown), made from your own recording: your password and codes may go to \(destinations) as there; 'unitool recipes untrust \(packShown)' withdraws it",
                                count: count))
                    }
                    if !review.isEmpty {
                        let names = review.map { TerminalText.escaped(URL(fileURLWithPath: $0.file).lastPathComponent) }
                            .joined(separator: ", ")
                        out(
                            localized(
                                "not trusted: \(names) (kept, merged, or not made by 'recipes new'); review them, then run 'unitool recipes trust \(packShown)'"
                            ))
                    }
                }
            }
            if files.isEmpty {
                out(localized("the recording was kept in memory only: nothing of your password or cookies was written"))
            } else {
                let quoted = files.map { Self.shellQuoted($0) }.joined(separator: " ")
                out(localized("the recording holds your password and session cookies; once the recipe works, delete it: rm \(quoted)"))
            }
            let user = draft.username.map { Self.shellQuoted($0) } ?? "YOU"
            let command = draft.suggestion ?? "auth login"
            out(localized("try it: unitool --portal \(name)\(recipesFlag) --user \(user) \(command)"))
        }

        /// The recordings given, sorted: logins that got through (and recordings of pages
        /// alone, read on after them as before), and failed logins, which teach error rules.
        /// With several recordings, one that is neither is refused; one recording alone is read
        /// as it always was, unless it is of a failed login only.
        static func sorted(_ archives: [HTTPArchive], files: [String]) throws -> (good: [HTTPArchive], failures: [RecordedFailure]) {
            var good: [HTTPArchive] = []
            var failures: [RecordedFailure] = []
            for (archive, file) in zip(archives, files) {
                switch RecordedFailure.reading(archive) {
                case .failed(let failure): failures.append(failure)
                case .succeeded, .noLogin: good.append(archive)
                case .unclear(let why):
                    guard archives.count == 1 else {
                        throw UniToolError(
                            .usage,
                            localized(
                                "\(TerminalText.escaped(file)) is neither a recording of a login that got through nor one of a failed login: \(TerminalText.escaped(why))"
                            ),
                            hint: localized(
                                "record it again: log in and open your pages; or, for error rules, type a wrong password once and save the HAR when the login page shows the portal's message"
                            )
                        )
                    }
                    good.append(archive)
                }
            }
            guard !good.isEmpty else {
                let failed = Self.shellQuoted(files.first ?? "wrong.har")
                throw UniToolError(
                    .usage,
                    localized(
                        "the recording is of a login that did not get through (the login page came back with the portal's message); nothing was written",
                        plural:
                            "the recordings are of a login that did not get through (the login page came back with the portal's message); nothing was written",
                        count: files.count),
                    hint: localized(
                        "give the recording of a login that worked beside it: --from-har good.har --from-har \(failed); the failed one then teaches the rule for a wrong password"
                    )
                )
            }
            return (good, failures)
        }

        /// `--update`: the plan applied to a copy of the existing folder, checked there, then put
        /// in its place (the old one renamed aside, then removed), so that a failure leaves the
        /// folder as it was.
        static func updateFolder(
            _ folder: URL, draft: RecipeDraft, check: (URL, Set<String>, DraftManifest) throws -> Void
        ) throws -> (URL, DraftUpdate) {
            let files = FileManager.default
            var isDirectory: ObjCBool = false
            guard (try? files.destinationOfSymbolicLink(atPath: folder.path)) == nil,
                files.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw UniToolError(
                    .usage,
                    localized("--update adds to an existing folder, and \(TerminalText.escaped(folder.path)) is none; nothing was written"),
                    hint: localized("leave out --update to make the folder"))
            }
            let manifestURL = folder.appendingPathComponent(DraftManifest.fileName)
            let old = try (try? String(contentsOf: manifestURL, encoding: .utf8)).map { try DraftManifest(parsing: $0) }
            var onDisk: [String: Data] = [:]
            for file in draft.files {
                if let data = try? Data(contentsOf: folder.appendingPathComponent(file.path)) { onDisk[file.path] = data }
            }
            let plan = DraftUpdate(manifest: old, onDisk: onDisk, files: draft.files.map { ($0.path, $0.data) })
            let parent = folder.deletingLastPathComponent()
            let suffix = UUID().uuidString.prefix(8).lowercased()
            let staging = parent.appendingPathComponent(".\(folder.lastPathComponent).update-\(suffix)")
            let staged = staging.appendingPathComponent(folder.lastPathComponent)
            defer { try? files.removeItem(at: staging) }
            try files.createDirectory(at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try files.copyItem(at: folder, to: staged)
            var made: Set<String> = []
            for entry in plan.entries {
                if let data = entry.write {
                    try AtomicFile.write(data, to: staged.appendingPathComponent(entry.path), mode: 0o600)
                    made.insert(entry.path)
                }
                if let data = entry.beside {
                    try AtomicFile.write(data, to: staged.appendingPathComponent(entry.path + ".new"), mode: 0o600)
                }
            }
            do {
                try check(staged, made, plan.manifest)
            } catch let error as UniToolError {
                let message = error.message.replacingOccurrences(of: staged.path, with: folder.path)
                throw UniToolError(error.kind, localized("\(message); nothing was changed"), hint: error.hint)
            }
            let aside = parent.appendingPathComponent(".\(folder.lastPathComponent).old-\(suffix)")
            try files.moveItem(at: folder, to: aside)
            do {
                try files.moveItem(at: staged, to: folder)
            } catch {
                try? files.moveItem(at: aside, to: folder)
                throw UniToolError(
                    .usage,
                    localized("\(TerminalText.escaped(folder.path)) could not be replaced (\(error.localizedDescription)); it is as it was")
                )
            }
            try? files.removeItem(at: aside)
            return (folder, plan)
        }

        /// What `--update` did with a file, for a person (the raw value is the English).
        static func label(_ outcome: DraftUpdate.Outcome) -> String {
            switch outcome {
            case .added: localized("added")
            case .updated: localized("updated")
            case .unchanged: localized("unchanged")
            case .kept: localized("kept (edited by you)")
            case .merged: localized("merged")
            case .keptDeleted: localized("kept deleted")
            }
        }

        /// A value as one shell word, printable on a terminal.
        static func shellQuoted(_ text: String) -> String {
            let escaped = TerminalText.escaped(text)
            if escaped.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_./@:+=,".contains($0)) }) { return escaped }
            return "'" + escaped.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
    }

    struct Trust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Trust a recipe pack: its portal definitions and its commands for your portals."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    A recipe pack (--recipes DIR) may add portals of its own, and their commands. Until you trust it here:
                    a portal.yaml in it that redefines a portal you already have is refused, because the definition
                    decides where your password goes; a command it adds to (or replaces in) one of your portals is
                    refused, because it would act on your account in that portal's name; and no password command
                    (UNITOOL_PASSWORD_COMMAND, UNITOOL_TOTP_COMMAND) runs for a portal it defines.
                    Trust is for each file's exact content: if the pack changes a file, trust it again.
                    A stored password or TOTP secret still goes only to the origins it was stored for; if the pack
                    sends it elsewhere, unitool asks for the password again.
                    """), examples: "recipes trust"))
        @OptionGroup var globals: GlobalOptions
        @Argument(help: ArgumentHelp(localized("The recipe pack: a folder of portal folders, as given to --recipes.")))
        var directory: String

        func run() async throws {
            let pack = try RecipesCommand.packDirectory(directory)
            let own = try RecipeCatalog(directories: CommandEnvironment.ownRecipeDirectories, reservedCommands: Dispatcher.reservedCommands)
            let items = try RecipeCatalog.packItems(
                in: pack, over: CommandEnvironment.ownRecipeDirectories, reservedCommands: Dispatcher.reservedCommands)
            guard !items.isEmpty else {
                FileHandle.standardError.write(
                    Data(
                        (localized(
                            "\(TerminalText.escaped(pack.path)) holds no portal definitions and no commands; there is nothing to trust.")
                            + "\n").utf8))
                return
            }
            var trust = try RecipeTrust.load(from: Locations.current.trustFile)
            var lines: [String] = []
            for item in items {
                trust.trust(portal: item.portal, file: item.file, content: item.content)
                switch item.kind {
                case .redefinition, .newPortal:
                    let recipe = try PortalRecipe.load(file: item.file, text: String(decoding: item.content, as: UTF8.self))
                    let earlier = try? own.portal(item.portal)
                    let before = earlier?.declaredCredentialOrigins.joined(separator: ", ")
                    // Login rules decide which forms are sent where: a redefinition that keeps the
                    // origins may still change them, and the person trusting it should know.
                    let ruleChanges = earlier.map { recipe.login.ruleChanges(from: $0.login) } ?? []
                    let origins = recipe.declaredCredentialOrigins.joined(separator: ", ")
                    var line =
                        before.map {
                            localized(
                                "Trusted \(item.file) as the definition of '\(item.portal)': passwords may go to \(origins) (before: \($0))."
                            )
                        }
                        ?? localized(
                            "Trusted \(item.file) as the definition of '\(item.portal)': passwords may go to \(origins) (a portal of the pack's own)."
                        )
                    if !ruleChanges.isEmpty {
                        let changes = ruleChanges.joined(separator: "; ")
                        line += " " + localized("Its login differs from the definition it replaces: \(changes).")
                    } else if earlier != nil {
                        line += " " + localized("Its login rules are those of the definition it replaces.")
                    }
                    lines.append(line)
                case .command(let command, let replaces):
                    lines.append(
                        replaces.map { localized("Trusted \(item.file) as the command '\(command)' of '\(item.portal)', replacing \($0).") }
                            ?? localized("Trusted \(item.file) as the command '\(command)' of '\(item.portal)'.")
                    )
                }
            }
            try trust.save(to: Locations.current.trustFile)
            FileHandle.standardError.write(Data((lines.map { TerminalText.escaped($0) }.joined(separator: "\n") + "\n").utf8))
        }
    }

    /// A recipe pack's folder by its real path: trust and untrust name the same files whether the
    /// pack was given through a symbolic link or not.
    static func packDirectory(_ path: String) throws -> URL {
        let pack = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: pack.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UniToolError(.recipeNotFound, localized("\(path): no such directory"))
        }
        return pack
    }

    struct Untrust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Withdraw trust from a recipe pack's portal definitions and commands."),
            discussion: HelpExamples.text(for: "recipes untrust"))
        @OptionGroup var globals: GlobalOptions
        @Argument(help: ArgumentHelp(localized("The recipe pack given to 'unitool recipes trust'."))) var directory: String

        func run() async throws {
            let given = URL(fileURLWithPath: directory).standardizedFileURL
            // By the real path (what 'recipes trust' records), and by the path as given, for
            // trust recorded by an older unitool through a symbolic link.
            let real = given.resolvingSymlinksInPath()
            var trust = try RecipeTrust.load(from: Locations.current.trustFile)
            var count = trust.revoke(portal: nil, under: real.path)
            if given.path != real.path { count += trust.revoke(portal: nil, under: given.path) }
            try trust.save(to: Locations.current.trustFile)
            FileHandle.standardError.write(
                Data((localized("Withdrew trust from \(count) files in \(TerminalText.escaped(real.path)).") + "\n").utf8))
        }
    }

    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Check recipe files without touching the network."),
            discussion: HelpExamples.discussion(
                localized("With no files, checks every recipe unitool can see. Each problem names the file, the line and the key."),
                examples: "recipes lint"))
        @OptionGroup var globals: GlobalOptions
        @Argument(help: ArgumentHelp(localized("Recipe files or directories to check."))) var paths: [String] = []
        @Flag(
            help: ArgumentHelp(
                localized(
                    """
                    Also print each portal's login rules in the order they are tried (its own first, then its \
                    platforms'; every rule that sends a secret after every rule that does not), with where each came from.
                    """)))
        var explain = false

        /// The portals' login rules in the order they are tried: a table, or JSON with --json.
        func printExplanation(_ portals: [PortalRecipe]) throws {
            let sorted = portals.sorted { $0.id < $1.id }
            if globals.json {
                let entries = sorted.map { ExplainedPortal(portal: $0.id, platform: $0.platform?.platform, rules: $0.triedRules) }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(entries), as: UTF8.self))
                return
            }
            for portal in sorted {
                print(localized("portal '\(TerminalText.escaped(portal.id))': login rules in the order they are tried"))
                let rules = portal.triedRules
                let names = rules.map { TerminalText.escaped($0.name) }
                let origins = rules.map { rule in rule.platform.map { localized("from \(TerminalText.escaped($0))") } ?? localized("own") }
                let nameWidth = names.map(\.count).max() ?? 0
                let originWidth = origins.map(\.count).max() ?? 0
                for (index, rule) in rules.enumerated() {
                    let name = names[index].padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                    let origin = origins[index].padding(toLength: originWidth, withPad: " ", startingAt: 0)
                    print("  \(String(format: "%2d", rule.position)). \(name)  \(origin)  \(rule.action)")
                }
            }
        }

        struct ExplainedPortal: Encodable {
            var portal: String
            var platform: String?
            var rules: [TriedRule]
        }

        /// A recipe's warnings, on stderr: they do not fail the lint.
        static func warn(_ recipe: DataRecipe) {
            for warning in recipe.warnings {
                FileHandle.standardError.write(Data((localized("unitool: warning: \(TerminalText.escaped(warning))") + "\n").utf8))
            }
        }

        /// The portals' `today:` lists checked against their commands: a mistake there is an error.
        static func checkToday(_ catalog: RecipeCatalog) throws {
            let problems = catalog.portals.values.sorted { $0.id < $1.id }.flatMap { portal in
                portal.todayProblems(commands: catalog.dataRecipes[portal.id] ?? [:])
            }
            guard problems.isEmpty else {
                throw UniToolError(
                    .recipeInvalid, problems.joined(separator: "\n"), hint: localized("fix the today: list; docs/RECIPES.md shows its keys")
                )
            }
        }

        /// A recipe pack's redefinitions of the user's portals and commands for them, as lint's
        /// problems when the user has not trusted them: each would be refused when run.
        static func checkPack(_ pack: URL) throws {
            let items = try RecipeCatalog.packItems(
                in: pack, over: CommandEnvironment.ownRecipeDirectories, reservedCommands: Dispatcher.reservedCommands)
            let trust = try RecipeTrust.load(from: Locations.current.trustFile)
            let problems = items.compactMap { item -> String? in
                let trusted = trust.allows(portal: item.portal, content: item.content)
                switch item.kind {
                case .newPortal: return nil
                case .redefinition(let previous):
                    return trusted ? nil : localized("\(item.file) redefines portal '\(item.portal)', which \(previous) already defines")
                case .command(let command, let replaces):
                    if trusted { return nil }
                    return replaces.map { localized("\(item.file) replaces '\(command)' of portal '\(item.portal)' (\($0))") }
                        ?? localized("\(item.file) adds '\(command)' to portal '\(item.portal)', which the pack does not define")
                }
            }
            guard problems.isEmpty else {
                throw UniToolError(
                    .unsafeRequest,
                    localized("\(problems.count) of the pack's files would be refused until you trust the pack:") + "\n"
                        + problems.joined(separator: "\n"),
                    hint: localized("if you trust this recipe pack, run 'unitool recipes trust \(pack.path)'"))
            }
        }

        func run() async throws {
            if paths.isEmpty {
                let environment = try CommandEnvironment.open(globals)
                let count = environment.catalog.portals.count + environment.catalog.dataRecipes.values.map(\.count).reduce(0, +)
                for recipe in environment.catalog.dataRecipes.values.flatMap(\.values).sorted(by: { $0.file < $1.file }) {
                    Self.warn(recipe)
                }
                // First: a refused command is missing from its portal, which the today: check would
                // report as a mistake of the portal's, not of the pack's.
                let refused = environment.catalog.refusedCommands.values.flatMap(\.values).map(\.refusal.message).sorted()
                guard refused.isEmpty else {
                    throw UniToolError(
                        .unsafeRequest, refused.joined(separator: "\n"),
                        hint: localized("trust the pack with 'unitool recipes trust DIR' if you trust it, or leave out --recipes"))
                }
                try Self.checkToday(environment.catalog)
                if explain { try printExplanation(Array(environment.catalog.portals.values)) }
                if !(explain && globals.json) { print(localized("ok: \(count) recipes are valid")) }
                return
            }
            // With --explain, the portals are printed once every path has passed: with --json,
            // as one document.
            var explained: [PortalRecipe] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw UniToolError(.recipeNotFound, localized("\(path): no such file or directory"))
                }
                if isDirectory.boolValue {
                    let (catalog, portal) = try RecipesCommand.catalog(at: path)
                    for recipe in catalog.dataRecipes.values.flatMap(\.values).sorted(by: { $0.file < $1.file }) { Self.warn(recipe) }
                    explained += catalog.portals.values
                    try Self.checkToday(catalog)
                    // A folder of portal folders is a recipe pack: what it would redefine is checked too.
                    if portal == nil { try Self.checkPack(URL(fileURLWithPath: path)) }
                } else {
                    let url = URL(fileURLWithPath: path)
                    let text = try String(contentsOf: url, encoding: .utf8)
                    if url.lastPathComponent.hasPrefix("portal.") {
                        let portal = try PortalRecipe.load(file: path, text: text)
                        explained.append(portal)
                    } else {
                        Self.warn(
                            try DataRecipe.load(
                                file: path, text: text, portal: url.deletingLastPathComponent().lastPathComponent,
                                reserved: Dispatcher.reservedCommands))
                    }
                }
                if !(explain && globals.json) { print(localized("ok: \(path)")) }
            }
            if explain { try printExplanation(explained) }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Run recipes against saved pages and compare with the expected records, offline."),
            discussion: HelpExamples.discussion(
                localized(
                    """
                    Each portal folder may keep saved pages in Fixtures/<command>/<case>.html (or .xml for a
                    feed), with <case>.json beside each: where the page came from ("url"), which source to use
                    ("source"), the date to count as today ("today"), and the records expected ("records").

                    To add a case: save the page (unitool page /library/loans > Fixtures/loans/page1.html),
                    run 'unitool recipes test --update', check the .json it wrote, and commit both.
                    With --platforms, the platform recipes' own cases instead: in the source tree's
                    Fixtures/platforms/<product>/<version>/<command>/, a recipe.yaml built on the platform
                    and the pages of that version (or give that folder as the path).
                    Exits with 30 if any case fails.
                    """), examples: "recipes test"))
        @OptionGroup var globals: GlobalOptions
        @Flag(help: ArgumentHelp(localized("Write each case's .json from what the recipe extracts now."))) var update = false
        @Flag(help: ArgumentHelp(localized("Test the platform recipes against their products' pages, version by version.")))
        var platforms = false
        @Argument(help: ArgumentHelp(localized("A recipes directory or one portal folder. Default: every recipe unitool can see.")))
        var path: String?

        func run() async throws {
            let cases: [RecipeTester.Case]
            if platforms {
                let root =
                    path.map { URL(fileURLWithPath: $0) }
                    ?? RecipeCatalog.bundledDirectory().deletingLastPathComponent().appendingPathComponent("Fixtures/platforms")
                cases = try RecipeTester.platformCases(in: root)
            } else if let path {
                cases = RecipeTester.cases(in: try RecipesCommand.catalog(at: path).0)
            } else {
                cases = RecipeTester.cases(in: try CommandEnvironment.open(globals).catalog)
            }
            guard !cases.isEmpty else {
                throw UniToolError(
                    .recipeNotFound,
                    path.map { localized("no recipe test cases found in \($0)") } ?? localized("no recipe test cases found"),
                    hint: localized("save pages under <portal>/Fixtures/<command>/ and run 'unitool recipes test --update'"))
            }
            let outcomes = cases.map { RecipeTester.run($0, update: update) }
            let style = TableStyle.forStandardOutput()
            if globals.outputFormat == .json {
                let records = outcomes.map {
                    Record(fields: [
                        ("case", .string($0.name)), ("passed", .bool($0.passed)), ("detail", $0.detail.map(FieldValue.string) ?? .null),
                    ])
                }
                print(JSONRenderer.array(RecordSet(columns: ["case", "passed", "detail"], records: records)), terminator: "")
            } else {
                for outcome in outcomes {
                    let mark = outcome.passed ? style.success(localized("ok  ")) : style.failure(localized("FAIL"))
                    print("\(mark) \(outcome.name)\(outcome.detail.map { ": \($0)" } ?? "")")
                }
            }
            let failed = outcomes.filter { !$0.passed }.count
            if failed > 0 {
                throw UniToolError(
                    .layoutChanged, localized("\(failed) of \(outcomes.count) recipe test cases failed"),
                    hint: localized(
                        "a failing case names the record, the field and what differed; fix the recipe or, if the page really changed, save it again and run with --update"
                    )
                )
            }
            let summary =
                update
                ? localized("Wrote the expected records of \(outcomes.count) cases; review them before you commit.")
                : localized("All \(outcomes.count) recipe test cases passed.")
            FileHandle.standardError.write(Data((summary + "\n").utf8))
        }
    }
}
