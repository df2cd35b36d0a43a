import Foundation

/// The commands a user ran lately and the ones they pinned, per portal: what the overview
/// offers first, as a travel app offers recent searches and favourites.
///
/// A pure value: the lists and how they change. ``ShortcutsStore`` keeps it on disk.
public struct Shortcuts: Sendable, Equatable, Codable {
    /// Per portal, the latest first, each command line once.
    public var recent: [String: [String]] = [:]
    /// Per portal, in the order they were pinned.
    public var pinned: [String: [String]] = [:]

    /// How many recent commands are kept per portal.
    public static let recentLimit = 5

    public init() {}

    /// `grades --term current` ran: it goes first, once.
    public mutating func ran(_ line: String, portal: String) {
        var list = recent[portal, default: []].filter { $0 != line }
        list.insert(line, at: 0)
        recent[portal] = Array(list.prefix(Self.recentLimit))
    }

    /// Pins a command line; false when it was pinned already.
    @discardableResult
    public mutating func pin(_ line: String, portal: String) -> Bool {
        guard !pinned[portal, default: []].contains(line) else { return false }
        pinned[portal, default: []].append(line)
        return true
    }

    /// Unpins a command line; false when it was not pinned.
    @discardableResult
    public mutating func unpin(_ line: String, portal: String) -> Bool {
        guard let index = pinned[portal]?.firstIndex(of: line) else { return false }
        pinned[portal]?.remove(at: index)
        return true
    }

    /// The recent commands that are not also pinned: the overview lists each once.
    public func recentOnly(portal: String) -> [String] {
        let pins = Set(pinned[portal] ?? [])
        return (recent[portal] ?? []).filter { !pins.contains($0) }
    }

    /// A command and its own arguments as one line that a shell reads back as they were:
    /// `grades --term current`, `news --category 'Campus life'`.
    public static func line(_ words: [String]) -> String {
        words.map { word in
            let plain = word.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "-_=.,:/@+%".unicodeScalars.contains($0)
            }
            return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

/// Where the shortcuts live: `$XDG_STATE_HOME/unitool/shortcuts.json`, written atomically. A
/// damaged file is set aside rather than trusted or lost.
public struct ShortcutsStore: Sendable {
    public let file: URL

    public init(file: URL) { self.file = file }

    public func load() -> Shortcuts {
        guard let data = try? Data(contentsOf: file) else { return Shortcuts() }
        guard let shortcuts = try? JSONDecoder().decode(Shortcuts.self, from: data) else {
            try? FileManager.default.moveItem(at: file, to: file.appendingPathExtension("damaged"))
            return Shortcuts()
        }
        return shortcuts
    }

    /// Reads, changes and writes the shortcuts.
    ///
    /// An unchanged list is not written again: running the same command as last time is the
    /// usual case, and a write (with its `fsync`) on every run was for nothing.
    public func update(_ change: (inout Shortcuts) -> Void) throws {
        let before = load()
        var shortcuts = before
        change(&shortcuts)
        guard shortcuts != before || !FileManager.default.fileExists(atPath: file.path) else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(try encoder.encode(shortcuts), to: file)
    }
}
