import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// unitool's command tree as swift-argument-parser sees it: the built-in commands. It serves
/// `--experimental-dump-help`, from which swift-argument-parser's `generate-manual` plugin writes
/// the man pages (Scripts/install.sh). Day to day, `Dispatcher` routes commands, because recipe
/// and plugin commands only exist at run time.
struct RootCommand: AsyncParsableCommand {
    /// Made once: swift-argument-parser asks for it many times while it parses.
    static let configuration: CommandConfiguration = {
        let recipes =
            (try? RecipeCatalog(directories: [RecipeCatalog.bundledDirectory()], reservedCommands: Dispatcher.reservedCommands))?
            .dataRecipes
            .flatMap { portal, recipes in recipes.values.map { "  \($0.command) (\(portal)): \($0.summary)" } }.sorted() ?? []
        return CommandConfiguration(
            commandName: "unitool",
            abstract: localized("Your university's portal from the command line: SSO login, courses, grades, loans and news."),
            discussion: localized(
                """
                Besides the built-in commands below, every recipe is a command (unitool grades --term current), and
                every executable named unitool-NAME on PATH or in $XDG_CONFIG_HOME/unitool/plugins is the command
                unitool NAME. Run unitool alone to see them all. Bundled recipe commands:
                """)
                + "\n" + recipes.joined(separator: "\n") + "\n\n"
                + localized(
                    """
                    unitool watch runs a command again and announces what changed: see unitool watch --help.
                    Reference: unitool help exit-codes, unitool help environment, unitool help files;
                    the JSON-RPC protocol is in docs/RPC.md.
                    """),
            version: UniToolVersion.current,
            subcommands: Dispatcher.builtins.sorted { $0.key < $1.key }.map { $0.value })
    }()
}
