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
    }

    public var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_STATE_HOME": root.appendingPathComponent("state").path,
            "XDG_CACHE_HOME": root.appendingPathComponent("cache").path,
            "HOME": root.path,
        ]
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
}
