import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolCLI

/// Files and trust around the executable: what install.sh leaves behind, which plugins unitool
/// agrees to start, and a password command that never stops printing. (The Debian package's
/// own checks, its root entry's mode and its binaries' run paths, are in Scripts/test-deb.sh,
/// which CI runs as root after the suite.)
@Suite("Files and packaging: install.sh's folders, plugins others could change, a password command that never ends")
struct FilesAndPackagingTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    var pluginFolder: URL { sandbox.root.appendingPathComponent("config/unitool/plugins") }

    func mode(of url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    /// A plugin that leaves a mark when it runs, with `mode`; returns the mark's path.
    @discardableResult
    func writePlugin(_ name: String, in folder: URL, mode: Int) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let marker = sandbox.root.appendingPathComponent("\(name)-ran")
        let plugin = folder.appendingPathComponent("unitool-\(name)")
        try "#!/bin/sh\ntouch '\(marker.path)'\necho plugin-ran\n".write(to: plugin, atomically: true, encoding: .utf8)
        // setAttributes, not the umask: 0777 must really be 0777.
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: plugin.path)
        return marker
    }

    /// Runs a program from a thread of its own (install.sh takes seconds), never on Swift's cooperative pool.
    func runProgram(
        _ program: String, _ arguments: [String], environment: [String: String], removing: [String] = []
    ) async throws -> UniToolProcess.Outcome {
        try await UniToolProcess.run(
            URL(fileURLWithPath: program), arguments, environment: environment, removingEnvironment: removing, timeout: 300)
    }

    // MARK: install.sh

    @Test(
        "install.sh under ~/.local leaves unitool's data folder (the history's) 0700, also one an earlier install left 0755, and the installed unitool keeps its history there"
    )
    func installKeepsTheDataFolderPrivate() async throws {
        let prefix = sandbox.root.appendingPathComponent(".local")
        let dataFolder = prefix.appendingPathComponent("share/unitool")
        // As the install.sh of before left it.
        try FileManager.default.createDirectory(at: dataFolder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dataFolder.path)
        let built = UniToolProcess.executable.deletingLastPathComponent().path
        let install = try await runProgram(
            "/bin/bash", [Fixtures.root.appendingPathComponent("Scripts/install.sh").path, prefix.path],
            environment: ["HOME": sandbox.root.path, "UNITOOL_INSTALL_BINARIES": built], removing: ["XDG_DATA_HOME"])
        #expect(install.exitCode == 0, "\(install)")
        #expect(try String(mode(of: dataFolder), radix: 8) == "700", "the history's folder is open to others")

        // The installed unitool reads its recipes from there and writes its history there.
        var environment = sandbox.environment
        environment["XDG_DATA_HOME"] = prefix.appendingPathComponent("share").path
        environment["NO_COLOR"] = "1"
        let grades = try await runProgram(
            prefix.appendingPathComponent("bin/unitool").path, ["--portal", "demo", "grades", "--json"], environment: environment,
            removing: ["UNITOOL_RECIPES_DIR"])
        #expect(grades.exitCode == 0, "\(grades)")
        #expect(FileManager.default.fileExists(atPath: dataFolder.appendingPathComponent("history.sqlite").path), "\(grades)")
        #expect(try String(mode(of: dataFolder), radix: 8) == "700")

        // 'watch install' from the installed unitool names the installed path, not the build's.
        let config = sandbox.root.appendingPathComponent("config/unitool")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "watches:\n  grades:\n    command: grades\n    every: 1h\n".write(
            to: config.appendingPathComponent("watches.yaml"), atomically: true, encoding: .utf8)
        let units = try await runProgram(
            prefix.appendingPathComponent("bin/unitool").path, ["--portal", "demo", "watch", "install", "--print"],
            environment: environment, removing: ["UNITOOL_RECIPES_DIR"])
        #expect(units.exitCode == 0 && units.stdout.contains("ExecStart=\(prefix.path)/bin/unitool watch --all"), "\(units)")
    }

    @Test("install.sh under another prefix (/usr/local) leaves share/unitool 0755: every user reads the recipes there")
    func installElsewhereIsReadable() async throws {
        let prefix = sandbox.root.appendingPathComponent("usr-local")
        let built = UniToolProcess.executable.deletingLastPathComponent().path
        let install = try await runProgram(
            "/bin/bash", [Fixtures.root.appendingPathComponent("Scripts/install.sh").path, prefix.path],
            environment: ["HOME": sandbox.root.path, "UNITOOL_INSTALL_BINARIES": built], removing: ["XDG_DATA_HOME"])
        #expect(install.exitCode == 0, "\(install)")
        #expect(try String(mode(of: prefix.appendingPathComponent("share/unitool")), radix: 8) == "755")
    }

    // MARK: Plugins

    @Test("a plugin others may write (0777) is refused with exit 23 and 'chmod go-w'; after that chmod, the same plugin runs")
    func pluginWritableByOthers() async throws {
        let marker = try writePlugin("loose", in: pluginFolder, mode: 0o777)
        let plugin = pluginFolder.appendingPathComponent("unitool-loose")
        let refused = try await sandbox.run(["loose"])
        #expect(refused.exitCode == 23, "\(refused)")
        #expect(refused.stderr.contains("may be changed by other users (mode 777)"), "\(refused)")
        #expect(refused.stderr.contains("chmod go-w \(plugin.path)"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin ran")

        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugin.path)
        let ran = try await sandbox.run(["loose"])
        #expect(ran.exitCode == 0, "\(ran)")
        #expect(ran.stdout == "plugin-ran\n", "\(ran)")
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    @Test("a plugin reached through a link is judged by the file the link leads to: a link to a 0777 file is refused")
    func pluginThroughALink() async throws {
        let elsewhere = sandbox.root.appendingPathComponent("elsewhere")
        let marker = try writePlugin("linked", in: elsewhere, mode: 0o777)
        try FileManager.default.createDirectory(at: pluginFolder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: pluginFolder.appendingPathComponent("unitool-linked"),
            withDestinationURL: elsewhere.appendingPathComponent("unitool-linked"))
        let refused = try await sandbox.run(["linked"])
        #expect(refused.exitCode == 23, "\(refused)")
        #expect(refused.stderr.contains("a link to"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin ran")
    }

    @Test("a plugin in a PATH folder that others may write (0777) is refused with exit 23 and 'chmod go-w' on the folder")
    func pluginInAFolderOthersMayWrite() async throws {
        let folder = sandbox.root.appendingPathComponent("shared-bin")
        let marker = try writePlugin("shared", in: folder, mode: 0o755)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        let path = folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let refused = try await sandbox.run(["shared"], extra: ["PATH": path])
        #expect(refused.exitCode == 23, "\(refused)")
        #expect(refused.stderr.contains("which other users may write to (mode 777)"), "\(refused)")
        #expect(refused.stderr.contains("chmod go-w \(folder.path)"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin ran")
    }

    /// The suite runs as root in CI, the only user that can give a file away.
    @Test(
        "a plugin owned by another user (nobody) is refused with exit 23, naming the owner and how to take it over",
        .enabled(if: Needs.root, "only root can give a file to another user"))
    func pluginOwnedByAnotherUser() async throws {
        let nobody = try #require(getpwnam("nobody"), "no user named nobody").pointee
        let marker = try writePlugin("foreign", in: pluginFolder, mode: 0o755)
        let plugin = pluginFolder.appendingPathComponent("unitool-foreign")
        #expect(chown(plugin.path, nobody.pw_uid, nobody.pw_gid) == 0)
        let refused = try await sandbox.run(["foreign"])
        #expect(refused.exitCode == 23, "\(refused)")
        #expect(refused.stderr.contains("belongs to another user (uid \(nobody.pw_uid))"), "\(refused)")
        #expect(refused.stderr.contains("chown"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the plugin ran")
    }

    // MARK: The password command

    @Test("UNITOOL_PASSWORD_COMMAND=yes is stopped as soon as it passes 64 KiB: exit 40 at once, not after the 120 s limit")
    func passwordCommandThatNeverEnds() async throws {
        let outcome = try await sandbox.run(
            ["--portal", "demo", "--user", "dora", "grades"], extra: ["UNITOOL_PASSWORD_COMMAND": "yes"])
        #expect(outcome.exitCode == 40, "\(outcome)")
        #expect(outcome.stderr.contains("UNITOOL_PASSWORD_COMMAND printed more than 64 KiB"), "\(outcome)")
        #expect(outcome.stderr.contains("hint:"), "\(outcome)")
    }

    @Test("a password command that prints its password and then a few more lines still logs in")
    func passwordCommandWithMoreLines() async throws {
        // About 14 KB after the password: under the cap, and read away while the command ends.
        let outcome = try await sandbox.run(
            ["--portal", "demo", "--user", "dora", "grades", "--json"],
            extra: ["UNITOOL_PASSWORD_COMMAND": "echo explorer-2026; seq 1 3000"])
        #expect(outcome.exitCode == 0, "\(outcome)")
    }
}
