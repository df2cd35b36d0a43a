/// What a front end asks of a run's records besides the records themselves, applied the same way
/// for every front end: the totals instead of the records (`--summary`), an order (`--sort`, else
/// the recipe's `sort:`), and a choice of fields (`--fields`), in that order.
public struct RecordShape: Sendable, Equatable {
    public var summary: Bool
    public var sort: [SortKey]?
    public var fields: [String]?

    public init(summary: Bool = false, sort: [SortKey]? = nil, fields: [String]? = nil) {
        self.summary = summary
        self.sort = sort
        self.fields = fields
    }

    /// The records as asked. A sort or field that does not exist is a usage error naming the fields.
    public func apply(to records: RecordSet, of recipe: DataRecipe) throws -> RecordSet {
        var shaped = records
        if summary, let totals = recipe.totals { shaped = totals.compute(over: shaped) }
        // The recipe's order applies to its records, not to a summary that has other columns.
        let order = sort ?? (summary ? [] : recipe.sort)
        shaped = try shaped.sorted(by: order)
        if let fields { shaped = try shaped.selecting(fields) }
        return shaped
    }
}
