import Foundation

/// What one run of a watch announces, decided from the last answer, this run's outcome and what
/// the watch remembers. A pure decision: the I/O loop (`Watcher`) runs the recipe and delivers.
///
/// - The first answer is the baseline: nothing is announced unless `announceExisting`.
/// - Records are compared by key and content (`RecordChanges`), never by date alone.
/// - A failure is announced when it starts, and once more when a run works again; an hourly
///   watch of a broken page says so once, not every hour.
/// - `due_soon` is announced once per record, when its date field first falls within the window,
///   the first run included: a reminder is about a date, not a change, and a watch started the
///   day before a loan is due must say so (the README's `watch loans --due-within 3d` otherwise
///   stayed silent about every loan already due).
/// - `overdue`, not `due_soon`, for a date already past: "due soon" about a book overdue since
///   October is wrong. Announced once per record and date too, so a loan announced as due soon
///   is announced again when it becomes overdue.
/// - Each event's summary is written by `summary` (the recipe's words) when it is given.
public struct WatchDecision: Sendable, Equatable {
    /// What the watch remembers between runs.
    public struct Memory: Sendable, Equatable, Codable {
        /// The kind of the failure that was announced and has not recovered yet.
        public var failing: String?
        /// Keys already announced as due soon (with their date), so that each is announced once.
        public var announcedDue: [String] = []

        public init(failing: String? = nil, announcedDue: [String] = []) {
            self.failing = failing
            self.announcedDue = announcedDue
        }
    }

    /// `--due-within 3d` on a date field.
    public struct DueRule: Sendable, Equatable {
        public var field: String
        public var days: Int
        /// Fields the recipe works out from this date and today (a loan's `overdue`, `compute:
        /// { before_today: due }`): their change is the date passing, which `overdue` announces.
        public var derived: [String]

        public init(field: String, days: Int, derived: [String] = []) {
            self.field = field
            self.days = days
            self.derived = derived
        }

        /// The rule on `field`, with the fields of `fields` computed from it.
        public init(field: String, days: Int, fields: [FieldSpec]) {
            let derived = fields.filter {
                if case .beforeToday(let source)? = $0.compute { return source == field }
                return false
            }
            self.init(field: field, days: days, derived: derived.map(\.name))
        }
    }

    public var events: [WatchEvent]
    public var memory: Memory

    /// - Parameters:
    ///   - previous: the last answer recorded before this run, if any.
    ///   - outcome: this run's answer, or its error.
    ///   - today: the local date as `yyyy-MM-dd`, for `due_soon`.
    public init(
        previous: RecordSet?, outcome: Result<RecordSet, UniToolError>, memory: Memory, keys: [String],
        comparisons: [String: FieldSpec.Comparison] = [:], announceExisting: Bool, due: DueRule?, today: String, template: WatchEvent,
        summary: WatchSummary? = nil
    ) {
        var memory = memory
        var events: [WatchEvent] = []
        func event(_ kind: WatchEvent.Kind) -> WatchEvent {
            var event = template
            event.kind = kind
            return event
        }
        switch outcome {
        case .failure(let error):
            if memory.failing == nil {
                // A session that only a browser login renews is no failure of the portal: the
                // person is asked to sign in, once, and told when it works again.
                var failing = event(error.kind == .loginInBrowserNeeded ? .loginNeeded : .failing)
                failing.error = error
                events.append(failing)
            }
            memory.failing = error.kind.rawValue
            self.events = events
            self.memory = memory
            return
        case .success(let records):
            if memory.failing != nil {
                events.append(event(.recovered))
                memory.failing = nil
            }
            let baseline = previous ?? (announceExisting ? RecordSet(columns: records.columns, records: []) : nil)
            if let baseline {
                for change in RecordChanges(from: baseline, to: records, keys: keys, comparisons: comparisons).changes {
                    // A change's kind (added, removed, changed) is always a kind of event.
                    var record = event(WatchEvent.Kind(rawValue: change.kind)!)
                    record.key = change.key
                    record.record = change.record
                    if case .changed(_, _, let fields) = change { record.changes = fields }
                    events.append(record)
                }
            }
            if let due {
                let limit = Self.adding(days: due.days, to: today)
                var stillDue: [String] = []
                for record in records.records {
                    guard let date = Self.day(record[due.field]), date <= limit else { continue }
                    let kind = Self.dueKind(date: date, today: today)
                    // "key@date" as before for due soon; an overdue one has a mark of its own, so
                    // that the memory of "due soon" does not silence "overdue".
                    let key = RecordChanges.key(of: record, keys: keys) + "@" + date + (kind == .overdue ? "#overdue" : "")
                    stillDue.append(key)
                    if !memory.announcedDue.contains(key) {
                        var soon = event(kind)
                        soon.key = RecordChanges.key(of: record, keys: keys)
                        soon.record = record
                        if kind == .overdue {
                            // "now overdue" as a change too would say the same thing twice.
                            events.removeAll { other in
                                other.kind == .changed && other.key == soon.key && !other.changes.isEmpty
                                    && other.changes.allSatisfy { due.derived.contains($0.field) }
                            }
                        }
                        events.append(soon)
                    }
                }
                memory.announcedDue = stillDue
            }
        }
        if let summary {
            for index in events.indices { events[index].summary = summary.text(for: events[index]) }
        }
        self.events = events
        self.memory = memory
    }

    /// Whether a due date is past (`overdue`) or still to come (`due_soon`, today included: a
    /// loan due today is not overdue until tomorrow). Both are `yyyy-MM-dd`.
    public static func dueKind(date: String, today: String) -> WatchEvent.Kind {
        date < today ? .overdue : .dueSoon
    }

    /// The day of a date or datetime field (`2026-12-01`), or nil for any other value.
    static func day(_ value: FieldValue?) -> String? { value?.day }

    /// `yyyy-MM-dd` plus some days, in the Gregorian calendar.
    static func adding(days: Int, to day: String) -> String {
        CalendarDay(iso: day).map { $0.adding(days: days).description } ?? day
    }
}
