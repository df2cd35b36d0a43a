import Foundation
import LibXML
import Logging
import Synchronization

/// The recipe runner of a connection: options resolved, pages followed, records extracted and
/// filtered; actions filled and submitted. Every call passes the terms gate: a data run while its
/// first page is fetched (`whileCheckingTerms`), an action before anything is sent.
extension PortalConnection {
    /// Runs a data recipe: resolves its options, fetches its pages, extracts typed records and
    /// keeps those its filter options allow.
    ///
    /// An option resolved to several values (`--term all`) runs the recipe once per value, at the
    /// same time (within the session's per-host cap), and joins the records in the portal's order.
    ///
    /// The options are checked first, as every front end's request is (`RecipeRequest`), and
    /// named in the command line's words: for a caller with options of its own (a watch, a test).
    public func run(
        _ recipe: DataRecipe, options given: [String: String], source sourceName: String? = nil,
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        let request: RecipeRequest
        do {
            request = try RecipeRequest(
                recipe: recipe, options: given.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) },
                shape: sourceName.map { [("source", .string($0))] } ?? [], naming: .commandLine)
        } catch {
            throw UniToolError(.usage, error.message, hint: "see 'unitool \(recipe.command) --help'")
        }
        return try await run(recipe, request, today: today)
    }

    /// Runs a request a front end has checked already (`PortalService.execute`): nothing is
    /// checked twice. Its shape (fields, sort, summary) is the caller's to apply.
    public func run(_ recipe: DataRecipe, _ request: RecipeRequest, today: String = RecordExtractor.localToday()) async throws
        -> RecordSet
    {
        let given = request.options
        let sourceName = request.source
        guard let source = recipe.source(named: sourceName) else {
            throw UniToolError(
                .usage, "'\(sourceName ?? "")' is not a source of '\(recipe.command)'",
                hint: "use one of: \(recipe.sources.compactMap(\.name).joined(separator: ", "))")
        }
        let question = HistoryStore.optionsKey(recipe.effectiveOptions(given), source: request.historySource)
        do {
            let records = try await whileCheckingTerms {
                try await HTTPSession.$commandHeaders.withValue(recipe.headers) {
                    try await self.run(recipe, options: given, source: source, today: today)
                }
            }
            do {
                // A public command's answer is the same for everyone, and is found without a user.
                try history?.record(
                    portal: portal.id, user: recipe.historyUser(user), recipe: recipe.command, options: question, records: records)
            } catch {
                // The answer stands; only the record of it is lost, which the log says.
                logger.warning("not recorded in the history: \(error)")
            }
            return records
        } catch let error as UniToolError where error.kind == .portalUnreachable || error.kind == .portalTimeout {
            // Offline, the values the portal listed last time still tell a typo from an outage.
            if let unknown = unknownValueAsLastSeen(of: recipe, given: given) { throw unknown }
            // And the last answer is there to be had.
            if let last = try? history?.latest(portal: portal.id, user: recipe.historyUser(user), recipe: recipe.command, options: question)
            {
                throw error.adding(
                    note:
                        "'--offline' answers from the history, as of \(HistoryStore.age(of: last.ranAt)) (\(HistoryStore.timestamp(last.ranAt)))"
                )
            }
            throw error
        }
    }

    private func run(_ recipe: DataRecipe, options given: [String: String], source: DataRecipe.Source, today: String)
        async throws -> RecordSet
    {
        let resolved = try await resolveOptions(of: recipe, given: given, today: today)
        let runs = resolved.runs
        let extractor = RecordExtractor(recipe: recipe, source: source, today: today, portal: portal)
        // The page that resolved the value may already show its records (`shows_records`): it is
        // the first page, and the run costs one request instead of two. Only for the recipe's
        // own address (a GET with no `read:` values), which that page stands in for.
        let shown = source.post || !source.reads.isEmpty || source.name != recipe.sources.first?.name ? nil : resolved.shownPage
        let sets: [[Record]]
        // "reading 12 terms: 5/12" when an option resolved to several values.
        let what = recipe.options.first { option in given[option.name].flatMap { option.resolve[$0]?.many } == true }?.name
        do {
            sets = try await withThrowingTaskGroup(of: (Int, [Record]).self) { group in
                for (index, values) in runs.enumerated() {
                    group.addTask { (index, try await self.records(extractor, values: values, typed: given, firstPage: shown)) }
                }
                var results = [[Record]](repeating: [], count: runs.count)
                var finished = 0
                for try await (index, records) in group {
                    results[index] = records
                    finished += 1
                    if runs.count > 1 {
                        CurrentInteraction.report("reading \(Plural.count(runs.count, what ?? "page")): \(finished)/\(runs.count)")
                    }
                }
                return results
            }
        } catch let error as UniToolError where error.kind == .portalError {
            // A mistyped value (`--term fall`) reaches the portal as a page that does not exist.
            // Only then is the portal asked for the values it offers, so a good run pays nothing
            // (a changed layout is not a wrong value, and is reported as it is).
            if let unknown = try await unknownValue(of: recipe, given: given) { throw unknown }
            throw error
        }
        return RecordFilter.apply(resolved.filters, to: RecordSet(columns: recipe.columns, records: sets.flatMap { $0 }))
    }

    /// A usage error for an option value the portal does not offer, naming those it does: the
    /// option's `resolve` entry with `many: true` (the portal's own selector) lists them.
    func unknownValue(of recipe: DataRecipe, given: [String: String]) async throws -> UniToolError? {
        for option in recipe.options where option.filter == nil {
            guard let value = given[option.name], option.resolve[value] == nil,
                let list = option.resolve.values.first(where: \.many),
                let address = try? self.address(list.fetch.render(given, encode: Template.urlEncode), of: recipe)
            else { continue }
            let page = try await loadPage(address, as: .resolve, recipe: recipe.file)
            let offered = try values(of: list.xpath, on: page.document(charsetOverride: portal.charsetOverride(for: page.url)))
            offeredValues.save(offered, portal: portal.id, command: recipe.command, option: option.name)
            guard !offered.isEmpty, !offered.contains(value) else { continue }
            return UniToolError.RefusedOption(
                option: option.name, value: value, offered: offered + option.resolve.keys.sorted(), lastSeen: false
            ).error
        }
        return nil
    }

    /// The same check against the values the portal offered when it was last asked, for when it
    /// cannot be asked now.
    func unknownValueAsLastSeen(of recipe: DataRecipe, given: [String: String]) -> UniToolError? {
        for option in recipe.options where option.filter == nil {
            guard let value = given[option.name], option.resolve[value] == nil,
                let offered = offeredValues.load(portal: portal.id, command: recipe.command, option: option.name),
                !offered.contains(value)
            else { continue }
            return UniToolError.RefusedOption(
                option: option.name, value: value, offered: offered + option.resolve.keys.sorted(), lastSeen: true
            ).error
        }
        return nil
    }

    /// The non-empty texts an XPath finds: the values of a selector's options.
    func values(of xpath: String, on document: Document) throws -> [String] {
        switch try document.evaluate(xpath) {
        case .nodes(let nodes): return nodes.map { $0.text.collapsingWhitespace() }.filter { !$0.isEmpty }
        case let other: return [other.stringValue.collapsingWhitespace()].filter { !$0.isEmpty }
        }
    }

    /// Every page of one run of a source: the first, then each `next` link up to `max_pages`.
    /// `firstPage`, when given, is the first page already fetched (see `shows_records`).
    ///
    /// `typed` are the options as the user gave them, for a message about a page the portal does
    /// not have.
    ///
    /// Every error is scrubbed of the session's secrets: a `type: url` read's address and its
    /// token, a user value, may be in what a read or a page's error quotes (a 404's address).
    func records(_ extractor: RecordExtractor, values given: [String: String], typed: [String: String] = [:], firstPage: Page? = nil)
        async throws -> [Record]
    {
        do {
            return try await recordsOfRun(extractor, values: given, typed: typed, firstPage: firstPage)
        } catch let error as UniToolError {
            let scrubber = session.scrubber
            throw UniToolError(error.kind, scrubber.scrubMessage(error.message), hint: error.hint.map { scrubber.scrubMessage($0) })
        }
    }

    private func recordsOfRun(_ extractor: RecordExtractor, values given: [String: String], typed: [String: String], firstPage: Page?)
        async throws -> [Record]
    {
        let source = extractor.source
        var values = given
        if let midnight = FieldTyper.parseDate(extractor.today, format: "yyyy-MM-dd", timeZone: .current) {
            values["today_epoch"] = String(Int(midnight.timeIntervalSince1970))
        }
        // The user's own values (a calendar token): from the user's settings, and kept out of
        // every trace and message like a password.
        for name in extractor.recipe.userValues {
            let value = try userValues(name, extractor.recipe)
            session.registerSecret(value)
            values[name] = value
        }
        // In the order written, each with the values found before it (checked when loaded).
        for read in source.reads { values[read.name] = try await readValue(read, values: values, recipe: extractor.recipe) }
        let target = try source.fetchedAddress.flatMap { values[$0] } ?? source.fetch.render(values, encode: Template.urlEncode)
        var url: URL? = try portal.url(for: try address(target, of: extractor.recipe))
        var records: [Record] = []
        var seen: Set<String> = []
        var pages = 0
        while let next = url, pages < source.maxPages, seen.insert(next.absoluteString).inserted {
            if pages > 0 { CurrentInteraction.report("reading \(extractor.recipe.command): page \(pages + 1)") }
            let page: Page
            if pages == 0, let firstPage {
                page = firstPage
                seen.insert(firstPage.url.absoluteString)
            } else if pages == 0 && source.post {
                page = try await postPage(next, source: source, values: values, recipe: extractor.recipe)
            } else {
                do {
                    page = try await loadPage(
                        next.absoluteString, as: pages == 0 ? .fetch : .next, recipe: extractor.recipe.file,
                        asFetch: source.parser == .json)
                } catch let error as UniToolError where pages == 0 && error.message.hasPrefix("the portal answered 404 ") {
                    // A page named by what the user typed (a course code) that the portal does
                    // not have is most likely a mistyped value, not a moved page. A value an
                    // option resolved (`current`) is not what was typed, and is not named.
                    let shown = source.fetch.variables.compactMap { name -> String? in
                        guard let value = typed[name], values[name] == value else { return nil }
                        return "\(name) \(value)"
                    }
                    guard !shown.isEmpty else { throw error }
                    throw error.adding(note: "the portal has no page for \(shown.joined(separator: ", ")): check the value given")
                }
            }
            let document = try extractor.document(of: page, charsetOverride: portal.charsetOverride(for: page.url))
            do {
                records += try extractor.extract(from: document).records
            } catch let error as UniToolError where error.kind == .layoutChanged {
                throw DriftReport.save(
                    error, document: document, recipe: extractor.recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
            }
            pages += 1
            url = try extractor.nextPage(in: document)
        }
        if url != nil, pages >= source.maxPages {
            logger.warning(
                "\(extractor.recipe.command): stopped after \(source.maxPages) pages (max_pages in \(extractor.recipe.file)); there are more"
            )
        }
        return records
    }

    /// A recipe's path as an address on its service (`service: lms`), or on the portal.
    func address(_ path: String, of recipe: DataRecipe) throws -> String {
        guard let url = URL(string: path, relativeTo: portal.base(ofService: recipe.service))?.absoluteURL else {
            throw UniToolError(.recipeInvalid, "\(recipe.file): '\(path)' is not a valid path or URL")
        }
        return url.absoluteString
    }

    /// A `read:` value: a page fetched (logging in if the portal asks), an XPath, a regex.
    func readValue(_ read: DataRecipe.Source.Read, values: [String: String], recipe: DataRecipe) async throws -> String {
        let target = try address(read.fetch.render(values, encode: Template.urlEncode), of: recipe)
        let page: Page
        if read.post {
            guard let url = URL(string: target) else {
                throw UniToolError(.recipeInvalid, "\(recipe.file): read: '\(read.name)' fetches '\(target)', which is not a URL")
            }
            page = try await post(to: url, form: read.form, json: read.json, values: values, as: .read, recipe: recipe)
        } else {
            page = try await loadPage(target, as: .read, recipe: recipe.file, asFetch: read.parser == .json)
        }
        let document =
            read.parser == .json
            ? try Document(xml: Array(StructuredText.xml(fromJSON: page.body).utf8), url: page.url.absoluteString, encoding: "utf-8")
            : try page.document(charsetOverride: portal.charsetOverride(for: page.url))
        let found = try self.values(of: read.xpath, on: document)
        var value = found.first
        if let pattern = read.regex, let text = value {
            value = try RecordExtractor.applyRegex(try Regex(pattern), to: text)
        }
        guard let value, !value.isEmpty else {
            throw UniToolError(
                .layoutChanged,
                "recipe \(recipe.portal)/\(recipe.command): read: '\(read.name)' found nothing on \(page.url.redactedForLog) (XPath \"\(read.xpath)\"\(read.regex.map { ", regex \($0)" } ?? ""))",
                hint: "the page no longer shows it where \(recipe.file) looks")
        }
        return read.isAddress ? try readAddress(value, of: read, on: page, recipe: recipe) : value
    }

    /// A `type: url` read's value: resolved against the page it was read from, and kept out of
    /// every log, trace, drift report and message from now on, like a user value: an address a
    /// portal hands one user is their capability (a calendar export's carries their token). It
    /// must be on the portal's own origins, as any address a recipe fetches (`OriginPolicy`):
    /// a page that shows one elsewhere gets nothing sent there.
    func readAddress(_ value: String, of read: DataRecipe.Source.Read, on page: Page, recipe: DataRecipe) throws -> String {
        guard let address = URL(string: value.trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: page.url)?.absoluteURL,
            address.host != nil
        else {
            throw UniToolError(
                .layoutChanged,
                "recipe \(recipe.portal)/\(recipe.command): read: '\(read.name)' is an address (type: url), but what \(page.url.redactedForLog) shows at \"\(read.xpath)\" is not one",
                hint: "the page no longer shows the address where \(recipe.file) looks")
        }
        for secret in [value, address.absoluteString] { session.registerSecret(secret) }
        // The token inside it too, wherever a message or a trace quotes the query or the path apart
        // (`?authtoken=…`, `/ical/<token>/basic.ics`).
        let query = (URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []).compactMap(\.value)
        for token in query + address.pathComponents where TraceScrubber.looksLikeToken(token) { session.registerSecret(token) }
        if let refusal = originPolicy.refusal(.read, to: address, recipe: recipe.file) {
            throw refusal.adding(note: "read: '\(read.name)' found this address on \(page.url.redactedForLog); nothing was fetched from it")
        }
        return address.absoluteString
    }

    /// The first page of a `method: post` source: its form or JSON body sent to the portal's own
    /// origin, never elsewhere, and repeated by a 307 or 308 redirect only to the portal's own.
    func postPage(_ target: URL, source: DataRecipe.Source, values: [String: String], recipe: DataRecipe) async throws -> Page {
        try await post(to: target, form: source.form, json: source.json, values: values, as: .fetch, recipe: recipe)
    }

    /// A recipe's POST (a source's first page, a `read:` value): its form or JSON body, values
    /// filled in, sent to the portal's own origin only.
    func post(
        to target: URL, form: [(name: String, value: Template)], json: Template?, values: [String: String],
        as kind: OriginPolicy.RequestKind, recipe: DataRecipe
    ) async throws -> Page {
        let bodyMayGoTo = bodyMayGoTo(kind, recipe: recipe.file)
        if let json {
            let body = try json.render(values, encode: Template.jsonEscape)
            return try await loadPage(target, isPost: true, as: kind, recipe: recipe.file) {
                try await self.session.post(target, json: body, bodyMayGoTo: bodyMayGoTo)
            }
        }
        let fields = try form.map { ($0.name, try $0.value.render(values)) }
        return try await loadPage(target, isPost: true, as: kind, recipe: recipe.file) {
            try await self.session.submit(FormSubmission(method: "POST", url: target, fields: fields), bodyMayGoTo: bodyMayGoTo)
        }
    }

    /// Where a body the recipe filled in may be repeated by a 307 or 308 redirect: the portal's
    /// own origins only. The portal may send the browser elsewhere, but not with the recipe's values.
    func bodyMayGoTo(_ kind: OriginPolicy.RequestKind, recipe: String) -> @Sendable (URL) throws -> Void {
        let policy = originPolicy
        return { url in if let refusal = policy.refusal(kind, to: url, recipe: recipe) { throw refusal } }
    }

    /// What `resolveOptions` found: one set of values per run (several when a value resolves to
    /// a list), the filters to apply to the records, and the page that resolved a value and
    /// already shows its records (`shows_records`), when the run is that one value.
    struct ResolvedOptions {
        var runs: [[String: String]]
        var filters: [RecordFilter]
        var shownPage: Page?
    }

    /// Applies defaults and looks up symbolic values on the portal, for options checked already
    /// (`RecipeRequest`: known, of their type, from their list, filters readable).
    ///
    /// A filter's `today` is the run's today (the service's clock, `UNITOOL_NOW` included), at
    /// noon so that no zone moves it to another day.
    func resolveOptions(of recipe: DataRecipe, given: [String: String], today: String = RecordExtractor.localToday()) async throws
        -> ResolvedOptions
    {
        var values: [String: String] = [:]
        var filters: [RecordFilter] = []
        let now = CalendarDay(iso: today)?.moment(atMinute: 12 * 60, in: .current) ?? Date()
        for option in recipe.options {
            let value = given[option.name] ?? option.defaultValue
            if option.filter != nil {
                if let value { filters.append(try RecordFilter(option: option, value: value, now: now)) }
                continue
            }
            // An option without a value is one the source being read does not name (a course
            // code when searching): the request checked what that source needs.
            guard let value else { continue }
            values[option.name] = value
        }
        var runs = [values]
        var shownPage: Page?
        var resolvedCount = 0
        for option in recipe.options where option.filter == nil {
            // Every option that is not a filter has a value by now, given or its default.
            guard let value = values[option.name] else { continue }
            if let resolution = option.resolve[value] {
                let address = try self.address(resolution.fetch.render(values, encode: Template.urlEncode), of: recipe)
                let page = try await loadPage(address, as: .resolve, recipe: recipe.file)
                let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
                let found = try self.values(of: resolution.xpath, on: document)
                // The selector's whole list is usually on the same page: keep it, at no cost.
                if let list = option.resolve.values.first(where: \.many),
                    (try? self.address(list.fetch.render(values, encode: Template.urlEncode), of: recipe)) == address,
                    let offered = try? self.values(of: list.xpath, on: document)
                {
                    offeredValues.save(offered, portal: portal.id, command: recipe.command, option: option.name)
                }
                guard !found.isEmpty else {
                    let error = UniToolError(
                        .layoutChanged,
                        "recipe \(recipe.file): cannot find what '--\(option.name) \(value)' means: \"\(resolution.xpath)\" matched nothing on \(page.url.redactedForLog)",
                        hint: "the portal's page may have changed; give the value explicitly, or fix the recipe")
                    throw DriftReport.save(
                        error, document: document, recipe: recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
                }
                let chosen = resolution.many ? found : [found[0]]
                logger.debug("--\(option.name) \(value) is \(chosen.joined(separator: ", "))")
                resolvedCount += 1
                if resolution.showsRecords { shownPage = page }
                runs = runs.flatMap { run in chosen.map { run.merging([option.name: $0]) { $1 } } }
            } else if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
                throw UniToolError(
                    .usage, "'\(value)' is not a valid value for --\(option.name)",
                    hint: "use one of: \((option.allowedValues + option.resolve.keys.sorted()).joined(separator: ", "))")
            }
        }
        // A page stands for the records of one value only: with a second resolved option, or
        // several runs, each run's own address is fetched.
        return ResolvedOptions(runs: runs, filters: filters, shownPage: resolvedCount == 1 && runs.count == 1 ? shownPage : nil)
    }

    /// Fills and submits an action's form, such as renewing a loan, and reads the result page.
    /// A refusal by the portal is an `actionRefused` error carrying the portal's own words.
    ///
    /// `listed`: the preview the person said yes to. The page the form is on is read again here,
    /// so its preview is compared first: a list that changed meanwhile (a loan renewed elsewhere)
    /// sends nothing (`declined`), since the yes was for the other list.
    public func perform(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:],
        listed: RecordSet? = nil, today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        try await ensureTermsAccepted()
        return try await HTTPSession.$commandHeaders.withValue(recipe.headers) {
            try await self.performAccepted(action, of: recipe, argument: argument, parameters: parameters, listed: listed, today: today)
        }
    }

    /// What `action` would change, read off the page its form is on and sent nowhere: one record
    /// per row of its `preview:`, with the recipe's own fields (`RecordExtractor`, so a computed
    /// field such as `overdue` is computed against `today`), shaped as the preview says. Empty when
    /// the portal says there is nothing to do or no row matches. The action's refusal before any
    /// form (`refused_when`) is the same error `perform` gives.
    public func preview(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:],
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        guard let preview = action.preview, let source = recipe.sources.first else {
            throw UniToolError(.internal, "action '\(action.name)' of \(recipe.file) has no preview")
        }
        try await ensureTermsAccepted()
        return try await HTTPSession.$commandHeaders.withValue(recipe.headers) {
            let values = action.values(argument: argument, parameters: parameters)
            let page = try await self.loadPage(
                try self.address(action.fetch.render(values, encode: Template.urlEncode), of: recipe), as: .action, recipe: recipe.file)
            let document = try page.document(charsetOverride: self.portal.charsetOverride(for: page.url))
            let empty = preview.shaped(RecordSet(columns: source.fields.map(\.name), records: []), today: today)
            if let nothingWhen = action.nothingWhen, try document.evaluate(nothingWhen).booleanValue { return empty }
            if let message = try self.refusal(action, in: document, values: values) {
                throw Self.refused(action, argument: argument, message)
            }
            return try self.previewRecords(preview, of: recipe, source: source, in: document, today: today)
        }
    }

    /// The rows of `preview` on `document`, read with `source`'s fields and shaped.
    func previewRecords(
        _ preview: ActionSpec.Preview, of recipe: DataRecipe, source: DataRecipe.Source, in document: Document, today: String
    ) throws -> RecordSet {
        guard try !document.select(preview.rows).isEmpty else {
            return preview.shaped(RecordSet(columns: source.fields.map(\.name), records: []), today: today)
        }
        var rowsSource = source
        rowsSource.rows = preview.rows
        rowsSource.emptyWhen = nil
        rowsSource.next = nil
        rowsSource.maxPages = 1
        var rowsRecipe = recipe
        rowsRecipe.sources = [rowsSource]
        let records = try RecordExtractor(recipe: rowsRecipe, source: rowsSource, today: today, portal: portal).extract(from: document)
        return preview.shaped(records, today: today)
    }

    /// `perform`, once the terms are accepted, with the recipe's headers set.
    private func performAccepted(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String], listed: RecordSet?,
        today: String
    ) async throws -> RecordSet {
        let values = action.values(argument: argument, parameters: parameters)
        let page = try await loadPage(
            try address(action.fetch.render(values, encode: Template.urlEncode), of: recipe), as: .action, recipe: recipe.file)
        let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
        // "Nothing to do" is the portal's answer, not a page that changed: said, and done.
        if let nothingWhen = action.nothingWhen, case let found = try document.evaluate(nothingWhen), found.booleanValue {
            let message: String
            if case .nodes(let nodes) = found, let first = nodes.first {
                message = session.scrubber.scrubMessage(first.text.collapsingWhitespace())
            } else {
                message = "the portal says there is nothing to \(action.name)"
            }
            return RecordSet(
                columns: ["result", "message"],
                records: [Record(fields: [("result", .string("nothing to do")), ("message", .string(message))])])
        }
        if let message = try refusal(action, in: document, values: values) {
            throw Self.refused(action, argument: argument, message)
        }
        if let listed, let preview = action.preview, let source = recipe.sources.first {
            let now = try previewRecords(preview, of: recipe, source: source, in: document, today: today)
            guard now == listed else {
                throw UniToolError(
                    .declined,
                    "'\(recipe.command) \(action.name)': the portal's list changed after it was shown (\(listed.records.count) then, \(now.records.count) now); nothing was sent",
                    hint: "run it again to see the list as it is now")
            }
        }
        let formXPath = try Template(action.form).render(values, encode: Template.xpathLiteral)
        guard let formNode = try document.select(formXPath).first else {
            let error = UniToolError(
                .layoutChanged,
                "recipe \(recipe.file): action '\(action.name)': no form matching \"\(formXPath)\" on \(page.url.redactedForLog)",
                hint: "check the \(action.argument) (\(argument)); if it is right, the portal's page has changed")
            throw DriftReport.save(error, document: document, recipe: recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
        }
        let form = try HTMLForm(formNode, pageURL: page.url)
        var fill = try action.fill.map { (name: $0.name, value: try $0.value.render(values)) }
        for (name, xpath) in action.fillFromPage {
            let expression = try Template(xpath).render(values, encode: Template.xpathLiteral)
            guard let value = try self.values(of: expression, on: document).first else {
                let error = UniToolError(
                    .layoutChanged,
                    "recipe \(recipe.file): action '\(action.name)': fill_from_page '\(name)' found nothing (XPath \"\(expression)\") on \(page.url.redactedForLog)",
                    hint: action.takesArgument
                        ? "check the \(action.argument) (\(argument)); if it is right, the portal's page has changed"
                        : "the portal's page has changed")
                throw DriftReport.save(
                    error, document: document, recipe: recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
            }
            fill.append((name: name, value: value))
        }
        let button = try action.submit.flatMap { try formNode.select($0).first }
        if action.submit != nil, button == nil {
            throw UniToolError(
                .layoutChanged, "recipe \(recipe.file): action '\(action.name)': no button matching \"\(action.submit!)\" in the form")
        }
        let submission = try form.submission(values: fill, clicking: button)
        if let refusal = originPolicy.refusal(.action, to: submission.url, recipe: recipe.file) {
            throw refusal.adding(note: "the form of '\(action.name)' on \(page.url.redactedForLog) points there")
        }
        logger.debug("action '\(action.name)': \(submission)")
        // The point of no return: a cancel before it sends nothing; once the form is on its way,
        // the portal may act on it, so its answer is read and reported whatever the caller does.
        let mayGoTo = bodyMayGoTo(.action, recipe: recipe.file)
        var result = try await PointOfNoReturn.cross { try await self.session.submit(submission, bodyMayGoTo: mayGoTo) }
        var resultDocument = try result.document(charsetOverride: portal.charsetOverride(for: result.url))
        // The portal's own "is this right?" page, unless it did it at once: its refusal (a field
        // it did not accept) is said first; otherwise its form, which carries what it received,
        // is sent as it is.
        if let confirmPage = action.confirmPage, try !resultDocument.evaluate(action.successWhen).booleanValue {
            if let message = try refusal(action, in: resultDocument, values: values) {
                throw Self.refused(action, argument: argument, message)
            }
            guard let confirmNode = try resultDocument.select(confirmPage.form).first else {
                let error = UniToolError(
                    .layoutChanged,
                    "recipe \(recipe.file): action '\(action.name)': the page after the form at \(result.url.redactedForLog) has no confirmation form matching \"\(confirmPage.form)\", and does not say it is done",
                    hint: "unitool cannot tell whether it was received: look at the portal in a browser before trying again")
                throw DriftReport.save(
                    error, document: resultDocument, recipe: recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
            }
            let confirmButton = try confirmPage.submit.flatMap { try confirmNode.select($0).first }
            if confirmPage.submit != nil, confirmButton == nil {
                throw UniToolError(
                    .layoutChanged,
                    "recipe \(recipe.file): action '\(action.name)': no button matching \"\(confirmPage.submit!)\" in the confirmation form"
                )
            }
            let confirmation = try HTMLForm(confirmNode, pageURL: result.url).submission(values: [], clicking: confirmButton)
            if let refusal = originPolicy.refusal(.action, to: confirmation.url, recipe: recipe.file) {
                throw refusal.adding(note: "the confirmation form of '\(action.name)' on \(result.url.redactedForLog) points there")
            }
            logger.debug("action '\(action.name)', confirmation: \(confirmation)")
            // The portal only showed what it received: a cancel that came meanwhile is still in
            // time (`cross` obeys it), and the confirmation is the action's real point of no return.
            result = try await PointOfNoReturn.cross { try await self.session.submit(confirmation, bodyMayGoTo: mayGoTo) }
            resultDocument = try result.document(charsetOverride: portal.charsetOverride(for: result.url))
        }
        if let message = try refusal(action, in: resultDocument, values: values) {
            throw Self.refused(action, argument: argument, message)
        }
        guard try resultDocument.evaluate(action.successWhen).booleanValue else {
            let error = UniToolError(
                .layoutChanged,
                "recipe \(recipe.file): action '\(action.name)': the result page at \(result.url.redactedForLog) matches neither success_when nor refused_when, so unitool cannot tell whether it worked",
                hint: "look at the portal in a browser before trying again")
            throw DriftReport.save(
                error, document: resultDocument, recipe: recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
        }
        // Several rows changed (the loans just renewed): one record each, which says which.
        if let resultRows = action.resultRows, !action.fields.isEmpty {
            let rowsRecipe = DataRecipe(
                command: "\(recipe.command) \(action.name)", summary: action.summary, options: [],
                sources: [
                    .init(
                        fetch: action.fetch, parser: .html, namespaces: [:], rows: resultRows, next: nil, maxPages: 1,
                        fields: action.fields)
                ],
                actions: [], file: recipe.file, portal: recipe.portal)
            guard try !resultDocument.select(resultRows).isEmpty else {
                return RecordSet(columns: action.fields.map(\.name), records: [])
            }
            return try RecordExtractor(recipe: rowsRecipe, portal: portal).extract(from: resultDocument)
        }
        var fields: [(name: String, value: FieldValue)] = action.takesArgument ? [(action.argument, .string(argument))] : []
        if !action.fields.isEmpty {
            let actionRecipe = DataRecipe(
                command: "\(recipe.command) \(action.name)", summary: action.summary, options: [],
                sources: [
                    .init(fetch: action.fetch, parser: .html, namespaces: [:], rows: "/*", next: nil, maxPages: 1, fields: action.fields)
                ],
                actions: [], file: recipe.file, portal: recipe.portal)
            let extracted = try RecordExtractor(recipe: actionRecipe, portal: portal).extract(from: resultDocument)
            fields += extracted.records.first?.fields.filter { !action.takesArgument || $0.name != action.argument } ?? []
        }
        return RecordSet(columns: fields.map(\.name), records: [Record(fields: fields)])
    }

    /// The error for an action the portal refused, with its reason (`refusal`).
    static func refused(_ action: ActionSpec, argument: String, _ message: String) -> UniToolError {
        UniToolError(
            .actionRefused, "the portal refused to \(action.name)\(argument.isEmpty ? "" : " \(argument)"): \(message)",
            hint: "the portal's own rules decide this; see its page for details")
    }

    /// The portal's reason for refusing an action, as the error quotes it: scrubbed of every
    /// secret the session knows and of SAML messages, since a portal's text may repeat them.
    func refusal(_ action: ActionSpec, in document: Document, values: [String: String] = [:]) throws -> String? {
        try unscrubbedRefusal(action, in: document, values: values).map { session.scrubber.scrubMessage($0) }
    }

    /// `refused_when` may name the argument (`{{barcode}}`, as an XPath string): the portal may
    /// say "not renewable" in the row of that item before any form is sent.
    func unscrubbedRefusal(_ action: ActionSpec, in document: Document, values: [String: String] = [:]) throws -> String? {
        guard let refusedWhen = action.refusedWhen else { return nil }
        switch try document.evaluate(try Template(refusedWhen).render(values, encode: Template.xpathLiteral)) {
        case .nodes(let nodes): return nodes.first.map { $0.text.collapsingWhitespace() }
        case .boolean(let flag): return flag ? "(no reason given)" : nil
        case let value:
            let text = value.stringValue.collapsingWhitespace()
            return text.isEmpty ? nil : text
        }
    }
}
