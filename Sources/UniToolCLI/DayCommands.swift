import ArgumentParser
import Foundation
import UniToolHost
import UniToolKit

/// A command that has printed its answer and its problems itself, and ends with this code.
struct CommandExit: Error {
    let code: Int32
}

extension CommandEnvironment {
    /// The day's service for the chosen portal and user: its recipes, the history and the clock.
    func dayService(offline: Bool) throws -> (DayService, PortalRecipe) {
        let portal = try catalog.portal(try portalID())
        let recipes = catalog.recipes(of: portal.id)
        let user = try self.user(for: portal)
        return (DayService(portal: portal, user: user, recipes: recipes, history: history(), now: now), portal)
    }

    /// Runs `body` with a way to run recipes on the portal (and its terms gate), logged in as
    /// the service's user, or with none when `offline`.
    func withLiveRuns<T: Sendable>(
        _ service: DayService, offline: Bool,
        _ body: (_ live: LiveRecipeRun?, _ checkTerms: (@Sendable () async throws -> Void)?) async throws -> T
    ) async throws -> T {
        guard !offline else { return try await body(nil, nil) }
        let credentials = try credentialProvider(for: service.portal)
        let interaction = interaction
        return try await withService(service.portal, user: credentials.user, credentials: credentials.provide) { portal in
            try await body(
                { recipe, options in try await portal.run(recipe, options: options, interaction: interaction) },
                { try await portal.session(interaction: interaction) { try await $0.ensureTermsAccepted() } })
        }
    }
}

/// `unitool calendar`: every calendar-capable command of the portal in one iCalendar file.
struct CalendarCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar", abstract: localized("Export your classes, exams and due dates as one calendar file (.ics)."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Runs every command whose recipe has a calendar: section (for the demo: courses, exams and loans) and
                writes their events as one iCalendar file (RFC 5545) that calendar apps import. Classes repeat weekly
                until the end of the term, without the days the portal lists as free; loans are all-day events on
                their due date with a reminder the day before. Every event keeps its UID from one export to the
                next, so importing again updates the events instead of adding them twice. Times are in the portal's
                time zone, which the file describes. With --offline, the events come from the last answers in the
                history.
                """), examples: "calendar"))
    @OptionGroup var globals: GlobalOptions
    @Option(
        name: [.short, .long],
        help: ArgumentHelp(localized("Write the calendar to this file (atomically) instead of standard output."), valueName: "file"))
    var output: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            localized(
                "Also include this command's events where its recipe leaves them out unless asked (for the demo: coop-hours, the co-op's closed days). Repeat for more."
            ),
            valueName: "command"))
    var include: [String] = []

    func run(_ environment: CommandEnvironment) async throws {
        let (service, _) = try environment.dayService(offline: globals.offline)
        let calendar = try await environment.withLiveRuns(service, offline: globals.offline) { live, _ in
            try await service.calendar(live: live, including: include)
        }
        let sources = calendar.answers.map { command, answer in
            answer.fromHistory ? localized("\(command) as of \(HistoryStore.age(of: answer.readAt))") : command
        }
        let count = calendar.events.count
        let list = sources.joined(separator: ", ")
        let summary = localized("\(count) event from \(list)", plural: "\(count) events from \(list)", count: count)
        if globals.outputFormat == .json {
            let set = CalendarEvent.records(calendar.events)
            if let output {
                try AtomicFile.write(Data(calendar.text.utf8), to: URL(fileURLWithPath: output))
            }
            StandardOutput.write(OutputFormat.json.render(set))
            return
        }
        if let output {
            try AtomicFile.write(Data(calendar.text.utf8), to: URL(fileURLWithPath: output))
            Progress.note(localized("wrote \(summary) to \(output)"), quiet: globals.quiet)
        } else {
            StandardOutput.write(calendar.text)
            Progress.note(summary, quiet: globals.quiet)
        }
    }
}

/// `unitool today`: the day's classes, what is due, and what is new, on one screen.
struct TodayCommand: UniToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: localized("Your day on one screen: classes, exams, loans due, and what is new since you last looked."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Shows what the portal recipe's today: list declares, each part from its own command, all run at the
                same time: for the demo, today's classes in time order (the next one marked), exams in the next two
                weeks, loans overdue or due within 3 days, news and grades since you last looked, and whether the
                terms of use need accepting. An answer in the history younger than 10 minutes is used without asking
                the portal (--refresh asks anyway); --offline answers from the history alone. "Since you last
                looked" is kept per user: the first look shows nothing new, later ones what changed in between.
                Only a person looking moves it: the screen printed to a terminal, or --mark-seen. --json, --format,
                pipes and files never do, so a status-bar script running 'today --refresh --json' every minute
                leaves a new grade new for you (it sees what is new since your last look, too). Reading it through
                a pipe, say so: 'unitool today --mark-seen | less'. --no-mark-seen looks without moving it.
                Set UNITOOL_NOW (2026-11-30T09:00:00+01:00) to see another day.
                """), examples: "today"))
    @OptionGroup var globals: GlobalOptions
    @Flag(help: ArgumentHelp(localized("Ask the portal even when the history has a fresh answer."))) var refresh = false
    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            localized("Move \"since you last looked\" to now (--no-mark-seen: leave it). Default: only on a terminal, for the screen.")))
    var markSeen: Bool?

    func run(_ environment: CommandEnvironment) async throws {
        let (service, portal) = try environment.dayService(offline: globals.offline)
        try service.requireToday()
        let offline = globals.offline || !service.todayNeedsPortal(refresh: refresh)
        let look = TodayLook(markSeen: markSeen, standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1, format: globals.outputFormat)
        environment.logger.debug("\(look.explanation)")
        let report = try await environment.withLiveRuns(service, offline: offline) { live, checkTerms in
            await service.today(live: live, checkTerms: checkTerms, refresh: refresh, markSeen: look.marksSeen)
        }
        environment.rememberRun(["today"], portal: portal.id)
        if globals.outputFormat == .json {
            StandardOutput.write(service.json(report))
        } else {
            StandardOutput.write(TodayText.text(report, service: service, style: .forStandardOutput(), offline: globals.offline))
        }
        if let problem = report.problem {
            FileHandle.standardError.write(Data(ErrorReporter.text(of: problem, json: globals.outputFormat == .json).utf8))
            throw CommandExit(code: problem.kind.exitCode)
        }
    }
}

/// How `today` prints: sections with their titles and ages for people, one object for scripts.
enum TodayText {
    static func text(_ report: TodayReport, service: DayService, style: TableStyle, offline: Bool) -> String {
        // The heading in the person's locale (LC_ALL, LC_TIME, LANG): day and month names, and
        // the locale's clock.
        let heading = LocalDateText(locale: style.locale, timeZone: service.userZone)
        var campus = ""
        if service.portalZone.secondsFromGMT(for: report.now) != service.userZone.secondsFromGMT(for: report.now) {
            // Class times are the portal's; say what time it is there.
            let local = LocalDateText(locale: style.locale, timeZone: service.portalZone)
            let time = local.time(report.now)
            campus = " " + localized("(\(time) in \(service.portalZone.identifier), where the times below are)")
        }
        var text =
            style.emphasis(
                "\(heading.longDateTime(report.now)) · \(TerminalText.escaped(service.portal.name)) (\(TerminalText.escaped(service.user)))"
            ) + campus + "\n"
        for section in report.sections {
            var title = style.emphasis(TerminalText.escaped(section.item.title))
            if section.fromHistory, let readAt = section.readAt {
                let age = HistoryStore.age(of: readAt)
                title += " " + localized("(as of \(age))")
            }
            text += "\n" + title + "\n"
            if let error = section.error {
                let message = TerminalText.escaped(error.message)
                text += "  " + localized("could not read '\(section.item.command)': \(message)") + "\n"
                if section.readAt == nil { continue }
            }
            if section.firstLook {
                text +=
                    "  "
                    + (report.markedSeen
                        ? localized("(first look: from now on, what is new shows here)")
                        : localized(
                            "(never looked at: 'unitool today' on a terminal, or with --mark-seen, starts \"since you last looked\")"))
                    + "\n"
                continue
            }
            guard !section.rows.records.isEmpty else {
                text += "  " + (section.item.show == .changes ? localized("nothing new") : localized("none")) + "\n"
                continue
            }
            let rows = Self.localWhen(section.rows, clock: LocalDateText(locale: style.locale, timeZone: service.portalZone))
            let shown = (try? rows.selecting(rows.columns.filter { $0 != "start" && $0 != "end" })) ?? rows
            var narrow = style
            narrow.maxWidth = style.maxWidth.map { $0 - 2 }
            // unitool's own words in the rows it makes (an event's status, a change), for people;
            // `today --json` keeps the values.
            var display = section.display
            switch section.item.show {
            case .events:
                display["status"] = .words(["now": localized("now"), "next": localized("next"), "done": localized("done")])
                display["when"] = .words(["all day": localized("all day")])
            case .changes:
                display["change"] = .words(["new": localized("new"), "removed": localized("removed")])
            default: break
            }
            let table = TableRenderer(style: narrow, display: display).render(shown)
            text += table.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "  " + $0 }
                .joined(separator: "\n")
        }
        text += "\n"
        switch report.terms {
        case .accepted: text += localized("Terms of use: accepted") + "\n"
        case .needAccepting(let error):
            let message = TerminalText.escaped(error.message)
            text += style.failure(localized("Terms of use: \(message)")) + "\n"
            if let hint = error.hint { text += "  \(TerminalText.escaped(hint))\n" }
        case .notChecked(let why):
            let reason = TerminalText.escaped(offline ? "--offline" : why)
            text += localized("Terms of use: not checked (\(reason))") + "\n"
        }
        return text
    }

    /// The classes' `when` in the person's locale: the service writes it for JSON as
    /// `Tue 1 Dec 13:00–14:30`; a table gives the same span from `start` and `end` in the
    /// locale's day names and clock (`12月1日(火) 13:00–14:30`, `Di., 1. Dez., 13:00–14:30`).
    /// All-day events keep their words; a row without `start` and `end` is left as it is.
    static func localWhen(_ rows: RecordSet, clock: LocalDateText) -> RecordSet {
        guard rows.columns.contains("when"), rows.columns.contains("start"), rows.columns.contains("end") else { return rows }
        var localized = rows
        for (index, record) in rows.records.enumerated() {
            guard case .string(let when)? = record["when"], !when.hasSuffix("all day"),
                case .datetime(let startText)? = record["start"], case .datetime(let endText)? = record["end"],
                let start = FieldTyper.parseDate(startText, format: "iso8601", timeZone: clock.timeZone),
                let end = FieldTyper.parseDate(endText, format: "iso8601", timeZone: clock.timeZone)
            else { continue }
            // The service names the day only when the list spans several days.
            let namesDay = when.first?.isNumber == false
            let span = "\(clock.time(start))–\(clock.time(end))"
            let text = namesDay ? "\(clock.shortDay(start)) \(span)" : span
            if let field = localized.records[index].fields.firstIndex(where: { $0.name == "when" }) {
                localized.records[index].fields[field].value = .string(text)
            }
        }
        return localized
    }
}
