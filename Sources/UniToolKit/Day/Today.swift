import Foundation

/// What `unitool today` shows: one section per `today:` item of the portal recipe, and whether
/// the terms of use need accepting.
public struct TodayReport: Sendable {
    public var day: CalendarDay
    public var now: Date
    public var sections: [TodaySection]
    public var terms: TermsState
    /// Whether this look moved "since you last looked" (see `TodayLook`): a screen that did not
    /// says so, since its "first look" or "nothing new" is not about to change.
    public var markedSeen = true

    public enum TermsState: Sendable {
        case accepted
        /// The terms changed, or were never accepted: the refusal, with the command to run.
        case needAccepting(UniToolError)
        /// The terms API could not be asked (offline, or the portal is out of reach).
        case notChecked(String)
    }

    /// What went wrong that the screen could not make up for, for the exit code: a section with
    /// nothing to show, terms to accept, or answers from the history because the portal failed.
    public var problem: UniToolError? {
        if case .needAccepting(let error) = terms { return error }
        return sections.compactMap(\.error).first
    }
}

public struct TodaySection: Sendable {
    public var item: TodayItem
    /// What to show, as records: events as time, summary, location and status; records as the
    /// recipe's columns; changes with a `change` column first.
    public var rows: RecordSet
    /// How a table shows the rows: the recipe's keys and priorities.
    public var display: [String: ColumnDisplay]
    /// When the records were read, and whether from the history.
    public var readAt: Date?
    public var fromHistory = false
    /// For `show: changes`: the user never looked before, so nothing counts as new yet.
    public var firstLook = false
    /// Why the section has nothing, or why its records are older than asked.
    public var error: UniToolError?
}

extension DayService {
    /// Refuses `today` for a portal whose recipe lists nothing for it: the one wording every
    /// front end gives (usage, exit 64).
    public func requireToday() throws {
        guard portal.today.isEmpty else { return }
        throw UniToolError(
            .usage, localized("'\(portal.id)' has nothing for 'today'"),
            hint: localized("its portal recipe (\(portal.file)) needs a today: list of commands; see docs/RECIPES.md"))
    }

    /// Whether any section needs the portal: none has an answer in the history fresh enough.
    public func todayNeedsPortal(refresh: Bool) -> Bool {
        portal.today.contains { item in
            guard let recipe = recipes.first(where: { $0.command == item.command }) else { return false }
            return refresh || !hasFresh(recipe, options: item.options, maxAge: freshFor)
        }
    }

    /// The day's screen. Each section's recipe runs at the same time as the others; an answer
    /// in the history younger than `freshFor` serves without a request (`refresh` asks anyway).
    ///
    /// - Parameters:
    ///   - live: runs a recipe on the portal; nil answers from the history alone (`--offline`).
    ///   - checkTerms: the connection's terms gate, asked once before any section.
    ///   - markSeen: whether this is the person looking, which moves "since you last looked"
    ///     (`TodayLook` decides it for the command line; JSON-RPC's `mark_seen`); by default
    ///     the mark stays where it is: a front end polling for a status bar is no one looking.
    public func today(
        live: LiveRecipeRun?, checkTerms: (@Sendable () async throws -> Void)?, refresh: Bool = false, markSeen: Bool = false
    ) async -> TodayReport {
        var live = live
        var terms = TodayReport.TermsState.notChecked(localized("every part was answered from the history, without asking the portal"))
        var termsProblem: UniToolError?
        if live != nil {
            do {
                try await checkTerms?()
                terms = .accepted
            } catch let error as UniToolError {
                switch error.kind {
                case .termsNotAccepted, .termsVersionStale:
                    terms = .needAccepting(error)
                default:
                    terms = .notChecked(error.message)
                    termsProblem = error
                }
                // No data call passes the terms gate now; the history still has answers.
                live = nil
            } catch {
                terms = .notChecked("\(error)")
                live = nil
            }
        }
        let items = portal.today
        let runner = live
        let failure = termsProblem
        let sections = await withTaskGroup(of: (Int, TodaySection).self) { group in
            for (index, item) in items.enumerated() {
                group.addTask {
                    (index, await self.section(item, live: runner, refresh: refresh, failure: failure, markSeen: markSeen))
                }
            }
            var sections: [Int: TodaySection] = [:]
            for await (index, section) in group { sections[index] = section }
            return sections.sorted { $0.key < $1.key }.map(\.value)
        }
        return TodayReport(day: today, now: now, sections: sections, terms: terms, markedSeen: markSeen)
    }

    private func section(_ item: TodayItem, live: LiveRecipeRun?, refresh: Bool, failure: UniToolError?, markSeen: Bool) async
        -> TodaySection
    {
        var section = TodaySection(item: item, rows: RecordSet(columns: [], records: []), display: [:])
        guard let recipe = recipes.first(where: { $0.command == item.command }) else {
            let commands = recipes.map(\.command).joined(separator: ", ")
            section.error = UniToolError(
                .recipeNotFound, localized("today's '\(item.title)' runs '\(item.command)', which '\(portal.id)' does not have"),
                hint: localized("fix the today: list in \(portal.file); the commands are: \(commands)"))
            return section
        }
        section.display = recipe.columnDisplay
        // Fresh enough from the history; else the portal; else, when it fails, the history at any
        // age, with the failure kept so the screen and the exit code say so.
        var answer = refresh ? nil : stored(recipe, options: item.options, maxAge: freshFor)
        if answer == nil, let live {
            do {
                answer = Answer(records: try await live(recipe, item.options), readAt: Date(), fromHistory: false)
            } catch let error as UniToolError {
                section.error = error
            } catch {
                section.error = UniToolError(.internal, "\(error)")
            }
        } else if answer == nil, let failure {
            section.error = failure
        }
        if answer == nil { answer = stored(recipe, options: item.options) }
        guard let answer else {
            section.error =
                section.error
                ?? UniToolError(
                    .noOfflineAnswer, localized("there is no earlier answer to '\(recipe.command)' in the history"),
                    hint: localized("run 'unitool today' once with the portal reachable"))
            return section
        }
        section.readAt = answer.readAt
        section.fromHistory = answer.fromHistory
        do {
            switch item.show {
            case .events: section.rows = try eventRows(of: recipe, records: answer.records, days: item.days)
            case .due:
                section.rows = try dueRows(
                    of: recipe, records: answer.records, field: item.field ?? "", days: item.days,
                    showing: item.fields ?? recipe.tableColumns)
            case .records: section.rows = try answer.records.selecting(item.fields ?? recipe.tableColumns)
            case .changes:
                let (rows, firstLook) = try changeRows(of: recipe, item: item, records: answer.records, markSeen: markSeen)
                section.rows = rows
                section.firstLook = firstLook
            }
        } catch let error as UniToolError {
            section.error = error
        } catch {
            section.error = UniToolError(.internal, "\(error)")
        }
        return section
    }

    /// The events from today through `days` days ahead, in time order, with each one's status:
    /// `done`, `now`, or `next` for the first still to come.
    func eventRows(of recipe: DataRecipe, records: RecordSet, days: Int) throws -> RecordSet {
        let events = try self.events(of: recipe, from: records)
        let zone = portalZone
        var occurrences: [(day: CalendarDay, start: Date, end: Date, event: CalendarEvent)] = []
        for offset in 0...days {
            let day = today.adding(days: offset)
            for event in events where event.occurs(on: day) {
                switch event.timing {
                case .allDay:
                    occurrences.append((day, day.moment(atMinute: 0, in: zone), day.adding(days: 1).moment(atMinute: 0, in: zone), event))
                case .timed(_, let start, let end):
                    occurrences.append((day, day.moment(atMinute: start, in: zone), day.moment(atMinute: end, in: zone), event))
                }
            }
        }
        occurrences.sort { ($0.start, $0.event.summary) < ($1.start, $1.event.summary) }
        var nextMarked = false
        let records = occurrences.map { occurrence -> Record in
            var status = ""
            if occurrence.end <= now {
                status = "done"
            } else if occurrence.start <= now {
                status = "now"
            } else if !nextMarked {
                status = "next"
                nextMarked = true
            }
            var when: String
            switch occurrence.event.timing {
            case .allDay: when = "all day"
            case .timed(_, let start, let end): when = "\(TimeSpan.clock(start))–\(TimeSpan.clock(end))"
            }
            if days > 0 { when = "\(Self.dayName(occurrence.day)) \(when)" }
            return Record(fields: [
                ("when", .string(when)), ("what", .string(occurrence.event.summary)),
                ("where", occurrence.event.location.map(FieldValue.string) ?? .null), ("status", .string(status)),
                ("start", .datetime(Civil.iso(epoch: Int(occurrence.start.timeIntervalSince1970), zone: zone, withTime: true))),
                ("end", .datetime(Civil.iso(epoch: Int(occurrence.end.timeIntervalSince1970), zone: zone, withTime: true))),
            ])
        }
        return RecordSet(columns: ["when", "what", "where", "status", "start", "end"], records: records)
    }

    /// `Tue 24 Nov`.
    static func dayName(_ day: CalendarDay) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let (_, month, date) = day.components
        return "\(names[day.weekday.rawValue]) \(date) \(months[month - 1])"
    }

    /// Records whose date `field` is on or before `days` days from today, soonest first, with
    /// the fields `showing`.
    func dueRows(of recipe: DataRecipe, records: RecordSet, field: String, days: Int, showing: [String]) throws -> RecordSet {
        guard recipe.columns.contains(field) else {
            let fields = recipe.columns.joined(separator: ", ")
            throw UniToolError(
                .recipeInvalid, localized("today's due: field '\(field)' is not a field of '\(recipe.command)'"),
                hint: localized("fix the today: list in \(portal.file); the fields are: \(fields)"))
        }
        let last = today.adding(days: days)
        let kept = records.records.compactMap { record -> (CalendarDay, Record)? in
            guard let value = record[field], let day = CalendarDay(iso: value.text), day <= last else { return nil }
            return (day, record)
        }.sorted { $0.0 < $1.0 }.map(\.1)
        return try RecordSet(columns: records.columns, records: kept).selecting(showing)
    }

    /// What was added, changed or removed since the user last looked at this part, and the look
    /// remembered for next time when `markSeen` (a person looked). The first look has no "since",
    /// so it shows nothing new; a look that does not mark compares with the person's last one.
    func changeRows(of recipe: DataRecipe, item: TodayItem, records: RecordSet, markSeen: Bool = true) throws -> (
        RecordSet, firstLook: Bool
    ) {
        guard let history else {
            throw UniToolError(
                .stateCorrupt, localized("the history cannot be opened, so there is no 'since you last looked'"),
                hint: localized("run with -v to see why"))
        }
        // The question, as the history keys it, names the part too: one look per command and options.
        let question = HistoryStore.optionsKey(recipe.effectiveOptions(item.options), source: nil)
        let part = "\(item.command) \(question)"
        let user = recipe.historyUser(self.user)
        let lastLook = try history.lastLook(portal: portal.id, user: user, part: part)
        if markSeen { try history.saveLook(portal: portal.id, user: user, part: part) }
        let columns = ["change"] + recipe.tableColumns
        guard let lastLook else { return (RecordSet(columns: columns, records: []), true) }
        var before = RecordSet(columns: records.columns, records: [])
        if let run = try history.run(before: lastLook, portal: portal.id, user: user, recipe: recipe.command, options: question) {
            before = try HistoryCodec.records(run.recordsJSON, columns: run.columns, fields: recipe.primary.fields)
        }
        let changes = RecordChanges(from: before, to: records, keys: recipe.keyFields, comparisons: recipe.comparisons)
        let rows = changes.changes.map { change -> Record in
            let what: String
            switch change {
            case .added: what = "new"
            case .removed: what = "removed"
            case .changed(_, _, let fields):
                what = fields.map { "\($0.field): \($0.old.text.isEmpty ? "–" : $0.old.text) → \($0.new.text.isEmpty ? "–" : $0.new.text)" }
                    .joined(separator: "; ")
            }
            return Record(fields: [("change", .string(what))] + recipe.tableColumns.map { ($0, change.record[$0] ?? .null) })
        }
        return (RecordSet(columns: columns, records: rows), false)
    }
}

extension DayService {
    /// The report as one JSON object, a section per part under its key: what `today --json`
    /// prints and JSON-RPC's `today` returns.
    public func json(_ report: TodayReport) -> String {
        func error(_ error: UniToolError?) -> String {
            guard let error else { return "null" }
            return
                "{\"kind\": \(JSONString.quoted(error.kind.rawValue)), \"message\": \(JSONString.quoted(error.message)), \"hint\": \(error.hint.map(JSONString.quoted) ?? "null"), \"exit_code\": \(error.kind.exitCode)}"
        }
        let sections = report.sections.map { section -> String in
            let key = section.item.show == .events ? "events" : section.item.show == .changes ? "changes" : "records"
            return """
                  \(JSONString.quoted(section.item.key)): {"title": \(JSONString.quoted(section.item.title)), "command": \(JSONString.quoted(section.item.command)), "show": \(JSONString.quoted(section.item.show.rawValue)), "as_of": \(section.readAt.map { JSONString.quoted(HistoryStore.iso8601($0)) } ?? "null"), "from_history": \(section.fromHistory), "first_look": \(section.firstLook), "error": \(error(section.error)), \(JSONString.quoted(key)): \(JSONRenderer.array(section.rows).trimmingWhitespaceAndNewlines())}
                """
        }.joined(separator: ",\n")
        let terms: String
        switch report.terms {
        case .accepted: terms = "{\"status\": \"accepted\", \"error\": null}"
        case .needAccepting(let refusal): terms = "{\"status\": \"need_accepting\", \"error\": \(error(refusal))}"
        case .notChecked(let why):
            terms = "{\"status\": \"not_checked\", \"reason\": \(JSONString.quoted(why))}"
        }
        return """
            {
              "date": \(JSONString.quoted(report.day.description)),
              "now": \(JSONString.quoted(HistoryStore.iso8601(report.now))),
              "portal": \(JSONString.quoted(portal.id)),
              "user": \(JSONString.quoted(user)),
              "marked_seen": \(report.markedSeen),
              "sections": {
            \(sections)
              },
              "terms": \(terms)
            }

            """
    }
}
