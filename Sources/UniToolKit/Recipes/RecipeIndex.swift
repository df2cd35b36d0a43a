import Foundation

/// Each portal's commands as the overview lists them (`unitool --help`), kept between runs
/// in `$XDG_CACHE_HOME/unitool/recipe-index` so that a list needs no recipe parsed.
///
/// Listing the demo's 18 commands meant parsing every recipe (YAML, then the checks), 40% of
/// `--help` (issue 54). The index is trusted only while every recipe folder and file it was
/// made from has the same `FileStamp` (device, inode, size, modification time; `stamps(of:)`), and only for the
/// unitool version that wrote it; anything else reads the recipes again and writes it anew.
/// It is a cache: losing it, or failing to write it, costs only the next list a parse.
public struct RecipeIndex: Sendable, Equatable {
    /// Whether an index of these stamps may be written now: not while any of them changed in the
    /// last two seconds. A file's time moves in the file system's clock ticks, so a file edited
    /// again within the tick it was stamped in keeps its stamp, and an index written then would
    /// be trusted for good (git's "racy timestamp"). Until the files settle, lists are read from
    /// the recipes, as when there is no index.
    public static func maySave(_ stamps: [String: FileStamp], now: Date = Date()) -> Bool {
        let settled = now.timeIntervalSince1970 - 2
        return stamps.values.allSatisfy { Double($0.modified) + Double($0.modifiedNanoseconds) / 1e9 < settled }
    }

    /// One command as a list shows it.
    public struct Listing: Sendable, Equatable {
        public var command: String
        public var summary: String
        /// Runs as shown, with no option the user must give (`DataRecipe.runsWithoutArguments`).
        public var runsWithoutArguments: Bool
        /// The command's actions (`loans renew`), name and summary.
        public var actions: [(name: String, summary: String)]

        public static func == (lhs: Listing, rhs: Listing) -> Bool {
            lhs.command == rhs.command && lhs.summary == rhs.summary && lhs.runsWithoutArguments == rhs.runsWithoutArguments
                && lhs.actions.map(\.name) == rhs.actions.map(\.name) && lhs.actions.map(\.summary) == rhs.actions.map(\.summary)
        }
    }

    public var version: String
    /// Every recipe folder and file the index was made from, by path, as it looked then.
    public var stamps: [String: FileStamp]
    /// For each portal, its commands in command order.
    public var listings: [String: [Listing]]

    public init(version: String = UniToolVersion.current, stamps: [String: FileStamp], listings: [String: [Listing]]) {
        self.version = version
        self.stamps = stamps
        self.listings = listings
    }

    /// The lists of a whole catalog.
    public static func listings(of catalog: RecipeCatalog) -> [String: [Listing]] {
        catalog.dataRecipes.keys.reduce(into: [:]) { listings, portal in
            listings[portal] = catalog.recipes(of: portal).map { recipe in
                Listing(
                    command: recipe.command, summary: recipe.summary, runsWithoutArguments: recipe.runsWithoutArguments,
                    actions: recipe.actions.map { ($0.name, $0.summary) })
            }
        }
    }

    /// The stamps of everything a catalog of these folders reads: each folder, its portal
    /// folders and their `.yaml` files, and the platforms' folders and files that recipes build
    /// on (`platforms/`, one level deeper). A folder's stamp changes when a file is added,
    /// removed or renamed in it. Hidden names too, since the catalog reads a `.draft.yaml`
    /// like any other; nothing deeper is listed: a portal's fixtures are no recipes.
    public static func stamps(of directories: [URL]) -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        func visit(_ path: String, depth: Int) {
            guard let stamp = FileStamp(path: path, followingLinks: true) else { return }
            stamps[path] = stamp
            guard depth > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names {
                let child = path + "/" + name
                if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                    if let stamp = FileStamp(path: child, followingLinks: true) { stamps[child] = stamp }
                } else if depth > 1 {
                    visit(child, depth: name == "platforms" ? depth : depth - 1)
                }
            }
        }
        for directory in directories { visit(directory.path, depth: 2) }
        return stamps
    }

    // MARK: - The file

    /// The index in `file` if it is this version's and every stamp still holds, else nil.
    public static func load(from file: URL, expecting stamps: [String: FileStamp]) -> RecipeIndex? {
        guard let data = FileManager.default.contents(atPath: file.path),
            let index = RecipeIndex(text: String(decoding: data, as: UTF8.self)),
            index.version == UniToolVersion.current, index.stamps == stamps
        else { return nil }
        return index
    }

    /// Writes the index atomically, private to the user like every file unitool keeps.
    public func save(to file: URL) throws {
        try AtomicFile.write(Data(text.utf8), to: file)
    }

    /// The index as lines of tab-separated fields, each escaped: read back with no parser of
    /// JSON or YAML, whose first use in a process costs more than the recipes it would save.
    ///
    ///     unitool-recipe-index <version>
    ///     stamp <device> <inode> <size> <modified s> <modified ns> <path>
    ///     command <portal> <command> <runs without arguments: 0/1> <summary>
    ///     action <portal> <command> <action> <summary>
    public var text: String {
        var lines = ["unitool-recipe-index\t" + Self.escaped(version)]
        for (path, stamp) in stamps.sorted(by: { $0.key < $1.key }) {
            let numbers = [
                String(stamp.device), String(stamp.inode), String(stamp.size), String(stamp.modified), String(stamp.modifiedNanoseconds),
            ]
            lines.append((["stamp"] + numbers).joined(separator: "\t") + "\t" + Self.escaped(path))
        }
        for (portal, commands) in listings.sorted(by: { $0.key < $1.key }) {
            for listing in commands {
                lines.append(
                    ["command", portal, listing.command, listing.runsWithoutArguments ? "1" : "0", listing.summary].map(Self.escaped)
                        .joined(separator: "\t"))
                for action in listing.actions {
                    lines.append(
                        ["action", portal, listing.command, action.name, action.summary].map(Self.escaped).joined(separator: "\t"))
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads `text`; nil for anything but an index this code wrote.
    public init?(text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
        guard let header = lines.next()?.split(separator: "\t", omittingEmptySubsequences: false), header.count == 2,
            header[0] == "unitool-recipe-index"
        else { return nil }
        version = Self.unescaped(header[1])
        stamps = [:]
        listings = [:]
        while let line = lines.next() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(Self.unescaped)
            switch (fields.first, fields.count) {
            case ("stamp", 7):
                guard let device = UInt64(fields[1]), let inode = UInt64(fields[2]), let size = Int64(fields[3]),
                    let modified = Int(fields[4]), let nanoseconds = Int(fields[5])
                else { return nil }
                stamps[fields[6]] = FileStamp(
                    device: device, inode: inode, size: size, modified: modified, modifiedNanoseconds: nanoseconds)
            case ("command", 5):
                listings[fields[1], default: []].append(
                    Listing(command: fields[2], summary: fields[4], runsWithoutArguments: fields[3] == "1", actions: []))
            case ("action", 5):
                guard let last = listings[fields[1]]?.indices.last, listings[fields[1]]?[last].command == fields[2] else { return nil }
                listings[fields[1]]?[last].actions.append((fields[3], fields[4]))
            default:
                return nil
            }
        }
    }

    /// A field with its backslashes, tabs and line ends written as escapes.
    static func escaped(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return field }
        var result = ""
        for character in field.unicodeScalars {
            switch character {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    static func unescaped(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var result = ""
        var escaping = false
        for character in field.unicodeScalars {
            if escaping {
                switch character {
                case "t": result += "\t"
                case "n": result += "\n"
                case "r": result += "\r"
                default: result.unicodeScalars.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

extension Locations {
    /// The recipe index (`RecipeIndex`): a cache, rebuilt whenever a recipe changes.
    public var recipeIndex: URL { cache.appendingPathComponent("recipe-index") }
}
