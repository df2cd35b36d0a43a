import Foundation

/// How records are printed: a table for people, the rest for programs.
public enum OutputFormat: String, Sendable, CaseIterable {
    case table, json, jsonl, csv

    public func render(_ set: RecordSet, style: TableStyle = .plain, display: [String: ColumnDisplay] = [:]) -> String {
        switch self {
        case .table: return TableRenderer(style: style, display: display).render(set)
        case .json: return JSONRenderer.array(set)
        case .jsonl: return JSONRenderer.lines(set)
        case .csv: return CSVRenderer.render(set, escapingControls: style.terminal)
        }
    }
}

/// Whether the table may use terminal colours: only on a terminal, and never with `NO_COLOR`.
public struct TableStyle: Sendable {
    public var bold: Bool
    /// The terminal's width: wider tables have their longest text cut with `…`. Nil: no limit.
    public var maxWidth: Int?
    /// Dates in the user's locale (`Fri, 20 Nov 2026`) instead of ISO 8601: a table is for people.
    public var localDates: Bool
    /// The locale those dates are written in: the person's, from `LC_ALL`, `LC_TIME` or `LANG`.
    public var locale: DisplayLocale
    /// The zone a table shows times in: the portal's (its recipe's `timezone:`), as `today` does,
    /// so that a deadline reads the same in every command. Nil: the user's own.
    public var timeZone: TimeZone?
    /// URLs as OSC 8 hyperlinks, so that a link cut or wrapped to fit still opens whole.
    public var hyperlinks: Bool
    /// The output goes to a terminal, so that a format that would otherwise write a portal's
    /// text as it is (CSV) writes its control characters escaped instead (``TerminalText``).
    /// A file or a pipe keeps the data byte for byte.
    public var terminal: Bool
    /// The decimal separator numbers are written with in a table: the person's, from `LC_ALL`,
    /// `LC_NUMERIC` or `LANG` (`3,7` in Hungarian or German). No grouping: a year or a code stays
    /// as it is. JSON and CSV keep the point.
    public var decimalSeparator = "."

    public init(
        bold: Bool, maxWidth: Int? = nil, localDates: Bool = false, locale: DisplayLocale = .fallback, hyperlinks: Bool = false,
        terminal: Bool = false
    ) {
        self.bold = bold
        self.maxWidth = maxWidth
        self.localDates = localDates
        self.locale = locale
        self.hyperlinks = hyperlinks
        self.terminal = terminal
    }

    public static let plain = TableStyle(bold: false)

    /// The style for standard output, per the `NO_COLOR` convention (no-color.org): the width is
    /// `$COLUMNS`, else the terminal's; a pipe gets whole cells.
    ///
    /// - Parameter isTerminal: whether standard output is a terminal; asked of the system unless given.
    public static func forStandardOutput(
        environment: [String: String] = ProcessInfo.processInfo.environment, isTerminal: Bool = isatty(STDOUT_FILENO) == 1
    ) -> TableStyle {
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        var width = environment["COLUMNS"].flatMap(Int.init)
        if width == nil, isTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
        }
        var style = TableStyle(
            bold: !noColor && isTerminal, maxWidth: width, localDates: true, locale: DisplayLocale(environment: environment),
            hyperlinks: isTerminal && supportsHyperlinks(environment), terminal: isTerminal)
        style.decimalSeparator = DisplayLocale(environment: environment, category: "LC_NUMERIC").decimalSeparator
        return style
    }

    /// Whether the terminal shows OSC 8 hyperlinks. There is no query for it, so this follows
    /// what the terminals that support it announce; `UNITOOL_HYPERLINKS=1` or `0` decides
    /// outright. A terminal that does not know OSC 8 would show nothing wrong, but tmux and
    /// older terminals have been known to print the sequence, so the default is cautious.
    public static func supportsHyperlinks(_ environment: [String: String]) -> Bool {
        switch environment["UNITOOL_HYPERLINKS"] {
        case "1": return true
        case "0": return false
        default: break
        }
        if environment["TERM"] == "dumb" || environment["TMUX"] != nil { return false }
        if let vte = environment["VTE_VERSION"].flatMap(Int.init), vte >= 5000 { return true }
        if ["iTerm.app", "WezTerm", "vscode", "ghostty"].contains(environment["TERM_PROGRAM"] ?? "") { return true }
        return environment["KITTY_WINDOW_ID"] != nil || environment["WT_SESSION"] != nil
            || ["xterm-kitty", "foot", "xterm-ghostty"].contains(environment["TERM"] ?? "")
    }

    /// Text in bold, when the style allows it.
    public func emphasis(_ text: String) -> String { bold ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    /// Text in green, for what went right.
    public func success(_ text: String) -> String { bold ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    /// Text in red, for what went wrong.
    public func failure(_ text: String) -> String { bold ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
}

/// An aligned table. Column widths count terminal cells, so Japanese text (two cells a
/// character) and Hungarian accents (combining marks, zero cells) line up. On a narrow terminal
/// ``TableLayout`` decides what shrinks, wraps or is left out; key columns stay whole.
public struct TableRenderer: Sendable {
    public var style: TableStyle
    /// Per column name: key, priority and decimals from the recipe. A column not named is plain.
    public var display: [String: ColumnDisplay]

    public init(style: TableStyle = .plain, display: [String: ColumnDisplay] = [:]) {
        self.style = style
        self.display = display
    }

    /// A rendered table, and the columns left out to make it fit, for a note on stderr.
    public struct Rendered: Sendable, Equatable {
        public var text: String
        public var droppedColumns: [String]
    }

    public func render(_ set: RecordSet) -> String { layout(set).text }

    public func layout(_ set: RecordSet) -> Rendered {
        guard !set.records.isEmpty else { return Rendered(text: localized("(no records)") + "\n", droppedColumns: []) }
        let dates = style.localDates ? LocalDates(locale: style.locale, timeZone: style.timeZone) : nil
        let displays = set.columns.map { display[$0] ?? .plain }
        // Cells and headers are the portal's and the recipe's text: shown escaped, so that no
        // control character reaches the terminal and a tab or line feed cannot break a row.
        var cells = set.records.map { record in
            set.columns.indices.map { index in
                TerminalText.escaped(
                    Self.cellText(
                        record[set.columns[index]], dates: dates, display: displays[index], decimalSeparator: style.decimalSeparator))
            }
        }
        let links: [[String?]] = set.records.map { record in
            set.columns.map { column in
                guard style.hyperlinks, case .url(let address)? = record[column] else { return nil }
                return address
            }
        }
        // A recipe's label in the person's language where it gives one, else the heading of one
        // of unitool's own columns, else the field's name.
        var headers = set.columns.indices.map {
            TerminalText.escaped(displays[$0].label ?? ColumnHeadings.heading(for: set.columns[$0]) ?? set.columns[$0])
        }
        let numeric = set.columns.map { column in
            set.records.allSatisfy { record in record[column].map { $0.isNumeric || $0 == .null } ?? true }
        }
        // A column of addresses is kept whole (TableLayout): a URL wrapped in two cannot be copied.
        let urls = set.columns.map { column in
            set.records.contains { if case .url? = $0[column] { true } else { false } }
                && set.records.allSatisfy { record in
                    switch record[column] {
                    case .url?, .null?, nil: true
                    default: false
                    }
                }
        }
        var natural = headers.map(DisplayWidth.of)
        var longestWord = headers.map { DisplayWidth.longestWord(in: $0) }
        for row in cells {
            for (index, cell) in row.enumerated() {
                natural[index] = max(natural[index], DisplayWidth.of(cell))
                longestWord[index] = max(longestWord[index], DisplayWidth.longestWord(in: cell))
            }
        }
        let plan = TableLayout(
            columns: set.columns.indices.map {
                TableLayout.Column(
                    naturalWidth: natural[$0], numeric: numeric[$0], display: displays[$0], longestWord: longestWord[$0], url: urls[$0])
            }, maxWidth: style.maxWidth)
        let widths = plan.widths
        // A flag squeezed to one cell shows its marker where it is set, and nothing where not.
        for index in plan.kept where displays[index].flag && widths[index] < natural[index] {
            headers[index] = TableLayout.flagMarker
            for row in cells.indices {
                cells[row][index] = set.records[row][set.columns[index]] == .bool(true) ? TableLayout.flagMarker : ""
            }
        }
        var lines: [String] = []
        let header = plan.kept.map { pad(DisplayWidth.truncate(headers[$0], to: widths[$0]), to: widths[$0], right: false) }
            .joined(separator: "  ")
        lines.append(style.bold ? "\u{1B}[1m\(trimEnd(header))\u{1B}[0m" : trimEnd(header))
        // A URL too wide to sit beside the rest has a line of its own under each row, indented;
        // the header shows the same shape.
        for index in plan.ownLine {
            lines.append(style.emphasis(Self.ownLineIndent + headers[index]))
        }
        lines.append(plan.kept.map { String(repeating: "─", count: widths[$0]) }.joined(separator: "  "))
        for (rowIndex, row) in cells.enumerated() {
            // Each cell becomes one or more lines; the row is as tall as its tallest cell.
            let wrapped = plan.kept.map { index in
                numeric[index] || urls[index] || displays[index].key ? [row[index]] : DisplayWidth.wrap(row[index], to: widths[index])
            }
            let height = wrapped.map(\.count).max() ?? 1
            for lineIndex in 0..<height {
                let line = plan.kept.enumerated().map { position, index in
                    let piece = lineIndex < wrapped[position].count ? wrapped[position][lineIndex] : ""
                    let padded = pad(piece, to: widths[index], right: numeric[index])
                    if displays[index].flag, set.records[rowIndex][set.columns[index]] == .bool(true), !piece.isEmpty {
                        return style.failure(padded)
                    }
                    guard let link = links[rowIndex][index], !piece.isEmpty else { return padded }
                    return Self.hyperlink(padded, to: link)
                }.joined(separator: "  ")
                lines.append(trimEnd(line))
            }
            for index in plan.ownLine where !row[index].isEmpty {
                let address = links[rowIndex][index].map { Self.hyperlink(row[index], to: $0) } ?? row[index]
                lines.append(Self.ownLineIndent + address)
            }
        }
        return Rendered(text: lines.joined(separator: "\n") + "\n", droppedColumns: plan.dropped.map { set.columns[$0] })
    }

    /// Where a URL on a line of its own starts: indented, so that it reads as part of the row above.
    static let ownLineIndent = "  "

    private func pad(_ text: String, to width: Int, right: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - DisplayWidth.of(text)))
        return right ? padding + text : text + padding
    }

    /// Text made a link with OSC 8, which terminals that know it show as clickable and others
    /// ignore. The address goes in with every byte outside printable ASCII percent-encoded, so
    /// that a portal's URL cannot end the sequence early or carry a control character.
    static func hyperlink(_ text: String, to address: String) -> String {
        var safe = ""
        for byte in address.utf8 {
            if (0x21...0x7E).contains(byte) {
                safe.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = String(byte, radix: 16, uppercase: true)
                safe += "%" + (digits.count == 1 ? "0" + digits : digits)
            }
        }
        return "\u{1B}]8;;\(safe)\u{1B}\\\(text)\u{1B}]8;;\u{1B}\\"
    }

    /// Dates as the user's locale writes them, with one formatter per table rather than per cell.
    final class LocalDates {
        let utc = TimeZone.gmt
        let text: LocalDateText
        init(locale: DisplayLocale, timeZone: TimeZone?) { text = LocalDateText(locale: locale, timeZone: timeZone ?? .current) }
        let parsing = FieldTyper.DateCache()
    }

    private static func cellText(_ value: FieldValue?, dates: LocalDates?, display: ColumnDisplay, decimalSeparator: String) -> String {
        guard let value else { return "" }
        if case .string(let text) = value, let word = display.valueLabels[text] { return word }
        // A yes or no for people, in their language; JSON keeps true and false, CSV its words.
        if case .bool(let flag) = value { return flag ? localized("yes") : localized("no") }
        /// A number's point as the person writes it.
        func localNumber(_ text: String) -> String {
            decimalSeparator == "." ? text : text.replacingOccurrences(of: ".", with: decimalSeparator)
        }
        if let decimals = display.decimals {
            switch value {
            case .number(let number) where number.isFinite: return localNumber(String(format: "%.\(decimals)f", number))
            case .integer(let number): return localNumber(String(format: "%.\(decimals)f", Double(number)))
            default: break
            }
        }
        if case .number(let number) = value, number.isFinite { return localNumber(value.text) }
        guard let dates else { return value.text }
        switch value {
        case .date(let iso):
            guard let date = FieldTyper.parseDate(iso, format: "yyyy-MM-dd", timeZone: dates.utc, dates: dates.parsing) else { return iso }
            return dates.text.date(date)
        case .datetime(let iso):
            guard let date = FieldTyper.parseDate(iso, format: "iso8601", timeZone: .current, dates: dates.parsing) else { return iso }
            return dates.text.dateTime(date)
        default:
            return value.text
        }
    }

    private func trimEnd(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// How many terminal cells a string takes (a compact `wcwidth`).
public enum DisplayWidth {
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of(character: $1) }
    }

    /// The text cut to `width` cells, ending in `…` when cut; a wide character is never split.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let cells = of(character: character)
            if used + cells > width - 1 { break }
            result.append(character)
            used += cells
        }
        return result + "…"
    }

    static func of(character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .enclosingMark {
            return 0
        }
        if first.value < 0x20 || (0x7F..<0xA0).contains(first.value) { return 0 }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

/// JSON with keys in the recipe's order and no dependence on a dictionary's hash order, so
/// that output is byte-for-byte stable between runs.
public enum JSONRenderer {
    public static func array(_ set: RecordSet) -> String {
        guard !set.records.isEmpty else { return "[]\n" }
        return "[\n" + set.records.map { "  " + object($0) }.joined(separator: ",\n") + "\n]\n"
    }

    public static func lines(_ set: RecordSet) -> String {
        set.records.map { object($0) + "\n" }.joined()
    }

    public static func object(_ record: Record) -> String {
        "{" + record.fields.map { "\(JSONString.quoted($0.name)): \(value($0.value))" }.joined(separator: ", ") + "}"
    }

    public static func value(_ value: FieldValue) -> String {
        switch value {
        case .string(let text), .date(let text), .datetime(let text), .url(let text): return JSONString.quoted(text)
        case .list(let records): return "[" + records.map(object).joined(separator: ", ") + "]"
        case .integer(let number): return String(number)
        case .number(let number):
            guard number.isFinite else { return "null" }
            return FieldValue.numberText(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        }
    }

}

/// RFC 4180 CSV with a header row.
public enum CSVRenderer {
    /// - Parameter escapingControls: the CSV is for a terminal (``TableStyle/terminal``): every
    ///   control character in a field, C0, DEL and C1 alike (ESC, CSI U+009B, BEL, and a line break
    ///   inside a field too), is written as ``TerminalText`` escapes it, so that a portal's text
    ///   cannot drive the terminal; only the rows' own CRLF line breaks stay. Off for a file or a
    ///   pipe, which get the data as it is.
    public static func render(_ set: RecordSet, escapingControls: Bool = false) -> String {
        func field(_ text: String) -> String { quote(escapingControls ? TerminalText.escaped(text) : text) }
        var lines = [set.columns.map(field).joined(separator: ",")]
        for record in set.records {
            lines.append(set.columns.map { field(record[$0]?.text ?? "") }.joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
