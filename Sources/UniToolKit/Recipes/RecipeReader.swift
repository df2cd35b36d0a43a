import Yams

/// Reads one YAML recipe file and remembers where every key stands, so that any mistake is
/// reported as `file:line: key: problem` before unitool sends a single request.
struct RecipeReader {
    let file: String
    private let root: Node

    /// The largest recipe file unitool reads: a recipe is a page of YAML, and a limit keeps a
    /// hostile pack from stalling every command that loads its folder.
    static let maximumFileBytes = 1024 * 1024

    init(file: String, text: String) throws {
        self.file = file
        guard text.utf8.count <= Self.maximumFileBytes else {
            throw UniToolError(
                .recipeInvalid, localized("\(file): \(text.utf8.count) bytes is more than a recipe may have (\(Self.maximumFileBytes))"))
        }
        do {
            // The parser is kept until the check below: Yams holds a node's anchor weakly.
            // Scalars are read as the text they are (`bool`, `integer` here decide what they
            // mean), so Yams is not asked to resolve tags: its default resolver matches every
            // scalar against ICU regular expressions, a sixth of loading the recipes.
            // UTF-8 named, not Yams' default: that default reads the whole environment on every
            // parse (a tenth of reading a recipe), and with YAMS_DEFAULT_ENCODING set, prints a
            // line to stdout, where JSON and JSON-RPC answers go.
            let parser = try Parser(yaml: text, resolver: .basic, encoding: .utf8)
            guard let node = try parser.singleRoot() else {
                throw UniToolError(.recipeInvalid, localized("\(file): the recipe is empty"))
            }
            if let anchored = Self.firstAnchoredNode(in: node) {
                throw Self.anchorError(file: file, node: anchored)
            }
            self.root = node
            withExtendedLifetime(parser) {}
        } catch let error as YamlError {
            throw UniToolError(
                .recipeInvalid, localized("\(file): not valid YAML: \(Self.describe(error))"),
                hint: localized("check the indentation and quoting near that line"))
        }
    }

    /// The first node, in document order, that carries an anchor (`&name`) or is an alias
    /// (`*name`, which Yams resolves to a copy that keeps the anchor). Anchors and aliases are
    /// refused: a few kilobytes of nested aliases stand for billions of nodes. The walk stops
    /// at the first one, so it visits each node of the text at most once.
    static func firstAnchoredNode(in node: Node) -> Node? {
        switch node {
        case .scalar(let scalar): return scalar.anchor == nil ? nil : node
        case .alias: return node
        case .sequence(let sequence):
            if sequence.anchor != nil { return node }
            for child in sequence { if let found = firstAnchoredNode(in: child) { return found } }
            return nil
        case .mapping(let mapping):
            if mapping.anchor != nil { return node }
            for (key, value) in mapping {
                if let found = firstAnchoredNode(in: key) ?? firstAnchoredNode(in: value) { return found }
            }
            return nil
        }
    }

    static func anchorError(file: String, node: Node) -> UniToolError {
        let line = node.mark.map { ":\($0.line)" } ?? ""
        return UniToolError(
            .recipeInvalid, localized("\(file)\(line): YAML anchors and aliases (&name, *name) are not allowed in recipes"),
            hint: localized("write the value out in full; a few nested aliases can stand for billions of values"))
    }

    /// A reader over a node built from others (a recipe merged with its platform's).
    init(file: String, root: Node) {
        self.file = file
        self.root = root
    }

    var rootNode: Node { root }

    var top: MappingReader {
        get throws { try MappingReader(reader: self, node: root, path: "") }
    }

    func error(_ node: Node?, _ path: String, _ problem: String, hint: String? = nil) -> UniToolError {
        let line = node?.mark.map { ":\($0.line)" } ?? ""
        let key = path.isEmpty ? "" : " \(path):"
        return UniToolError(.recipeInvalid, "\(file)\(line):\(key) \(problem)", hint: hint)
    }

    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return localized("line \(mark.line), column \(mark.column): \(problem)")
        default:
            return String(describing: error).split(separator: "\n").first.map(String.init) ?? localized("unknown")
        }
    }
}

/// A YAML mapping inside a recipe, with typed accessors that fail with the key's location.
struct MappingReader {
    let reader: RecipeReader
    let node: Node
    let path: String
    private let mapping: Node.Mapping

    init(reader: RecipeReader, node: Node, path: String) throws {
        guard let mapping = node.mapping else {
            throw reader.error(node, path, localized("expected a mapping of keys to values"))
        }
        self.reader = reader
        self.node = node
        self.path = path
        self.mapping = mapping
        var index: [String: Node] = [:]
        for (key, value) in mapping {
            if let name = key.scalar?.string, index[name] == nil { index[name] = value }
        }
        self.index = index
    }

    /// The values by key. Yams looks a key up by walking the mapping, which made reading a
    /// mapping of n keys cost n² (a 540 KB recipe took 6 s to lint).
    private let index: [String: Node]

    /// The keys in file order.
    var keys: [String] { mapping.keys.compactMap { $0.scalar?.string } }

    func child(_ key: String) -> Node? { index[key] }

    /// The 1-based line of a key's value in the file, for messages that point at a setting.
    func line(of key: String) -> Int? { child(key)?.mark.map { $0.line } }

    private func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Refuses keys the format does not know, and suggests the nearest known one: a typo in a
    /// recipe must never be silently ignored.
    func allowOnly(_ known: [String]) throws {
        for keyNode in mapping.keys {
            guard let key = keyNode.scalar?.string, !known.contains(key) else { continue }
            let list = known.joined(separator: ", ")
            let hint = typoSuggestion(for: key, among: known).map { localized("did you mean '\($0)'?") } ?? localized("known keys: \(list)")
            throw reader.error(keyNode, keyPath(key), localized("unknown key"), hint: hint)
        }
    }

    func string(_ key: String) throws -> String? {
        guard let value = child(key) else { return nil }
        guard let scalar = value.scalar else {
            throw reader.error(value, keyPath(key), localized("expected a single value, not a list or mapping"))
        }
        return scalar.string
    }

    func requiredString(_ key: String) throws -> String {
        guard let value = try string(key) else {
            throw reader.error(node, keyPath(key), localized("missing (this key is required)"))
        }
        guard !value.isEmpty else { throw reader.error(child(key), keyPath(key), localized("must not be empty")) }
        return value
    }

    func bool(_ key: String) throws -> Bool? {
        guard let text = try string(key) else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw reader.error(child(key), keyPath(key), localized("expected true or false, found '\(text)'"))
        }
    }

    func integer(_ key: String) throws -> Int? {
        guard let text = try string(key) else { return nil }
        guard let value = Int(text) else {
            throw reader.error(child(key), keyPath(key), localized("expected a whole number, found '\(text)'"))
        }
        return value
    }

    /// A value that must name one of a fixed set of words.
    func choice<T: RawRepresentable>(_ key: String, of type: T.Type) throws -> T?
    where T.RawValue == String, T: CaseIterable {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text) else {
            let known = T.allCases.map(\.rawValue)
            let nearest = typoSuggestion(for: text, among: known)
            let list = known.joined(separator: ", ")
            throw reader.error(
                child(key), keyPath(key), localized("'\(text)' is not one of \(list)"),
                hint: nearest.map { localized("did you mean '\($0)'?") })
        }
        return value
    }

    func stringList(_ key: String) throws -> [String]? {
        guard let value = child(key) else { return nil }
        if let scalar = value.scalar { return [scalar.string] }
        guard let sequence = value.sequence else {
            throw reader.error(value, keyPath(key), localized("expected a list of values"))
        }
        return try sequence.map { item in
            guard let scalar = item.scalar else {
                throw reader.error(item, keyPath(key), localized("expected a list of plain values"))
            }
            return scalar.string
        }
    }

    /// A mapping of names to plain values, in file order.
    func stringMap(_ key: String) throws -> [(String, String)]? {
        guard child(key) != nil else { return nil }
        let nested = try entry(key)
        return try nested.keys.map { name in (name, try nested.requiredString(name)) }
    }

    /// Like `stringMap`, but an empty value is allowed: a replacement with nothing, an empty field.
    func stringMapAllowingEmpty(_ key: String) throws -> [(String, String)]? {
        guard child(key) != nil else { return nil }
        let nested = try entry(key)
        return try nested.keys.map { name in (name, try nested.string(name) ?? "") }
    }

    /// `headers:` of a portal, service or data recipe: request headers by name, each checked
    /// (`RecipeHeaders.problem`) when the recipe is read, so that `recipes lint` names it.
    func headers(_ key: String = "headers") throws -> [RecipeHeaders.Header] {
        try (stringMapAllowingEmpty(key) ?? []).map { name, value in
            if let problem = RecipeHeaders.problem(name: name, value: value) { throw error(key, problem) }
            return RecipeHeaders.Header(name: name, value: value)
        }
    }

    func mappingReader(_ key: String) throws -> MappingReader? {
        guard let value = child(key) else { return nil }
        return try MappingReader(reader: reader, node: value, path: keyPath(key))
    }

    /// The mapping under a key this reader lists (one of `keys`): there by construction, and a
    /// recipe error rather than a crash if it ever is not.
    func entry(_ key: String) throws -> MappingReader {
        guard let nested = try mappingReader(key) else { throw error(key, localized("is missing")) }
        return nested
    }

    func list(_ key: String) throws -> [MappingReader]? {
        guard let value = child(key) else { return nil }
        guard let sequence = value.sequence else {
            throw reader.error(value, keyPath(key), localized("expected a list"))
        }
        return try sequence.enumerated().map { index, item in
            try MappingReader(reader: reader, node: item, path: "\(keyPath(key))[\(index)]")
        }
    }

    /// An XPath expression, compiled once to check its syntax.
    func xpath(_ key: String) throws -> String? {
        guard let expression = try string(key) else { return nil }
        do {
            try XPathSyntax.check(expression)
        } catch {
            throw reader.error(child(key), keyPath(key), "\(error)")
        }
        return expression
    }

    func requiredXPath(_ key: String) throws -> String {
        guard let value = try xpath(key) else {
            throw reader.error(node, keyPath(key), localized("missing (this key is required)"))
        }
        return value
    }

    func error(_ key: String, _ problem: String, hint: String? = nil) -> UniToolError {
        reader.error(child(key) ?? node, keyPath(key), problem, hint: hint)
    }
}

/// The distance of two names for "did you mean": insertions, deletions, substitutions and a swap
/// of neighbours each count one (`--trem` is one from `--term`). The search's distance, so that
/// one measure of a typo serves the whole tool. Both are made NFC first, since the distance
/// counts Unicode scalars: a decomposed `café` is no typo of a composed one.
public func editDistance(_ a: String, _ b: String) -> Int {
    TextMatcher.damerauLevenshtein(a.precomposedStringWithCanonicalMapping, b.precomposedStringWithCanonicalMapping)
}

/// The name a user most likely meant by `typed`, or nil when none is close enough to be a typo
/// of it: at most one edit in a name of up to 5 characters, two up to 10, three beyond (dashes
/// not counted). Among equals, the one that holds every character typed, in order (a letter left
/// out: `--portl` is `--portal`, not `--port`), then the first given.
public func typoSuggestion(for typed: String, among candidates: [String]) -> String? {
    let word = typed.lowercased()
    let letters = word.drop { $0 == "-" }.count
    let limit = letters <= 5 ? 1 : letters <= 10 ? 2 : 3
    func holdsInOrder(_ candidate: String) -> Bool {
        var rest = Substring(candidate.lowercased())
        for character in word {
            guard let found = rest.firstIndex(of: character) else { return false }
            rest = rest[rest.index(after: found)...]
        }
        return true
    }
    let scored = candidates.map { (name: $0, distance: editDistance($0.lowercased(), word)) }.filter { $0.distance <= limit }
    guard let best = scored.map(\.distance).min() else { return nil }
    let closest = scored.filter { $0.distance == best }.map(\.name)
    return closest.first(where: holdsInOrder) ?? closest.first
}
