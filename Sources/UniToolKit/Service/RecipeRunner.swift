import Foundation
import LibXML
import Logging

/// A data recipe's run on the portal (`PortalConnection.run`): its options resolved (a value the
/// portal offers looked up on its selector page, `many` values run at once), its pages fetched and
/// followed (`next:`, `read:` values, POST bodies), its records extracted and filtered. Over the
/// connection's pages, which pass the origin policy and meet the login underneath.
struct RecipeRunner: ConnectionPart {
    let connection: PortalConnection
    var offeredValues: OfferedValuesStore { connection.offeredValues }
    var userValues: UserValueProvider { connection.userValues }

    /// What `resolveOptions` found: one set of values per run (several when a value resolves to
    /// a list), the filters to apply to the records, and the page that resolved a value and
    /// already shows its records (`shows_records`), when the run is that one value.
    struct ResolvedOptions {
        var runs: [[String: String]]
        var filters: [RecordFilter]
        var shownPage: Page?
    }

    func run(_ recipe: DataRecipe, options given: [String: String], source: DataRecipe.Source, today: String)
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
                        // The option's name is the recipe's word; "page" is unitool's own.
                        let items =
                            what.map { Plural.count(runs.count, $0) }
                            ?? localized("\(runs.count) page", plural: "\(runs.count) pages", count: runs.count)
                        CurrentInteraction.report(localized("reading \(items): \(finished)/\(runs.count)"))
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
                let address = try? connection.address(list.fetch.render(given, encode: Template.urlEncode), of: recipe)
            else { continue }
            let page = try await connection.loadPage(address, as: .resolve, recipe: recipe.file)
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
        var url: URL? = try portal.url(for: try connection.address(target, of: extractor.recipe))
        var records: [Record] = []
        var seen: Set<String> = []
        var pages = 0
        while let next = url, pages < source.maxPages, seen.insert(next.absoluteString).inserted {
            if pages > 0 { CurrentInteraction.report(localized("reading \(extractor.recipe.command): page \(pages + 1)")) }
            let page: Page
            if pages == 0, let firstPage {
                page = firstPage
                seen.insert(firstPage.url.absoluteString)
            } else if pages == 0 && source.post {
                page = try await postPage(next, source: source, values: values, recipe: extractor.recipe)
            } else {
                do {
                    page = try await connection.loadPage(
                        next.absoluteString, as: pages == 0 ? .fetch : .next, recipe: extractor.recipe.file,
                        asFetch: source.parser == .json)
                } catch let error as UniToolError where pages == 0 && Self.isMissingPage(error) {
                    // A page named by what the user typed (a course code) that the portal does
                    // not have is most likely a mistyped value, not a moved page. A value an
                    // option resolved (`current`) is not what was typed, and is not named.
                    let shown = source.fetch.variables.compactMap { name -> String? in
                        guard let value = typed[name], values[name] == value else { return nil }
                        return "\(name) \(value)"
                    }
                    guard !shown.isEmpty else { throw error }
                    let named = shown.joined(separator: ", ")
                    throw error.adding(note: localized("the portal has no page for \(named): check the value given"))
                }
            }
            let document = try extractor.document(of: page, charsetOverride: portal.charsetOverride(for: page.url))
            do {
                records += try extractor.extract(from: document).records
            } catch let error as UniToolError where error.kind == .layoutChanged {
                throw connection.drifted(error, on: document, recipe: extractor.recipe)
            }
            pages += 1
            url = try extractor.nextPage(in: document)
        }
        if url != nil, pages >= source.maxPages {
            logger.warning(
                "\(localized("\(extractor.recipe.command): stopped after \(source.maxPages) pages (max_pages in \(extractor.recipe.file)); there are more"))"
            )
        }
        return records
    }

    /// Whether a page's error is the portal's 404 (`PageLoader`, or a page met during the login):
    /// told by its message, or, where that is in another language, by its hint.
    static func isMissingPage(_ error: UniToolError) -> Bool {
        error.message.hasPrefix("the portal answered 404 ")
            || (error.kind == .portalError
                && (error.hint == PageLoader.movedPageHint
                    || error.hint == localized("the page does not exist; check the command's options")))
    }

    /// A `read:` value: a page fetched (logging in if the portal asks), an XPath, a regex.
    func readValue(_ read: DataRecipe.Source.Read, values: [String: String], recipe: DataRecipe) async throws -> String {
        let target = try connection.address(read.fetch.render(values, encode: Template.urlEncode), of: recipe)
        let page: Page
        if read.post {
            guard let url = URL(string: target) else {
                throw UniToolError(
                    .recipeInvalid, localized("\(recipe.file): read: '\(read.name)' fetches '\(target)', which is not a URL"))
            }
            page = try await post(to: url, form: read.form, json: read.json, values: values, as: .read, recipe: recipe)
        } else {
            page = try await connection.loadPage(target, as: .read, recipe: recipe.file, asFetch: read.parser == .json)
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
            let nothingFound =
                if let regex = read.regex {
                    localized(
                        "recipe \(recipe.portal)/\(recipe.command): read: '\(read.name)' found nothing on \(page.url.redactedForLog) (XPath \"\(read.xpath)\", regex \(regex))"
                    )
                } else {
                    localized(
                        "recipe \(recipe.portal)/\(recipe.command): read: '\(read.name)' found nothing on \(page.url.redactedForLog) (XPath \"\(read.xpath)\")"
                    )
                }
            throw UniToolError(.layoutChanged, nothingFound, hint: localized("the page no longer shows it where \(recipe.file) looks"))
        }
        return read.isAddress ? try readAddress(value, of: read, on: page, recipe: recipe) : value
    }

    /// A `type: url` read's value: resolved against the page it was read from, and kept out of
    /// every log, trace, drift report and message from now on, like a user value: an address a
    /// portal hands one user is their capability (a calendar export's carries their token). It
    /// must be on the portal's own origins, as any address a recipe fetches (`OriginPolicy`):
    /// a page that shows one elsewhere gets nothing sent there.
    func readAddress(_ value: String, of read: DataRecipe.Source.Read, on page: Page, recipe: DataRecipe) throws -> String {
        guard let address = URL(string: value.trimmingWhitespaceAndNewlines(), relativeTo: page.url)?.absoluteURL,
            address.host != nil
        else {
            throw UniToolError(
                .layoutChanged,
                localized(
                    "recipe \(recipe.portal)/\(recipe.command): read: '\(read.name)' is an address (type: url), but what \(page.url.redactedForLog) shows at \"\(read.xpath)\" is not one"
                ),
                hint: localized("the page no longer shows the address where \(recipe.file) looks"))
        }
        for secret in [value, address.absoluteString] { session.registerSecret(secret) }
        // The token inside it too, wherever a message or a trace quotes the query or the path apart
        // (`?authtoken=…`, `/ical/<token>/basic.ics`).
        let query = (URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []).compactMap(\.value)
        for token in query + address.pathComponents where TraceScrubber.looksLikeToken(token) { session.registerSecret(token) }
        if let refusal = connection.originPolicy.refusal(.read, to: address, recipe: recipe.file) {
            throw refusal.adding(
                note: localized("read: '\(read.name)' found this address on \(page.url.redactedForLog); nothing was fetched from it"))
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
        let bodyMayGoTo = connection.bodyMayGoTo(kind, recipe: recipe.file)
        if let json {
            let body = try json.render(values, encode: Template.jsonEscape)
            return try await connection.loadPage(target, isPost: true, as: kind, recipe: recipe.file) {
                try await self.session.post(target, json: body, bodyMayGoTo: bodyMayGoTo)
            }
        }
        let fields = try form.map { ($0.name, try $0.value.render(values)) }
        return try await connection.loadPage(target, isPost: true, as: kind, recipe: recipe.file) {
            try await self.session.submit(FormSubmission(method: "POST", url: target, fields: fields), bodyMayGoTo: bodyMayGoTo)
        }
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
                let address = try connection.address(resolution.fetch.render(values, encode: Template.urlEncode), of: recipe)
                let page = try await connection.loadPage(address, as: .resolve, recipe: recipe.file)
                let document = try page.document(charsetOverride: portal.charsetOverride(for: page.url))
                let found = try self.values(of: resolution.xpath, on: document)
                // The selector's whole list is usually on the same page: keep it, at no cost.
                if let list = option.resolve.values.first(where: \.many),
                    (try? connection.address(list.fetch.render(values, encode: Template.urlEncode), of: recipe)) == address,
                    let offered = try? self.values(of: list.xpath, on: document)
                {
                    offeredValues.save(offered, portal: portal.id, command: recipe.command, option: option.name)
                }
                guard !found.isEmpty else {
                    let error = UniToolError(
                        .layoutChanged,
                        localized(
                            "recipe \(recipe.file): cannot find what '--\(option.name) \(value)' means: \"\(resolution.xpath)\" matched nothing on \(page.url.redactedForLog)"
                        ),
                        hint: localized("the portal's page may have changed; give the value explicitly, or fix the recipe"))
                    throw connection.drifted(error, on: document, recipe: recipe)
                }
                let chosen = resolution.many ? found : [found[0]]
                logger.debug("--\(option.name) \(value) is \(chosen.joined(separator: ", "))")
                resolvedCount += 1
                if resolution.showsRecords { shownPage = page }
                runs = runs.flatMap { run in chosen.map { run.merging([option.name: $0]) { $1 } } }
            } else if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
                let valid = (option.allowedValues + option.resolve.keys.sorted()).joined(separator: ", ")
                throw UniToolError(
                    .usage, localized("'\(value)' is not a valid value for --\(option.name)"), hint: localized("use one of: \(valid)"))
            }
        }
        // A page stands for the records of one value only: with a second resolved option, or
        // several runs, each run's own address is fetched.
        return ResolvedOptions(runs: runs, filters: filters, shownPage: resolvedCount == 1 && runs.count == 1 ? shownPage : nil)
    }
}
