import Foundation
import LibXML

/// A form the person posted after the login whose answer shows an address the recording had not
/// held before (an input's value to copy, a link): made into a command that asks for that address
/// again and reads what is there. Moodle's calendar export answers "Get calendar URL" with the
/// iCal address in an input; another product's "Subscribe", "Create feed link" or "Share" does
/// the same with its own names, and is read the same way: nothing here knows a product's names.
///
/// The form's values that belong to the session (a hidden field whose recorded value is one of
/// the recording's secrets, or a random token by its value) become `read:`s by XPath from the
/// page the form was on; the person's other choices stay as they posted them; the address is a
/// `type: url` read from the answer, by the XPath of the element that showed it, and the command
/// fetches it (`fetch: "{{address}}"`). The address is the user's own (it carries their token),
/// so it and its token are secrets of the recording too. Pure: the recording in, the drafts out.
public struct RecordedExport: Sendable {
    /// A value the form sent that belongs to the session: read from the form's page before each run.
    public struct Read: Sendable, Equatable {
        public var name: String
        public var xpath: String
    }

    /// How the address's answer is read.
    public enum Parse: Sendable, Equatable {
        /// An iCalendar export: the address or its page names a calendar, or the recording holds
        /// a `text/calendar` answer.
        case ics
        /// Anything else: the page, as one record.
        case html
    }

    /// The recorded POST whose answer showed the address.
    public var exchange: HTTPArchive.Exchange
    /// The page the form was on (its path and query, the session's ids left out): where the
    /// session's values are read.
    public var formPage: String
    /// The POST's target, its path and query.
    public var target: String
    public var reads: [Read]
    /// The form as posted, `{{read}}` where the session's values were.
    public var form: [(name: String, value: String)]
    /// The XPath of the address in the answer (an attribute: `@value`, `@href`).
    public var addressXPath: String
    public var parse: Parse
    /// Why the parse was chosen, for the report.
    public var parseEvidence: String
    /// The session's values the form sent and the address with its token: secrets no file may hold.
    public var secretValues: [String]

    /// The command's name: `events` for an iCalendar export (`calendar` is unitool's own), `export` otherwise.
    public var suggestedName: String { parse == .ics ? "events" : "export" }

    // MARK: Finding the exports

    /// Every POST from the exchange `first` on, to one of `origins`, that ``claims(_:in:origins:)``
    /// takes (nothing typed, a new address on `origins` shown), as a draft. A POST that shows none,
    /// or whose session values its form's page does not show, is not one.
    /// - Parameter secrets: the recording's secrets (``RecipeDraft``'s): a value among them is the session's.
    public static func exports(in archive: HTTPArchive, from first: Int, origins: Set<String>, secrets: Set<String>)
        -> [RecordedExport]
    {
        guard first < archive.exchanges.count else { return [] }
        let calendarAnswer = archive.exchanges.contains { ($0.contentType ?? "").lowercased().contains("text/calendar") }
        return archive.exchanges.indices[first...].compactMap {
            make(index: $0, in: archive, origins: origins, secrets: secrets, calendarAnswer: calendarAnswer)
        }
    }

    /// Whether this rule makes the POST at `index` a command, which posts the form again at every
    /// run without asking: only a form where the person typed nothing (every value they sent is a
    /// hidden value, a choice of a select, radio button or checkbox, or the button they pressed)
    /// and whose answer shows a new address on `origins` in an input or a link. A form with
    /// anything typed (a purchase request's title) is something the person asked for, and its
    /// answer's address (the receipt's `/requests/view?id=…`) is no reason to send it again: it is
    /// left to the rule that makes forms into actions, which asks first.
    ///
    /// The risk that remains: a form of choices alone that changes something ("reset feed", a
    /// button and a hidden key) whose answer shows a new tokened address is still taken. No
    /// button's words tell it apart in every language, so none are tried; the report names the
    /// command and the form it posts.
    public static func claims(_ index: Int, in archive: HTTPArchive, origins: Set<String>) -> Bool {
        guard archive.exchanges.indices.contains(index), sentOnlyChoices(index, in: archive) else { return false }
        return shownAddress(at: index, in: archive, origins: origins) != nil
    }

    /// Whether every field the POST at `index` sent is, on the page the form was on, a hidden
    /// value, a select, a radio button or checkbox, or a button: nothing the person typed. A
    /// field the page does not have (added by a script) counts as typed.
    static func sentOnlyChoices(_ index: Int, in archive: HTTPArchive) -> Bool {
        guard let fields = archive.exchanges[index].formFields, let page = formPage(of: index, in: archive),
            let document = RecordedLogin.document(page)
        else { return false }
        let chosen: Set<String> = ["hidden", "radio", "checkbox", "submit", "button", "image"]
        for field in fields {
            let name = Template.xpathLiteral(field.name)
            let elements = (try? document.select("//input[@name=\(name)] | //select[@name=\(name)] | //button[@name=\(name)]")) ?? []
            guard !elements.isEmpty else { return false }
            for element in elements where element.name == "input" {
                guard chosen.contains((element.attribute("type") ?? "text").lowercased()) else { return false }
            }
        }
        return true
    }

    /// The address the answer of the POST at `index` shows that the recording did not hold
    /// before: an input's value that is an address, else a link carrying a token. Its XPath is
    /// checked to read that value first on the answer.
    static func shownAddress(at index: Int, in archive: HTTPArchive, origins: Set<String>)
        -> (url: URL, raw: String, xpath: String, document: Document)?
    {
        let exchange = archive.exchanges[index]
        guard exchange.method == "POST", exchange.status == 200, exchange.formFields != nil, origins.contains(exchange.url.origin),
            let document = RecordedLogin.document(exchange)
        else { return nil }
        let before = archive.exchanges[..<index].map { earlier in
            earlier.url.absoluteString + "\n" + (earlier.body.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }.joined(separator: "\n")
        func isNew(_ raw: String, _ url: URL) -> Bool {
            let forms = [raw, url.absoluteString, url.absoluteString.replacingOccurrences(of: "&", with: "&amp;")]
            return !forms.contains { before.contains($0) }
        }
        func address(_ raw: String) -> URL? {
            let trimmed = raw.trimmingWhitespaceAndNewlines()
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), let url = URL(string: trimmed, relativeTo: exchange.url)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", origins.contains(url.origin),
                url != exchange.url
            else { return nil }
            return url
        }
        // An input that holds an address shows it to be copied: a text (or url) input, or a
        // read-only one, absolute, as such fields are. A hidden one is the form's own (a
        // `returnurl`), shown to nobody.
        let shownInputs =
            "//input[@value][not(@type) or translate(@type, 'TEXURL', 'texurl')='text' or translate(@type, 'TEXURL', 'texurl')='url'"
            + " or (@readonly and not(translate(@type, 'HIDEN', 'hiden')='hidden'))]"
        for input in (try? document.select(shownInputs)) ?? [] {
            let raw = input.attribute("value") ?? ""
            let lowered = raw.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = address(raw), isNew(raw, url),
                let xpath = xpath(of: input, attribute: "value", value: raw, in: document)
            else { continue }
            return (url, raw, xpath, document)
        }
        // A link is only an address handed out when it carries a token: navigation is none.
        for link in (try? document.select("//a[@href]")) ?? [] {
            let raw = link.attribute("href") ?? ""
            guard let url = address(raw), carriesToken(url), isNew(raw, url),
                let xpath = xpath(of: link, attribute: "href", value: raw, in: document)
            else { continue }
            return (url, raw, xpath, document)
        }
        return nil
    }

    /// Whether an address carries a value made to be unguessable, in its query or its path.
    static func carriesToken(_ url: URL) -> Bool {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.compactMap(\.value) ?? []
        return (query + url.pathComponents).contains { TraceScrubber.looksLikeToken($0) }
    }

    /// An XPath that reads `value` from `element` on `document` (by its id, else its name, else
    /// a link's text), checked to give that value first; nil when none does.
    static func xpath(of element: Node, attribute: String?, value: String, in document: Document) -> String? {
        var candidates: [String] = []
        let tail = attribute.map { "/@\($0)" } ?? ""
        for key in ["id", "name"] {
            if let identity = element.attribute(key), !identity.isEmpty {
                candidates.append("//\(element.name)[@\(key)=\(Template.xpathLiteral(identity))]\(tail)")
            }
        }
        let text = element.text.trimmingWhitespaceAndNewlines()
        if element.name == "a", !text.isEmpty, !text.contains("\n") {
            candidates.append("//a[normalize-space(.)=\(Template.xpathLiteral(text))]\(tail)")
        }
        return candidates.first { (try? document.evaluate("string(\($0))").stringValue) == value }
    }

    /// The POST at `index` as a draft, or nil when it shows no new address, or sent a session
    /// value its form's page does not show.
    static func make(index: Int, in archive: HTTPArchive, origins: Set<String>, secrets: Set<String>, calendarAnswer: Bool)
        -> RecordedExport?
    {
        guard sentOnlyChoices(index, in: archive), let shown = shownAddress(at: index, in: archive, origins: origins) else {
            return nil
        }
        let exchange = archive.exchanges[index]
        guard let page = formPage(of: index, in: archive), page.url.origin == exchange.url.origin,
            let formDocument = RecordedLogin.document(page)
        else { return nil }
        var reads: [Read] = []
        var sessionValues: [String] = []
        var form: [(name: String, value: String)] = []
        for field in exchange.formFields ?? [] {
            guard isSessionBound(field.value, secrets: secrets) else {
                form.append(field)
                continue
            }
            if let known = sessionValues.firstIndex(of: field.value) {
                form.append((field.name, "{{\(reads[known].name)}}"))
                continue
            }
            let xpath = "//input[@name=\(Template.xpathLiteral(field.name))]/@value"
            guard (try? formDocument.evaluate("string(\(xpath))").stringValue) == field.value else { return nil }
            let name = readName(field.name, taken: Set(reads.map(\.name)).union(["address"]))
            reads.append(Read(name: name, xpath: xpath))
            sessionValues.append(field.value)
            form.append((field.name, "{{\(name)}}"))
        }
        let (parse, evidence) = guessParse(address: shown.url, answer: shown.document, calendarAnswer: calendarAnswer)
        var secretValues = sessionValues + [shown.raw, shown.url.absoluteString]
        secretValues += (URLComponents(url: shown.url, resolvingAgainstBaseURL: false)?.queryItems ?? []).compactMap(\.value)
            .filter { TraceScrubber.looksLikeToken($0) }
        return RecordedExport(
            exchange: exchange, formPage: SessionInAddress.stripped(page.url).pathAndQuery,
            target: SessionInAddress.stripped(exchange.url).pathAndQuery, reads: reads, form: form, addressXPath: shown.xpath,
            parse: parse, parseEvidence: evidence, secretValues: Array(Set(secretValues)).sorted())
    }

    /// The page the form was on: the page load its `Referer` names, else the last page of its
    /// origin loaded before it; nil when none kept its body.
    static func formPage(of index: Int, in archive: HTTPArchive) -> HTTPArchive.Exchange? {
        let post = archive.exchanges[index]
        let pages = archive.exchanges[..<index].filter { $0.isPageLoad && $0.isHTML && $0.body != nil && $0.status == 200 }
        if let referer = post.header("Referer", in: post.requestHeaders).flatMap({ URL(string: $0) }),
            let page = pages.last(where: { $0.url.absoluteString == referer.absoluteString })
        {
            return page
        }
        return pages.last { $0.url.origin == post.url.origin }
    }

    /// Whether a posted value is the session's: one of the recording's secrets, or a random token.
    static func isSessionBound(_ value: String, secrets: Set<String>) -> Bool {
        !value.isEmpty && (secrets.contains(value) || TraceScrubber.looksLikeToken(value))
    }

    /// A read's name from a form field's (`sesskey`, `csrf_token`), else `session_value`, unique.
    static func readName(_ field: String, taken: Set<String>) -> String {
        var base = field.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? String($0) : "_" }.joined()
        base = base.trimmingCharacters(in: CharacterSet(charactersIn: "_"))
        if !NameSyntax.isValueName(base) || DataRecipe.builtInValues.contains(base) { base = "session_value" }
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base)_\(number)"
            number += 1
        }
        return name
    }

    /// What the address serves, from the evidence: the address or the page that showed it naming
    /// a calendar, or a `text/calendar` answer in the recording, is an iCalendar export.
    static func guessParse(address: URL, answer: Document, calendarAnswer: Bool) -> (Parse, String) {
        let words = #"(?i)(calendar|ical|webcal|\bics\b|\.ics\b|kalender|calendrier|calendario|カレンダー|日历|行事曆)"#
        func names(_ text: String) -> String? {
            guard let range = text.range(of: words, options: .regularExpression) else { return nil }
            return String(text[range])
        }
        if let word = names(address.absoluteString.removingPercentEncoding ?? address.absoluteString) {
            return (.ics, "the address names '\(word)'")
        }
        let title = (try? answer.evaluate("string(//title)").stringValue) ?? ""
        let headings = (try? answer.evaluate("string(//h1)").stringValue) ?? ""
        let labels = ((try? answer.select("//label")) ?? []).map(\.text).joined(separator: " ")
        if let word = names(title + " " + headings + " " + labels) { return (.ics, "the page that showed it names '\(word)'") }
        if calendarAnswer { return (.ics, "the recording holds a text/calendar answer") }
        return (.html, "nothing names a calendar")
    }

    // MARK: The recipe

    /// The data recipe's YAML: the reads, the form, the address, and how its answer is read.
    public func yaml(command: String, service: String?) -> String {
        var text = """
            # Made by 'unitool recipes new --from-har' from the form you posted to \(RecipeDraft.oneLine(exchange.url.path)):
            # its answer showed an address of your own (the recording never fetched it). Each run posts the
            # form again, as you did, and reads what is at the address it shows.
            command: \(command)
            summary: \(RecipeScaffold.quoted(parse == .ics ? "Events of the calendar export at \(exchange.url.path)" : "The page the form at \(exchange.url.path) leads to"))

            """
        if let service { text += "service: \(service)\n" }
        text += "read:\n"
        if !reads.isEmpty { text += "  # The session's values the form sent, read from the page it was on.\n" }
        for read in reads {
            text += "  \(read.name): { fetch: \(RecipeScaffold.quoted(formPage)), xpath: \(RecipeScaffold.quoted(read.xpath)) }\n"
        }
        let fields = form.map { "\(RecipeScaffold.quoted($0.name)): \(RecipeScaffold.quoted($0.value))" }.joined(separator: ", ")
        text += """
              # The address the answer shows: yours alone, so kept out of every log and message.
              address:
                fetch: \(RecipeScaffold.quoted(target))
                method: post
                form: { \(fields) }
                xpath: \(RecipeScaffold.quoted(addressXPath))
                type: url
            fetch: "{{address}}"

            """
        switch parse {
        case .ics:
            text += """
                # guess: an iCalendar export (\(RecipeDraft.oneLine(parseEvidence))): one record per VEVENT.
                parse: ics
                rows: "//vevent"
                empty_when: "/icalendar/vcalendar[not(vevent)]"
                sort: dtstart
                fields:
                  uid: { xpath: uid, key: true, priority: hidden }
                  summary: { xpath: summary, required: true }
                  dtstart: { xpath: dtstart, type: datetime, format: iso8601 }
                  dtend: { xpath: dtend, type: datetime, format: iso8601 }
                  categories: { xpath: categories }

                """
        case .html:
            text += """
                # guess: a page (\(RecipeDraft.oneLine(parseEvidence))): read as one record, its title and text.
                rows: "/html"
                fields:
                  title: { xpath: "normalize-space(//title)" }
                  text: { xpath: "normalize-space(//body)" }

                """
        }
        return text
    }

    /// What the report says of it.
    public var reading: String {
        let path = TerminalText.escaped(exchange.url.path)
        return localized("the address the answer to the form posted to \(path) shows (\(addressXPath))")
    }

    /// What was guessed, for the report.
    public var guesses: [String] {
        var lines = [
            parse == .ics
                ? localized("the address's answer is read as an iCalendar export (\(parseEvidence))")
                : localized("the address's answer is read as a page (\(parseEvidence))")
        ]
        if !reads.isEmpty {
            let names = reads.map(\.name).joined(separator: ", ")
            let page = TerminalText.escaped(formPage)
            lines.append(localized("the session's values the form sent (\(names)) are read from \(page) before each run"))
        }
        let chosen = form.filter { !$0.value.hasPrefix("{{") }.map { TerminalText.escaped($0.name) }.joined(separator: ", ")
        lines.append(localized("every other value the form sent is posted as you chose it: \(chosen)"))
        return lines
    }
}
