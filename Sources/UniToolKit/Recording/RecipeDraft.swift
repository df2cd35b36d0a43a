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
    /// The first command with an option, to suggest trying (`grades --term current`).
    public var suggestion: String?

    /// The secrets of the recording: what must be in no file.
    public private(set) var secrets: [String] = []
    /// The person's user name (4 characters or more), name and e-mail: in no file either.
    public private(set) var personal: [String] = []

    /// - Parameter reservedCommands: names a data command may not take (the builtin commands).
    public init(
        portal: String, title: String?, archive: HTTPArchive, reservedCommands: Set<String> = [],
        platforms: URL = RecipeComposer.bundledPlatforms
    ) throws {
        if let problem = PortalID.problem(with: portal) { throw UniToolError(.usage, "'\(portal)': \(problem)") }
        self.portal = portal
        let login = try RecordedLogin(reading: archive)
        secrets = Self.secrets(of: archive, login: login)
        // A user name such as `student` is the stand-in itself: nothing to look for.
        personal = (login.personalTexts + (login.username.map { [$0] } ?? [])).filter { value in
            value.count >= 4 && !Self.standIns.contains { $0.contains(value) }
        }

        // The login's rules: those a bundled platform already has come from it.
        let fit = PlatformMatch.best(for: login.steps, in: platforms)
        platform = fit?.platform
        var ownRules: [DraftRule] = []
        for (index, step) in login.steps.enumerated() {
            if let fit, fit.covered.contains(index) {
                recognised.append(
                    "\(step.rule.reading) on \(Self.shown(step.pageURL)): the \(fit.platform) platform's rule '\(fit.ruleNames[index] ?? step.rule.name)'"
                )
                continue
            }
            var rule = step.rule
            if let fit, let replaced = fit.ruleNames[index] { rule.name = replaced }
            recognised.append(
                "\(rule.reading) on \(Self.shown(step.pageURL)): rule '\(rule.name)'\(rule.afterLogin ? ", after the login" : "")")
            if let guess = rule.guess { guessed.append("rule '\(rule.name)': \(guess)") }
            ownRules.append(rule)
        }
        if let fit { recognised.insert("the login pages are those of \(fit.summary): login.use: \(fit.platform)", at: 0) }
        recognised.append("the login ends at \(Self.shown(login.pageLoads[login.donePage].url)), told by \(login.doneReading)")
        if login.doneXPath == nil { guessed.append("done_when: the portal's page showed no link to log out; the address is used") }

        // What was visited after the login: pages with a table or a list, JSON answers, the terms API.
        var dataDrafts: [DraftDataRecipe] = []
        var terms: (api: String, versionField: String, urlField: String?)?
        var services: [(name: String, origin: String)] = []
        var takenCommands = reservedCommands
        let doneURL = login.pageLoads[login.donePage].url
        // The landing page's place among all exchanges (the same address may have come before
        // the login, as a signed-out page).
        let firstAfter =
            archive.exchanges.indices.filter { archive.exchanges[$0].isPageLoad }.dropFirst(login.donePage).first ?? 0
        var seen: Set<String> = []
        for exchange in archive.exchanges[firstAfter...] where exchange.isPageLoad || exchange.isScriptCall {
            guard exchange.status == 200, exchange.method == "GET", let body = exchange.body, !seen.contains(exchange.url.absoluteString)
            else { continue }
            seen.insert(exchange.url.absoluteString)
            let origin = exchange.url.origin
            if origin == login.identityProvider.origin, origin != login.portal.origin { continue }
            // The login service's own pages under the portal's origin (a service's sign-on
            // passing through the IdP at /idp) are no data.
            let idpPath = login.identityProvider.path
            if origin == login.identityProvider.origin, idpPath.count > 1, exchange.url.path.hasPrefix(idpPath) { continue }
            var service: String?
            if origin != login.portal.origin {
                if let known = services.first(where: { $0.origin == origin }) {
                    service = known.name
                } else {
                    let name = Self.serviceName(exchange.url, taken: Set(services.map(\.name)))
                    services.append((name, origin))
                    service = name
                }
            }
            let fetch = RecordedLogin.pathAndQuery(exchange.url)
            // The login's landing page is a command only for a table on it (the portal's home
            // lists its links, which is no data).
            let isLanding = exchange.url == doneURL && exchange.isPageLoad
            if exchange.isJSON || exchange.mimeType == nil && body.first == UInt8(ascii: "{") {
                guard let json = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) else { continue }
                if terms == nil, service == nil, let found = Self.termsFields(json) {
                    terms = (RecordedLogin.pathAndQuery(exchange.url), found.version, found.url)
                    recognised.append(
                        "a terms-of-use version in the JSON of \(Self.shown(exchange.url)) ('\(found.version)'): the terms: section")
                    continue
                }
                let command = Self.commandName(exchange.url, heading: nil, taken: takenCommands)
                if var draft = RecordedPage.jsonRecipe(
                    json, command: command, fetch: fetch, url: exchange.url, contentType: exchange.contentType, body: body)
                {
                    draft.service = service
                    dataDrafts.append(draft)
                    takenCommands.insert(command)
                }
            } else if exchange.isHTML, let document = RecordedLogin.document(exchange) {
                let command = Self.commandName(exchange.url, heading: RecordedPage.summary(document, fallback: ""), taken: takenCommands)
                if var draft = RecordedPage.htmlRecipe(
                    document, command: command, fetch: fetch, url: exchange.url, contentType: exchange.contentType, body: body,
                    tablesOnly: isLanding)
                {
                    draft.service = service
                    dataDrafts.append(draft)
                    takenCommands.insert(command)
                } else if exchange.isPageLoad, !isLanding {
                    recognised.append("\(Self.shown(exchange.url)) has no table or list: no command for it")
                }
            }
        }
        if !archive.exchanges.contains(where: { $0.isPageLoad && $0.body != nil }) {
            guessed.append(
                "the recording holds no page contents, so the login rules are named from what was posted and no command could be made: save the HAR with content (Chromium: 'Save all as HAR'; Playwright: record_har_content='embed')"
            )
        } else if dataDrafts.isEmpty {
            guessed.append(
                "no page after the login had a table, a list or a JSON array: record again and open your grades (or another page of records) before saving"
            )
        }

        // portal.yaml
        let scrubber = TraceScrubber(secrets: secrets)
        var yaml = """
            # \(portal), made by 'unitool recipes new --from-har' from a browser's recording (\(Self.oneLine(archive.creator))).
            # Lines marked "guess:" are guesses: check them against the portal. The recording itself holds
            # your password and session: delete it once this works.
            portal: \(portal)
            name: \(RecipeScaffold.quoted(title ?? portal))
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
        }
        files.append(File(path: "portal.yaml", data: Data(Self.personalScrubbed(yaml, login: login).utf8)))

        for draft in dataDrafts {
            commands.append(draft.command)
            files.append(File(path: "\(draft.command).yaml", data: Data(Self.personalScrubbed(Self.yaml(draft), login: login).utf8)))
            recognised.append("\(draft.reading) on \(Self.shown(draft.sourceURL)): the command '\(draft.command)'")
            for field in draft.fields where !field.guesses.isEmpty {
                guessed.append("\(draft.command).\(field.name): \(field.guesses.joined(separator: "; "))")
            }
            if let option = draft.option {
                guessed.append(
                    "\(draft.command) --\(option.name): the page's selector '\(option.label)'; current is the value it marks selected")
                if suggestion == nil { suggestion = "\(draft.command) --\(option.name) current" }
            }
            if draft.next != nil { guessed.append("\(draft.command): pages are followed by the link \(draft.next!)") }
            // The fixture: the page as recorded, every secret and personal detail taken out.
            let folder = "Fixtures/\(draft.command)/"
            var text = String(decoding: draft.body, as: UTF8.self)
            if let document = draft.document { text = document.markupWithoutFormValues() }
            text = Self.scrubbed(text, scrubber: scrubber, login: login)
            files.append(File(path: folder + (draft.parseJSON ? "recorded.page.json" : "recorded.html"), data: Data(text.utf8)))
            let url = Self.scrubbed(scrubber.scrubURL(draft.sourceURL.absoluteString), scrubber: scrubber, login: login)
            let expectation =
                "{\n  \"url\": \(JSONString.quoted(url)),\n"
                + (draft.parseJSON ? "" : "  \"content_type\": \"text/html; charset=utf-8\",\n") + "  \"records\": null\n}\n"
            files.append(File(path: folder + "recorded.json", data: Data(expectation.utf8)))
        }
        if suggestion == nil { suggestion = commands.first }

        let leaked = leaks(in: files)
        guard leaked.isEmpty else {
            throw UniToolError(
                .internal, "a secret of the recording would have been written to \(leaked.joined(separator: ", ")); nothing was written",
                hint: "please report this (without the HAR): https://github.com/unitool/unitool/issues")
        }
    }

    // MARK: Secrets

    /// Every secret value of the recording: what was typed into password and code fields, the
    /// cookies, `Authorization`, the single sign-on protocols' messages and tickets, and the
    /// hidden values posted during the login (CSRF tokens, flow state).
    static func secrets(of archive: HTTPArchive, login: RecordedLogin) -> [String] {
        var values = login.typedSecrets
        let protocolNames = Set(TraceScrubber.protocolFieldNames.map { $0.lowercased() })
        for exchange in archive.exchanges {
            values += exchange.cookieValues
            for header in exchange.requestHeaders + exchange.responseHeaders {
                switch header.name.lowercased() {
                case "cookie":
                    values += header.value.split(separator: ";").compactMap {
                        $0.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init)
                    }
                case "set-cookie":
                    if let pair = header.value.split(separator: ";").first,
                        let value = pair.split(separator: "=", maxSplits: 1).dropFirst().first
                    {
                        values.append(String(value))
                    }
                case "authorization":
                    // `Bearer X`: X alone is the secret too.
                    values.append(header.value)
                    if let token = header.value.split(separator: " ", maxSplits: 1).dropFirst().first { values.append(String(token)) }
                case let name where name.contains("csrf") || name.contains("xsrf") || name.hasSuffix("-token"):
                    values.append(header.value)
                default: break
                }
            }
            // Protocol parameters in addresses; OAuth's `code` only beside its `state` (a
            // course's `?code=MATH-101` is no secret).
            for url in [exchange.url] + (exchange.redirect.map { [$0] } ?? []) {
                let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let isOAuth = query.contains { $0.name == "state" }
                for item in query where protocolNames.contains(item.name.lowercased()) && (item.name != "code" || isOAuth) {
                    values.append(item.value ?? "")
                }
            }
            // Tokens a page carries for its scripts: <meta name="csrf-token">, Moodle's sesskey.
            if exchange.isHTML, let body = exchange.body {
                let text = String(decoding: body, as: UTF8.self)
                for pattern in [
                    #"<meta[^>]+name=["'][^"']*(?:csrf|token)[^"']*["'][^>]+content=["']([^"']+)["']"#,
                    #""sesskey"\s*:\s*"([^"]+)""#, #"sesskey=([A-Za-z0-9]+)"#,
                ] {
                    guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
                    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) where match.numberOfRanges > 1 {
                        if let range = Range(match.range(at: 1), in: text) { values.append(String(text[range])) }
                    }
                }
            }
            for field in exchange.formFields ?? [] where protocolNames.contains(field.name.lowercased()) || field.value.count >= 16 {
                values.append(field.value)
            }
        }
        // What the person chose on a page (a consent option, an institution) is written as a
        // rule's value: it is not a secret.
        let chosen = Set(
            login.steps.flatMap { step -> [String] in
                guard case .fill(let values, _) = step.rule.action else { return [] }
                return values.map(\.value).filter { !$0.hasPrefix("{{") }
            })
        return Array(
            Set(values.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }.filter { $0.count >= 4 && !chosen.contains($0) })
        ).sorted()
    }

    /// The files (by path) that hold one of the recording's secrets, in any encoding a page might use.
    public func leaks(in files: [File]) -> [String] {
        let forms = (secrets + personal).map { TraceScrubber.encodedForms(of: $0) }
        return files.filter { file in
            let text = String(decoding: file.data, as: UTF8.self)
            return forms.contains { $0.contains { text.contains($0) } }
        }.map(\.path)
    }

    /// A page or address with the secrets, the user name and the person's name and e-mail
    /// replaced by stand-ins.
    static func scrubbed(_ text: String, scrubber: TraceScrubber, login: RecordedLogin) -> String {
        personalScrubbed(scrubber.scrubText(text), login: login)
    }

    /// The person's name, e-mail and user name replaced by stand-ins, in every encoding a page
    /// uses (percent-encoded in a link, escaped in HTML or JSON); the user name as a whole word
    /// only, so that `ana` leaves "banana" alone.
    /// What the person's name, e-mail and user name become in the files.
    static let standIns = ["Student Name", "student@example.edu", "student"]

    static func personalScrubbed(_ text: String, login: RecordedLogin) -> String {
        var text = text
        for personal in login.personalTexts.sorted(by: { $0.count > $1.count }) {
            let standIn = personal.contains("@") ? "student@example.edu" : "Student Name"
            for form in TraceScrubber.encodedForms(of: personal).sorted(by: { $0.count > $1.count }) {
                text = text.replacingOccurrences(of: form, with: standIn)
            }
        }
        if let username = login.username, username.count >= 3 {
            for form in TraceScrubber.encodedForms(of: username).sorted(by: { $0.count > $1.count }) {
                let pattern = "(?<![\\p{L}\\p{N}_])" + NSRegularExpression.escapedPattern(for: form) + "(?![\\p{L}\\p{N}_])"
                text = text.replacingOccurrences(of: pattern, with: "student", options: .regularExpression)
            }
        }
        return text
    }

    // MARK: Names

    static func shown(_ url: URL) -> String {
        TerminalText.escaped(url.path.isEmpty ? "/" : url.path)
    }

    /// A command's name from the page's address: its last meaningful path segment
    /// (`/library/loans` → `loans`), else the page's heading (`/portal/` headed "Grades" → `grades`).
    static func commandName(_ url: URL, heading: String?, taken: Set<String>) -> String {
        let generic: Set<String> = ["index", "api", "v1", "v2", "portal", "home", "default", "main", "start", "page", "view"]
        let segments = url.pathComponents.filter { $0 != "/" }.map { segment -> String in
            var name = segment
            for suffix in [".php", ".pl", ".html", ".htm", ".aspx", ".jsp", ".cgi", ".json"] where name.lowercased().hasSuffix(suffix) {
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
        }
        if rule.afterLogin { text += "      after_login: true\n" }
        return text
    }

    static func yaml(_ draft: DraftDataRecipe) -> String {
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
            let page = components.path
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
        if draft.parseJSON { text += "parse: json\n" }
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
