import Foundation
import UniToolKit

/// The repository's `Fixtures/` folder, for tests: real pages and recipes on disk.
public enum Fixtures {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(relativePath)))
    }

    public static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: url(relativePath), encoding: .utf8)
    }

    /// The bundled `Recipes/` folder.
    public static var recipes: URL { root.appendingPathComponent("Recipes") }
}

/// A fresh set of XDG directories for one test, so that saved sessions, accepted terms and
/// config never leak between tests or into the developer's own.
public struct Sandbox: Sendable {
    public let root: URL

    public init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-test-\(UUID().uuidString)")
        for name in ["config", "state", "cache", "data"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        // A runtime folder of its own, as the XDG specification asks of one (0700): a test's
        // `demo serve` leaves its rendezvous file here, where no other test and no developer's
        // own `--portal demo` command looks.
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("runtime"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The sandbox's folders as the library takes them: the same files its `environment` gives
    /// a child process.
    public var locations: Locations { .sandbox(root) }

    public var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            // A `demo serve` is found through this folder and the state folder above, both the
            // test's own: a test's commands never reach another test's or a developer's demo.
            "XDG_RUNTIME_DIR": root.appendingPathComponent("runtime").path,
            "HOME": root.path,
        ]
    }

    /// Runs unitool in this sandbox: its environment with `extra` on top, and, given `demo`, the
    /// address of a running demo university (`UNITOOL_DEMO_URL`).
    /// `timeout`: seconds before a hang is killed (a browser's start on a busy machine needs more
    /// than a command's usual minute).
    public func run(
        _ arguments: [String], demo: URL? = nil, stdin: String? = nil, extra: [String: String] = [:], removing: [String] = [],
        currentDirectory: URL? = nil, timeout: TimeInterval = 60
    ) async throws -> UniToolProcess.Outcome {
        var environment = self.environment.merging(extra) { $1 }
        if let demo { environment["UNITOOL_DEMO_URL"] = demo.absoluteString }
        return try await UniToolProcess.run(
            arguments, stdin: stdin, environment: environment, removingEnvironment: removing, timeout: timeout,
            currentDirectory: currentDirectory)
    }

    /// Records that the user accepted these terms, as `unitool terms accept` does, for tests
    /// that are about something else.
    public func acceptTerms(portal: String, version: String) throws {
        let store = AcceptedTermsStore(directory: root.appendingPathComponent("config/unitool/terms"))
        try store.save(AcceptedTerms(portal: portal, version: version))
    }

    /// Every file below the sandbox, for tests that check what unitool wrote.
    public func allFiles() -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (enumerator?.allObjects as? [URL] ?? []).filter { !$0.hasDirectoryPath }
    }

    public func remove() { try? FileManager.default.removeItem(at: root) }

    /// Writes `files` (path inside the pack → text) into a new recipe pack folder in the sandbox.
    public func writePack(_ files: [String: String]) throws -> URL {
        let pack = root.appendingPathComponent("pack-\(UUID().uuidString)")
        for (path, text) in files {
            let file = pack.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        return pack
    }

    /// The bundled demo recipes as a university of the user's own, `id` (not the demo, so with
    /// no default user or password), pointed at a running demo at `base`; `edit` may change the
    /// portal recipe's text first. Returns the folder.
    @discardableResult
    public func installPortalCopy(
        _ id: String, at base: URL, commands: [String] = ["grades"], edit: (String) -> String = { $0 }
    ) throws -> URL {
        let folder = root.appendingPathComponent("config/unitool/recipes/\(id)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let origin = base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let portal = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "portal: demo\n", with: "portal: \(id)\n")
            .replacingOccurrences(of: "demo: true\n", with: "")
            .replacingOccurrences(of: "base_url: http://127.0.0.1:0\n", with: "base_url: \(origin)\n")
            .replacingOccurrences(of: "idp_url: http://127.0.0.1:0/idp\n", with: "idp_url: \(origin)/idp\n")
        try edit(portal).write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        for command in commands {
            try FileManager.default.copyItem(
                at: Fixtures.recipes.appendingPathComponent("demo/\(command).yaml"), to: folder.appendingPathComponent("\(command).yaml"))
        }
        return folder
    }
}

/// unitool's own files in a sandbox (settings, accepted terms, saved sessions) and their bytes,
/// to check that a failed run left them as they were or validly updated, never half-written.
public struct StateSnapshot: Sendable {
    public let files: [String: Data]
}

extension Sandbox {
    /// The files under the sandbox's config and state folders; lock files are left out.
    public func snapshot() -> StateSnapshot {
        var files: [String: Data] = [:]
        for url in allFiles() where url.pathExtension != "lock" {
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            guard relative.hasPrefix("config/") || relative.hasPrefix("state/") else { continue }
            files[relative] = (try? Data(contentsOf: url)) ?? Data()
        }
        return StateSnapshot(files: files)
    }

    /// What is wrong with the state now, compared with `before`: a file that disappeared, a
    /// temporary file left behind, a changed file that does not parse, or a file others can read.
    public func stateProblems(since before: StateSnapshot) -> [String] {
        let now = snapshot()
        var problems: [String] = []
        for path in before.files.keys where now.files[path] == nil { problems.append("\(path) disappeared") }
        for (path, data) in now.files.sorted(by: { $0.key < $1.key }) {
            if path.hasSuffix(".tmp") { problems.append("\(path) is a temporary file left behind") }
            if before.files[path] != data, path.hasSuffix(".json"), (try? JSONSerialization.jsonObject(with: data)) == nil {
                problems.append("\(path) changed and is not valid JSON")
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            if let mode = attributes?[.posixPermissions] as? Int, mode & 0o077 != 0 {
                problems.append("\(path) has mode \(String(mode, radix: 8))")
            }
        }
        return problems
    }
}
