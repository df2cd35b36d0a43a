import Foundation

/// What changed between two answers of the same recipe: records added, removed, and changed
/// field by field. A pure decision, kept apart from the history that stores the answers.
///
/// Records are matched by their key fields (`key: true` in the recipe: a grade's term and code,
/// a loan's barcode), so that a grade that goes from "" to "A-" is one `changed` record, not a
/// removal and an addition. Content is always compared in full, never a date alone: a grade
/// released with an old date is still a change. A recipe without keys matches records by their
/// whole content, so that any edit is a removal and an addition.
public struct RecordChanges: Sendable, Equatable {
    public enum Change: Sendable, Equatable {
        case added(key: String, record: Record)
        case removed(key: String, record: Record)
        case changed(key: String, record: Record, fields: [FieldChange])

        public var key: String {
            switch self {
            case .added(let key, _), .removed(let key, _), .changed(let key, _, _): return key
            }
        }

        /// `added`, `removed` or `changed`: the event's name.
        public var kind: String {
            switch self {
            case .added: return "added"
            case .removed: return "removed"
            case .changed: return "changed"
            }
        }

        /// The record as it is now (for a removal, as it was).
        public var record: Record {
            switch self {
            case .added(_, let record), .removed(_, let record), .changed(_, let record, _): return record
            }
        }
    }

    public struct FieldChange: Sendable, Equatable, Codable {
        public var field: String
        public var old: FieldValue
        public var new: FieldValue

        public init(field: String, old: FieldValue, new: FieldValue) {
            self.field = field
            self.old = old
            self.new = new
        }
    }

    public var changes: [Change]

    public var isEmpty: Bool { changes.isEmpty }

    /// The changes from `old` to `new`, in `new`'s order, then the removals in `old`'s order.
    /// - Parameter comparisons: fields not compared in full, from the recipe's `compare:`.
    public init(from old: RecordSet, to new: RecordSet, keys: [String], comparisons: [String: FieldSpec.Comparison] = [:]) {
        let oldByKey = Dictionary(old.records.map { (Self.key(of: $0, keys: keys), $0) }, uniquingKeysWith: { first, _ in first })
        let newKeys = Set(new.records.map { Self.key(of: $0, keys: keys) })
        var changes: [Change] = []
        var seen = Set<String>()
        for record in new.records {
            let key = Self.key(of: record, keys: keys)
            guard seen.insert(key).inserted else { continue }
            guard let before = oldByKey[key] else {
                changes.append(.added(key: key, record: record))
                continue
            }
            let names = new.columns + old.columns.filter { !new.columns.contains($0) }
            let fields = names.compactMap { name -> FieldChange? in
                let was = before[name] ?? .null
                let now = record[name] ?? .null
                switch comparisons[name] ?? .full {
                case .ignored: return nil
                case .path: if Self.pathAndQuery(was) == Self.pathAndQuery(now) { return nil }
                case .full: break
                }
                return was == now ? nil : FieldChange(field: name, old: was, new: now)
            }
            if !fields.isEmpty { changes.append(.changed(key: key, record: record, fields: fields)) }
        }
        var removed = Set<String>()
        for record in old.records {
            let key = Self.key(of: record, keys: keys)
            if !newKeys.contains(key), removed.insert(key).inserted { changes.append(.removed(key: key, record: record)) }
        }
        self.changes = changes
    }

    /// A URL without its scheme, host and port: what `compare: path` compares.
    static func pathAndQuery(_ value: FieldValue) -> String {
        guard let components = URLComponents(string: value.text), components.host != nil else { return value.text }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// A record's identity: its key fields' values (`2026-fall/MATH-301`), or its whole content.
    public static func key(of record: Record, keys: [String]) -> String {
        guard !keys.isEmpty else { return JSONRenderer.object(record) }
        return keys.map { record[$0]?.text ?? "" }.joined(separator: "/")
    }
}
