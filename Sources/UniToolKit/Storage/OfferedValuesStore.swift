import Foundation

/// The values a portal last offered for a recipe option, as its own selector lists them (the
/// terms of `grades --term`), one small JSON file per option under `$XDG_CACHE_HOME/unitool/values/`.
///
/// Kept so that `grades --term <TAB>` completes without a request, and so that a mistyped value
/// is named even when the portal cannot be reached. It is a cache: a missing or damaged file is
/// "nothing seen yet", and a failure to write it never fails the command.
public struct OfferedValuesStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func file(portal: String, command: String, option: String) -> URL {
        directory.appendingPathComponent(PrivateFile.safeName(portal))
            .appendingPathComponent(PrivateFile.safeName(command) + "." + PrivateFile.safeName(option) + ".json")
    }

    /// The values last seen, or nil if none were.
    public func load(portal: String, command: String, option: String) -> [String]? {
        guard let data = try? PrivateFile.read(file(portal: portal, command: command, option: option)),
            let values = try? JSONDecoder().decode([String].self, from: data)
        else { return nil }
        return values
    }

    /// Records the values the portal offers now; unchanged values are not written again.
    public func save(_ values: [String], portal: String, command: String, option: String) {
        guard !values.isEmpty, load(portal: portal, command: command, option: option) != values else { return }
        let url = file(portal: portal, command: command, option: option)
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? AtomicFile.write((try? JSONEncoder().encode(values)) ?? Data("[]".utf8), to: url)
    }
}
