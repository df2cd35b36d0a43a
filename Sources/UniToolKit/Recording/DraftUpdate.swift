import Foundation
import MessageDigest
import Yams

/// What `recipes new NAME --from-har FILE` wrote into a folder: each file's path and SHA-256 as
/// written, in `sha256sum`'s own format, in `.draft.sha256` beside them.
///
/// It is how `--update` tells a file the person edited (its content no longer has the hash)
/// from one they left as it was (which a new recording may replace). `sha256sum -c
/// .draft.sha256` in the folder lists the files edited since. Deleting it makes `--update`
/// keep every existing file as the person's.
public struct DraftManifest: Sendable, Equatable {
    public static let fileName = ".draft.sha256"

    /// Path inside the folder → lowercase hex SHA-256 of the content written.
    public var hashes: [String: String] = [:]

    public init(hashes: [String: String] = [:]) { self.hashes = hashes }

    public init(files: [(path: String, data: Data)]) {
        for file in files { hashes[file.path] = Self.hash(file.data) }
    }

    /// Reads `sha256sum` lines (`<64 hex>  <path>`); a line of another shape is an error that
    /// says which, rather than a file silently taken for edited.
    public init(parsing text: String) throws {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            let parts = line.split(separator: " ", maxSplits: 1)
            let hash = parts.first.map(String.init) ?? ""
            let path = parts.count == 2 ? String(parts[1].drop { $0 == " " || $0 == "*" }) : ""
            guard hash.count == 64, hash.allSatisfy(\.isHexDigit), !path.isEmpty else {
                let lineNumber = number + 1
                throw UniToolError(
                    .usage, localized("\(Self.fileName), line \(lineNumber), is not '<sha256>  <path>'"),
                    hint: localized("it records what 'recipes new' wrote; delete it to have --update keep every file as yours"))
            }
            hashes[path] = hash.lowercased()
        }
    }

    public var text: String {
        hashes.keys.sorted().map { "\(hashes[$0]!)  \($0)\n" }.joined()
    }

    public static func hash(_ data: Data) -> String { MessageDigest.sha256(data).lowercaseHex }
}

/// What `--update` writes into an existing folder from a new recording's draft: a pure decision
/// from the folder's manifest, the files on disk and the new files, nothing read or written.
///
/// - A file the folder lacks is added (a new command, its fixtures), unless the manifest names
///   it: 'recipes new' wrote it and the person removed it, so it stays removed.
/// - A file the draft wrote and the person has not edited since (its hash is the manifest's) is
///   replaced by the new version.
/// - A file the person edited (or one the manifest does not know) is kept; the new version goes
///   beside it as `FILE.new` (no recipe loads it) for them to compare.
/// - `portal.yaml`, when not edited since it was made, is replaced by the new one (with the
///   services, destinations and `today:` items of the old one it lacks). When edited, it is the
///   person's and is merged: the new recording's services and the origins its password went to
///   are added to it when it lacks them (told by reading it as YAML, whatever its layout);
///   anything else new in the login, or all of it when its layout is one the merge cannot edit
///   safely, goes beside it as `portal.yaml.new`.
/// - A file of the folder the new recording does not make (a command recorded before) is left.
public struct DraftUpdate: Sendable {
    public enum Outcome: String, Sendable {
        case added, updated, unchanged, kept, merged
        /// Made before, removed by the person since: not made again.
        case keptDeleted = "kept deleted"
    }

    public struct Entry: Sendable {
        public var path: String
        public var outcome: Outcome
        /// Why, in words, for the report.
        public var why: String
        /// What to write at `path` (nil: leave it as it is).
        public var write: Data?
        /// The new version, written beside the kept one at `path + ".new"`, or nil.
        public var beside: Data?
    }

    public var entries: [Entry] = []
    /// The manifest to write afterwards: the new hash of each file written, and the old one of
    /// each file kept (so that a file edited stays the person's at the next update too).
    public var manifest: DraftManifest

    public init(manifest old: DraftManifest?, onDisk: [String: Data], files: [(path: String, data: Data)]) {
        var next = old ?? DraftManifest()
        for file in files {
            let path = file.path
            guard let current = onDisk[path] else {
                if old?.hashes[path] != nil {
                    // 'recipes new' made it and it is gone: the person removed it.
                    entries.append(
                        Entry(
                            path: path, outcome: .keptDeleted,
                            why: localized("you removed it; to have it made again, delete its line from \(DraftManifest.fileName)")))
                    continue
                }
                entries.append(Entry(path: path, outcome: .added, why: localized("new in this recording"), write: file.data))
                next.hashes[path] = DraftManifest.hash(file.data)
                continue
            }
            if current == file.data {
                entries.append(Entry(path: path, outcome: .unchanged, why: localized("the new recording makes it the same")))
                next.hashes[path] = DraftManifest.hash(file.data)
                continue
            }
            let written = old?.hashes[path]
            let edited = written != DraftManifest.hash(current)
            if path == "portal.yaml", !edited {
                // What the old recording proved stays: the new file, with what only the old had.
                let base = Self.mergedPortal(
                    current: String(decoding: file.data, as: UTF8.self), new: String(decoding: current, as: UTF8.self))
                let data = base.note == nil ? Data(base.text.utf8) : file.data
                let kept = base.added.joined(separator: "; ")
                let why =
                    base.note == nil && !base.added.isEmpty
                    ? localized("not edited since it was made: the new recording's version; kept from the old one: \(kept)")
                    : localized("not edited since it was made: the new recording's version")
                entries.append(Entry(path: path, outcome: .updated, why: why, write: data))
                next.hashes[path] = DraftManifest.hash(data)
                continue
            }
            if path == "portal.yaml" {
                let merge = Self.mergedPortal(
                    current: String(decoding: current, as: UTF8.self), new: String(decoding: file.data, as: UTF8.self))
                let data = Data(merge.text.utf8)
                let added = merge.added.joined(separator: "; ")
                let why: String
                if let note = merge.note {
                    why = localized("\(note) (your edits kept)")
                } else if merge.added.isEmpty {
                    why =
                        merge.rest
                        ? localized(
                            "nothing to add; the new recording's login differs in more: its version is portal.yaml.new (your edits kept)")
                        : localized("nothing to add (your edits kept)")
                } else {
                    why =
                        merge.rest
                        ? localized(
                            "added \(added); the new recording's login differs in more: its version is portal.yaml.new (your edits kept)")
                        : localized("added \(added) (your edits kept)")
                }
                entries.append(
                    Entry(
                        path: path, outcome: merge.added.isEmpty ? .kept : .merged, why: why, write: merge.added.isEmpty ? nil : data,
                        beside: merge.rest ? file.data : nil))
                // Still the person's (its old hash, or none, stays).
                continue
            }
            if edited {
                entries.append(
                    Entry(
                        path: path, outcome: .kept,
                        why: written == nil
                            ? localized(
                                "not written by 'recipes new' (or its record \(DraftManifest.fileName) is gone): the new version is \(path).new"
                            )
                            : localized("edited by you since it was made: the new version is \(path).new"), beside: file.data))
                continue
            }
            entries.append(Entry(path: path, outcome: .updated, why: localized("not edited since it was made"), write: file.data))
            next.hashes[path] = DraftManifest.hash(file.data)
        }
        manifest = next
    }

    // MARK: portal.yaml

    /// The person's portal.yaml with what the new one proves added: service entries of names it
    /// lacks (in `services:`, made if missing), origins the password went to that its
    /// `credentials_may_go_to: [...]` lacks, and `today:` items of commands it does not list.
    /// `rest`: whether the new one differs in more (its login rules, done_when) than those and
    /// its comments. What is new is told by reading both as YAML, whatever their layout; the
    /// lines are edited only where the person's file has the layout 'recipes new' writes, and
    /// the result must read back with every key it had and each one added. Otherwise nothing
    /// is added and `note` says why (the new version goes beside it).
    static func mergedPortal(current: String, new: String) -> (text: String, added: [String], rest: Bool, note: String?) {
        let unsafe = (
            current, [String](), true,
            Optional(
                localized(
                    "its layout is not one unitool can add to safely (the new recording's services, password destinations or today: items): the new version is portal.yaml.new, copy what you need from it"
                ))
        )
        guard let ours = PortalShape(current), let theirs = PortalShape(new) else { return unsafe }
        let merged = Self.lineMerge(current: current, new: new, ours: ours, theirs: theirs)
        guard let after = PortalShape(merged.text),
            Set(after.services) == Set(ours.services).union(theirs.services), after.services.count == Set(after.services).count,
            Set(after.destinations ?? []) == Set(ours.destinations ?? []).union(ours.destinations == nil ? [] : theirs.destinations ?? []),
            Set(after.today) == Set(ours.today).union(theirs.today)
        else { return unsafe }
        return (merged.text, merged.added, merged.rest, nil)
    }

    /// The keys the merge adds to, as YAML reads them (block or flow style, comments and all).
    struct PortalShape {
        var services: [String]
        var destinations: [String]?
        var today: [String]

        init?(_ text: String) {
            guard let root = try? Parser(yaml: text, resolver: .basic, encoding: .utf8).singleRoot(), let map = root.mapping
            else { return nil }
            if let services = map["services"], services.mapping == nil, services.scalar?.string.isEmpty != true { return nil }
            services = map["services"]?.mapping?.keys.compactMap(\.string) ?? []
            destinations = map["credentials_may_go_to"]?.sequence?.compactMap(\.string)
            today = map["today"]?.sequence?.compactMap { $0.mapping?["command"]?.string } ?? []
        }
    }

    static func lineMerge(current: String, new: String, ours: PortalShape, theirs: PortalShape) -> (
        text: String, added: [String], rest: Bool
    ) {
        var lines = current.components(separatedBy: "\n")
        let newLines = new.components(separatedBy: "\n")
        var added: [String] = []
        // services: the entries of the new file, `  name: { base_url: … }`, by name.
        func serviceEntries(_ lines: [String]) -> [(name: String, line: String)] {
            guard let start = lines.firstIndex(of: "services:") else { return [] }
            var found: [(String, String)] = []
            for line in lines[(start + 1)...] {
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { break }
                let name = line.dropFirst(2).split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
                found.append((name, line))
            }
            return found
        }
        let missing = serviceEntries(newLines).filter { !ours.services.contains($0.name) }
        if !missing.isEmpty {
            if let start = lines.firstIndex(of: "services:") {
                var end = start + 1
                while end < lines.count, lines[end].hasPrefix("  ") { end += 1 }
                lines.insert(contentsOf: missing.map(\.line), at: end)
            } else {
                let before = lines.firstIndex(of: "login:").map { $0 > 0 && lines[$0 - 1].isEmpty ? $0 - 1 : $0 } ?? lines.count
                lines.insert(contentsOf: ["services:"] + missing.map(\.line), at: before)
            }
            let names = missing.map(\.name).joined(separator: ", ")
            added.append(localized("the service \(names)", plural: "the services \(names)", count: missing.count))
        }
        // credentials_may_go_to: [a, b]: the new recording's destinations it lacks.
        func destinations(_ line: String) -> [String]? {
            guard line.hasPrefix("credentials_may_go_to: ["), line.hasSuffix("]") else { return nil }
            return line.dropFirst("credentials_may_go_to: [".count).dropLast().split(separator: ",").map {
                $0.trimmingWhitespace()
            }
        }
        if let newLine = newLines.first(where: { destinations($0) != nil }), let theirs = destinations(newLine),
            let index = lines.firstIndex(where: { destinations($0) != nil }), let current = destinations(lines[index])
        {
            let more = theirs.filter { !current.contains($0) }
            if !more.isEmpty {
                lines[index] = "credentials_may_go_to: [\((current + more).joined(separator: ", "))]"
                let origins = more.joined(separator: ", ")
                added.append(localized("credentials_may_go_to \(origins) (the new recording's password went there)"))
            }
        }
        // today: the new recording's items for commands the list does not name yet.
        func todayItems(_ lines: [String]) -> [(command: String, lines: [String])] {
            guard let start = lines.firstIndex(of: "today:") else { return [] }
            var items: [(String, [String])] = []
            for line in lines[(start + 1)...] {
                if line.hasPrefix("  - ") {
                    items.append(("", [line]))
                } else if line.hasPrefix("    "), !items.isEmpty {
                    items[items.count - 1].1.append(line)
                    if line.hasPrefix("    command: ") { items[items.count - 1].0 = String(line.dropFirst("    command: ".count)) }
                } else {
                    break
                }
            }
            return items
        }
        let listed = Set(ours.today)
        let newItems = todayItems(newLines).filter { !$0.command.isEmpty && !listed.contains($0.command) }
        if !newItems.isEmpty {
            if let start = lines.firstIndex(of: "today:") {
                var end = start + 1
                while end < lines.count, lines[end].hasPrefix("  ") { end += 1 }
                lines.insert(contentsOf: newItems.flatMap(\.lines), at: end)
            } else {
                while lines.last == "" { lines.removeLast() }
                lines += ["", "today:"] + newItems.flatMap(\.lines) + [""]
            }
            let commands = newItems.map(\.command).joined(separator: ", ")
            added.append(localized("today: for \(commands)"))
        }
        let text = lines.joined(separator: "\n")
        // What else differs: the files without comments, services and the credentials line.
        func rest(_ lines: [String]) -> [String] {
            var kept: [String] = []
            var inServices = false
            for line in lines {
                if line == "services:" || line == "today:" {
                    inServices = true
                    continue
                }
                if inServices, line.hasPrefix("  ") { continue }
                inServices = false
                let trimmed = line.trimmingWhitespace()
                if trimmed.isEmpty || trimmed.hasPrefix("#") || destinations(line) != nil { continue }
                kept.append(line)
            }
            return kept
        }
        return (text, added, rest(text.components(separatedBy: "\n")) != rest(newLines))
    }
}
