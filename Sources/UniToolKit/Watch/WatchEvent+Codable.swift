import Foundation

extension WatchEvent: Codable {
    private struct Stored: Codable {
        var kind: String
        var portal: String
        var user: String
        var command: String
        var options: String
        var time: Date
        var key: String?
        var record: Record?
        var changes: [RecordChanges.FieldChange]
        var errorKind: String?
        var errorMessage: String?
        var errorHint: String?
        /// The summary as written when the event happened; absent in events kept by older versions.
        var summary: String?
    }

    public init(from decoder: any Decoder) throws {
        let stored = try Stored(from: decoder)
        guard let kind = Kind(rawValue: stored.kind) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no event kind '\(stored.kind)'"))
        }
        let error = stored.errorKind.map { kind in
            UniToolError(UniToolError.Kind(rawValue: kind) ?? .internal, stored.errorMessage ?? "", hint: stored.errorHint)
        }
        self.init(
            kind: kind, portal: stored.portal, user: stored.user, command: stored.command, options: stored.options,
            time: stored.time, key: stored.key, record: stored.record, changes: stored.changes, error: error)
        writtenSummary = stored.summary
    }

    public func encode(to encoder: any Encoder) throws {
        try Stored(
            kind: kind.rawValue, portal: portal, user: user, command: command, options: options, time: time, key: key, record: record,
            changes: changes, errorKind: error?.kind.rawValue, errorMessage: error?.message, errorHint: error?.hint,
            summary: writtenSummary
        ).encode(to: encoder)
    }
}
