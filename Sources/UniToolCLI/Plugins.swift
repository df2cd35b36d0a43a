import ArgumentParser
import Foundation
import Logging
import UniToolHost
import UniToolKit
import UniToolRPC

/// Executable plugins: `unitool-NAME` in `$XDG_CONFIG_HOME/unitool/plugins/` or on `PATH` is the
/// command `unitool NAME`, as git and kubectl do it.
enum Plugins {
    struct Plugin: Sendable {
        let name: String
        let path: String
        /// Plugins of the same name further down the search order, which this one hides.
        var shadows: [String] = []
    }

    /// The plugin folder, searched before `PATH`.
    static var directory: URL { Locations.current.plugins }

    /// The folders searched, in order: the plugin folder, then each absolute entry of `PATH`.
    /// A relative `PATH` entry (such as `.`) is skipped, so that a plugin never runs from
    /// wherever the user happens to be.
    static var searchPath: [String] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return [directory.path] + path.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// Every plugin, the first of each name winning.
    static func all() -> [Plugin] {
        var found: [String: Plugin] = [:]
        var order: [String] = []
        // One folder by two names (/bin and /usr/bin on a merged /usr) is listed once: listing
        // /usr/bin's thousand names twice was a tenth of `unitool --help`.
        var listed = Set<[UInt64]>()
        for folder in searchPath {
            var info = stat()
            guard stat(folder, &info) == 0, listed.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted else { continue }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            // Only the unitool-* names are sorted and looked at: /usr/bin has thousands of others.
            for file in names.filter({ $0.hasPrefix("unitool-") && $0.utf8.count > "unitool-".utf8.count }).sorted() {
                let path = folder + "/" + file
                guard isRunnable(path) else { continue }
                let name = String(file.dropFirst("unitool-".count))
                // A built-in's name is never a plugin (the built-in runs): a unitool-mcp an older
                // install left beside unitool is not 'unitool mcp'.
                guard isValidName(name), !Dispatcher.reservedCommands.contains(name) else { continue }
                if let first = found[name] {
                    if first.path != path { found[name]?.shadows.append(path) }
                } else {
                    found[name] = Plugin(name: name, path: path)
                    order.append(name)
                }
            }
        }
        return order.sorted().compactMap { found[$0] }
    }

    /// The plugin for a command name: the first `unitool-NAME` along the search path, looked up
    /// directly rather than by listing every folder of PATH.
    static func find(_ name: String) -> Plugin? {
        guard isValidName(name) else { return nil }
        return searchPath.lazy.map { $0 + "/unitool-" + name }.first(where: isRunnable).map { Plugin(name: name, path: $0) }
    }

    /// Plugin names are command names: no slashes, dots or spaces, so a name can never point
    /// at a path.
    static func isValidName(_ name: String) -> Bool {
        NameSyntax.isPluginName(name)
    }

    private static func isRunnable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }

    /// Runs a plugin with its arguments, serving unitool's JSON-RPC API to it on file
    /// descriptor 3 (`UNITOOL_RPC_FD`), and returns its exit code.
    static func run(_ plugin: Plugin, arguments: [String], globals: [String]) async -> Int32 {
        do {
            try PluginSafety.check(plugin.path)
            let options = try GlobalOptions.read(globals)
            let environment = try CommandEnvironment.open(options)
            var variables = ProcessInfo.processInfo.environment
            variables["UNITOOL_RPC_FD"] = "3"
            variables["UNITOOL"] = URL(fileURLWithPath: RecipeCatalog.runningExecutable).resolvingSymlinksInPath().path
            if let portal = try? environment.portalID() {
                variables["UNITOOL_PORTAL"] = portal
                if let recipe = try? environment.catalog.portal(portal), let user = try? environment.user(for: recipe) {
                    variables["UNITOOL_USER"] = user
                }
            }
            variables["UNITOOL_FORMAT"] = options.outputFormat.rawValue
            let host = CommandLineRPCHost(environment: environment)
            // --password-stdin: unitool reads the password itself and keeps it for the plugin's
            // session; the plugin gets an empty stdin, so it never sees the password.
            if options.passwordStdin {
                let portal = try environment.catalog.portal(try environment.portalID())
                guard let user = try? environment.user(for: portal) else {
                    throw UniToolError(.usage, localized("--password-stdin needs --user"), hint: localized("for example: --user jdoe"))
                }
                host.usePassword(try PasswordInput.readStandardInput(), portal: portal.id, user: user)
            }
            let channel = try ChildProcess.Channel()
            let server = RPCServer(
                methods: RPCMethods(host: host, excluding: RPCMethods.withheldFromPlugins).table,
                output: FileDescriptorOutput(descriptor: channel.parentEnd) { reason in
                    environment.logger.warning("plugin channel: \(reason)")
                },
                framing: .newline, logger: environment.logger)
            // The server lives exactly as long as the plugin's channel: it ends when the plugin
            // closed its end and every request it sent has been answered.
            async let serving = server.serve(StandardInputStream.make(descriptor: channel.parentEnd))
            environment.logger.debug("running plugin \(plugin.path)")
            let ran = await Result {
                try await ChildProcess.run(
                    plugin.path, arguments: arguments, environment: variables, channel: channel,
                    emptyStandardInput: options.passwordStdin)
            }
            channel.closeParentEnd()
            _ = await serving
            await host.closeAll()
            return try ran.get()
        } catch let error as UniToolError {
            return ErrorReporter.report(error, json: Dispatcher.wantsJSON(globals))
        } catch {
            return ErrorReporter.report(
                UniToolError(
                    .internal, localized("cannot run the plugin \(plugin.path): \(error)"), hint: localized("check that it is executable")),
                json: Dispatcher.wantsJSON(globals))
        }
    }
}

/// Whether a plugin may run: only when nobody but the user (or root) could have changed what
/// runs. A plugin runs with the user's rights and talks to the portal through the user's session,
/// so a file that another user owns, or that group or others may write, or one in a folder they
/// may write (and so replace the file in), is refused before anything starts, as ssh refuses a
/// key file others can write.
///
/// `decide` is the pure rule over the owner and mode of the file and of the folders holding it;
/// `check` reads them from the file system and turns a refusal into an error that says how to fix it.
enum PluginSafety {
    /// The owner and permission bits of a file or folder, as `stat` gives them.
    struct Entry: Equatable, Sendable {
        let path: String
        let owner: uid_t
        let mode: mode_t

        /// Writable by its group or by others.
        var isWritableByOthers: Bool { mode & 0o022 != 0 }
        /// A sticky folder (such as /tmp): others may add files, but not replace or rename one of yours.
        var isSticky: Bool { mode & 0o1000 != 0 }
    }

    enum Verdict: Equatable, Sendable {
        case safe
        case fileOwnedByAnotherUser(Entry)
        case fileWritableByOthers(Entry)
        case folderOwnedByAnotherUser(Entry)
        case folderWritableByOthers(Entry)
    }

    /// - Parameters:
    ///   - file: the plugin (the file a symbolic link leads to).
    ///   - folders: the folders holding it: where it was found and, for a link, where it leads.
    ///   - user: the effective user running unitool; root's files are trusted too, as system programs are.
    static func decide(file: Entry, folders: [Entry], user: uid_t) -> Verdict {
        let trustedOwners: Set<uid_t> = [user, 0]
        guard trustedOwners.contains(file.owner) else { return .fileOwnedByAnotherUser(file) }
        guard !file.isWritableByOthers else { return .fileWritableByOthers(file) }
        for folder in folders {
            guard trustedOwners.contains(folder.owner) else { return .folderOwnedByAnotherUser(folder) }
            if folder.isWritableByOthers && !folder.isSticky { return .folderWritableByOthers(folder) }
        }
        return .safe
    }

    /// Refuses the plugin at `path` (exit 23, an unsafe request) unless `decide` finds it safe.
    static func check(_ path: String) throws {
        func entry(_ path: String) throws -> Entry {
            var info = stat()
            guard stat(path, &info) == 0 else {
                let reason = String(cString: strerror(errno))
                throw UniToolError(
                    .unsafeRequest, localized("cannot check the plugin \(path): \(reason)"),
                    hint: localized("check that it exists and that you may read its folder"))
            }
            return Entry(path: path, owner: info.st_uid, mode: info.st_mode & 0o7777)
        }
        let found = URL(fileURLWithPath: path)
        let real = found.resolvingSymlinksInPath()
        var folderPaths = [found.deletingLastPathComponent().path]
        if real.deletingLastPathComponent().path != folderPaths[0] { folderPaths.append(real.deletingLastPathComponent().path) }
        let verdict = decide(file: try entry(real.path), folders: try folderPaths.map(entry), user: geteuid())
        let described = real.path == path ? path : localized("\(path) (a link to \(real.path))")
        switch verdict {
        case .safe:
            return
        case .fileOwnedByAnotherUser(let file):
            let (quoted, owner) = (shellQuoted(file.path), file.owner)
            throw UniToolError(
                .unsafeRequest,
                localized(
                    "the plugin \(described) belongs to another user (uid \(owner)); unitool runs only plugins that are yours or root's"),
                hint: localized("if you trust it, make it yours: 'chown \(userName()) \(quoted)' as root; otherwise remove it"))
        case .fileWritableByOthers(let file):
            let mode = String(file.mode, radix: 8)
            throw UniToolError(
                .unsafeRequest,
                localized("the plugin \(described) may be changed by other users (mode \(mode)); unitool will not run it"),
                hint: localized("if you trust it, run 'chmod go-w \(shellQuoted(file.path))'; otherwise remove it"))
        case .folderOwnedByAnotherUser(let folder):
            throw UniToolError(
                .unsafeRequest,
                localized(
                    "the plugin \(described) is in \(folder.path), which belongs to another user (uid \(folder.owner)) who could replace it; unitool will not run it"
                ),
                hint: localized("move the plugin to \(shellQuoted(Plugins.directory.path)) or another folder of your own on PATH"))
        case .folderWritableByOthers(let folder):
            let mode = String(folder.mode, radix: 8)
            throw UniToolError(
                .unsafeRequest,
                localized(
                    "the plugin \(described) is in \(folder.path), which other users may write to (mode \(mode)) and so replace the plugin; unitool will not run it"
                ),
                hint: localized("run 'chmod go-w \(shellQuoted(folder.path))', or move the plugin to a folder of your own"))
        }
    }

    /// The user's login name for a hint, or the uid when it has none.
    private static func userName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return String(geteuid()) }
        return String(cString: name)
    }

    /// A path as the shell reads it back: bare when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,=")
        if !text.isEmpty && text.allSatisfy(safe.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// `unitool plugins list`.
struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins", abstract: localized("List the executable plugins: unitool-NAME programs that become commands."),
        discussion: HelpExamples.discussion(
            localized(
                """
                An executable named unitool-NAME in $XDG_CONFIG_HOME/unitool/plugins/ or in a folder of PATH is the
                command 'unitool NAME'. It runs with the remaining arguments and with UNITOOL_PORTAL, UNITOOL_USER and
                UNITOOL_FORMAT set, and it can call unitool's JSON-RPC API (docs/RPC.md) on file descriptor 3
                (UNITOOL_RPC_FD): run recipes and fetch portal pages through the session, without ever seeing the
                password. Built-in and recipe commands come first; a plugin cannot replace them.
                See Examples/plugins/unitool-gpa.
                """), examples: "plugins"),
        subcommands: [List.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: localized("Show every plugin, its path, and the ones it hides."), discussion: HelpExamples.text(for: "plugins list"))
        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            let records = Plugins.all().map { plugin in
                Record(fields: [
                    ("command", .string(plugin.name)), ("path", .string(plugin.path)),
                    ("hides", plugin.shadows.isEmpty ? .null : .string(plugin.shadows.joined(separator: ", "))),
                ])
            }
            let set = RecordSet(columns: ["command", "path", "hides"], records: records)
            if records.isEmpty, globals.outputFormat == .table {
                print(localized("No plugins. Put an executable named unitool-NAME in \(Plugins.directory.path) or on PATH."))
                return
            }
            print(globals.outputFormat.render(set, style: .forStandardOutput()), terminator: "")
        }
    }
}
