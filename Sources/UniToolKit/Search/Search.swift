import Foundation

/// `unitool search QUERY`: every record the history holds (the latest answer of each command),
/// and the portal's own command and option names, matched with `TextMatcher`. Offline by nature.
public enum Search {
    /// One thing that can be found.
    public struct Item: Sendable, Equatable {
        /// `record`, `command` or `option`.
        public var kind: String
        public var command: String
        /// What is shown: a record's fields, a command's summary.
        public var text: String
        public var key: String?
        /// The normalised words that are matched.
        public var words: [String]

        public init(kind: String, command: String, text: String, key: String? = nil) {
            self.kind = kind
            self.command = command
            self.text = text
            self.key = key
            self.words = TextMatcher.words(command + " " + text)
        }
    }

    public struct Hit: Sendable, Equatable {
        public var item: Item
        /// The weakest of the query words' matches: how sure the hit is.
        public var quality: TextMatcher.Quality
        public var score: Int
    }

    /// The items for a portal and user: the latest answer of each recipe command and options in
    /// the history (the user's and the public ones), then the commands and their options.
    public static func items(catalog: RecipeCatalog, portal: String, user: String, history: HistoryStore?) throws -> [Item] {
        var items: [Item] = []
        var seen = Set<String>()
        let recipes = catalog.dataRecipes[portal] ?? [:]
        for run in try history?.latestAnswers(portal: portal, users: [user, ""]) ?? [] {
            guard let recipe = recipes[run.recipe] else { continue }
            let fields = recipe.sources.flatMap(\.fields)
            let records = try HistoryCodec.records(run.run.recordsJSON, columns: run.run.columns, fields: fields)
            for record in records.records {
                let text = record.fields.compactMap { field -> String? in
                    switch field.value {
                    case .null, .bool, .url: return nil
                    default: return field.value.text.isEmpty ? nil : field.value.text
                    }
                }.joined(separator: " · ")
                let key = RecordChanges.key(of: record, keys: recipe.keyFields)
                guard seen.insert(run.recipe + "\u{1F}" + key).inserted else { continue }
                items.append(Item(kind: "record", command: run.recipe, text: text, key: recipe.keyFields.isEmpty ? nil : key))
            }
        }
        for recipe in recipes.values.sorted(by: { $0.command < $1.command }) {
            items.append(Item(kind: "command", command: recipe.command, text: recipe.summary))
            for option in recipe.options {
                items.append(Item(kind: "option", command: recipe.command, text: "--\(option.name) " + (option.help ?? "")))
            }
        }
        return items
    }

    /// The items with their words numbered, built once: each query then compares each distinct
    /// word once, and every item is a walk over small integers. A front end that searches on every
    /// keystroke keeps one.
    public struct Index: Sendable {
        public let items: [Item]
        /// Each distinct word once, as the scalars it is compared by.
        let vocabulary: [[Unicode.Scalar]]
        let itemWords: [[Int32]]

        public init(_ items: [Item]) {
            var ids: [String: Int32] = [:]
            var vocabulary: [[Unicode.Scalar]] = []
            itemWords = items.map { item in
                item.words.map { word in
                    if let id = ids[word] { return id }
                    let id = Int32(vocabulary.count)
                    ids[word] = id
                    vocabulary.append(Array(word.unicodeScalars))
                    return id
                }
            }
            self.items = items
            self.vocabulary = vocabulary
        }
    }

    /// The items that match every word of the query, best first: exact before prefix before
    /// fuzzy, fewer typos first, then records before names.
    public static func search(_ query: String, in items: [Item], limit: Int = defaultLimit) -> [Hit] {
        search(query, in: Index(items), limit: limit)
    }

    public static func search(_ query: String, in index: Index, limit: Int = defaultLimit) -> [Hit] {
        let queryWords = TextMatcher.words(query)
        guard !queryWords.isEmpty else { return [] }
        // Each query word against each distinct word, once.
        var scratch = TextMatcher.Scratch()
        let matches = queryWords.map { queryWord in
            let query = TextMatcher.QueryWord(queryWord)
            return index.vocabulary.map { query.match($0, scratch: &scratch) }
        }
        var hits: [Hit] = []
        for (position, words) in index.itemWords.enumerated() {
            var score = 0
            var weakest = TextMatcher.Quality.exact
            var matchedAll = true
            for table in matches {
                guard let best = TextMatcher.best(of: words.lazy.map { table[Int($0)] }) else {
                    matchedAll = false
                    break
                }
                score += best.quality.rawValue * 10 - best.distance
                weakest = min(weakest, best.quality)
            }
            if matchedAll { hits.append(Hit(item: index.items[position], quality: weakest, score: score)) }
        }
        hits.sort {
            ($0.quality, $0.score, $0.item.kind == "record" ? 1 : 0) > ($1.quality, $1.score, $1.item.kind == "record" ? 1 : 0)
        }
        return Array(hits.prefix(limit))
    }

    /// Hits as records, for the usual output formats.
    public static func recordSet(_ hits: [Hit]) -> RecordSet {
        RecordSet(
            columns: ["kind", "command", "match", "text", "key"],
            records: hits.map { hit in
                Record(fields: [
                    ("kind", .string(hit.item.kind)), ("command", .string(hit.item.command)),
                    ("match", .string(String(describing: hit.quality))), ("text", .string(hit.item.text)),
                    ("key", hit.item.key.map(FieldValue.string) ?? .null),
                ])
            })
    }
}

extension Search {
    /// How many results a search gives unless asked for another number, on every front end.
    public static let defaultLimit = 20
}
