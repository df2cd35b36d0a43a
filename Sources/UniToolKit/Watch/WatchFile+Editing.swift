import Foundation

/// Saving and removing one watch in watches.yaml's text (`watch ... --save`, `watch remove`),
/// keeping the person's own lines: the other watches, their comments and their order. Only the
/// one entry's lines change. Each edit is checked by reading the result back: if it does not hold
/// exactly the watches intended (a file in flow style, an unusual indentation), the whole file is
/// written from its watches instead, which loses comments but never a watch.
public enum WatchFileEdit {
    /// What saving did: the new text, and whether a watch of that name was there before.
    public struct Saved: Sendable, Equatable {
        public var text: String
        public var replaced: Bool
    }

    /// A watch's name is a YAML key written plain: letters, digits, `-` and `_`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_".unicodeScalars.contains($0)
            }
    }

    /// `text` (nil: no file yet) with `entry` added, or put in place of the watch of its name.
    /// Throws the loader's error for a file that does not read: it is never overwritten.
    public static func saving(_ entry: WatchFile.Entry, in text: String?, file: String) throws -> Saved {
        guard let text, !text.trimmingWhitespaceAndNewlines().isEmpty else {
            return Saved(text: "watches:\n" + block(for: entry, indent: "  "), replaced: false)
        }
        let before = try WatchFile.parse(text, file: file)
        let replaced = before.entries.contains { $0.name == entry.name }
        var expected = before.entries
        if let index = expected.firstIndex(where: { $0.name == entry.name }) { expected[index] = entry } else { expected.append(entry) }
        if let layout = Layout(text), let edited = layout.saving(entry), (try? WatchFile.parse(edited, file: file).entries) == expected {
            return Saved(text: edited, replaced: replaced)
        }
        return Saved(text: render(expected), replaced: replaced)
    }

    /// `text` without the watch `name`; nil when no watch is left (the file is then removed, as
    /// a file with no watch does not read). Throws a usage error naming the saved watches when
    /// there is none of that name.
    public static func removing(_ name: String, from text: String, file: String) throws -> String? {
        let before = try WatchFile.parse(text, file: file)
        guard before.entries.contains(where: { $0.name == name }) else {
            let saved = before.entries.map(\.name).joined(separator: ", ")
            throw UniToolError(
                .usage, localized("there is no watch '\(name)' in \(file)"),
                hint: localized("the saved watches: \(saved) ('unitool watch list')"))
        }
        let expected = before.entries.filter { $0.name != name }
        if expected.isEmpty { return nil }
        if let layout = Layout(text), let edited = layout.removing(name), (try? WatchFile.parse(edited, file: file).entries) == expected {
            return edited
        }
        return render(expected)
    }

    /// The whole file, from its watches.
    public static func render(_ entries: [WatchFile.Entry]) -> String {
        "watches:\n" + entries.map { block(for: $0, indent: "  ") }.joined()
    }

    /// One watch as lines of YAML, its keys in the order docs/WATCH.md lists them; only what
    /// differs from the defaults is written.
    public static func block(for entry: WatchFile.Entry, indent: String) -> String {
        let inner = indent + indent
        var lines = ["\(indent)\(entry.name):"]
        lines.append("\(inner)command: \(scalar(entry.command))")
        if let portal = entry.portal { lines.append("\(inner)portal: \(scalar(portal))") }
        if !entry.options.isEmpty {
            let pairs = entry.options.sorted { $0.key < $1.key }.map { "\(scalar($0.key)): \(scalar($0.value))" }
            lines.append("\(inner)options: { \(pairs.joined(separator: ", ")) }")
        }
        if let source = entry.source { lines.append("\(inner)source: \(scalar(source))") }
        lines.append("\(inner)every: \(interval(entry.every))")
        if let exec = entry.exec { lines.append("\(inner)exec: \(scalar(exec))") }
        if let command = entry.webhookCommand { lines.append("\(inner)webhook_command: \(scalar(command))") }
        if entry.webhookFormat != .json { lines.append("\(inner)webhook_format: \(entry.webhookFormat.rawValue)") }
        if entry.notify { lines.append("\(inner)notify: true") }
        if let due = entry.dueWithin { lines.append("\(inner)due_within: \(scalar(due))") }
        if entry.announceExisting { lines.append("\(inner)announce_existing: true") }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `1h`, `6h`, `1d`, `90m`: an interval as watches.yaml writes it.
    public static func interval(_ interval: Duration) -> String {
        let seconds = interval.components.seconds
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
        if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
        if seconds % 60 == 0 { return "\(seconds / 60)m" }
        return "\(seconds)s"
    }

    /// A word written plain when YAML reads it back as the same string (`current`, `2026-fall`),
    /// otherwise double-quoted with JSON's escapes, which YAML's double-quoted style shares.
    static func scalar(_ value: String) -> String {
        let plain =
            !value.isEmpty && !value.hasPrefix("-")
            && !["true", "false", "yes", "no", "on", "off", "null", "~"].contains(value.lowercased())
            && value.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_./".unicodeScalars.contains($0)
            }
        if plain { return value }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// Where the watches stand in the text: the `watches:` line at the left margin, and below
    /// it each watch's first line at one indentation.
    struct Layout {
        var lines: [String]
        /// The lines of the `watches:` mapping: after its key, up to the next key at the margin.
        var region: Range<Int>
        var indent: String
        /// Each watch's name and its lines (comments and blank lines after it belong to the next).
        var entries: [(name: String, lines: Range<Int>)]

        init?(_ text: String) {
            lines = text.components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            guard
                let key = lines.firstIndex(where: {
                    $0.hasPrefix("watches:") && $0.dropFirst(8).trimmingWhitespace().isEmpty
                })
            else { return nil }
            let end = lines[(key + 1)...].firstIndex { !$0.isEmpty && !$0.hasPrefix(" ") && !$0.hasPrefix("#") } ?? lines.count
            region = (key + 1)..<end
            guard let first = lines[region].first(where: { Self.isContent($0) }) else { return nil }
            indent = String(first.prefix { $0 == " " })
            guard !indent.isEmpty else { return nil }
            var starts: [(String, Int)] = []
            for index in region where Self.isContent(lines[index]) {
                let line = lines[index]
                guard line.hasPrefix(indent), line.dropFirst(indent.count).first != " " else { continue }
                guard let colon = line.firstIndex(of: ":") else { return nil }
                starts.append((String(line[line.index(line.startIndex, offsetBy: indent.count)..<colon]), index))
            }
            let all = lines
            entries = starts.enumerated().map { offset, start in
                var last = offset + 1 < starts.count ? starts[offset + 1].1 : end
                // A comment or blank line just above the next watch is that watch's.
                while last > start.1 + 1, !Self.isContent(all[last - 1]) { last -= 1 }
                return (start.0, start.1..<last)
            }
        }

        static func isContent(_ line: String) -> Bool {
            let trimmed = line.trimmingWhitespace()
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }

        func saving(_ entry: WatchFile.Entry) -> String? {
            let block = WatchFileEdit.block(for: entry, indent: indent).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .map(String.init)
            var edited = lines
            if let existing = entries.first(where: { $0.name == entry.name }) {
                edited.replaceSubrange(existing.lines, with: block)
            } else {
                let after = entries.last?.lines.upperBound ?? region.upperBound
                edited.insert(contentsOf: block, at: after)
            }
            return edited.joined(separator: "\n") + "\n"
        }

        func removing(_ name: String) -> String? {
            guard let existing = entries.first(where: { $0.name == name }) else { return nil }
            var edited = lines
            edited.removeSubrange(existing.lines)
            return edited.joined(separator: "\n") + "\n"
        }
    }
}
