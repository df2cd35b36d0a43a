import Foundation
import Yams

/// Builds a recipe on a bundled platform recipe (`Recipes/platforms/`): the products universities
/// run have the same pages everywhere, so a university's recipe names its product and adds only
/// what is its own.
///
/// - `login: { use: shibboleth-idp, with: { … } }` in `portal.yaml` starts from the platform's
///   login section. The platform's page rules come first, in their order; a rule of the
///   university's with the same `name` takes that rule's place, and the university's other rules
///   follow. Every other `login` key of the university's (`start`, `done_when`) wins.
/// - `use: koha/loans` in a data recipe starts from that platform recipe. The university's keys
///   win; `fields`, `options` and `actions` are merged by name, so a university changes one
///   field's XPath without writing out the rest.
///
/// `with:` fills the platform's declared `parameters` (`{{idp_url}}`) before it is read; other
/// placeholders (`{{username}}`) are left for the login.
public enum RecipeComposer {
    /// Where the bundled platform recipes are.
    public static func platformsDirectory(bundled: URL = RecipeCatalog.bundledDirectory()) -> URL {
        bundled.appendingPathComponent("platforms")
    }

    /// The bundled platforms, found once per process: every recipe file a catalog reads names
    /// it, and finding it reads `/proc/self/exe` and the file system.
    public static let bundledPlatforms = platformsDirectory()

    /// The recipe's root node with its platform merged in, and the platform's name; the node
    /// as it is when it uses none.
    static func compose(_ reader: RecipeReader, platforms: URL, kind: Kind) throws -> (Node, Composition?) {
        let top = try reader.top
        switch kind {
        case .portal:
            guard let login = try top.mappingReader("login"), let use = try login.string("use") else { return (reader.rootNode, nil) }
            let platform = try load(use, platforms: platforms, with: try login.stringMap("with") ?? [], from: login)
            guard let base = try platform.top.mappingReader("login") else {
                throw login.error("use", "the platform '\(use)' (\(platform.file)) has no login section")
            }
            var merged = mergedMapping(base: base.node, over: login.node, listsByName: ["pages"])
            merged = removing(["use", "with"], from: merged)
            let names = { (node: Node?) in (node?.sequence ?? []).compactMap { $0.mapping?["name"]?.scalar?.string } }
            let composition = Composition(
                platform: use, inherited: names(base.child("pages")), own: names(login.child("pages")), what: "rules")
            return (replacing("login", with: merged, in: reader.rootNode), composition)
        case .data:
            guard let use = try top.string("use") else { return (reader.rootNode, nil) }
            let with = try top.stringMap("with") ?? []
            let platform = try load(use, platforms: platforms, with: with, from: top)
            var merged = mergedMapping(base: platform.rootNode, over: reader.rootNode, mappingsByKey: ["fields", "options", "actions"])
            merged = removing(["use", "with", "platform", "parameters"], from: merged)
            // A per-user parameter the university's folder did not fill is each user's own value,
            // filled in at run time from the user's settings (`DataRecipe.userValues`).
            let perUser = try userParameters(of: platform).filter { name in !with.contains { $0.0 == name } }
            if !perUser.isEmpty, let mapping = merged.mapping {
                var pairs = mapping.map { ($0.key, $0.value) }
                pairs.append((Node("user_values"), Node(perUser.map { Node($0) })))
                merged = .mapping(Node.Mapping(pairs, mapping.tag, .block, mapping.mark))
            }
            let keys = { (reader: MappingReader?) in (try? reader?.mappingReader("fields"))??.keys ?? [] }
            let composition = Composition(
                platform: use, inherited: keys(try platform.top), own: keys(top), what: "fields")
            return (merged, composition)
        }
    }

    /// What a recipe took from its platform, for `recipes list`: the rules (or fields) it
    /// inherited, those it replaced by name, and its own.
    public struct Composition: Sendable, Equatable {
        public var platform: String
        public var inherited: [String]
        public var own: [String]
        public var what: String

        /// `shibboleth-idp: 8 rules from it (1 replaced), 2 of its own`.
        public var summary: String {
            let replaced = own.filter(inherited.contains).count
            let added = own.count - replaced
            return "\(platform): \(inherited.count) \(what) from it\(replaced > 0 ? " (\(replaced) replaced)" : ""), \(added) of its own"
        }
    }

    enum Kind { case portal, data }

    /// A platform file, its declared parameters filled from `with`.
    static func load(_ name: String, platforms: URL, with values: [(String, String)], from reader: MappingReader) throws -> RecipeReader {
        guard NameSyntax.isPlatformName(name) else {
            throw reader.error("use", "'\(name)' is not a platform name (such as shibboleth-idp or koha/loans)")
        }
        let file = platforms.appendingPathComponent(name + ".yaml")
        guard let raw = try? String(contentsOf: file, encoding: .utf8) else {
            throw reader.error(
                "use", "there is no platform recipe '\(name)'",
                hint: "the platforms are: \(available(in: platforms).joined(separator: ", "))")
        }
        var platform = try RecipeReader(file: file.path, text: raw)
        let declared = try platform.top.mappingReader("parameters")
        let names = declared?.keys ?? []
        for (key, value) in values {
            guard names.contains(key) else {
                throw reader.error("with", "'\(key)' is not a parameter of '\(name)' (parameters: \(names.joined(separator: ", ")))")
            }
            if let problem = withValueProblem(value) {
                throw reader.error(
                    "with", "'\(key)' \(problem)", hint: "a parameter is one line of plain text: a path, an address, an id")
            }
        }
        var text = raw
        for parameter in names {
            let given = values.first { $0.0 == parameter }?.1
            let fallback = try declared?.mappingReader(parameter)?.string("default")
            // Each user's own value (`per_user: true`), unless the folder gives one for everyone.
            if given == nil, try declared?.mappingReader(parameter)?.bool("per_user") == true { continue }
            guard let value = given ?? fallback else {
                throw reader.error(
                    "with", "missing: '\(name)' needs '\(parameter)'", hint: try declared?.mappingReader(parameter)?.string("help"))
            }
            // The value lands inside the platform's YAML text (a quoted string, or a plain one);
            // `withValueProblem` refused whatever could end that string or start a key.
            text = text.replacingOccurrences(of: "{{\(parameter)}}", with: value)
        }
        platform = try RecipeReader(file: file.path, text: text)
        return platform
    }

    /// Why a `with:` value cannot go into a platform's YAML text, or nil when it can.
    ///
    /// The value replaces `{{name}}` in the platform's text before that is read, inside a
    /// double-quoted string (`fetch: "{{feed}}"`) or a plain one (`?userid={{userid}}`). So what
    /// could end either or begin a line of its own is refused: a line break of any kind (line
    /// feed, carriage return, YAML 1.1's NEL U+0085, U+2028, U+2029) or another control
    /// character, a quote, a backslash, ` #` (a comment) and `{{` or `}}` (a placeholder the
    /// platform would fill, `{{password}}` among them).
    public static func withValueProblem(_ value: String) -> String? {
        if let bad = value.unicodeScalars.first(where: {
            TerminalText.isControl($0) || [0x85, 0x2028, 0x2029, 0x22, 0x27, 0x5C].contains($0.value)
        }) {
            return "holds '\(TerminalText.escaped(String(bad)))', which a parameter may not hold"
        }
        for sequence in [" #", "\t#", "{{", "}}"] where value.contains(sequence) {
            return "holds '\(sequence)', which a parameter may not hold"
        }
        return nil
    }

    /// A platform's parameters that are each user's own (`per_user: true`): a Moodle calendar
    /// export's user id and token.
    static func userParameters(of platform: RecipeReader) throws -> [String] {
        guard let declared = try platform.top.mappingReader("parameters") else { return [] }
        return try declared.keys.filter { try declared.mappingReader($0)?.bool("per_user") == true }
    }

    /// The platform recipes there are: `shibboleth-idp`, `koha/loans`.
    public static func available(in platforms: URL) -> [String] {
        let files = FileManager.default.enumerator(atPath: platforms.path)?.allObjects as? [String] ?? []
        return files.filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// `over`'s keys win; a key in `listsByName` is a list of mappings merged by their `name`;
    /// a key in `mappingsByKey` is a mapping merged key by key.
    static func mergedMapping(base: Node, over: Node, listsByName: Set<String> = [], mappingsByKey: Set<String> = []) -> Node {
        guard let baseMapping = base.mapping, let overMapping = over.mapping else { return over }
        var pairs: [(Node, Node)] = []
        let overKeys = Dictionary(overMapping.map { ($0.key.scalar?.string ?? "", $0.value) }, uniquingKeysWith: { first, _ in first })
        for (key, value) in baseMapping {
            let name = key.scalar?.string ?? ""
            guard let replacement = overKeys[name] else {
                pairs.append((key, value))
                continue
            }
            if listsByName.contains(name) {
                pairs.append((key, mergedList(base: value, over: replacement)))
            } else if mappingsByKey.contains(name), value.mapping != nil, replacement.mapping != nil {
                pairs.append((key, mergedEntries(base: value, over: replacement)))
            } else {
                pairs.append((key, replacement))
            }
        }
        let baseKeys = Set(baseMapping.keys.compactMap { $0.scalar?.string })
        for (key, value) in overMapping where !baseKeys.contains(key.scalar?.string ?? "") { pairs.append((key, value)) }
        return .mapping(Node.Mapping(pairs, over.mapping?.tag ?? .implicit, .block, over.mapping?.mark))
    }

    /// `fields`, `options` and `actions` of a recipe over its platform's, entry by entry: an
    /// entry of the same name merges with the platform's, its keys winning (a field's `xpath`
    /// alone keeps the platform's `type` and `format`), unless it says `replace: true`, which
    /// replaces the platform's entry whole. (A field's `replace:` with a mapping is its regex
    /// replacements, and merges as any key.)
    static func mergedEntries(base: Node, over: Node) -> Node {
        guard let baseMapping = base.mapping, let overMapping = over.mapping else { return over }
        let baseEntries = Dictionary(baseMapping.map { ($0.key.scalar?.string ?? "", $0.value) }, uniquingKeysWith: { first, _ in first })
        var pairs: [(Node, Node)] = []
        for (key, value) in baseMapping {
            let name = key.scalar?.string ?? ""
            guard let entry = overMapping.first(where: { $0.key.scalar?.string == name })?.value else {
                pairs.append((key, value))
                continue
            }
            pairs.append((key, merged(entry: entry, over: value)))
        }
        for (key, value) in overMapping where baseEntries[key.scalar?.string ?? ""] == nil {
            pairs.append((key, removingWholeReplacement(value)))
        }
        return .mapping(Node.Mapping(pairs, over.mapping?.tag ?? .implicit, .block, over.mapping?.mark))
    }

    /// One entry over the platform's: merged key by key, or, with `replace: true`, itself alone.
    private static func merged(entry: Node, over platformEntry: Node) -> Node {
        guard entry.mapping != nil, platformEntry.mapping != nil else { return entry }
        if replacesWhole(entry) { return removingWholeReplacement(entry) }
        return mergedMapping(base: platformEntry, over: entry)
    }

    private static func replacesWhole(_ entry: Node) -> Bool {
        entry.mapping?["replace"]?.scalar.map { ["true", "yes"].contains($0.string.lowercased()) } ?? false
    }

    private static func removingWholeReplacement(_ entry: Node) -> Node {
        replacesWhole(entry) ? removing(["replace"], from: entry) : entry
    }

    /// The base's items in order, each replaced by the item of the same `name` in `over`, then
    /// `over`'s other items.
    static func mergedList(base: Node, over: Node) -> Node {
        guard let baseItems = base.sequence, let overItems = over.sequence else { return over }
        func name(_ node: Node) -> String? { node.mapping?["name"]?.scalar?.string }
        var used = Set<String>()
        var items: [Node] = []
        for item in baseItems {
            if let itemName = name(item), let replacement = overItems.first(where: { name($0) == itemName }) {
                items.append(replacement)
                used.insert(itemName)
            } else {
                items.append(item)
            }
        }
        items += overItems.filter { name($0).map { !used.contains($0) } ?? true }
        return .sequence(Node.Sequence(items, over.sequence?.tag ?? .implicit, .block, over.sequence?.mark))
    }

    static func removing(_ keys: Set<String>, from node: Node) -> Node {
        guard let mapping = node.mapping else { return node }
        let pairs = mapping.filter { !keys.contains($0.key.scalar?.string ?? "") }.map { ($0.key, $0.value) }
        return .mapping(Node.Mapping(pairs, mapping.tag, .block, mapping.mark))
    }

    static func replacing(_ key: String, with value: Node, in node: Node) -> Node {
        guard let mapping = node.mapping else { return node }
        let pairs = mapping.map { ($0.key, $0.key.scalar?.string == key ? value : $0.value) }
        return .mapping(Node.Mapping(pairs, mapping.tag, .block, mapping.mark))
    }
}
