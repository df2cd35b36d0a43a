import Foundation

/// One key of a sort order: a field, ascending or (`-field`) descending.
public struct SortKey: Sendable, Equatable {
    public var field: String
    public var descending: Bool

    public init(field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    /// `due,-title`: fields separated by commas, each descending when it starts with `-`.
    public static func parse(_ text: String) -> [SortKey] {
        text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }.map { item in
            item.hasPrefix("-") ? SortKey(field: String(item.dropFirst()), descending: true) : SortKey(field: item)
        }
    }
}
