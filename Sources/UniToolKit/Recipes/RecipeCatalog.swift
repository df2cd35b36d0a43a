import Foundation

/// Every recipe unitool can see, gathered from the recipe directories in order.
///
/// Directories are searched bundled first, then `$XDG_CONFIG_HOME/unitool/recipes`, then any
/// `--recipes DIR`; a later file of the same portal and command replaces an earlier one.
public struct RecipeCatalog: Sendable {
    public private(set) var portals: [String: PortalRecipe] = [:]
    public private(set) var dataRecipes: [String: [String: DataRecipe]] = [:]
    /// For each portal and command, the files a later one replaced, earliest first.
    public private(set) var replaced: [String: [String: [String]]] = [:]

    /// - Parameter only: load just this portal's folder (for checking one folder).
    public init(directories: [URL], only: String? = nil) throws {
        let files = FileManager.default
        for directory in directories where files.fileExists(atPath: directory.path) {
            let portalDirectories = (try? files.contentsOfDirectory(atPath: directory.path)) ?? []
            for portalName in portalDirectories.sorted() where only == nil || only == portalName {
                let portalDirectory = directory.appendingPathComponent(portalName)
                var isDirectory: ObjCBool = false
                guard files.fileExists(atPath: portalDirectory.path, isDirectory: &isDirectory), isDirectory.boolValue
                else { continue }
                try loadPortal(portalDirectory, portalName: portalName)
            }
        }
    }

    private mutating func loadPortal(_ directory: URL, portalName: String) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let file = directory.appendingPathComponent(name)
            let text: String
            do {
                text = try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw UniToolError(.recipeInvalid, "\(file.path): cannot be read as UTF-8 text")
            }
            if name.hasPrefix("portal.") {
                let recipe = try PortalRecipe.load(file: file.path, text: text)
                guard recipe.id == portalName else {
                    throw UniToolError(
                        .recipeInvalid,
                        "\(file.path): portal: '\(recipe.id)' does not match its folder name '\(portalName)'")
                }
                portals[portalName] = recipe
            } else {
                let recipe = try DataRecipe.load(file: file.path, text: text, portal: portalName)
                if let earlier = dataRecipes[portalName]?[recipe.command], earlier.file != recipe.file {
                    replaced[portalName, default: [:]][recipe.command, default: []].append(earlier.file)
                }
                dataRecipes[portalName, default: [:]][recipe.command] = recipe
            }
        }
    }

    public func portal(_ id: String) throws -> PortalRecipe {
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
    public static func bundledDirectory(executable: String = CommandLine.arguments.first ?? "") -> URL {
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

    /// The user's own recipes, per the XDG base directory specification.
    public static var userDirectory: URL { XDGDirectories.config.appendingPathComponent("recipes") }
}
