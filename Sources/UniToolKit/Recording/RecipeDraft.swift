import Foundation
import LibXML

/// A university's recipe folder made from a browser's recording of a login and of the pages
/// visited after it: what `unitool recipes new NAME --from-har FILE` writes.
///
/// A pure value: the recording in, the files and the report out. The secrets the recording holds
/// (the password, one-time codes, cookies, SAML messages, tickets, tokens) are read in memory
/// only; `leaks(in:)` is the check that none of them reached a file, run on every file before
/// anything is written.
public struct RecipeDraft: Sendable {
    public struct File: Sendable {
        /// The path inside the portal's folder (`portal.yaml`, `Fixtures/grades/recorded.html`).
        public var path: String
        public var data: Data
    }

    public var portal: String
    public var files: [File] = []
    /// What was recognised, one line each, for the report.
    public var recognised: [String] = []
    /// What was guessed, one line each: the user should check these.
    public var guessed: [String] = []
    /// The data commands written, in order.
    public var commands: [String] = []
    /// The login platform the pages were recognised as, if any.
    public var platform: String?
    /// What the recording held that became nothing, and why, one line each.
    public var skipped: [String] = []
    /// The user name the person logged in with, for the "try it" line (never written to a file).
    public var username: String?
    /// Where the recording posted the password and codes, as origins.
    public var credentialOrigins: [String] = []
    /// The first command with an option, to suggest trying (`grades --term current`).
    public var suggestion: String?

    /// The secrets of the recording: what must be in no file.
    public private(set) var secrets: [String] = []
    /// What each secret is ("cookie 'JSESSIONID'", "the password"), for the error that names it.
    public private(set) var secretKinds: [String: String] = [:]
    /// The person's user name, name, e-mail and student number: in no file either.
    public private(set) var personal: [String] = []
    var personalData = PersonalData(names: [], username: nil)
    /// portal.yaml's first lines: the portal's id and title as the person gave them.
    var ownHeader = ""

    /// - Parameters:
    ///   - failures: recordings of a login that did not get through (`RecordedFailure`): each
    ///     teaches the rule that reports its wrong password or code.
    ///   - reservedCommands: names a data command may not take (the builtin commands).
    public init(
        portal: String, title: String?, archive: HTTPArchive, failures: [RecordedFailure] = [], reservedCommands: Set<String> = [],
        platforms: URL = RecipeComposer.bundledPlatforms
    ) throws {
        if let problem = PortalID.problem(with: portal) { throw UniToolError(.usage, "'\(portal)': \(problem)") }
        self.portal = portal
        let login = try RecordedLogin(reading: archive)
        secretKinds = Self.labelledSecrets(of: archive, login: login)
        // A failed login's recording: its wrong password, cookies and tokens are secrets too.
        for failure in failures { secretKinds.merge(failure.secrets) { ours, _ in ours } }
        secrets = secretKinds.keys.sorted()
        // Session ids in addresses (`;jsessionid=…`, `?sid=…`): secrets even when the export
        // left out the cookies. They are taken out of every address written (`SessionInAddress`).
        secrets = Array(Set(secrets).union(SessionInAddress.values(in: archive).filter { $0.count >= 4 })).sorted()
        // A user name such as `student` is the stand-in itself: nothing to look for.
        personalData = Self.personalData(of: archive, login: login)
        // A sentence naming the person ("Signed in as alice (Alice Liddell)"): a command, and its
        // display name is the person's name, for the fixtures' scrubbing.
        var identity = login.username.flatMap { RecordedIdentity.find(in: RecordedIdentity.pages(after: login), username: $0) }
        if let found = identity, let username = login.username {
            // The whole sentence, where the page marks it as the user's, gives way to its values.
            let names = personalData.names.filter { found.names.isEmpty || $0 != found.sentence.text } + found.names
            personalData = PersonalData(
                names: names, emails: personalData.emails, numbers: personalData.numbers, username: personalData.username)
            if found.literalsHold(anyOf: personalData.names, username: username) { identity = nil }
        }
        personal = personalData.labelled.map(\.value)
        guessed += Self.shortValueNotes(login: login, personal: personalData)

        // The login's rules: those a bundled platform already has come from it.
        username = login.username
        credentialOrigins = login.credentialOrigins
        let fit = PlatformMatch.best(for: login.steps, in: platforms, addresses: login.pageLoads.map(\.url))
        platform = fit?.platform
        var ownRules: [DraftRule] = []
        for (index, step) in login.steps.enumerated() {
            let shownPage = Self.shown(step.pageURL)
            if let fit, fit.covered.contains(index) {
                let ruleName = fit.ruleNames[index] ?? step.rule.name
                recognised.append(localized("\(step.rule.reading) on \(shownPage): the \(fit.platform) platform's rule '\(ruleName)'"))
                continue
            }
            var rule = step.rule
            if let fit, let replaced = fit.ruleNames[index] { rule.name = replaced }
            recognised.append(
                rule.afterLogin
                    ? localized("\(rule.reading) on \(shownPage): rule '\(rule.name)', after the login")
                    : localized("\(rule.reading) on \(shownPage): rule '\(rule.name)'"))
            if let guess = rule.guess { guessed.append(localized("rule '\(rule.name)': \(guess)")) }
            ownRules.append(rule)
        }
        if let fit { recognised.insert(localized("the login pages are those of \(fit.summary): login.use: \(fit.platform)"), at: 0) }
        // Error rules from recordings of a failed login, before every other rule (`RecordedFailure`).
        let failed = RecordedFailure.draftPart(failures, login: login, platform: fit?.platform, platforms: platforms)
        ownRules.insert(contentsOf: failed.rules, at: 0)
        recognised += failed.recognised
        guessed += failed.guessed
        for destination in login.credentialDestinations {
            recognised.append("credentials_may_go_to \(TerminalText.escaped(destination.origin)): \(destination.reason)")
        }
        for scheme in Set(archive.skippedSchemes).sorted() {
            let count = archive.skippedSchemes.filter { $0 == scheme }.count
            let shownScheme = TerminalText.escaped(scheme)
            recognised.append(
                localized(
                    "\(count) entry of \(shownScheme): skipped (only http and https pages are a portal's)",
                    plural: "\(count) entries of \(shownScheme): skipped (only http and https pages are a portal's)", count: count))
        }
        let landing = Self.shown(login.pageLoads[login.donePage].url)
        recognised.append(localized("the login ends at \(landing), told by \(login.doneReading)"))
        if login.doneXPath == nil {
            guessed.append(localized("done_when: the portal's page showed no link to log out; the address is used"))
        }

        // What was visited after the login: pages with a table or a list, JSON answers, the terms API.
        var dataDrafts: [DraftDataRecipe] = []
        var terms: (api: String, versionField: String, urlField: String?)?
        // A terms page that shows its version: the terms: section when no JSON terms API was seen.
        var termsPage: (path: String, match: TermsPageMatch, url: URL)?
        var services: [(name: String, origin: String)] = []
        var takenCommands = reservedCommands
        let doneURL = login.pageLoads[login.donePage].url
        // The landing page's place among all exchanges (the same address may have come before
        // the login, as a signed-out page).
        let firstAfter =
            archive.exchanges.indices.filter { archive.exchanges[$0].isPageLoad }.dropFirst(login.donePage).first ?? 0
        // Another origin is a service only when the person went there from the portal.
        let reach = ServiceReach(
            archive: archive, from: firstAfter, portal: login.portal.origin,
            loginOrigins: login.identityProvider.origin == login.portal.origin ? [] : [login.identityProvider.origin])
        for refusal in reach.refused {
            let origin = TerminalText.escaped(refusal.origin)
            recognised.append(localized("\(origin): skipped, no service or command for it: \(refusal.reason)"))
        }
        let serviceOrigins = Set(reach.accepted.map(\.origin))
        // One address, one page: the same address may have been loaded more than once (first as
        // the login page that sent the person on, then, once the session id was taken out of
        // it, with the records). The last load with records is the page; else the last load.
        var skippedHere: [String] = []
        var xmlNamespaces: [String: [String: String]] = [:]
        var otherFixtures: [String: [(value: String, url: URL, body: [UInt8], document: Document?)]] = [:]
        var order: [String] = []
        var loads: [String: [HTTPArchive.Exchange]] = [:]
        var sessionNames: Set<String> = []
        let idpPath = login.identityProvider.path
        for exchange in archive.exchanges[firstAfter...] where exchange.isPageLoad || exchange.isScriptCall {
            // The address without this session's ids: what `fetch:`, the name and the fixture use.
            let stripped = SessionInAddress.stripped(exchange.url)
            guard exchange.status == 200, exchange.method == "GET", exchange.body != nil else { continue }
            let origin = exchange.url.origin
            if origin != login.portal.origin, !serviceOrigins.contains(origin) { continue }
            sessionNames.formUnion(stripped.removedNames)
            if origin == login.identityProvider.origin, origin != login.portal.origin { continue }
            // The login service's own pages under the portal's origin (a service's sign-on
            // passing through the IdP at /idp) are no data.
            if origin == login.identityProvider.origin, idpPath.count > 1, exchange.url.path.hasPrefix(idpPath) { continue }
            let address = stripped.url.absoluteString
            if loads[address] == nil { order.append(address) }
            loads[address, default: []].append(exchange)
        }
        /// A page made into a recipe: its draft before it is named, what it was made from.
        struct Made {
            var draft: DraftDataRecipe
            var heading: String?
            var exchange: HTTPArchive.Exchange
            var namespaces: [String: String]?
            var isJSON = false
        }
        func make(_ exchange: HTTPArchive.Exchange, noting: Bool) -> Made? {
            let stripped = SessionInAddress.stripped(exchange.url)
            guard let body = exchange.body else { return nil }
            let fetch = stripped.pathAndQuery
            // The login's landing page is a command only for a table on it (the portal's home
            // lists its links, which is no data).
            let isLanding = exchange.url == doneURL && exchange.isPageLoad
            if exchange.isJSON || exchange.mimeType == nil && body.first == UInt8(ascii: "{") {
                guard let json = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else {
                    if noting { skippedHere.append(localized("\(Self.shown(exchange.url)): JSON that does not parse: no command for it")) }
                    return nil
                }
                guard
                    let draft = RecordedPage.jsonRecipe(
                        json, command: "page", fetch: fetch, url: stripped.url, contentType: exchange.contentType, body: body)
                else { return nil }
                return Made(draft: draft, heading: nil, exchange: exchange, isJSON: true)
            } else if exchange.isHTML, let document = RecordedLogin.document(exchange) {
                let heading = RecordedPage.summary(document, fallback: "")
                if let draft = RecordedPage.htmlRecipe(
                    document, command: "page", fetch: fetch, url: stripped.url, contentType: exchange.contentType, body: body,
                    tablesOnly: isLanding)
                {
                    return Made(draft: draft, heading: heading, exchange: exchange)
                }
                if noting, exchange.isPageLoad, !isLanding {
                    skippedHere.append(Self.noTableLine(Self.shown(exchange.url)))
                }
            } else if RecordedFeed.isXML(mimeType: exchange.mimeType, body: body) {
                if let feed = RecordedFeed.recipe(
                    body, command: "page", fetch: fetch, url: stripped.url, contentType: exchange.contentType)
                {
                    return Made(draft: feed.draft, heading: nil, exchange: exchange, namespaces: feed.namespaces)
                }
                if noting {
                    skippedHere.append(localized("\(Self.shown(exchange.url)): XML without a repeated element: no command for it"))
                }
            } else if noting {
                let type = TerminalText.escaped(exchange.mimeType ?? localized("no type"))
                let what =
                    type.lowercased().contains("calendar")
                    ? localized("an iCalendar file: no command is made from one yet (write one with parse: ics, docs/RECIPES.md)")
                    : localized("neither HTML, JSON nor XML: no command for it")
                skippedHere.append("\(Self.shown(exchange.url)) (\(type)): \(what)")
            }
            return nil
        }
        var made: [Made] = []
        // A page a bundled data platform describes (a Koha OPAC's loans, Moodle's grades overview),
        // told by its own evidence (`DataPlatformMatch`): a command that `use:`s the platform,
        // which knows the product's fields and its empty state, even when the recording shows no
        // records yet. The last load with records is its page, else the last load it recognised.
        let dataPlatforms = DataPlatformMatch.platforms(in: platforms)
        var platformPages: [(match: DataPlatformMatch, exchange: HTTPArchive.Exchange, document: Document, own: Made?)] = []
        func platformPage(_ candidates: [HTTPArchive.Exchange]) -> (DataPlatformMatch, HTTPArchive.Exchange, Document)? {
            var found: (DataPlatformMatch, HTTPArchive.Exchange, Document)?
            for exchange in candidates.reversed() where exchange.isPageLoad && exchange.isHTML {
                guard let document = RecordedLogin.document(exchange),
                    let match = DataPlatformMatch.best(
                        document: document, url: SessionInAddress.stripped(exchange.url).url, platforms: dataPlatforms),
                    match.confidence >= DataPlatformMatch.confident
                else { continue }
                if match.rows > 0 { return (match, exchange, document) }
                if found == nil { found = (match, exchange, document) }
            }
            return found
        }
        for address in order {
            let candidates = loads[address] ?? []
            // Terms of use: the first JSON that has them.
            if terms == nil, let exchange = candidates.first(where: { $0.isJSON }), exchange.url.origin == login.portal.origin,
                let body = exchange.body, let json = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]),
                let found = Self.termsFields(json)
            {
                terms = (SessionInAddress.stripped(exchange.url).pathAndQuery, found.version, found.url)
                let shownPage = Self.shown(exchange.url)
                recognised.append(localized("a terms-of-use version in the JSON of \(shownPage) ('\(found.version)'): the terms: section"))
                continue
            }
            // A page that says terms of use and shows their version is the terms, never data.
            if let exchange = candidates.last, exchange.isPageLoad, exchange.url.origin == login.portal.origin,
                let document = RecordedLogin.document(exchange), let match = TermsPageMatch.match(document)
            {
                if termsPage == nil { termsPage = (SessionInAddress.stripped(exchange.url).pathAndQuery, match, exchange.url) }
                continue
            }
            if let (match, exchange, document) = platformPage(candidates) {
                platformPages.append((match, exchange, document, make(exchange, noting: false)))
                continue
            }
            var chosen: Made?
            for exchange in candidates.reversed() {
                if let page = make(exchange, noting: false) {
                    chosen = page
                    break
                }
            }
            if let chosen {
                if candidates.count > 1 {
                    let shownPage = Self.shown(chosen.exchange.url)
                    recognised.append(
                        localized("\(shownPage) was loaded \(candidates.count) times: the last load with records is the command's page"))
                }
                made.append(chosen)
            } else if let last = candidates.last {
                _ = make(last, noting: true)
            }
        }
        if let termsPage {
            let version = TerminalText.escaped(termsPage.match.version)
            let shownPage = Self.shown(termsPage.url)
            let heading = TerminalText.escaped(termsPage.match.heading)
            recognised.append(
                terms == nil
                    ? localized(
                        "\(shownPage) is the terms of use ('\(heading)', version '\(version)'): the terms: section reads the version on that page (version_page), and it is no data command"
                    )
                    : localized(
                        "\(shownPage) is the terms of use (version '\(version)'): no data command; the terms API's JSON gives the version")
            )
        }
        // The same page with another value of its own selector (`?term=2025-2` beside the page
        // as first shown) is one command: the selector is its option, and each recorded value a
        // fixture of it. Grouped by the address without the selector's parameter.
        func groupKey(_ page: Made) -> String? {
            guard let option = page.draft.option else { return nil }
            let url = SessionInAddress.stripped(page.exchange.url).url
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let items = (components?.queryItems ?? []).filter { $0.name != option.name }
                .map { "\($0.name)=\($0.value ?? "")" }.sorted()
            components?.query = nil
            return "\(components?.string ?? url.path)?\(items.joined(separator: "&"))#\(option.name)#\(page.draft.rows)"
        }
        var grouped: [(page: Made, others: [Made])] = []
        for page in made {
            if let key = groupKey(page), let index = grouped.firstIndex(where: { groupKey($0.page) == key }) {
                grouped[index].others.append(page)
            } else {
                grouped.append((page, []))
            }
        }
        var platformCommands: [(command: String, service: String?)] = []
        for page in platformPages {
            let url = SessionInAddress.stripped(page.exchange.url).url
            let command = Self.unique(
                page.match.command, orElse: Self.commandName(url, heading: nil, taken: takenCommands), taken: takenCommands)
            takenCommands.insert(command)
            let (service, serviceLine) = Self.service(of: page.exchange.url, portal: login.portal, services: &services, reach: reach)
            if let serviceLine { recognised.append(serviceLine) }
            platformCommands.append((command, service))
        }
        for group in grouped {
            var page = group.page
            let url = SessionInAddress.stripped(page.exchange.url).url
            let (service, serviceLine) = Self.service(of: page.exchange.url, portal: login.portal, services: &services, reach: reach)
            if let serviceLine { recognised.append(serviceLine) }
            let command = Self.commandName(url, heading: page.heading, taken: takenCommands)
            takenCommands.insert(command)
            page.draft.command = command
            page.draft.service = service
            dataDrafts.append(page.draft)
            if let namespaces = page.namespaces { xmlNamespaces[command] = namespaces }
            if !group.others.isEmpty, let option = page.draft.option {
                var values: [String] = []
                for other in [page] + group.others {
                    let value = Self.selectedValue(other.draft, option: option)
                    values.append(value)
                    if other.exchange.url != page.exchange.url {
                        otherFixtures[command, default: []].append(
                            (value, other.draft.sourceURL, other.draft.body, other.draft.document))
                    }
                }
                let shownPage = Self.shown(url)
                let label = TerminalText.escaped(option.label)
                let listed = values.map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                let count = values.count
                recognised.append(
                    localized(
                        "\(shownPage) with \(count) value of its selector '\(label)' (\(listed)): one command, '\(command)', with a fixture for each",
                        plural:
                            "\(shownPage) with \(count) values of its selector '\(label)' (\(listed)): one command, '\(command)', with a fixture for each",
                        count: count))
            }
        }
        // A page's script's POST answered with JSON records: a `method: post` command whose
        // session values are read from the page that made the call (`RecordedAjax`).
        let ajax = RecordedAjax.calls(
            in: archive, from: firstAfter, origins: serviceOrigins.union([login.portal.origin]), secrets: Set(secrets))
        for call in ajax.calls {
            var draft = call.draft
            let (service, serviceLine) = Self.service(of: call.exchange.url, portal: login.portal, services: &services, reach: reach)
            if let serviceLine { recognised.append(serviceLine) }
            draft.command = Self.unique(
                call.name ?? "", orElse: Self.commandName(call.exchange.url, heading: nil, taken: takenCommands), taken: takenCommands)
            takenCommands.insert(draft.command)
            draft.service = service
            dataDrafts.append(draft)
            guessed += call.guesses.map { "\(draft.command): \($0)" }
            for value in call.sessionValues where secretKinds[value] == nil {
                secretKinds[value] = localized("a session value a page's script sent")
            }
            secrets = Array(Set(secrets).union(call.sessionValues)).sorted()
        }
        for skip in ajax.skipped {
            let shownPage = Self.shown(skip.url)
            skippedHere.append(localized("\(shownPage) (a script's POST): \(skip.reason)"))
        }
        // A form posted whose answer shows an address of the user's own (an iCal link): a command
        // that posts it again and reads that address (`RecordedExport`).
        for export in RecordedExport.exports(
            in: archive, from: firstAfter, origins: serviceOrigins.union([login.portal.origin]), secrets: Set(secrets))
        {
            let (service, serviceLine) = Self.service(of: export.exchange.url, portal: login.portal, services: &services, reach: reach)
            if let serviceLine { recognised.append(serviceLine) }
            let command = Self.unique(export.suggestedName, orElse: "export", taken: takenCommands)
            takenCommands.insert(command)
            commands.append(command)
            let yaml = Self.personalScrubbed(export.yaml(command: command, service: service), personal: personalData, words: false)
            files.append(File(path: "\(command).yaml", data: Data(yaml.utf8)))
            recognised.append(localized("\(export.reading): the command '\(command)'"))
            guessed += export.guesses.map { "\(command): \($0)" }
            for value in export.secretValues where secretKinds[value] == nil {
                secretKinds[value] = localized("a value of the address a form's answer showed")
            }
            secrets = Array(Set(secrets).union(export.secretValues)).sorted()
        }
        if !sessionNames.isEmpty {
            let names = sessionNames.sorted().map { TerminalText.escaped($0) }.joined(separator: ", ")
            recognised.append(
                localized("session ids in the addresses (\(names)): left out of every address written, and checked for in every file"))
        }
        if !archive.exchanges.contains(where: { $0.isPageLoad && $0.body != nil }) {
            guessed.append(
                localized(
                    "the recording holds no page contents, so the login rules are named from what was posted and no command could be made: save the HAR with content (Chromium: 'Save all as HAR'; Playwright: record_har_content='embed')"
                )
            )
        } else if dataDrafts.isEmpty && platformPages.isEmpty {
            guessed.append(
                localized(
                    "no page after the login had a table, a list or a JSON array: record again and open your grades (or another page of records) before saving"
                )
            )
        }

        // The person signed in, as the first page that names them says: one command, a guess.
        if let identity, serviceOrigins.union([login.portal.origin]).contains(identity.exchange.url.origin) {
            var draft = identity.draft(command: Self.unique("whoami", orElse: "whoami", taken: takenCommands))
            takenCommands.insert(draft.command)
            let (service, serviceLine) = Self.service(of: identity.exchange.url, portal: login.portal, services: &services, reach: reach)
            if let serviceLine { recognised.append(serviceLine) }
            draft.service = service
            dataDrafts.append(draft)
            let sentence = Self.oneLine(identity.sentence.template)
            guessed.append(
                localized(
                    "\(draft.command): a guess: the sentence '\(sentence)' names the person signed in; its values are read by regex"))
        }

        // What the commands' dates are for: today:, calendar: and overdue, as the bundled recipes have them.
        let recordedOn = DraftDates.recordingDay(archive)
        var draftDates: [String: DraftDates] = [:]
        for draft in dataDrafts {
            let namespaces = xmlNamespaces[draft.command]
            let document = namespaces == nil ? draft.document : try? Document(xml: draft.body, url: draft.sourceURL.absoluteString)
            if let dates = DraftDates.guess(draft, document: document, namespaces: namespaces ?? [:], recordedOn: recordedOn) {
                draftDates[draft.command] = dates
            }
        }

        // portal.yaml
        let scrubber = TraceScrubber(secrets: secrets)
        // The portal's id and title are the person's own choice (`uni-taro` for the user taro):
        // they are written as given, never scrubbed, and the leak check leaves these lines alone.
        ownHeader = """
            # \(portal), made by 'unitool recipes new --from-har' from a browser's recording.
            portal: \(portal)
            name: \(RecipeScaffold.quoted(title ?? portal))

            """
        var yaml = """
            # From a browser's recording (\(Self.oneLine(archive.creator))). Lines marked "guess:" are guesses: check them
            # against the portal. The recording itself holds your password and session: delete it once this works.
            base_url: \(RecipeScaffold.quoted(login.portal.origin))
            idp_url: \(RecipeScaffold.quoted(login.identityProvider.absoluteString))

            """
        let targets = login.credentialOrigins.map { origin -> String in
            if origin == login.identityProvider.origin { return "idp" }
            if origin == login.portal.origin { return "portal" }
            return RecipeScaffold.quoted(origin)
        }
        yaml += "# Where the password (and any code) was posted in the recording; nowhere else.\n"
        var uniqueTargets: [String] = []
        for target in targets.isEmpty ? ["idp"] : targets where !uniqueTargets.contains(target) { uniqueTargets.append(target) }
        yaml += "credentials_may_go_to: [\(uniqueTargets.joined(separator: ", "))]\n"
        if !services.isEmpty {
            yaml += "services:\n"
            for service in services { yaml += "  \(service.name): { base_url: \(RecipeScaffold.quoted(service.origin + "/")) }\n" }
        }
        yaml += "\nlogin:\n"
        if let fit { yaml += "  # \(fit.reason)\n  use: \(fit.platform)\n" }
        yaml += "  start: \(RecipeScaffold.quoted(login.start))\n"
        if !ownRules.isEmpty {
            yaml += "  pages:\n"
            for rule in ownRules { yaml += Self.yaml(rule) }
        }
        yaml += "  # The logged-in portal: \(Self.oneLine(login.doneReading)).\n"
        if let xpath = login.doneXPath {
            yaml += "  done_when: { xpath: \(RecipeScaffold.quoted(xpath)) }\n"
        } else if let pattern = login.doneURLPattern {
            yaml += "  # guess: no page element told the logged-in portal apart; its address does.\n"
            yaml += "  done_when: { url: \(RecipeScaffold.quoted(pattern)) }\n"
        }
        if let terms {
            yaml += "\n# The terms of use's version, as the portal's API answers it.\nterms:\n"
            yaml += "  version_api: \(RecipeScaffold.quoted(terms.api))\n  version_field: \(RecipeScaffold.quoted(terms.versionField))\n"
            if let url = terms.urlField { yaml += "  url_field: \(RecipeScaffold.quoted(url))\n" }
        } else if let termsPage {
            yaml += "\n# The terms of use's version, as their page shows it (\(Self.oneLine(termsPage.match.heading))).\nterms:\n"
            yaml += "  version_page: \(RecipeScaffold.quoted(termsPage.path))\n"
            yaml += "  version_xpath: \(RecipeScaffold.quoted(termsPage.match.xpath))\n"
            yaml += "  version_regex: \(RecipeScaffold.quoted(termsPage.match.regex))\n"
        }
        let today = Self.todayYAML(dataDrafts, dates: draftDates)
        if !today.isEmpty { yaml += "\n" + today }
        files.append(
            File(path: "portal.yaml", data: Data((ownHeader + Self.personalScrubbed(yaml, personal: personalData, words: false)).utf8)))

        for draft in dataDrafts {
            commands.append(draft.command)
            let dates = draftDates[draft.command]
            files.append(
                File(
                    path: "\(draft.command).yaml",
                    data: Data(
                        Self.personalScrubbed(
                            Self.yaml(draft, namespaces: xmlNamespaces[draft.command], dates: dates), personal: personalData, words: false
                        ).utf8)))
            let shownPage = Self.shown(draft.sourceURL)
            recognised.append(localized("\(draft.reading) on \(shownPage): the command '\(draft.command)'"))
            for field in draft.fields where !field.guesses.isEmpty {
                guessed.append("\(draft.command).\(field.name): \(field.guesses.joined(separator: "; "))")
            }
            if let dates { guessed.append(dates.reading) }
            if let option = draft.option {
                let seen = ([Self.selectedValue(draft, option: option)] + (otherFixtures[draft.command] ?? []).map(\.value))
                    .map { "'\(TerminalText.escaped($0))'" }.joined(separator: ", ")
                guessed.append(
                    localized(
                        "\(draft.command) --\(option.name): the page's selector '\(option.label)'; current is the value it marks selected; the recording saw \(seen)"
                    )
                )
                if suggestion == nil { suggestion = "\(draft.command) --\(option.name) current" }
            }
            for line in Self.alternativeLines(of: draft) { guessed.append(line) }
            if let next = draft.next { guessed.append(localized("\(draft.command): pages are followed by the link \(next)")) }
            // The fixtures: each page as recorded, every secret and personal detail taken out.
            let folder = "Fixtures/\(draft.command)/"
            let isXML = xmlNamespaces[draft.command] != nil
            let cases =
                [(name: "recorded", url: draft.sourceURL, body: draft.body, document: draft.document)]
                + (otherFixtures[draft.command] ?? []).map {
                    (name: Self.fixtureName($0.value), url: $0.url, body: $0.body, document: $0.document)
                }
            var used: Set<String> = []
            for fixture in cases {
                var name = fixture.name
                while used.contains(name) { name += "-2" }
                used.insert(name)
                var text = String(decoding: fixture.body, as: UTF8.self)
                if let document = fixture.document { text = document.markupWithoutFormValues() }
                text = Self.scrubbed(text, scrubber: scrubber, personal: personalData)
                let suffix = draft.parseJSON ? ".page.json" : isXML ? ".xml" : ".html"
                files.append(File(path: folder + name + suffix, data: Data(text.utf8)))
                let url = Self.scrubbed(scrubber.scrubURL(fixture.url.absoluteString), scrubber: scrubber, personal: personalData)
                let contentType =
                    draft.parseJSON
                    ? ""
                    : "  \"content_type\": \(JSONString.quoted(isXML ? "application/xml; charset=utf-8" : "text/html; charset=utf-8")),\n"
                // A computed field (overdue) counts from the day of the recording, so the case stays true.
                let today = dates != nil && dates?.kind == .due ? recordedOn.map { "  \"today\": \(JSONString.quoted($0)),\n" } ?? "" : ""
                let expectation = "{\n  \"url\": \(JSONString.quoted(url)),\n" + contentType + today + "  \"records\": null\n}\n"
                files.append(File(path: folder + name + ".json", data: Data(expectation.utf8)))
            }
        }
        for (page, named) in zip(platformPages, platformCommands) {
            let url = SessionInAddress.stripped(page.exchange.url)
            // The page's own columns the platform does not read (a Koha OPAC's author or call
            // number), kept as the generator guessed them, where its rows are the platform's.
            var extra: [DraftDataRecipe.Field] = []
            if page.match.rows > 0, let own = page.own?.draft,
                (try? page.document.select(own.rows).count) == page.match.rows
            {
                extra = own.fields.filter { !page.match.fields.contains($0.name) && page.match.addsColumn($0.xpath) }
            }
            var text = """
                # Made by 'unitool recipes new --from-har' from \(Self.oneLine(url.url.path)): \(Self.oneLine(page.match.summary)).
                # Recognised as the platform \(page.match.platform) (Recipes/platforms/\(page.match.platform).yaml), \(Self.oneLine(page.match.reason)).
                # Its rules know the product's fields and its empty state. Fixtures/\(named.command)/ holds the page as
                # recorded (your name and every secret taken out): 'unitool recipes test' checks the recipe against it.
                use: \(page.match.platform)
                command: \(named.command)

                """
            if let service = named.service { text += "service: \(service)\n" }
            text += "fetch: \(RecipeScaffold.quoted(url.pathAndQuery))\n"
            if !extra.isEmpty {
                text += "fields:\n  # guess: the page's own columns, which the platform does not read.\n"
                for field in extra {
                    var parts = ["xpath: \(RecipeScaffold.quoted(field.xpath))"]
                    if let type = field.type { parts.append("type: \(type)") }
                    if let format = field.format { parts.append("format: \(RecipeScaffold.quoted(format))") }
                    text += "  \(field.name): { \(parts.joined(separator: ", ")) }\n"
                }
            }
            files.append(
                File(
                    path: "\(named.command).yaml",
                    data: Data(Self.personalScrubbed(text, personal: personalData, words: false).utf8)))
            commands.append(named.command)
            let shownPage = Self.shown(page.exchange.url)
            let platformName = page.match.platform
            recognised.append(
                page.match.rows == 0
                    ? localized(
                        "\(shownPage) is the page of the platform \(platformName) (\(page.match.reason)): the command '\(named.command)' uses it; the recording shows no records, so its fixture expects none"
                    )
                    : localized(
                        "\(shownPage) is the page of the platform \(platformName) (\(page.match.reason)): the command '\(named.command)' uses it"
                    )
            )
            if !extra.isEmpty {
                let columns = extra.map(\.name).joined(separator: ", ")
                guessed.append(localized("\(named.command): the page's own columns \(columns), beside \(platformName)'s fields"))
            }
            // The fixture: the page as recorded; a page without records expects none.
            var fixture = page.document.markupWithoutFormValues()
            fixture = Self.scrubbed(fixture, scrubber: scrubber, personal: personalData)
            files.append(File(path: "Fixtures/\(named.command)/recorded.html", data: Data(fixture.utf8)))
            let address = Self.scrubbed(scrubber.scrubURL(url.url.absoluteString), scrubber: scrubber, personal: personalData)
            let today = recordedOn.map { "  \"today\": \(JSONString.quoted($0)),\n" } ?? ""
            let expectation =
                "{\n  \"url\": \(JSONString.quoted(address)),\n  \"content_type\": \"text/html; charset=utf-8\",\n" + today
                + "  \"records\": \(page.match.rows == 0 ? "[]" : "null")\n}\n"
            files.append(File(path: "Fixtures/\(named.command)/recorded.json", data: Data(expectation.utf8)))
        }
        skipped = skippedHere
        // Forms the person sent after the login: actions that ask first (`RecordedAction`).
        addActions(
            login, archive: archive, origins: serviceOrigins.union([login.portal.origin]),
            pages: dataDrafts.map { ($0.command, $0.sourceURL) }, taken: &takenCommands)
        if suggestion == nil { suggestion = commands.first }

        let leaked = leakReport(in: files)
        guard leaked.isEmpty else {
            var shown: [String] = []
            for leak in leaked {
                let line = localized("\(leak.kind) in \(leak.path)")
                if !shown.contains(line) { shown.append(line) }
            }
            let found = shown.map { TerminalText.escaped($0) }.joined(separator: "; ")
            throw UniToolError(
                .internal,
                localized("the recording's \(found) would have been written; nothing was written"),
                hint: localized(
                    "a value the recipe reads (an address, a page's structure) holds it: record again after signing out, or write that part by hand; if it is none of these, please report which kind of value it was (never the HAR or the value): https://github.com/unitool/unitool/issues"
                )
            )
        }
    }

    // MARK: Secrets

    /// Every secret value of the recording: what was typed into password and code fields, the
    /// cookies, `Authorization`, the single sign-on protocols' messages and tickets, and the
    /// hidden values posted during the login (CSRF tokens, flow state).
    static func secrets(of archive: HTTPArchive, login: RecordedLogin) -> [String] {
        labelledSecrets(of: archive, login: login).keys.sorted()
    }

    /// The secrets of the recording, each with what it is ("cookie 'JSESSIONID'", "the
    /// password", "a SAML message"), for the error that says what would have been written.
    ///
    /// A secret is told by its role and by its value, not by where it stands: what was typed
    /// into a password or code field is secret at any length (a short one is handled as
    /// ``minimumSubstringLength`` says); a cookie is secret unless its value is ordinary data
    /// (`theme=dark`, `lang=en-US`, `cookie_consent=true`: ``TraceScrubber/isPlainValue(_:)``);
    /// OAuth's `code` only beside its `state` (a course's `?code=MATH-101` is no secret).
    static func labelledSecrets(of archive: HTTPArchive, login: RecordedLogin) -> [String: String] {
        var labelled: [(value: String, kind: String, typed: Bool)] = []
        func add(_ value: String, _ kind: String, typed: Bool = false) { labelled.append((value, kind, typed)) }
        for secret in login.typedSecrets {
            let isCode = secret.count <= 10 && secret.allSatisfy { $0.isASCII && $0.isNumber }
            add(secret, isCode ? localized("a one-time code") : localized("the password"), typed: true)
            // HTTP Basic sends `user:password` (base64 is among its encodings).
            if let username = login.username, !isCode {
                add("\(username):\(secret)", localized("the user name and password (as HTTP Basic sends them)"))
            }
        }
        let protocolNames = Set(TraceScrubber.protocolFieldNames.map { $0.lowercased() })
        func protocolKind(_ name: String) -> String {
            switch name.lowercased() {
            case "samlrequest", "samlresponse": return localized("a SAML message")
            case "relaystate": return localized("SAML's RelayState")
            case "samlart": return localized("a SAML artifact")
            case "ticket": return localized("a CAS ticket")
            case "code": return localized("an OAuth authorization code")
            default: return localized("the single sign-on's '\(name)'")
            }
        }
        func cookie(_ name: String, _ value: String) {
            let value = value.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            guard !TraceScrubber.isPlainValue(value) else { return }
            let cookieName = name.trimmingWhitespace()
            add(value, name == "a cookie" ? localized("a cookie") : localized("cookie '\(cookieName)'"))
        }
        for exchange in archive.exchanges {
            for header in exchange.requestHeaders + exchange.responseHeaders {
                switch header.name.lowercased() {
                case "cookie":
                    for pair in header.value.split(separator: ";") {
                        let parts = pair.split(separator: "=", maxSplits: 1)
                        if parts.count == 2 { cookie(String(parts[0]), String(parts[1])) }
                    }
                case "set-cookie":
                    if let pair = header.value.split(separator: ";").first {
                        let parts = pair.split(separator: "=", maxSplits: 1)
                        if parts.count == 2 { cookie(String(parts[0]), String(parts[1])) }
                    }
                case "authorization":
                    // `Bearer X`: X alone is the secret too.
                    add(header.value, localized("the Authorization header"))
                    if let token = header.value.split(separator: " ", maxSplits: 1).dropFirst().first {
                        add(String(token), localized("the Authorization header's credentials"))
                    }
                case let name where name.contains("csrf") || name.contains("xsrf") || name.hasSuffix("-token"):
                    add(header.value, localized("header '\(header.name)'"))
                default: break
                }
            }
            // The HAR's own list of cookies, where the headers were left out.
            for value in exchange.cookieValues { cookie("a cookie", value) }
            // Protocol parameters in addresses; OAuth's `code` only beside its `state` (a
            // course's `?code=MATH-101` is no secret).
            for url in [exchange.url] + (exchange.redirect.map { [$0] } ?? []) {
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let isOAuth = TraceScrubber.isOAuthContext(query.map(\.name))
                for item in query where protocolNames.contains(item.name.lowercased()) {
                    let value = item.value ?? ""
                    guard item.name.lowercased() != TraceScrubber.oauthCodeName || isOAuth || TraceScrubber.looksLikeToken(value)
                    else { continue }
                    if Self.isTargetAddress(name: item.name, value: value, login: login) { continue }
                    add(value, protocolKind(item.name))
                }
            }
            // Tokens a page carries for its scripts: <meta name="csrf-token">, Moodle's sesskey.
            if exchange.isHTML, let body = exchange.body {
                let text = String(decoding: body, as: UTF8.self)
                for (pattern, kind) in [
                    (#"<meta[^>]+name=["'][^"']*(?:csrf|token)[^"']*["'][^>]+content=["']([^"']+)["']"#, localized("a page's CSRF token")),
                    (#""sesskey"\s*:\s*"([^"]+)""#, localized("Moodle's sesskey")),
                    (#"sesskey=([A-Za-z0-9]+)"#, localized("Moodle's sesskey")),
                ] {
                    guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
                    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) where match.numberOfRanges > 1 {
                        if let range = Range(match.range(at: 1), in: text) { add(String(text[range]), kind) }
                    }
                }
            }
            let fields = exchange.formFields ?? []
            let isOAuthForm = TraceScrubber.isOAuthContext(fields.map(\.name))
            for field in fields {
                let lowered = field.name.lowercased()
                if protocolNames.contains(lowered) {
                    guard lowered != TraceScrubber.oauthCodeName || isOAuthForm || TraceScrubber.looksLikeToken(field.value) else {
                        continue
                    }
                    if Self.isTargetAddress(name: field.name, value: field.value, login: login) { continue }
                    add(field.value, protocolKind(field.name))
                } else if field.value.count >= 16, !TraceScrubber.isPlainValue(field.value) {
                    add(field.value, localized("the hidden field '\(field.name)' posted during the login"))
                }
            }
        }
        // What the person chose on a page (a consent option, an institution) is written as a
        // rule's value: it is not a secret.
        let chosen = Set(
            login.steps.flatMap { step -> [String] in
                guard case .fill(let values, _) = step.rule.action else { return [] }
                return values.map(\.value).filter { !$0.hasPrefix("{{") }
            })
        var result: [String: String] = [:]
        for entry in labelled {
            let value = entry.value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            // What was typed is secret at any length; anything else from 4 characters.
            guard !value.isEmpty, entry.typed || value.count >= 4, !chosen.contains(value) else { continue }
            if result[value] == nil || entry.typed { result[value] = entry.kind }
            // A value of several lines (base64 wrapped at 76 columns) may stand in a file line by line.
            let lines = value.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
            if lines.count > 1 {
                for line in lines where line.count >= 16 && result[line] == nil {
                    result[line] = localized("\(entry.kind) (one of its lines)")
                }
            }
        }
        return result
    }

    /// Whether a protocol field holds the address the person was going to, not a secret: SAML's
    /// `RelayState` (or CAS's `service`-like target) as a path or an address on the portal
    /// (`/campus/seiseki`). Such a value is the page a recipe reads, so refusing it refused
    /// the import; an opaque value (`ss:mem:…`, a random token) stays a secret, and so does an
    /// address whose query carries a token.
    static func isTargetAddress(name: String, value: String, login: RecordedLogin) -> Bool {
        guard name.lowercased() == "relaystate" else { return false }
        let isPath = value.hasPrefix("/") && !value.hasPrefix("//")
        guard let components = URLComponents(string: value) else { return false }
        let onPortal =
            isPath
            || components.url.map { $0.host != nil && [login.portal.origin, login.identityProvider.origin].contains($0.origin) } == true
        guard onPortal else { return false }
        return !(components.queryItems ?? []).contains { TraceScrubber.looksLikeToken($0.value ?? "") }
    }

    /// The shortest secret or personal value looked for inside other text; a shorter one is
    /// scrubbed and looked for only where it stands as a whole value or a word of its own, in the
    /// fixtures (the recorded pages), never inside the recipes' XPaths and names.
    static let minimumSubstringLength = TraceScrubber.minimumSubstringLength

    /// What the files may not hold, found: the path of each file that holds one.
    public func leaks(in files: [File]) -> [String] {
        var paths: [String] = []
        for leak in leakReport(in: files) where !paths.contains(leak.path) { paths.append(leak.path) }
        return paths
    }

    /// Each file that holds a secret or a personal detail of the recording, with what it is
    /// ("cookie 'JSESSIONID'", "your name"), in any encoding a page might use, also split by
    /// `<wbr>` or a soft hyphen. A value shorter than ``minimumSubstringLength`` counts only as a
    /// whole value or word, and only in a fixture.
    public func leakReport(in files: [File]) -> [(path: String, kind: String)] {
        let breaks = try? NSRegularExpression(pattern: "(?i:" + TraceScrubber.breakMarkup + ")")
        var values = secrets.map { ($0, secretKinds[$0] ?? localized("a session id or token of the recording"), false) }
        values += personalData.labelled.map { ($0.value, $0.kind, true) }
        var found: [(path: String, kind: String)] = []
        for file in files {
            var raw = String(decoding: file.data, as: UTF8.self)
            if file.path == "portal.yaml", !ownHeader.isEmpty, raw.hasPrefix(ownHeader) { raw = String(raw.dropFirst(ownHeader.count)) }
            let joined = breaks?.stringByReplacingMatches(in: raw, range: NSRange(raw.startIndex..., in: raw), withTemplate: "") ?? raw
            let isFixture = file.path.hasPrefix("Fixtures/")
            for (value, kind, personal) in values {
                let options: String.CompareOptions = personal ? [.caseInsensitive] : [.literal]
                let forms = TraceScrubber.encodedForms(of: value)
                let hit: Bool
                if value.count >= Self.minimumSubstringLength {
                    hit = forms.contains { raw.range(of: $0, options: options) != nil || joined.range(of: $0, options: options) != nil }
                } else {
                    hit =
                        isFixture
                        && forms.contains {
                            Self.wordPattern($0, caseInsensitive: personal)?.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw))
                                != nil
                        }
                }
                if hit
                    || personal
                        && personalData.nameVariants.contains(where: { regex in
                            regex.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)) != nil
                        }) && kind == PersonalData.nameKind
                {
                    found.append((file.path, kind))
                }
            }
        }
        return found
    }

    /// `value` where it stands as a word of its own: not beside a letter, digit or `_`.
    static func wordPattern(_ value: String, caseInsensitive: Bool) -> NSRegularExpression? {
        try? NSRegularExpression(
            pattern: "(?<![\\p{L}\\p{N}_])" + NSRegularExpression.escapedPattern(for: value) + "(?![\\p{L}\\p{N}_])",
            options: caseInsensitive ? [.caseInsensitive] : [])
    }

    /// A page or address with the secrets, the user name and the person's name and e-mail
    /// replaced by stand-ins. A short secret goes where it stands as a word too
    /// (``TraceScrubber/scrubMessage(_:)``): a recorded page is no recipe, and blanking a short
    /// word too many costs a fixture nothing.
    static func scrubbed(_ text: String, scrubber: TraceScrubber, personal: PersonalData) -> String {
        personalScrubbed(scrubber.scrubMessage(text), personal: personal, words: true)
    }

    /// What the person's name, e-mail and user name become in the files.
    static let standIns = ["Student Name", "student@example.edu", "student", "00000000"]

    /// The person's data as the recording shows it: what `personalScrubbed` replaces and
    /// `leaks` looks for. Found in the logged-in pages: the name and e-mail the portal shows
    /// as the user's (`RecordedLogin.personalTexts`), e-mail addresses made of the user name or
    /// the name, and a student number where a page labels one; the user name as it was typed.
    struct PersonalData: Sendable {
        static var nameKind: String { localized("your name") }
        var names: [String] = []
        var emails: [String] = []
        var numbers: [String] = []
        var username: String?
        /// The names in the orders and cases a page writes them: "Doe-Smith, Johanna",
        /// "DOE-SMITH Johanna", "JOHANNA DOE-SMITH" (case is ignored; white space may be any).
        var nameVariants: [NSRegularExpression] = []

        init(names: [String], emails: [String] = [], numbers: [String] = [], username: String?) {
            self.names = names.filter { !RecipeDraft.standIns.contains($0) }
            self.emails = emails.filter { !RecipeDraft.standIns.contains($0) }
            self.numbers = numbers
            self.username = username.flatMap { RecipeDraft.standIns.contains($0) ? nil : $0 }
            for name in self.names {
                let parts = name.components(separatedBy: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
                let words =
                    parts.count == 2
                    ? parts[1].split(separator: " ").map(String.init) + parts[0].split(separator: " ").map(String.init)
                    : name.split(separator: " ").map(String.init)
                guard words.count >= 2, words.allSatisfy({ $0.contains { $0.isLetter } }) else { continue }
                // Given names first, or the family name (the last word, or the first) first, a comma or not.
                let orders = [words, [words.last!] + words.dropLast(), Array(words.dropFirst()) + [words[0]]]
                for order in orders {
                    let escaped = order.map { NSRegularExpression.escapedPattern(for: $0) }
                    let pattern =
                        "(?<![\\p{L}\\p{N}])" + escaped[0] + ",?(?:\\s|&nbsp;|&#160;)+"
                        + escaped.dropFirst().joined(separator: "(?:\\s|&nbsp;|&#160;)+") + "(?![\\p{L}\\p{N}])"
                    if let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) { nameVariants.append(regex) }
                }
            }
        }

        /// Each value with what it is, for `leaks`.
        var labelled: [(value: String, kind: String)] {
            names.map { ($0, Self.nameKind) } + emails.map { ($0, localized("your e-mail address")) }
                + numbers.map { ($0, localized("your student number")) } + (username.map { [($0, localized("your user name"))] } ?? [])
        }
    }

    /// The labels pages put before a student number, in the languages portals are written in.
    static let studentNumberLabel =
        #"(?:student\s*(?:number|no\.?|id|ID)|matriculation\s*(?:number|no\.?)?|matric\.?\s*no\.?|matrikel(?:nummer|nr\.?)?|registration\s*number|neptun(?:\s*code|\s*kód)?|numéro\s*d[’']étudiant|学籍番号|학번)"#

    /// The person's data in the recording (``PersonalData``).
    static func personalData(of archive: HTTPArchive, login: RecordedLogin) -> PersonalData {
        var names: [String] = []
        var emails: [String] = []
        for text in login.personalTexts {
            let addresses = matches(#"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"#, in: text)
            if addresses.isEmpty { names.append(text) } else { emails += addresses }
        }
        if let username = login.username, username.contains("@") { emails.append(username) }
        // The words an address of the person's own is made of: the user name, the name's words.
        let own = Set(
            ([login.username ?? ""] + names.flatMap { $0.components(separatedBy: CharacterSet.letters.inverted) })
                .map { $0.lowercased().folding(options: .diacriticInsensitive, locale: nil) }.filter { $0.count >= 3 })
        var numbers: [String] = []
        let labelled = studentNumberLabel + #"\s*[:：#.]?\s*([A-Za-z0-9][A-Za-z0-9-]{3,15})"#
        let jsonKeys =
            #""(?:student_?(?:number|id|no)|studentNumber|studentId|matriculation_?(?:number)?|matrikel(?:nummer)?)"\s*:\s*"?([A-Za-z0-9-]{4,16})"?"#
        for exchange in archive.exchanges where exchange.isHTML || exchange.isJSON {
            guard let body = exchange.body else { continue }
            let raw = String(decoding: body, as: UTF8.self)
            let text = raw.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
                .replacingOccurrences(of: "&nbsp;", with: " ")
            for address in matches(#"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"#, in: text) where !emails.contains(address) {
                let local =
                    address.split(separator: "@").first.map { $0.lowercased().folding(options: .diacriticInsensitive, locale: nil) } ?? ""
                if own.contains(where: { local.contains($0) }) { emails.append(address) }
            }
            for number in matches(labelled, in: text, options: [.caseInsensitive]) + matches(jsonKeys, in: raw, options: [.caseInsensitive])
            where number.contains(where: \.isNumber) && !numbers.contains(number) {
                numbers.append(number)
            }
        }
        return PersonalData(names: names, emails: emails, numbers: numbers, username: login.username)
    }

    /// The first group of each match of `pattern` in `text`, or the whole match when it has none.
    static func matches(_ pattern: String, in text: String, options: NSRegularExpression.Options = []) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: match.numberOfRanges > 1 ? 1 : 0), in: text).map { String(text[$0]) }
        }
    }

    /// The person's name, e-mail and user name replaced by stand-ins, in every encoding a page
    /// uses (percent-encoded in a link, escaped in HTML or JSON); the user name as a whole word
    /// only, so that `ana` leaves "banana" alone.
    static func personalScrubbed(_ text: String, login: RecordedLogin) -> String {
        let names = login.personalTexts.filter { !$0.contains("@") }
        let emails = login.personalTexts.filter { $0.contains("@") }
        return personalScrubbed(text, personal: PersonalData(names: names, emails: emails, username: login.username), words: true)
    }

    /// As above, for the data ``personalData(of:login:)`` found. Case is ignored (a portal
    /// writes the user id or the family name in capitals); a name also matches in the other
    /// orders a page writes it (``PersonalData/nameVariants``). A value shorter than
    /// ``minimumSubstringLength`` (a user name of 2 or 3 characters) is replaced only where it
    /// stands as a word, and only when `words` is true: in a recorded page, never in a recipe,
    /// whose XPaths hold many short words.
    static func personalScrubbed(_ text: String, personal: PersonalData, words: Bool) -> String {
        var text = text
        func replace(_ value: String, with standIn: String, wordOnly: Bool) {
            for form in TraceScrubber.encodedForms(of: value).sorted(by: { $0.count > $1.count }) {
                guard text.range(of: form, options: [.caseInsensitive]) != nil else { continue }
                if wordOnly {
                    guard let regex = wordPattern(form, caseInsensitive: value.count >= 3) else { continue }
                    text = regex.stringByReplacingMatches(
                        in: text, range: NSRange(text.startIndex..., in: text),
                        withTemplate: NSRegularExpression.escapedTemplate(for: standIn))
                } else {
                    text = text.replacingOccurrences(of: form, with: standIn, options: [.caseInsensitive])
                }
            }
        }
        for email in personal.emails.sorted(by: { $0.count > $1.count }) { replace(email, with: "student@example.edu", wordOnly: false) }
        for regex in personal.nameVariants {
            text = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "Student Name")
        }
        for name in personal.names.sorted(by: { $0.count > $1.count }) {
            replace(name, with: "Student Name", wordOnly: name.count < minimumSubstringLength)
        }
        for number in personal.numbers { replace(number, with: "00000000", wordOnly: true) }
        if let username = personal.username, username.count >= minimumSubstringLength || words && username.count >= 2 {
            replace(username, with: "student", wordOnly: true)
        }
        return text
    }

    /// The report's lines for a password or user name too short to look for inside other text:
    /// what was done with it instead, so that the person checks the fixtures before sharing.
    static func shortValueNotes(login: RecordedLogin, personal: PersonalData) -> [String] {
        var notes: [String] = []
        let short = login.typedSecrets.filter { $0.count < minimumSubstringLength }
        for secret in short {
            let isCode = secret.allSatisfy { $0.isASCII && $0.isNumber }
            let count = secret.count
            notes.append(
                isCode
                    ? localized(
                        "a code has only \(count) character: too short to remove inside other words safely, so the fixtures lose it only where it stands as a whole value or a word of its own; check Fixtures/ before sharing the folder",
                        plural:
                            "a code has only \(count) characters: too short to remove inside other words safely, so the fixtures lose it only where it stands as a whole value or a word of its own; check Fixtures/ before sharing the folder",
                        count: count)
                    : localized(
                        "the password has only \(count) character: too short to remove inside other words safely, so the fixtures lose it only where it stands as a whole value or a word of its own; check Fixtures/ before sharing the folder",
                        plural:
                            "the password has only \(count) characters: too short to remove inside other words safely, so the fixtures lose it only where it stands as a whole value or a word of its own; check Fixtures/ before sharing the folder",
                        count: count)
            )
        }
        if let username = personal.username, username.count < minimumSubstringLength {
            let count = username.count
            notes.append(
                count >= 2
                    ? localized(
                        "the user name has only \(count) character: the fixtures lose it only where it stands as a word of its own (as 'student'), the recipes not at all (their XPaths hold short words); check Fixtures/ before sharing the folder",
                        plural:
                            "the user name has only \(count) characters: the fixtures lose it only where it stands as a word of its own (as 'student'), the recipes not at all (their XPaths hold short words); check Fixtures/ before sharing the folder",
                        count: count)
                    : localized(
                        "the user name has only 1 character: it is not looked for at all; check Fixtures/ before sharing the folder")
            )
        }
        return notes
    }

    // MARK: Names

    static func shown(_ url: URL) -> String {
        TerminalText.escaped(url.path.isEmpty ? "/" : url.path)
    }

    /// The report's skipped line for a page with no records to read (`shown`: its path, as
    /// `shown(_:)` gives it); `addActions` takes it back out for a page that gets a form's command.
    static func noTableLine(_ shown: String) -> String {
        localized("\(shown) has no table or list: no command for it")
    }

    /// A command's name from the page's address: its last meaningful path segment
    /// (`/library/loans` → `loans`), else the page's heading (`/portal/` headed "Grades" → `grades`).
    static func commandName(_ url: URL, heading: String?, taken: Set<String>) -> String {
        let generic: Set<String> = ["index", "api", "v1", "v2", "portal", "home", "default", "main", "start", "page", "view"]
        let segments = url.pathComponents.filter { $0 != "/" }.map { segment -> String in
            var name = segment
            for suffix in [".php", ".pl", ".html", ".htm", ".aspx", ".jsp", ".cgi", ".json", ".atom", ".rss", ".xml"]
            where name.lowercased().hasSuffix(suffix) {
                name = String(name.dropLast(suffix.count))
            }
            return RecordedPage.fieldName(header: name, cellClass: nil, column: 0).replacingOccurrences(of: "_", with: "-")
        }.filter { !$0.hasPrefix("column-") && !generic.contains($0) }
        let fromHeading = heading.map { RecordedPage.fieldName(header: $0, cellClass: nil, column: 0) }
            .flatMap { $0.hasPrefix("column_") ? nil : String($0.split(separator: "_").prefix(2).joined(separator: "-")) }
        return unique(segments.last ?? fromHeading ?? "page", orElse: "page", taken: taken)
    }

    /// `name`, or `fallback` when it is no command name, numbered (`-2`, `-3`) past those taken.
    static func unique(_ name: String, orElse fallback: String, taken: Set<String>) -> String {
        let base = NameSyntax.isCommandName(name) ? name : fallback
        var candidate = base
        var number = 2
        while taken.contains(candidate) {
            candidate = "\(base)-\(number)"
            number += 1
        }
        return candidate
    }

    /// The service a page on another origin than the portal's belongs to (nil: the portal's own
    /// page), named the first time its origin is met and added to `services`; then also the
    /// report's line saying why that origin is a service.
    static func service(
        of url: URL, portal: URL, services: inout [(name: String, origin: String)], reach: ServiceReach
    ) -> (name: String?, line: String?) {
        let origin = url.origin
        guard origin != portal.origin else { return (nil, nil) }
        if let known = services.first(where: { $0.origin == origin }) { return (known.name, nil) }
        let name = serviceName(url, taken: Set(services.map(\.name)))
        services.append((name, origin))
        let shownOrigin = TerminalText.escaped(origin)
        let line = reach.accepted.first { $0.origin == origin }.map {
            localized("the service '\(name)' (\(shownOrigin)): \($0.reason)")
        }
        return (name, line)
    }

    /// A service's name: what its product is for, when its addresses say (`/cgi-bin/koha/` is
    /// the library, `/moodle/` or `/lms/` the learning platform), else its host's first label
    /// (`opac.example.edu` → `opac`), else `service`.
    static func serviceName(_ url: URL, taken: Set<String>) -> String {
        let path = url.path.lowercased()
        let host = url.host ?? ""
        let hints: [(String, String)] = [
            ("koha", "library"), ("opac", "library"), ("alma", "library"), ("primo", "library"), ("moodle", "lms"), ("/lms/", "lms"),
            ("/my/", "lms"), ("ilias", "lms"), ("canvas", "lms"), ("blackboard", "lms"),
        ]
        var name = hints.first {
            path.contains($0.0) || host.lowercased().contains($0.0.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
        }?.1
        let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" } || host == "localhost"
        if name == nil, !isAddress {
            let labels = host.split(separator: ".").map(String.init)
            name = labels.first { !["www", "ssl", "secure"].contains($0) }.map {
                RecordedPage.fieldName(header: $0, cellClass: nil, column: 0).replacingOccurrences(of: "_", with: "-")
            }
        }
        return unique(name ?? "service", orElse: "service", taken: taken)
    }

    /// A terms-of-use version in a JSON answer: a top-level field named like a version whose value
    /// looks like one (`"version": "3.1.0"`, `"terms_version": 4`), and a field with an address.
    static func termsFields(_ json: Any) -> (version: String, url: String?)? {
        guard let object = json as? [String: Any], object.count <= 12 else { return nil }
        let version = object.keys.sorted().first { key in
            guard key.lowercased().hasSuffix("version") else { return false }
            if let text = object[key] as? String {
                return text.range(of: #"^[0-9A-Za-z][0-9A-Za-z._-]{0,31}$"#, options: .regularExpression) != nil
            }
            return object[key] is NSNumber
        }
        guard let version else { return nil }
        let url = object.keys.sorted().first { key in
            guard let text = object[key] as? String else { return false }
            return text.hasPrefix("http://") || text.hasPrefix("https://") || (text.hasPrefix("/") && key.lowercased().contains("url"))
        }
        return (version, url)
    }

    // MARK: YAML

    static func yaml(_ rule: DraftRule) -> String {
        var text = "    # \(oneLine(rule.reading))\(rule.guess.map { "\n    # guess: " + oneLine($0) } ?? "")\n"
        text += "    - name: \(RecipeScaffold.quoted(rule.name))\n      when: \(RecipeScaffold.quoted(rule.when))\n"
        switch rule.action {
        case .autoSubmit:
            text += "      auto_submit: true\n"
        case .follow(let xpath):
            text += "      follow: \(RecipeScaffold.quoted(xpath))\n"
        case .fill(let values, let submit):
            text +=
                "      fill: { "
                + values.map { "\(RecipeScaffold.quoted($0.name)): \(RecipeScaffold.quoted($0.value))" }.joined(separator: ", ")
                + (values.isEmpty ? "}\n" : " }\n")
            if let submit { text += "      submit: \(RecipeScaffold.quoted(submit))\n" }
        case .fail(let reason, let message):
            if let message { text += "      message: \(RecipeScaffold.quoted(message))\n" }
            text += "      fail: \(reason.rawValue)\n"
        }
        if rule.afterLogin { text += "      after_login: true\n" }
        return text
    }

    /// The value a recorded page's selector showed: the one it marks selected, else the address's.
    static func selectedValue(_ draft: DraftDataRecipe, option: DraftDataRecipe.SelectorOption) -> String {
        if let document = draft.document, let value = try? document.evaluate("string(\(option.selected))").stringValue, !value.isEmpty {
            return value
        }
        let items = URLComponents(url: draft.sourceURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.first { $0.name == option.name }?.value ?? "?"
    }

    /// A fixture's name for a selector's value (`recorded-2025-2`): letters, digits, `-` and `.`.
    static func fixtureName(_ value: String) -> String {
        let kept = value.unicodeScalars.map {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "." ? Character($0) : "-"
        }
        let name = String(kept).trimmingCharacters(in: CharacterSet(charactersIn: "-."))
        return "recorded-" + (name.isEmpty ? "value" : String(name.prefix(40)))
    }

    /// The report's line for the other elements a page's records could have been.
    static func alternativeLines(of draft: DraftDataRecipe) -> [String] {
        guard !draft.alternatives.isEmpty else { return [] }
        let reading = oneLine(draft.reading)
        let others = draft.alternatives.map(oneLine).joined(separator: "; ")
        return [
            localized(
                "\(draft.command): the records are \(reading); the page also had \(others): change rows: and fields: to read one of those instead"
            )
        ]
    }

    /// portal.yaml's `today:` list: what is due (a loan's due date), and upcoming events, as
    /// the bundled demo's `today:` has them.
    static func todayYAML(_ drafts: [DraftDataRecipe], dates: [String: DraftDates]) -> String {
        var items: [String] = []
        for draft in drafts {
            guard let found = dates[draft.command] else { continue }
            let options = draft.option.map { "    options: { \($0.name): current }\n" } ?? ""
            switch found.kind {
            case .due:
                items.append(
                    "  - title: \(RecipeScaffold.quoted("\(draft.summary): overdue or due within 7 days"))\n    command: \(draft.command)\n\(options)    show: due\n    field: \(found.field)\n    days: 7\n"
                )
            case .events:
                items.append(
                    "  - title: \(RecipeScaffold.quoted("\(draft.summary): the next 7 days"))\n    command: \(draft.command)\n\(options)    show: events\n    days: 7\n"
                )
            }
        }
        guard !items.isEmpty else { return "" }
        return "# What 'unitool today' shows (guess: from the dates of the recorded pages).\ntoday:\n" + items.joined()
    }

    static func yaml(_ draft: DraftDataRecipe, namespaces: [String: String]? = nil, dates: DraftDates? = nil) -> String {
        var text = """
            # Made by 'unitool recipes new --from-har' from \(oneLine(draft.sourceURL.path)): \(oneLine(draft.reading)).
            # Lines marked "guess:" are guesses. Fixtures/\(draft.command)/ holds the page as recorded (your
            # name and every secret taken out): 'unitool recipes test' checks the recipe against it.
            command: \(draft.command)
            summary: \(RecipeScaffold.quoted(draft.summary))

            """
        if let service = draft.service { text += "service: \(service)\n" }
        var fetch = draft.fetch
        if let option = draft.option {
            var components = URLComponents(string: draft.fetch) ?? URLComponents()
            // As recorded: `/docs/a%2Fb/grades` decoded would be another page.
            let page = components.percentEncodedPath
            var items = (components.percentEncodedQueryItems ?? []).filter { $0.name != option.name }
            components.percentEncodedQueryItems = nil
            let rest = items.isEmpty ? "" : items.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&") + "&"
            items = []
            fetch = page + "?" + rest + "\(option.name)={{\(option.name)}}"
            text += """
                options:
                  \(option.name):
                    default: current
                    # guess: the page's selector '\(oneLine(option.label))' picks what it shows; 'current' is the value it
                    # marks selected, 'all' every value it offers.
                    help: \(RecipeScaffold.quoted("\(option.label): a value the portal's selector offers, 'current' or 'all'"))
                    resolve:
                      current: { fetch: \(RecipeScaffold.quoted(page)), xpath: \(RecipeScaffold.quoted(option.selected)), shows_records: true }
                      all: { fetch: \(RecipeScaffold.quoted(page)), xpath: \(RecipeScaffold.quoted(option.every)), many: true }

                """
        }
        text += "fetch: \(RecipeScaffold.quoted(fetch))\n"
        if let request = draft.request { text += request }
        if draft.parseJSON { text += "parse: json\n" }
        if let namespaces {
            text += "parse: xml\n"
            if !namespaces.isEmpty {
                text +=
                    "namespaces: { "
                    + namespaces.sorted { $0.key < $1.key }.map { "\($0.key): \(RecipeScaffold.quoted($0.value))" }.joined(separator: ", ")
                    + " }\n"
            }
        }
        text += "rows: \(RecipeScaffold.quoted(draft.rows))\n"
        if let empty = draft.emptyWhen {
            text +=
                "# guess: the page has no records when its table (or list) is there without rows.\nempty_when: \(RecipeScaffold.quoted(empty))\n"
        }
        if let next = draft.next { text += "# guess: the link to the next page.\nnext: \(RecipeScaffold.quoted(next))\n" }
        text += "fields:\n"
        if let option = draft.option {
            text += "  # guess: the value the page's selector shows, so that every run's records say which they are.\n"
            text += "  \(option.name): { xpath: \(RecipeScaffold.quoted(option.selected)), key: true }\n"
        }
        for field in draft.fields where field.name != draft.option?.name {
            if !field.guesses.isEmpty { text += "  # guess: \(oneLine(field.guesses.joined(separator: "; ")))\n" }
            var parts = ["xpath: \(RecipeScaffold.quoted(field.xpath))"]
            if let type = field.type { parts.append("type: \(type)") }
            if let format = field.format { parts.append("format: \(RecipeScaffold.quoted(format))") }
            if let regex = field.regex { parts.append("regex: \(RecipeScaffold.quoted(regex))") }
            if field.key { parts.append("key: true") }
            text += "  \(field.name): { \(parts.joined(separator: ", ")) }\n"
        }
        if let dates {
            if let time = dates.timeField {
                text +=
                    "  # The time of \(dates.field), for the calendar's timed events.\n  \(time.name): { xpath: \(RecipeScaffold.quoted(time.xpath)), regex: \(RecipeScaffold.quoted(time.regex)), priority: hidden }\n"
            }
            let title = dates.title.map { "{{\($0)}}" } ?? draft.summary
            switch dates.kind {
            case .due:
                text += "  # guess: \(dates.field) is a due date; unitool works out from it and today's date whether it is past.\n"
                text += "  overdue: { compute: { before_today: \(dates.field) }, flag: true }\n"
                text += "# guess: each record is an all-day event on its due date, with a reminder the day before.\n"
                text += "calendar:\n  summary: \(RecipeScaffold.quoted("Due: " + title))\n  date: \(dates.field)\n  alarm: 1d\n"
            case .events:
                text += "# guess: each record is an event on \(dates.field).\n"
                text += "calendar:\n  summary: \(RecipeScaffold.quoted(title))\n  date: \(dates.field)\n"
                if let time = dates.timeField { text += "  time: \(time.name)\n  duration: 60m\n" }
            }
        }
        return text
    }

    /// Text for a YAML comment: one line, no control characters.
    static func oneLine(_ text: String) -> String {
        let breaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}", "\u{0B}", "\u{0C}"]
        var flat = ""
        for scalar in text.unicodeScalars { flat.unicodeScalars.append(breaks.contains(scalar) ? " " : scalar) }
        return TerminalText.escaped(flat)
    }
}
