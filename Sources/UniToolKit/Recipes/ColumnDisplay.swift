/// How one column of a table is shown, as its recipe declares it.
public struct ColumnDisplay: Sendable, Equatable {
    /// How readily a column is left out of a table too wide for the terminal.
    public enum Priority: String, Sendable, CaseIterable {
        /// Left out first: an author beside a title, a long description.
        case low
        case normal
        /// Left out last, after every other column but the keys: the grade in a grades table.
        case high
        /// Never in a table unless `--fields` names it: data for calendars and scripts, such as
        /// the first day of the term beside every course. JSON and CSV carry it as usual.
        case hidden
    }

    /// A key field (`key: true`): what the user types back (a barcode for `loans renew`) or
    /// what tells records apart. It is never cut, never wrapped and never left out.
    public var key: Bool
    public var priority: Priority
    /// Digits after the point for a number in a table (`decimals: 2` shows `3.60` beside
    /// `3.49`). JSON and CSV keep the number as it is.
    public var decimals: Int?
    /// A yes/no that matters at a glance (`flag: true`: a loan's `overdue`): in colour where
    /// colour is on, and never left out of a table: where there is no room for its name, it
    /// shrinks to a one-cell column of ``TableLayout/flagMarker``s.
    public var flag: Bool
    /// The column's heading for people (`label: { en: Due, ja: 返却期限 }`, in the person's
    /// language, ``RecipeText``); nil shows the field's name. JSON and CSV keep the name.
    public var label: String?
    /// How a table shows some of the column's values (unitool's own words such as `stored` or
    /// `bundled`, in the person's language); JSON and CSV keep the value. Only unitool's own
    /// tables give these: a portal's text is never reworded.
    public var valueLabels: [String: String] = [:]

    public init(key: Bool = false, priority: Priority = .normal, decimals: Int? = nil, flag: Bool = false, label: String? = nil) {
        self.key = key
        self.priority = priority
        self.decimals = decimals
        self.flag = flag
        self.label = label
    }

    public static let plain = ColumnDisplay()

    /// A column shown as it is but for the words of `labels`.
    public static func words(_ labels: [String: String]) -> ColumnDisplay {
        var display = ColumnDisplay()
        display.valueLabels = labels
        return display
    }
}
