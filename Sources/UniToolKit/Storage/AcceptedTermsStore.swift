import Foundation

/// The version of a portal's terms that the user accepted, and when.
public struct AcceptedTerms: Codable, Sendable, Equatable {
    public var portal: String
    public var version: String
    public var acceptedAt: Date

    public init(portal: String, version: String, acceptedAt: Date = Date()) {
        self.portal = portal
        self.version = version
        self.acceptedAt = acceptedAt
    }

    enum CodingKeys: String, CodingKey {
        case portal, version
        case acceptedAt = "accepted_at"
    }
}

/// Accepted terms, one small JSON file per portal under `$XDG_CONFIG_HOME/unitool/terms/`.
///
/// They live with the configuration, not the state: they record a decision of the user's,
/// which must not vanish when caches or sessions are cleared.
public struct AcceptedTermsStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func file(portal: String) -> URL {
        directory.appendingPathComponent(PrivateFile.safeName(portal) + ".json")
    }

    /// The accepted version, or nil if none was ever accepted. A damaged file is an error,
    /// not "never accepted": it is the user's decision, and guessing either way would be wrong.
    public func load(portal: String) throws -> AcceptedTerms? {
        let url = file(portal: portal)
        guard let data = try PrivateFile.read(url) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            let accepted = try decoder.decode(AcceptedTerms.self, from: data)
            guard accepted.portal == portal else { throw CocoaError(.fileReadCorruptFile) }
            return accepted
        } catch {
            throw UniToolError(
                .stateCorrupt, localized("the record of accepted terms at \(url.path) is damaged"),
                hint: localized("run 'unitool terms accept --portal \(portal)' to accept the current terms again; it replaces the file"))
        }
    }

    public func save(_ accepted: AcceptedTerms) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(accepted), to: file(portal: accepted.portal), mode: 0o600)
    }
}

/// The current terms set against the accepted ones: what `terms status` shows and what every
/// data command checks before it fetches anything.
