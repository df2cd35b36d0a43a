import Foundation

/// What an action's `preview:` shows before anything is sent (`ActionSpec.Preview`): the rows it
/// read, in the recipe's own fields, with a note where a change may not do what the person
/// expects. Here, with the records it shapes, since the recipe stage knows no records.
extension ActionSpec.Preview {
    /// Whether `value` of the flag's field flags its row, `today` being `yyyy-MM-dd`.
    public func flags(_ value: FieldValue, today: String) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .date(let text), .datetime(let text):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = text.prefix(10).split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3,
                let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
                let moved = calendar.date(byAdding: .day, value: flagDays, to: date)
            else { return false }
            let day = calendar.dateComponents([.year, .month, .day], from: moved)
            return String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0) < today
        default: return false
        }
    }

    /// The records as the preview shows them: the chosen fields, in their order, and a
    /// `note` column saying `flagSays` where the flag flags (the rest null).
    public func shaped(_ records: RecordSet, today: String = RecordExtractor.localToday()) -> RecordSet {
        let columns = fields.isEmpty ? records.columns : fields.filter(records.columns.contains)
        let flagged = { (record: Record) -> Bool in
            guard let flagWhen, let value = record.fields.first(where: { $0.name == flagWhen })?.value else { return false }
            return flags(value, today: today)
        }
        let noted = flagWhen != nil && flagSays != nil
        let shaped = records.records.map { record in
            var fields = columns.map { name in (name: name, value: record.fields.first { $0.name == name }?.value ?? .null) }
            if noted { fields.append((name: "note", value: flagged(record) ? .string(flagSays!) : .null)) }
            return Record(fields: fields)
        }
        return RecordSet(columns: columns + (noted ? ["note"] : []), records: shaped)
    }
}
