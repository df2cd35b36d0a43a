import Foundation
import Yams

/// Builds a recipe on a bundled platform recipe (`Recipes/platforms/`): the products universities
/// run have the same pages everywhere, so a university's recipe names its product and adds only
/// what is its own.
///
/// - `login: { use: shibboleth-idp, with: { … } }` in `portal.yaml` starts from the platform's
///   login section (`use: [oidc, keycloak]`: from each listed platform's, in that order). The
///   university's own page rules come first, then the platform's, in their order; a rule of the
///   university's with the same `name` replaces the platform's. A university's rule is about its
///   own pages and knows more than the product's general rule does. Every other `login` key of
///   the university's (`start`, `done_when`) wins. `LoginRecipe` then moves every rule that
///   sends a secret after every rule that does not (`PageRule.triedOrder`), so that an error
///   page that also shows the form stops the login before the password goes out.
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
            guard let login = try top.mappingReader("login"), let uses = try platformNames(in: login) else { return (reader.rootNode, nil) }
            let with = try login.stringMap("with") ?? []
            var base: Node?
            var ruleOrigins: [String: String] = [:]
            var inherited: [String] = []
            var declaredAnywhere: Set<String> = []
            for use in uses {
                // With several platforms, each takes the `with:` values it declares.
                let declared = try parameterNames(of: use, platforms: platforms)
                declaredAnywhere.formUnion(declared)
                let given = uses.count == 1 ? with : with.filter { declared.contains($0.0) }
                let platform = try load(use, platforms: platforms, with: given, from: login)
                guard let section = try platform.top.mappingReader("login") else {
                    throw login.error("use", localized("the platform '\(use)' (\(platform.file)) has no login section"))
                }
                for name in ruleNames(section.child("pages")) {
                    if ruleOrigins[name] == nil { inherited.append(name) }
                    ruleOrigins[name] = use
                }
                base = base.map { mergedMapping(base: $0, over: section.node, listsByName: ["pages"]) } ?? section.node
            }
            if let unknown = with.first(where: { !declaredAnywhere.contains($0.0) }) {
                let used = uses.map { "'\($0)'" }.joined(separator: " or ")
                throw login.error("with", localized("'\(unknown.0)' is not a parameter of \(used)"))
            }
            guard let base else { return (reader.rootNode, nil) }
            var merged = mergedMapping(base: base, over: login.node, listsByName: ["pages"], ownFirst: true)
            merged = removing(["use", "with"], from: merged)
            let composition = Composition(
                platform: uses.joined(separator: " + "), inherited: inherited, own: ruleNames(login.child("pages")), what: "rules",
                ruleOrigins: ruleOrigins)
            return (replacing("login", with: merged, in: reader.rootNode), composition)
        case .data:
            guard let use = try top.string("use") else { return (reader.rootNode, nil) }
            let with = try top.stringMap("with") ?? []
            let platform = try load(use, platforms: platforms, with: with, from: top)
            if let fields = try top.mappingReader("fields") {
                for name in fields.keys {
                    guard let field = try fields.mappingReader(name), field.child("extends") != nil else { continue }
                    guard let extends = try field.bool("extends") else { continue }
                    if extends, field.child("replace")?.scalar != nil, try field.bool("replace") == true {
                        throw field.error(
                            "extends", localized("'extends: true' keeps the platform's field, 'replace: true' drops it: say one"))
                    }
                }
            }
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
            var composition = Composition(
                platform: use, inherited: keys(try platform.top), own: keys(top), what: "fields")
            composition.warnings = mixedOverrides(base: platform.rootNode.mapping?["fields"], over: reader.rootNode.mapping?["fields"])
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
        /// The platform each inherited rule came from, by rule name (a later platform's rule of
        /// the same name replaced an earlier's), for `recipes lint --explain`.
        public var ruleOrigins: [String: String] = [:]
        /// What `recipes lint` points out about the composition (a field that mixes its own
        /// extraction keys with the platform's).
        public var warnings: [String] = []

        /// `shibboleth-idp: 8 rules from it (1 replaced), 2 of its own`.
        public var summary: String {
            let replaced = own.filter(inherited.contains).count
            let added = own.count - replaced
            return "\(platform): \(inherited.count) \(what) from it\(replaced > 0 ? " (\(replaced) replaced)" : ""), \(added) of its own"
        }
    }

    enum Kind { case portal, data }

    /// `login.use`: one platform's name, or a list of them (`use: [oidc, keycloak]`: the
    /// protocol's rules and the product's pages), or nil when the login uses none.
    static func platformNames(in login: MappingReader) throws -> [String]? {
        guard let names = try login.stringList("use") else { return nil }
        guard !names.isEmpty else {
            throw login.error("use", localized("name a platform (use: cas) or a list of them (use: [oidc, keycloak])"))
        }
        guard Set(names).count == names.count else { throw login.error("use", localized("names a platform twice")) }
        return names
    }

    /// The parameters a platform declares, read without filling them.
    static func parameterNames(of name: String, platforms: URL) throws -> [String] {
        guard NameSyntax.isPlatformName(name),
            let raw = try? String(contentsOf: platforms.appendingPathComponent(name + ".yaml"), encoding: .utf8)
        else { return [] }
        return (try RecipeReader(file: name, text: raw).top.mappingReader("parameters"))?.keys ?? []
    }

    /// The `name`s of a list of page rules, in order.
    static func ruleNames(_ node: Node?) -> [String] {
        (node?.sequence ?? []).compactMap { $0.mapping?["name"]?.scalar?.string }
    }

    /// A platform file, its declared parameters filled from `with`.
    static func load(_ name: String, platforms: URL, with values: [(String, String)], from reader: MappingReader) throws -> RecipeReader {
        guard NameSyntax.isPlatformName(name) else {
            throw reader.error("use", localized("'\(name)' is not a platform name (such as shibboleth-idp or koha/loans)"))
        }
        let file = platforms.appendingPathComponent(name + ".yaml")
        guard let raw = try? String(contentsOf: file, encoding: .utf8) else {
            let list = available(in: platforms).joined(separator: ", ")
            throw reader.error("use", localized("there is no platform recipe '\(name)'"), hint: localized("the platforms are: \(list)"))
        }
        var platform = try RecipeReader(file: file.path, text: raw)
        let declared = try platform.top.mappingReader("parameters")
        let names = declared?.keys ?? []
        for (key, value) in values {
            guard names.contains(key) else {
                let list = names.joined(separator: ", ")
                throw reader.error("with", localized("'\(key)' is not a parameter of '\(name)' (parameters: \(list))"))
            }
            if let problem = withValueProblem(value) {
                throw reader.error(
                    "with", "'\(key)' \(problem)", hint: localized("a parameter is one line of plain text: a path, an address, an id"))
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
                    "with", localized("missing: '\(name)' needs '\(parameter)'"),
                    hint: try declared?.mappingReader(parameter)?.string("help"))
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
            let shown = TerminalText.escaped(String(bad))
            return localized("holds '\(shown)', which a parameter may not hold")
        }
        for sequence in [" #", "\t#", "{{", "}}"] where value.contains(sequence) {
            return localized("holds '\(sequence)', which a parameter may not hold")
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
    /// With `ownFirst`, a list merged by name puts `over`'s items first (a portal's own login
    /// rules before its platform's; see `mergedList`).
    static func mergedMapping(
        base: Node, over: Node, listsByName: Set<String> = [], mappingsByKey: Set<String> = [], ownFirst: Bool = false
    ) -> Node {
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
                pairs.append((key, ownFirst ? ownFirstList(base: value, over: replacement) : mergedList(base: value, over: replacement)))
            } else if mappingsByKey.contains(name), value.mapping != nil, replacement.mapping != nil {
                pairs.append((key, mergedEntries(base: value, over: replacement, readsValues: name == "fields")))
            } else {
                pairs.append((key, replacement))
            }
        }
        let baseKeys = Set(baseMapping.keys.compactMap { $0.scalar?.string })
        for (key, value) in overMapping where !baseKeys.contains(key.scalar?.string ?? "") { pairs.append((key, value)) }
        return .mapping(Node.Mapping(pairs, over.mapping?.tag ?? .implicit, .block, over.mapping?.mark))
    }

    /// `fields`, `options` and `actions` of a recipe over its platform's, entry by entry: an
    /// entry of the same name merges with the platform's, its keys winning, unless it says
    /// `replace: true`, which replaces the platform's entry whole. A field that gives its own
    /// `xpath` also gives its own extraction chain (`merged(entry:over:readsValue:)`). (A
    /// field's `replace:` with a mapping is its regex replacements, and merges as any key.)
    static func mergedEntries(base: Node, over: Node, readsValues: Bool = false) -> Node {
        guard let baseMapping = base.mapping, let overMapping = over.mapping else { return over }
        let baseEntries = Dictionary(baseMapping.map { ($0.key.scalar?.string ?? "", $0.value) }, uniquingKeysWith: { first, _ in first })
        var pairs: [(Node, Node)] = []
        for (key, value) in baseMapping {
            let name = key.scalar?.string ?? ""
            guard let entry = overMapping.first(where: { $0.key.scalar?.string == name })?.value else {
                pairs.append((key, value))
                continue
            }
            pairs.append((key, merged(entry: entry, over: value, readsValue: readsValues)))
        }
        // A new entry keeps an `extends:` of its own: there is nothing to extend, which the
        // loader says.
        for (key, value) in overMapping where baseEntries[key.scalar?.string ?? ""] == nil {
            pairs.append((key, removingWholeReplacement(value)))
        }
        return .mapping(Node.Mapping(pairs, over.mapping?.tag ?? .implicit, .block, over.mapping?.mark))
    }

    /// The keys that say how a field's value is read from the page, in the order the engine
    /// applies them: where (`xpath`, `list`, `compute`), what part (`regex`, `replace`, `html`),
    /// and as what (`type`, `format`, `timezone`, `map`, `decimals`, `flag`).
    static let extractionKeys: Set<String> = [
        "xpath", "list", "compute", "regex", "replace", "html", "type", "format", "timezone", "map", "decimals", "flag",
    ]

    /// One entry over the platform's: merged key by key, or, with `replace: true`, itself alone.
    /// A field that gives its own `xpath` reads its own way: the platform's `regex`, `format` and
    /// the rest of its extraction chain (`extractionKeys`) were written for the platform's
    /// element and are dropped, unless the field says `extends: true`. Its other keys (`key`,
    /// `required`, `priority`) are still the platform's unless it gives its own.
    private static func merged(entry: Node, over platformEntry: Node, readsValue: Bool) -> Node {
        guard entry.mapping != nil, platformEntry.mapping != nil else { return entry }
        if replacesWhole(entry) { return removingWholeReplacement(entry) }
        guard readsValue else { return mergedMapping(base: platformEntry, over: entry) }
        let extends = entry.mapping?["extends"]?.scalar.map { ["true", "yes", "on"].contains($0.string.lowercased()) } ?? false
        let own = removing(["extends"], from: entry)
        guard !extends, entry.mapping?["xpath"] != nil else { return mergedMapping(base: platformEntry, over: own) }
        return mergedMapping(base: removing(extractionKeys, from: platformEntry), over: own)
    }

    /// Fields that mix extraction keys of their own with the platform's without saying
    /// `extends: true` (a `format` of their own over the platform's `xpath` and `regex`): what
    /// `recipes lint` warns about, since the platform's parts may change under them.
    static func mixedOverrides(base: Node?, over: Node?) -> [String] {
        guard let baseFields = base?.mapping, let overFields = over?.mapping else { return [] }
        return overFields.compactMap { key, entry -> String? in
            guard let name = key.scalar?.string, let platformEntry = baseFields[key]?.mapping, let mapping = entry.mapping,
                !replacesWhole(entry), mapping["extends"] == nil
            else { return nil }
            let ownKeys = mapping.keys.compactMap { $0.scalar?.string }.filter(extractionKeys.contains)
            if mapping["xpath"] != nil {
                // Its own xpath reads text unless it says what the value is: a date the
                // platform typed would silently become a string.
                let dropped = ["type", "format"].filter { platformEntry[Node($0)] != nil && !ownKeys.contains($0) }
                guard !dropped.isEmpty else { return nil }
                let what = dropped.map { key in "\(key): \(platformEntry[Node(key)]?.scalar?.string ?? "…")" }.joined(separator: ", ")
                let keys = dropped.joined(separator: " and ")
                return localized(
                    "field '\(name)' gives its own xpath, so the platform's \(what) no longer applies: give its own \(keys), or say 'extends: true' to keep the platform's"
                )
            }
            let inherited = platformEntry.keys.compactMap { $0.scalar?.string }.filter {
                extractionKeys.contains($0) && !ownKeys.contains($0)
            }
            guard !ownKeys.isEmpty, !inherited.isEmpty else { return nil }
            let own = ownKeys.joined(separator: ", ")
            let theirs = inherited.joined(separator: ", ")
            return localized(
                "field '\(name)' gives its own \(own) over the platform's \(theirs): say 'extends: true' if that is meant, or give its own xpath to read the value your own way"
            )
        }
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

    /// `over`'s items, then the base's items that `over` has no item of the same `name` for: a
    /// portal's own login rules are tried before its platform's, and one of the same name takes
    /// the platform's rule's place by leaving it out. (`LoginRecipe` then tries every rule that
    /// sends a secret after every rule that does not: `PageRule.triedOrder`.)
    static func ownFirstList(base: Node, over: Node) -> Node {
        guard let baseItems = base.sequence, let overItems = over.sequence else { return over }
        func name(_ node: Node) -> String? { node.mapping?["name"]?.scalar?.string }
        let own = Set(overItems.compactMap(name))
        let items = Array(overItems) + baseItems.filter { name($0).map { !own.contains($0) } ?? true }
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
