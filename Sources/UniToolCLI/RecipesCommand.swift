import ArgumentParser
import Foundation
import UniToolKit

/// `unitool recipes list|lint`: what recipes there are, and whether they are valid.
struct RecipesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipes", abstract: "List and check recipes.",
        subcommands: [List.self, Lint.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every portal and recipe command, and the file each comes from.")
        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: globals)
            let catalog = environment.catalog
            var rows: [Record] = []
            for portal in catalog.portals.values.sorted(by: { $0.id < $1.id }) {
                rows.append(Record(fields: [("portal", .string(portal.id)), ("command", .null), ("summary", .string(portal.name)), ("file", .string(portal.file))]))
                for recipe in (catalog.dataRecipes[portal.id] ?? [:]).values.sorted(by: { $0.command < $1.command }) {
                    rows.append(Record(fields: [("portal", .string(portal.id)), ("command", .string(recipe.command)), ("summary", .string(recipe.summary)), ("file", .string(recipe.file))]))
                }
            }
            let set = RecordSet(columns: ["portal", "command", "summary", "file"], records: rows)
            print(globals.outputFormat.render(set, style: .forStandardOutput()), terminator: "")
        }
    }

    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check recipe files without touching the network.",
            discussion: "With no files, checks every recipe unitool can see. Each problem names the file, the line and the key.")
        @OptionGroup var globals: GlobalOptions
        @Argument(help: "Recipe files or directories to check.") var paths: [String] = []

        func run() async throws {
            if paths.isEmpty {
                let environment = try CommandEnvironment(options: globals)
                let count = environment.catalog.portals.count + environment.catalog.dataRecipes.values.map(\.count).reduce(0, +)
                print("ok: \(count) recipes are valid")
                return
            }
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw UniToolError(.recipeNotFound, "\(path): no such file or directory")
                }
                if isDirectory.boolValue {
                    _ = try RecipeCatalog(directories: [URL(fileURLWithPath: path)])
                } else {
                    let url = URL(fileURLWithPath: path)
                    let text = try String(contentsOf: url, encoding: .utf8)
                    if url.lastPathComponent.hasPrefix("portal.") {
                        _ = try PortalRecipe.load(file: path, text: text)
                    } else {
                        _ = try DataRecipe.load(file: path, text: text, portal: url.deletingLastPathComponent().lastPathComponent)
                    }
                }
                print("ok: \(path)")
            }
        }
    }
}
