/// The English field name of a column whose header is written in a script without Latin letters
/// (`科目コード` → `code`, `返却期限` → `due`), so that a folder made from a Japanese portal's
/// recording says `--fields course,grade` as the bundled recipes do, not `column_2`.
///
/// A header in Latin letters names its field itself (`Tárgy` → `targy`, `Due date` → `due_date`):
/// this vocabulary is only for the words a romanisation cannot give. It holds the headers students'
/// portals use for the records unitool reads (grades, timetables, loans, notices). A header it does
/// not know falls back to the cells' class, then the column's position.
enum HeaderWords {
    /// A header's English name, or nil when no entry is part of it. Japanese compounds name the
    /// thing last (`授業日時` is a class's date and time, `科目区分` a course's category): the word
    /// that ends latest in the header wins, and of those the longest (`評価日`, not `評価`).
    static func name(for header: String) -> String? {
        let compact = Array(header.filter { !$0.isWhitespace && !"()（）[]［］・:：".contains($0) })
        guard !compact.isEmpty else { return nil }
        var best: (end: Int, length: Int, name: String)?
        for (word, name) in entries {
            let letters = Array(word)
            guard letters.count <= compact.count else { continue }
            for start in stride(from: compact.count - letters.count, through: 0, by: -1)
            where Array(compact[start..<start + letters.count]) == letters {
                let end = start + letters.count
                if best == nil || end > best!.end || end == best!.end && letters.count > best!.length {
                    best = (end, letters.count, name)
                }
                break
            }
        }
        return best?.name
    }

    /// Every word and its name.
    static let entries: [(word: String, name: String)] = vocabulary.flatMap { name, words in words.map { ($0, name) } }

    private static let vocabulary: [(String, [String])] = [
        // Grades.
        ("code", ["科目コード", "授業コード", "科目番号", "時間割コード", "講義コード", "科目ナンバー", "コード"]),
        ("course", ["授業科目名", "授業科目", "科目名", "授業名", "講義名", "科目", "授業", "講義"]),
        ("credits", ["単位数", "単位"]),
        ("grade", ["評価", "成績", "評語", "合否"]),
        // 評点 is the mark out of 100 beside the grade letter (評価) on Japanese transcripts.
        ("points", ["評点", "得点", "点数", "素点"]),
        ("graded_on", ["評価日", "成績確定日", "確定日", "認定日"]),
        ("term", ["学期", "年度", "開講期", "開講学期", "履修年度"]),
        ("instructor", ["担当教員名", "担当教員", "教員名", "担当者", "教員"]),
        // Timetables.
        ("day", ["曜日"]),
        ("period", ["時限"]),
        ("room", ["教室", "講義室"]),
        // Loans and the catalogue.
        ("title", ["書名", "資料名", "タイトル", "題名", "件名", "表題"]),
        ("author", ["著者名", "著者", "著作者"]),
        ("due", ["返却期限日", "返却期限", "返却予定日", "返却日", "提出期限", "締切日", "締切", "期限"]),
        ("checked_out", ["貸出日"]),
        ("barcode", ["バーコード", "資料番号", "登録番号"]),
        ("renewals", ["更新回数", "延長回数"]),
        ("call_number", ["請求記号"]),
        ("location", ["所蔵館", "所在", "場所"]),
        // Notices and anything else.
        ("date", ["掲載日", "更新日", "日付", "日時"]),
        ("category", ["カテゴリー", "カテゴリ", "分類", "区分"]),
        ("status", ["状態", "状況"]),
        ("note", ["備考"]),
        ("name", ["氏名", "名前"]),
    ]
}
