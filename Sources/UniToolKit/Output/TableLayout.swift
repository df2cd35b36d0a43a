/// Which columns a table keeps and how wide each is, for a given terminal width.
///
/// A pure decision, kept apart from the rendering so that it can be tested on its own. In order:
/// 1. A table that fits is left alone.
/// 2. Text columns shrink, widest first, down to ``minimumTextWidth``; their text then wraps
///    rather than being cut. Numbers and key columns never shrink.
/// 3. If the narrowest form still does not fit, columns are left out: low-priority ones first,
///    then the others, right to left. Key columns are never left out, and one column always stays.
///    A flag column is never left out either: when text at its narrowest does not make room for
///    its name, it becomes one cell wide, a marker (`!`) where set.
///    Before a high-priority column goes, long words may break instead (text down to
///    ``minimumTextWidth``): a course's name broken mid-word beats a grades table without grades.
/// A URL column (``Column/url``) is never wrapped, cut or left out: a URL broken over two lines
/// cannot be copied or clicked, and `links` exists to give addresses. Where a column would be
/// left out, a URL column instead leaves the grid for a line of its own under each row
/// (``ownLine``), however wide the address (the terminal wraps a line longer than itself, and
/// the address stays one piece to copy); other columns shrink and go first only by their place
/// in the order above.
/// A table whose key columns alone are wider than the terminal is printed wider than it: the
/// terminal wraps the line, but every key stays whole.
public struct TableLayout: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        /// The widest cell or the header, in terminal cells.
        public var naturalWidth: Int
        /// Numbers are never wrapped: a cut number reads as another number.
        public var numeric: Bool
        public var display: ColumnDisplay
        /// The longest word in any cell: a column narrower than its words breaks them.
        public var longestWord: Int
        /// Every cell is a URL (a `url` field): kept whole, on a line of its own when need be.
        public var url: Bool

        public init(naturalWidth: Int, numeric: Bool, display: ColumnDisplay = .plain, longestWord: Int? = nil, url: Bool = false) {
            self.naturalWidth = naturalWidth
            self.numeric = numeric
            self.display = display
            self.longestWord = longestWord ?? naturalWidth
            self.url = url
        }

        /// Whether this column's cells may wrap onto several lines.
        var wraps: Bool { !numeric && !url && !display.key && !display.flag }

        /// The narrowest this column gets before it is left out instead: its longest word, so
        /// that words stay whole, but within ``minimumTextWidth`` and ``maximumWordWidth``.
        public var minimumWidth: Int {
            if display.flag { return 1 }
            guard wraps else { return naturalWidth }
            return min(naturalWidth, max(TableLayout.minimumTextWidth, min(longestWord, TableLayout.maximumWordWidth)))
        }
    }

    /// The narrowest a wrapping column gets: about one short word a line.
    public static let minimumTextWidth = 8
    /// A word longer than this (a URL, a long compound) may be broken rather than keep a whole
    /// column from fitting.
    public static let maximumWordWidth = 14
    /// Cells between columns.
    public static let gap = 2
    /// What a flag column shows, header and set cells alike, once it is one cell wide.
    public static let flagMarker = "!"

    /// The kept columns' indices, in their original order.
    public var kept: [Int]
    /// The width of each column, by original index; a left-out column's is 0.
    public var widths: [Int]
    /// URL columns printed on a line of their own under each row, whole, in their original order.
    public var ownLine: [Int] = []
    /// The left-out columns' indices, in their original order.
    public var dropped: [Int] { widths.indices.filter { !kept.contains($0) && !ownLine.contains($0) } }

    public init(columns: [Column], maxWidth: Int?) {
        var widths = columns.map(\.naturalWidth)
        var kept = Array(columns.indices)
        guard let maxWidth else {
            self.kept = kept
            self.widths = widths
            return
        }
        func total(_ indices: [Int], _ width: (Int) -> Int) -> Int {
            indices.map(width).reduce(0, +) + Self.gap * max(0, indices.count - 1)
        }
        // Words stay whole, until the choice is between a broken word and a high-priority column.
        var breakWords = false
        func minimum(_ index: Int) -> Int {
            breakWords && columns[index].wraps
                ? min(columns[index].naturalWidth, Self.minimumTextWidth) : columns[index].minimumWidth
        }
        // Leave out columns until the narrowest form fits: low priority first, right to left. A
        // URL column is not left out but moved to a line of its own, which loses nothing, so it
        // goes before words are broken.
        let candidates = [ColumnDisplay.Priority.hidden, .low, .normal, .high].flatMap { priority in
            columns.indices.reversed().filter {
                columns[$0].display.priority == priority && (columns[$0].url || (!columns[$0].display.key && !columns[$0].display.flag))
            }
        }
        var ownLine: [Int] = []
        for candidate in candidates where total(kept, minimum) > maxWidth && kept.count > 1 {
            if columns[candidate].url {
                kept.removeAll { $0 == candidate }
                ownLine.append(candidate)
                continue
            }
            if columns[candidate].display.priority == .high, !breakWords {
                breakWords = true
                if total(kept, minimum) <= maxWidth { break }
            }
            kept.removeAll { $0 == candidate }
            widths[candidate] = 0
        }
        // A flag keeps its name while shrinking text can make room; only when the text at its
        // narrowest still does not fit beside it does it become its marker.
        let flagsWhole = total(kept) { columns[$0].display.flag ? widths[$0] : minimum($0) }
        if flagsWhole > maxWidth {
            for index in kept where columns[index].display.flag { widths[index] = 1 }
        }
        // Shrink the widest wrapping column, one cell at a time, until the table fits.
        while total(kept, { widths[$0] }) > maxWidth {
            guard let widest = kept.filter({ widths[$0] > minimum($0) }).max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        self.kept = kept
        self.widths = widths
        self.ownLine = ownLine.sorted()
    }
}

extension DisplayWidth {
    /// The widest space-separated word of the text, in terminal cells.
    public static func longestWord(in text: String) -> Int {
        text.split(separator: " ").map { of(String($0)) }.max() ?? 0
    }

    /// The text broken into lines of at most `width` cells: at spaces where it can, inside a word
    /// where a word is longer than a line. A wide character is never split.
    public static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0, of(text) > width else { return [text] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            let wordWidth = of(String(word))
            if lineWidth > 0, lineWidth + 1 + wordWidth <= width {
                line += " " + word
                lineWidth += 1 + wordWidth
                continue
            }
            if lineWidth > 0 {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            // A word longer than a line is split into pieces of the line's width.
            while of(String(word)) > width {
                var piece = ""
                var used = 0
                while let character = word.first, used + of(character: character) <= width {
                    piece.append(character)
                    used += of(character: character)
                    word = word.dropFirst()
                }
                if piece.isEmpty {  // a character wider than the line: give it a line of its own
                    piece.append(word.removeFirst())
                }
                lines.append(piece)
            }
            line = String(word)
            lineWidth = of(line)
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
