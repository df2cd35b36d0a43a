import Foundation
import MessageDigest

/// The portal definitions from recipe packs that the user has said they trust.
///
/// A `portal.yaml` decides where the password goes (`base_url`, `credentials_may_go_to`), so a
/// recipe pack that redefines a portal the user already has could take its password. Such a
/// definition is loaded only if the user trusted that exact file (`unitool recipes trust DIR`):
/// the trust is for its content (SHA-256), so a pack that changes it later must be trusted again.
///
/// Kept in `$XDG_CONFIG_HOME/unitool/trusted-portals.json`, mode 0600, written atomically.
public struct RecipeTrust: Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var portal: String
        public var file: String
        public var sha256: String
    }

    public private(set) var entries: [Entry]

    public init(entries: [Entry] = []) { self.entries = entries }

    /// True when the user trusted this content as a definition of `portal`.
    public func allows(portal: String, content: Data) -> Bool {
        let digest = Self.digest(content)
        return entries.contains { $0.portal == portal && $0.sha256 == digest }
    }

    /// Records trust in one definition; an earlier trust of the same file is replaced.
    public mutating func trust(portal: String, file: String, content: Data) {
        entries.removeAll { $0.portal == portal && $0.file == file }
        entries.append(Entry(portal: portal, file: file, sha256: Self.digest(content)))
    }

    /// Withdraws trust from every definition of `portal` in files under `directory` (or all of
    /// them). Returns how many were withdrawn.
    @discardableResult
    public mutating func revoke(portal: String?, under directory: String?) -> Int {
        let before = entries.count
        entries.removeAll { entry in
            (portal == nil || entry.portal == portal) && (directory.map { entry.file.hasPrefix($0 + "/") } ?? true)
        }
        return before - entries.count
    }

    static func digest(_ content: Data) -> String {
        MessageDigest.sha256(content).lowercaseHex
    }

    public static func load(from file: URL) throws -> RecipeTrust {
        guard let data = try PrivateFile.read(file) else { return RecipeTrust() }
        do {
            return RecipeTrust(entries: try JSONDecoder().decode([Entry].self, from: data))
        } catch {
            throw UniToolError(
                .stateCorrupt, localized("\(file.path) cannot be read as a list of trusted portal definitions"),
                hint: localized("remove it and trust your recipe packs again with 'unitool recipes trust DIR'"))
        }
    }

    public func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(try encoder.encode(entries), to: file, mode: 0o600)
    }
}
