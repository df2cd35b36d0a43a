import Foundation

/// Every recipe unitool can see, gathered from the recipe directories in order.
///
/// Directories are searched bundled first, then `$XDG_CONFIG_HOME/unitool/recipes`, then any
/// `--recipes DIR`; a later file of the same portal and command replaces an earlier one.
///
/// The first two are the user's own. A `--recipes` folder is a recipe pack from elsewhere: it
/// may add portals and commands, but a `portal.yaml` that redefines a portal defined before it
/// is refused unless the user trusted that file (`RecipeTrust`), since the definition decides
/// where the password goes.
public struct RecipeCatalog: Sendable {
    public private(set) var portals: [String: PortalRecipe] = [:]
    public private(set) var dataRecipes: [String: [String: DataRecipe]] = [:]
    /// For each portal and command, the files a later one replaced, earliest first.
    public private(set) var replaced: [String: [String: [String]]] = [:]
    /// For each portal, the `portal.yaml` files its definition replaced, earliest first.
    public private(set) var replacedPortals: [String: [String]] = [:]

    /// - Parameters:
    ///   - directories: the user's own recipe folders (bundled, then the user's).
    ///   - packs: `--recipes` folders, after those.
    ///   - trust: the pack definitions the user trusts.
    ///   - only: load just this portal's folder (for checking one folder).
    ///   - reservedCommands: command names no recipe may take (the front end's own).
    ///   - command: read only the data recipes that may define this command (and every
    ///     `portal.yaml`): what running one command needs. A file whose top-level `command:`
    ///     line names another command is not parsed at all; parsing and checking every recipe
    ///     was most of a warm command's own time. `recipes lint` and the overview read them all.
    public init(
        directories: [URL], packs: [URL] = [], trust: RecipeTrust = RecipeTrust(), only: String? = nil, reservedCommands: Set<String> = [],
        command: String? = nil
    ) throws {
        let files = FileManager.default
        let all = directories.map { ($0, false) } + packs.map { ($0, true) }
        for (directory, isPack) in all where files.fileExists(atPath: directory.path) {
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
                        throw UniToolError(.recipeInvalid, "\(portalDirectory.path): \(problem)", hint: "rename the folder")
                    }
                    continue
                }
                try loadPortal(
                    portalDirectory, portalName: portalName, fromPack: isPack, trust: trust, reserved: reservedCommands, command: command)
            }
        }
        // A command names a service its portal declares: checked once every file is read.
        for (portalName, recipes) in dataRecipes {
            for recipe in recipes.values {
                guard let service = recipe.service else { continue }
                let services = portals[portalName]?.services ?? [:]
                guard services[service] == nil else { continue }
                throw UniToolError(
                    .recipeInvalid,
                    "\(recipe.file): service: '\(service)' is not a service of portal '\(portalName)'"
                        + (services.isEmpty ? ", which declares none" : " (services: \(services.keys.sorted().joined(separator: ", ")))"),
                    hint: "declare it under services: in the portal's portal.yaml, with its base_url")
            }
        }
    }

    static func recipeFiles(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
    }

    private mutating func loadPortal(
        _ directory: URL, portalName: String, fromPack: Bool, trust: RecipeTrust, reserved reservedCommands: Set<String>,
        command wanted: String?
    ) throws {
        for name in Self.recipeFiles(in: directory) {
            let file = directory.appendingPathComponent(name)
            let data: Data
            let text: String
            do {
                data = try Data(contentsOf: file)
                guard data.count <= RecipeReader.maximumFileBytes else {
                    throw UniToolError(
                        .recipeInvalid,
                        "\(file.path): \(data.count) bytes is more than a recipe may have (\(RecipeReader.maximumFileBytes))",
                        hint: "a recipe is a page of YAML; split it, or check that this is the right file")
                }
                guard let decoded = String(data: data, encoding: .utf8) else { throw CocoaError(.fileReadInapplicableStringEncoding) }
                text = decoded
            } catch let error as UniToolError {
                throw error
            } catch {
                throw UniToolError(.recipeInvalid, "\(file.path): cannot be read as UTF-8 text")
            }
            if name.hasPrefix("portal.") {
                var recipe = try PortalRecipe.load(file: file.path, text: text)
                guard recipe.id == portalName else {
                    throw UniToolError(
                        .recipeInvalid,
                        "\(file.path): portal: '\(recipe.id)' does not match its folder name '\(portalName)'")
                }
                if let earlier = portals[portalName] {
                    if fromPack && !trust.allows(portal: portalName, content: data) {
                        throw UniToolError(
                            .unsafeRequest,
                            "\(file.path) redefines portal '\(portalName)', which \(earlier.file) already defines; a portal's definition decides where your password goes, so unitool does not load it",
                            hint:
                                "if you trust this recipe pack, run 'unitool recipes trust \(directory.deletingLastPathComponent().path)'; otherwise remove its \(portalName)/\(name), or leave out --recipes"
                        )
                    }
                    recipe.replacedDefinition = earlier.file
                    recipe.replacedCredentialOrigins = earlier.replacedCredentialOrigins ?? earlier.declaredCredentialOrigins
                    replacedPortals[portalName, default: []].append(earlier.file)
                }
                portals[portalName] = recipe
            } else {
                if let wanted, let declared = Self.declaredCommand(in: text), declared != wanted { continue }
                let recipe = try DataRecipe.load(file: file.path, text: text, portal: portalName, reserved: reservedCommands)
                if let earlier = dataRecipes[portalName]?[recipe.command], earlier.file != recipe.file {
                    replaced[portalName, default: [:]][recipe.command, default: []].append(earlier.file)
                }
                dataRecipes[portalName, default: [:]][recipe.command] = recipe
            }
        }
    }

    /// The command a recipe's text names on its top-level `command:` line (`command: grades`,
    /// quoted or not, a comment after it), or nil when that cannot be told without parsing it:
    /// no such line (a recipe that takes its command from a platform with `use:`), or a value
    /// that is no plain command name. A top-level key starts its line in block YAML, so a line
    /// that starts with `command:` is that key.
    static func declaredCommand(in text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.hasPrefix("command:") {
            var value = line.dropFirst("command:".count)
            if let comment = value.range(of: " #") { value = value[..<comment.lowerBound] }
            var name = value.trimmingCharacters(in: .whitespaces)
            if name.count >= 2, let first = name.first, first == "\"" || first == "'", name.last == first {
                name = String(name.dropFirst().dropLast())
            }
            return NameSyntax.isCommandName(name) ? name : nil
        }
        return nil
    }

    /// The `portal.yaml` files in a recipe pack that redefine a portal defined before it, as
    /// (portal, file, content): what `unitool recipes trust DIR` asks the user to trust.
    public static func redefinitions(in pack: URL, over directories: [URL]) throws -> [(portal: String, file: String, content: Data)] {
        let own = try RecipeCatalog(directories: directories)
        var found: [(portal: String, file: String, content: Data)] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: pack.path)) ?? []
        for portalName in names.sorted() where PortalID.problem(with: portalName) == nil {
            let directory = pack.appendingPathComponent(portalName)
            for name in recipeFiles(in: directory) where name.hasPrefix("portal.") {
                let file = directory.appendingPathComponent(name)
                let content = try Data(contentsOf: file)
                _ = try PortalRecipe.load(file: file.path, text: String(decoding: content, as: UTF8.self))
                if own.portals[portalName] != nil { found.append((portalName, file.path, content)) }
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
        guard let portal = portals[id] else {
            let known = portals.keys.sorted().joined(separator: ", ")
            throw UniToolError(
                .recipeNotFound, "no portal named '\(id)'",
                hint: known.isEmpty ? "no portal recipes were found" : "known portals: \(known)")
        }
        return portal
    }

    public func recipe(portal: String, command: String) throws -> DataRecipe {
        guard let recipe = dataRecipes[portal]?[command] else {
            let known = (dataRecipes[portal] ?? [:]).keys.sorted().joined(separator: ", ")
            throw UniToolError(
                .recipeNotFound, "portal '\(portal)' has no recipe for '\(command)'",
                hint: known.isEmpty ? nil : "its commands: \(known)")
        }
        return recipe
    }

    /// The bundled `Recipes/` directory: `UNITOOL_RECIPES_DIR`, then `share/unitool/Recipes` beside
    /// an installed binary, then the source tree this binary was built from.
    public static func bundledDirectory(executable: String = runningExecutable) -> URL {
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

    /// The user's own recipes, per the XDG base directory specification.
    public static var userDirectory: URL { XDGDirectories.config.appendingPathComponent("recipes") }
}
