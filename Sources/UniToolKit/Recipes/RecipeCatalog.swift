import Foundation

/// Every recipe unitool can see, gathered from the recipe directories in order.
///
/// Directories are searched bundled first, then `$XDG_CONFIG_HOME/unitool/recipes`, then any
/// `--recipes DIR`; a later file of the same portal and command replaces an earlier one.
///
/// The first two are the user's own. A `--recipes` folder is a recipe pack from elsewhere: it
/// may add portals of its own, with their commands, but a `portal.yaml` that redefines a portal
/// defined before it is refused unless the user trusted that file (`RecipeTrust`), since the
/// definition decides where the password goes; and a command it adds to, or replaces in, a
/// portal it does not define is refused when run (`refusedCommands`) unless the user trusted
/// that file, since it would act on the user's account in that portal's name (a pack's `grades`
/// could print made-up grades, a pack's "loan-status" renew loans). A portal a pack defines that
/// the user has not trusted is marked (`PortalRecipe.untrustedPack`): no password command runs for it.
public struct RecipeCatalog: Sendable {
    public private(set) var portals: [String: PortalRecipe] = [:]
    public private(set) var dataRecipes: [String: [String: DataRecipe]] = [:]
    /// For each portal and command, the files a later one replaced, earliest first.
    public private(set) var replaced: [String: [String: [String]]] = [:]
    /// For each portal, the `portal.yaml` files its definition replaced, earliest first.
    public private(set) var replacedPortals: [String: [String]] = [:]
    /// For each portal and command, the refusal of an untrusted pack's command for a portal the
    /// pack does not define: what running that command answers.
    public private(set) var refusedCommands: [String: [String: RefusedCommand]] = [:]

    /// An untrusted pack's command for a portal the pack does not define.
    public struct RefusedCommand: Sendable {
        /// The pack's recipe file.
        public var file: String
        /// What running it answers: both files named, and how to trust the pack.
        public var refusal: UniToolError
    }
    /// Every recipe file read from a recipe pack, and whether the user trusted it (or the
    /// portal definition of its folder): what `recipes list` shows as where a command comes from.
    public private(set) var packFiles: [String: Bool] = [:]
    /// Only the portals were read (`init`'s `portalsOnly`).
    private let portalsOnly: Bool

    /// - Parameters:
    ///   - directories: the user's own recipe folders (bundled, then the user's).
    ///   - packs: `--recipes` folders, after those.
    ///   - trust: the pack definitions the user trusts.
    ///   - only: load just this portal's folder (for checking one folder).
    ///   - reservedCommands: command names no recipe may take (the front end's own).
    ///   - command: read only the data recipes that may define this command (and every
    ///     `portal.yaml`): what running one command needs. A file whose top-level `command:`
    ///     line names another command is not parsed at all; parsing and checking every recipe
    ///     was most of a warm command's own time. `recipes lint` reads them all.
    ///   - portalsOnly: read the `portal.yaml` files and no data recipe: for the overview, which
    ///     lists the commands from the `RecipeIndex`.
    public init(
        directories: [URL], packs: [URL] = [], trust: RecipeTrust = RecipeTrust(), only: String? = nil, reservedCommands: Set<String> = [],
        command: String? = nil, portalsOnly: Bool = false
    ) throws {
        self.portalsOnly = portalsOnly
        let files = FileManager.default
        let all = directories.map { ($0, false) } + packs.map { ($0, true) }
        let bundled = Self.runningBundledPath
        for (directory, isPack) in all where files.fileExists(atPath: directory.path) {
            let isBundled = !isPack && directory.resolvingSymlinksInPath().standardizedFileURL.path == bundled
            let portalDirectories = (try? files.contentsOfDirectory(atPath: directory.path)) ?? []
            // `platforms` holds what recipes build on (`use:`), not a portal.
            for portalName in portalDirectories.sorted() where (only == nil || only == portalName) && portalName != "platforms" {
                let portalDirectory = directory.appendingPathComponent(portalName)
                var isDirectory: ObjCBool = false
                guard files.fileExists(atPath: portalDirectory.path, isDirectory: &isDirectory), isDirectory.boolValue
                else { continue }
                if let problem = PortalID.problem(with: portalName) {
                    // A pack may hold other folders (docs, .git); only recipes must be named well.
                    guard Self.recipeFiles(in: portalDirectory).isEmpty else {
                        throw UniToolError(.recipeInvalid, "\(portalDirectory.path): \(problem)", hint: localized("rename the folder"))
                    }
                    continue
                }
                try loadPortal(
                    portalDirectory, portalName: portalName, fromPack: isPack, bundled: isBundled, trust: trust, reserved: reservedCommands,
                    command: command)
            }
        }
        // A command names a service its portal declares: checked once every file is read.
        for (portalName, recipes) in dataRecipes {
            for recipe in recipes.values {
                guard let service = recipe.service else { continue }
                let services = portals[portalName]?.services ?? [:]
                guard services[service] == nil else { continue }
                let list = services.keys.sorted().joined(separator: ", ")
                throw UniToolError(
                    .recipeInvalid,
                    services.isEmpty
                        ? localized("\(recipe.file): service: '\(service)' is not a service of portal '\(portalName)', which declares none")
                        : localized("\(recipe.file): service: '\(service)' is not a service of portal '\(portalName)' (services: \(list))"),
                    hint: localized("declare it under services: in the portal's portal.yaml, with its base_url"))
            }
        }
    }

    static func recipeFiles(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
    }

    private mutating func loadPortal(
        _ directory: URL, portalName: String, fromPack: Bool, bundled: Bool, trust: RecipeTrust, reserved reservedCommands: Set<String>,
        command wanted: String?
    ) throws {
        let names = Self.recipeFiles(in: directory)
        // A pack's folder with the portal.yaml of a portal of the pack's own defines it, and its
        // commands go with that definition (and its trust). A folder without one adds commands to
        // a portal defined elsewhere, and one that redefines a portal replaces the user's: there
        // each command needs the user's trust of its own, so that a pack trusted once cannot
        // later add or replace one unseen.
        let ownPortalFile = fromPack ? names.first { $0.hasPrefix("portal.") } : nil
        let isPacksOwnPortal = ownPortalFile != nil && portals[portalName] == nil
        let portalTrusted =
            ownPortalFile.flatMap { try? Data(contentsOf: directory.appendingPathComponent($0)) }
            .map { trust.allows(portal: portalName, content: $0) } ?? false
        let pack = directory.deletingLastPathComponent().path
        for name in names {
            let file = directory.appendingPathComponent(name)
            let data: Data
            let text: String
            do {
                data = try Data(contentsOf: file)
                guard data.count <= RecipeReader.maximumFileBytes else {
                    throw UniToolError(
                        .recipeInvalid,
                        localized("\(file.path): \(data.count) bytes is more than a recipe may have (\(RecipeReader.maximumFileBytes))"),
                        hint: localized("a recipe is a page of YAML; split it, or check that this is the right file"))
                }
                guard let decoded = String(data: data, encoding: .utf8) else { throw CocoaError(.fileReadInapplicableStringEncoding) }
                text = decoded
            } catch let error as UniToolError {
                throw error
            } catch {
                throw UniToolError(.recipeInvalid, localized("\(file.path): cannot be read as UTF-8 text"))
            }
            if name.hasPrefix("portal.") {
                var recipe = try PortalRecipe.load(file: file.path, text: text)
                guard recipe.id == portalName else {
                    throw UniToolError(
                        .recipeInvalid,
                        localized("\(file.path): portal: '\(recipe.id)' does not match its folder name '\(portalName)'"))
                }
                let trusted = trust.allows(portal: portalName, content: data)
                if fromPack {
                    packFiles[file.path] = trusted
                    if !trusted { recipe.untrustedPack = pack }
                }
                if let earlier = portals[portalName] {
                    if fromPack && !trusted {
                        let packPath = directory.deletingLastPathComponent().path
                        throw UniToolError(
                            .unsafeRequest,
                            localized(
                                "\(file.path) redefines portal '\(portalName)', which \(earlier.file) already defines; a portal's definition decides where your password goes, so unitool does not load it"
                            ),
                            hint:
                                localized(
                                    "if you trust this recipe pack, run 'unitool recipes trust \(packPath)'; otherwise remove its \(portalName)/\(name), or leave out --recipes"
                                )
                        )
                    }
                    recipe.replacedDefinition = earlier.file
                    recipe.replacedCredentialOrigins = earlier.replacedCredentialOrigins ?? earlier.declaredCredentialOrigins
                    replacedPortals[portalName, default: []].append(earlier.file)
                }
                portals[portalName] = recipe
            } else {
                if portalsOnly { continue }
                if let wanted, let declared = Self.declaredCommand(in: text), declared != wanted { continue }
                var recipe = try DataRecipe.load(file: file.path, text: text, portal: portalName, reserved: reservedCommands)
                recipe.bundled = bundled
                if fromPack && isPacksOwnPortal {
                    packFiles[file.path] = portalTrusted
                } else if fromPack {
                    let trusted = trust.allows(portal: portalName, content: data)
                    packFiles[file.path] = trusted
                    if !trusted {
                        refuse(recipe, pack: pack, name: name)
                        continue
                    }
                }
                if let earlier = dataRecipes[portalName]?[recipe.command], earlier.file != recipe.file {
                    replaced[portalName, default: [:]][recipe.command, default: []].append(earlier.file)
                }
                refusedCommands[portalName]?[recipe.command] = nil
                dataRecipes[portalName, default: [:]][recipe.command] = recipe
            }
        }
    }

    /// Records that an untrusted pack's command for a portal it does not define is refused, and
    /// takes away the command it would replace: running it names both files and what to do.
    private mutating func refuse(_ recipe: DataRecipe, pack: String, name: String) {
        let portalName = recipe.portal
        let definition = portals[portalName]?.file
        let earlier = dataRecipes[portalName]?[recipe.command]?.file
        let definedBy = definition ?? localized("another recipe folder")
        let message =
            earlier.map {
                localized(
                    "\(recipe.file) replaces '\(recipe.command)' of portal '\(portalName)' (\($0)), which \(definedBy) defines; a command from a recipe pack you have not trusted acts on your account in that portal's name, so unitool does not run it"
                )
            }
            ?? localized(
                "\(recipe.file) adds '\(recipe.command)' to portal '\(portalName)', which \(definedBy) defines; a command from a recipe pack you have not trusted acts on your account in that portal's name, so unitool does not run it"
            )
        refusedCommands[portalName, default: [:]][recipe.command] = RefusedCommand(
            file: recipe.file,
            refusal: UniToolError(
                .unsafeRequest, message,
                hint: localized(
                    "if you trust this recipe pack, run 'unitool recipes trust \(pack)'; otherwise remove its \(portalName)/\(name), or leave out --recipes"
                )
            ))
        dataRecipes[portalName]?[recipe.command] = nil
    }

    /// The command a recipe's text names on its top-level `command:` line (`command: grades`,
    /// quoted or not, a comment after it), or nil when that cannot be told without parsing it:
    /// no such line (a recipe that takes its command from a platform with `use:`), or a value
    /// that is no plain command name. A top-level key starts its line in block YAML, so a line
    /// that starts with `command:` is that key.
    ///
    /// Read over the UTF-8 bytes: splitting the text into lines and trimming them through
    /// Foundation for every recipe was 1.4 ms of a warm command (issue 54).
    static func declaredCommand(in text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            let key = Array("command:".utf8)
            var lineStart = 0
            while lineStart < bytes.count {
                let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                defer { lineStart = lineEnd + 1 }
                guard lineEnd - lineStart >= key.count, bytes[lineStart..<(lineStart + key.count)].elementsEqual(key) else { continue }
                var value = bytes[(lineStart + key.count)..<lineEnd]
                // A comment starts at " #".
                if let hash = value.indices.first(where: {
                    value[$0] == UInt8(ascii: "#") && $0 > value.startIndex && value[$0 - 1] == 0x20
                }) {
                    value = value[..<(hash - 1)]
                }
                let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
                while let first = value.first, isSpace(first) { value = value.dropFirst() }
                while let last = value.last, isSpace(last) { value = value.dropLast() }
                if value.count >= 2, let first = value.first, first == UInt8(ascii: "\"") || first == UInt8(ascii: "'"), value.last == first
                {
                    value = value.dropFirst().dropLast()
                }
                let name = String(decoding: value, as: UTF8.self)
                return NameSyntax.isCommandName(name) ? name : nil
            }
            return nil
        }
    }

    /// What a recipe pack holds that needs the user's trust, and what it would do.
    public struct PackItem: Sendable {
        public enum Kind: Sendable, Equatable {
            /// A `portal.yaml` for a portal the user already has, defined by `previous`.
            case redefinition(previous: String)
            /// A `portal.yaml` for a portal of the pack's own.
            case newPortal
            /// A command for a portal the pack does not define; `replaces` is the file of the
            /// command of the same name it would replace.
            case command(String, replaces: String?)
        }
        public var portal: String
        public var file: String
        public var content: Data
        public var kind: Kind
    }

    /// Every file of a recipe pack that `unitool recipes trust DIR` trusts: its `portal.yaml`
    /// files (redefinitions of the user's portals and portals of its own), and its commands
    /// for portals it does not define. Paths are read through the pack's real path, so trust
    /// given through a symbolic link is withdrawn by the real path too.
    public static func packItems(in pack: URL, over directories: [URL], reservedCommands: Set<String> = []) throws -> [PackItem] {
        let pack = pack.standardizedFileURL.resolvingSymlinksInPath()
        // The user's own folders are no pack: linting them checks nothing against themselves.
        if directories.contains(where: { $0.standardizedFileURL.resolvingSymlinksInPath().path == pack.path }) { return [] }
        let own = try RecipeCatalog(directories: directories, reservedCommands: reservedCommands)
        var found: [PackItem] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pack.path)) ?? []
        for portalName in names.sorted() where PortalID.problem(with: portalName) == nil && portalName != "platforms" {
            let directory = pack.appendingPathComponent(portalName)
            let files = recipeFiles(in: directory)
            let definesPortal = files.contains { $0.hasPrefix("portal.") }
            // As the catalog loads them: a portal of the pack's own brings its commands under its
            // own trust; a redefinition, or a folder without a portal.yaml, needs each command trusted.
            let isPacksOwnPortal = definesPortal && own.portals[portalName] == nil
            for name in files where name.hasPrefix("portal.") || !isPacksOwnPortal {
                let file = directory.appendingPathComponent(name)
                let content = try Data(contentsOf: file)
                let text = String(decoding: content, as: UTF8.self)
                if name.hasPrefix("portal.") {
                    _ = try PortalRecipe.load(file: file.path, text: text)
                    let previous = own.portals[portalName]?.file
                    found.append(
                        .init(
                            portal: portalName, file: file.path, content: content,
                            kind: previous.map { .redefinition(previous: $0) } ?? .newPortal))
                } else {
                    let recipe = try DataRecipe.load(file: file.path, text: text, portal: portalName, reserved: reservedCommands)
                    let replaces = own.dataRecipes[portalName]?[recipe.command]?.file
                    found.append(
                        .init(portal: portalName, file: file.path, content: content, kind: .command(recipe.command, replaces: replaces)))
                }
            }
        }
        return found
    }

    /// A portal's data recipes, in command order: what every list of commands shows.
    public func recipes(of portal: String) -> [DataRecipe] {
        (dataRecipes[portal] ?? [:]).values.sorted { $0.command < $1.command }
    }

    public func portal(_ id: String) throws -> PortalRecipe {
        try PortalID.validate(id)
        guard let portal = portals[id] else { throw unknownPortal(id) }
        return portal
    }

    /// The one error for a portal that is not installed, wherever its name came from (`origin`:
    /// `--portal`, `$UNITOOL_PORTAL`, `config.yaml:2`): the installed ones, the one most likely
    /// meant, and how to add one.
    public func unknownPortal(_ id: String, origin: String? = nil) -> UniToolError {
        let known = portals.keys.sorted()
        let nearest = typoSuggestion(for: id, among: known)
        let installed = known.joined(separator: ", ")
        let folder = Locations.current.userRecipes.path
        return UniToolError(
            .recipeNotFound,
            origin.map { localized("there is no portal '\(id)' (from \($0))") } ?? localized("there is no portal '\(id)'"),
            hint: (known.isEmpty ? localized("no portal recipes were found") : localized("installed portals: \(installed)"))
                + (nearest.map { "; " + localized("did you mean '\($0)'?") } ?? "")
                + "; " + localized("add yours with 'unitool recipes new \(id) --help' (a folder of recipes in \(folder))"))
    }

    public func recipe(portal: String, command: String) throws -> DataRecipe {
        if let refused = refusedCommands[portal]?[command] { throw refused.refusal }
        guard let recipe = dataRecipes[portal]?[command] else {
            let known = (dataRecipes[portal] ?? [:]).keys.sorted().joined(separator: ", ")
            throw UniToolError(
                .recipeNotFound, localized("portal '\(portal)' has no recipe for '\(command)'"),
                hint: known.isEmpty ? nil : localized("its commands: \(known)"))
        }
        return recipe
    }

    /// The bundled `Recipes/` directory: `UNITOOL_RECIPES_DIR`, then `share/unitool/Recipes` beside
    /// an installed binary, then the source tree this binary was built from.
    ///
    /// Found once per process for the running binary: every command asks, and resolving the
    /// binary's links each time was a thirtieth of `unitool --help`.
    public static func bundledDirectory() -> URL { runningBundledDirectory }

    private static let runningBundledDirectory = bundledDirectory(of: runningExecutable)
    /// The running binary's bundled directory with its links resolved, as the catalog compares it.
    private static let runningBundledPath = runningBundledDirectory.resolvingSymlinksInPath().standardizedFileURL.path

    private static func bundledDirectory(of executable: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["UNITOOL_RECIPES_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        let installed = binary.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/unitool/Recipes")
        if FileManager.default.fileExists(atPath: installed.path) { return installed }
        // Sources/UniToolKit/Recipes/RecipeCatalog.swift -> the package root.
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Recipes")
    }

    /// The running binary's path: the kernel's `/proc/self/exe`, since `argv[0]` is only
    /// `unitool` when the shell found it on `PATH`.
    public static var runningExecutable: String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/") { return path }
        return CommandLine.arguments.first ?? ""
    }

}
