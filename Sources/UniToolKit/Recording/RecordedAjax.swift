import Foundation
import LibXML

/// A page's script's POST for records, made into a `parse: json` recipe with `method: post`: the
/// AJAX call a dashboard makes for its course list (Moodle's `lib/ajax/service.php`, with
/// `methodname` and `args`), or any product's `fetch('/api/grades', {method: 'POST', body: …})`.
///
/// A recording holds the call as this session made it: its address and body carry the session's
/// own values (a `sesskey`, a CSRF token), which a recipe must never hold and which the next run
/// would not have. Each such value becomes a `read:` from the page that made the call (its
/// `Referer`, else Chromium's `_initiator`), by an XPath to the element that holds it and a regex
/// built from the text around it there, as a person writing the recipe would; a day's start near
/// the recording's moment (`timesortfrom`) becomes `{{today_epoch}}`; every other value stays as
/// recorded. A call whose answer holds no list of records (a log entry, a ping, an error) is no
/// command. Pure: the recording in, the draft out; nothing here knows a product's names.
public struct RecordedAjax: Sendable {
    /// A value the call sent that belongs to the session: read from the page before each run.
    public struct Read: Sendable, Equatable {
        public var name: String
        /// The page that made the call, relative to its origin.
        public var fetch: String
        public var xpath: String
        public var regex: String?
    }

    /// The data recipe: `parse: json`, rows and fields from the answer, the request's YAML in
    /// `request`, its fetch with `{{…}}` where the session's values were.
    public var draft: DraftDataRecipe
    /// The command's name as the call names itself (`courses` for a body that calls
    /// `core_course_get_enrolled_courses_by_timeline_classification`), nil for the endpoint's.
    public var name: String?
    public var reads: [Read]
    /// The body as a template: JSON text, or a form's fields.
    public var json: String?
    public var form: [(name: String, value: String)]?
    /// The session's values the call sent (now `read:`s): secrets that no file may hold.
    public var sessionValues: [String]
    /// What was guessed, for the report.
    public var guesses: [String]
    /// The recorded exchange.
    public var exchange: HTTPArchive.Exchange

    /// Why a call became no command, for the report's "skipped" lines.
    public struct Skip: Error, Sendable, Equatable {
        public var url: URL
        public var reason: String
    }

    /// What tells one call from another: its address and body, the session's values taken out.
    var identity: String {
        let fields: [String] = (form ?? []).map { "\($0.name)=\($0.value)" }
        return draft.fetch + "\u{0}" + (json ?? "") + "\u{0}" + fields.joined(separator: "&")
    }

    /// The lines the source needs after its `fetch:` (`method: post`, the body, the `read:`s).
    public var requestYAML: String {
        var text = "method: post\n"
        if let json { text += "json: \(RecipeScaffold.quoted(json))\n" }
        if let form {
            text +=
                "form: { " + form.map { "\(RecipeScaffold.quoted($0.name)): \(RecipeScaffold.quoted($0.value))" }.joined(separator: ", ")
                + (form.isEmpty ? "}\n" : " }\n")
        }
        if !reads.isEmpty {
            text += "# The session's values the call sent, read from the page that made it (its script or a field).\nread:\n"
            for read in reads {
                var parts = ["fetch: \(RecipeScaffold.quoted(read.fetch))", "xpath: \(RecipeScaffold.quoted(read.xpath))"]
                if let regex = read.regex { parts.append("regex: \(RecipeScaffold.quoted(regex))") }
                text += "  \(read.name): { \(parts.joined(separator: ", ")) }\n"
            }
        }
        return text
    }

    // MARK: Finding the calls

    /// Every script's POST after the login (from the exchange `first` on) to one of `origins`
    /// that was answered with JSON records, as drafts; and the calls passed over, each with why.
    /// The same call made twice (the same address and body once the session's values are taken
    /// out) is one command: the last time it answered with records.
    /// - Parameter secrets: the recording's secrets (``RecipeDraft``'s): a value among them is the session's.
    public static func calls(
        in archive: HTTPArchive, from first: Int, origins: Set<String>, secrets: Set<String>
    ) -> (calls: [RecordedAjax], skipped: [Skip]) {
        var calls: [RecordedAjax] = []
        var skipped: [Skip] = []
        guard first < archive.exchanges.count else { return ([], []) }
        let moment = DraftDates.recordingMoment(archive)
        for index in archive.exchanges.indices[first...] {
            let exchange = archive.exchanges[index]
            guard exchange.isScriptCall, exchange.method == "POST", exchange.status == 200, origins.contains(exchange.url.origin),
                let body = exchange.body, exchange.isJSON || body.first == UInt8(ascii: "[") || body.first == UInt8(ascii: "{")
            else { continue }
            switch make(index: index, in: archive, secrets: secrets, moment: moment) {
            case .success(let call):
                if let same = calls.firstIndex(where: { $0.identity == call.identity }) {
                    calls[same] = call
                } else {
                    calls.append(call)
                }
            case .failure(let skip):
                skipped.append(skip)
            }
        }
        // A call skipped once but made into a command another time is no skip; each skip once.
        let made = Set(calls.map { SessionInAddress.stripped($0.exchange.url).url })
        var seen: [Skip] = []
        for skip in skipped where !made.contains(SessionInAddress.stripped(skip.url).url) && !seen.contains(skip) { seen.append(skip) }
        return (calls, seen)
    }

    /// One call as a draft, or why it is none.
    static func make(index: Int, in archive: HTTPArchive, secrets: Set<String>, moment: Date?) -> Result<RecordedAjax, Skip> {
        let exchange = archive.exchanges[index]
        let url = exchange.url
        func skip(_ reason: String) -> Result<RecordedAjax, Skip> { .failure(Skip(url: url, reason: reason)) }
        guard let body = exchange.body, let answer = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        else { return skip(localized("its answer is no JSON: no command for it")) }
        guard let records = recordsPath(answer) else {
            return skip(localized("its JSON answer holds no list of records (a log entry, a ping or an error): no command for it"))
        }
        // A token the call sent in a header of its own (`X-CSRF-Token`) is sent by no recipe.
        for header in exchange.requestHeaders where isSessionBound(name: header.name, value: header.value, secrets: secrets) {
            let name = header.name.lowercased()
            guard !["cookie", "authorization"].contains(name), name.hasPrefix("x-") || name.contains("token") || name.contains("csrf")
            else { continue }
            let headerName = TerminalText.escaped(header.name)
            return skip(
                localized(
                    "the call sent the session's value in its header '\(headerName)', which a recipe cannot read from a page yet: no command for it; write one by hand (docs/RECIPES.md, \"POST, and values from an earlier page\")"
                )
            )
        }
        let page = initiatingPage(of: index, in: archive)
        var reads: [Read] = []
        var sessionValues: [String] = []
        var guesses: [String] = []
        var missing: String?
        /// The template for a value the call sent: `{{read}}` for the session's, `{{today_epoch}}`
        /// for a day's start, nil to keep it as recorded.
        func template(name: String, value: String, isNumber: Bool) -> String? {
            if !isNumber, isSessionBound(name: name, value: value, secrets: secrets) {
                if let known = sessionValues.firstIndex(of: value) { return "{{\(reads[known].name)}}" }
                // Read from the page that made the call, on the call's own origin.
                guard let page, page.url.origin == url.origin, let document = RecordedLogin.document(page),
                    let found = locate(value, in: document)
                else {
                    if missing == nil { missing = name }
                    return nil
                }
                var readName = RecordedPage.fieldName(header: name, cellClass: nil, column: 0)
                if !NameSyntax.isCommandName(readName.replacingOccurrences(of: "_", with: "-")) || readName.hasPrefix("column_")
                    || DataRecipe.builtInValues.contains(readName)
                {
                    readName = "session_value"
                }
                var unique = readName
                var number = 2
                while reads.contains(where: { $0.name == unique }) {
                    unique = "\(readName)_\(number)"
                    number += 1
                }
                let stripped = SessionInAddress.stripped(page.url)
                reads.append(Read(name: unique, fetch: stripped.pathAndQuery, xpath: found.xpath, regex: found.regex))
                sessionValues.append(value)
                return "{{\(unique)}}"
            }
            if let moment, let epoch = dayStart(value, near: moment) {
                let shownName = TerminalText.escaped(name)
                let written = "{{today_epoch}}" + (epoch.milliseconds ? "000" : "")
                guesses.append(
                    localized(
                        "'\(shownName)' (\(value)) is the start of the day the recording was made: \(written), the start of the day of each run"
                    )
                )
                return "{{today_epoch}}" + (epoch.milliseconds ? "000" : "")
            }
            return nil
        }

        // The address: the session's values in its query become reads; path parameters
        // (`;jsessionid=`) are left out, as in every address the generator writes.
        let stripped = SessionInAddress.stripped(url)
        var components = URLComponents(url: stripped.url, resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = nil
        var fetch = components.map { $0.percentEncodedPath.isEmpty ? "/" : $0.percentEncodedPath } ?? url.path
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        var pairs: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            let isNumber = !value.isEmpty && value.allSatisfy(\.isASCIIDigit)
            if let replaced = template(name: name, value: value, isNumber: isNumber) {
                pairs.append("\(parts[0])=\(replaced)")
            } else {
                pairs.append(String(pair))
            }
        }
        if !pairs.isEmpty { fetch += "?" + pairs.joined(separator: "&") }

        // The body: JSON with each value templated in its place, or a form's fields.
        var json: String?
        var form: [(name: String, value: String)]?
        var methodNames: [String] = []
        if let fields = exchange.formFields {
            form = fields.map { field in
                let isNumber = !field.value.isEmpty && field.value.allSatisfy(\.isASCIIDigit)
                return (field.name, template(name: field.name, value: field.value, isNumber: isNumber) ?? field.value)
            }
            methodNames = fields.filter { namesFunction($0.name) && isIdentifier($0.value) }.map(\.value)
        } else if let text = exchange.postText, !text.isEmpty {
            guard let posted = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
                return skip(localized("it posted a body that is neither JSON nor a form: no command for it"))
            }
            var templated = text
            for leaf in leaves(posted) {
                if leaf.isString, namesFunction(leaf.key), isIdentifier(leaf.value) { methodNames.append(leaf.value) }
                guard let replaced = template(name: leaf.key, value: leaf.value, isNumber: !leaf.isString) else { continue }
                if leaf.isString {
                    for written in jsonWritten(leaf.value) {
                        templated = templated.replacingOccurrences(of: "\"\(written)\"", with: "\"\(replaced)\"")
                    }
                } else if let regex = try? NSRegularExpression(
                    pattern: "(?<![0-9.\"])" + NSRegularExpression.escapedPattern(for: leaf.value) + "(?![0-9.\"])")
                {
                    templated = regex.stringByReplacingMatches(
                        in: templated, range: NSRange(templated.startIndex..., in: templated),
                        withTemplate: NSRegularExpression.escapedTemplate(for: replaced))
                }
            }
            json = templated
        }
        if let missing {
            let value = TerminalText.escaped(missing)
            return skip(
                localized(
                    "it sent the session's value '\(value)', which the page that made the call does not show: no command for it; write one by hand with a read: of where the value comes from (docs/RECIPES.md, \"POST, and values from an earlier page\")"
                )
            )
        }

        if let verb = changingVerb(functions: methodNames, url: url) {
            let word = TerminalText.escaped(verb)
            return skip(
                localized("it changes something ('\(word)' in its name), so a command would do it again at every run: no command for it")
            )
        }

        // The records: the answer's largest list of records, its fields as a GET's JSON has them.
        let items = records.items.map { $0.filter { $0.value is String || $0.value is NSNumber } }
        let contentType = exchange.contentType
        guard
            var draft = RecordedPage.jsonRecipe(
                items, command: "page", fetch: fetch, url: stripped.url, contentType: contentType, body: body)
        else { return skip(localized("its JSON answer holds no list of records: no command for it")) }
        draft.rows = records.path + "/item"
        draft.emptyWhen = records.path + "[@type='array' and not(item)]"
        if let moment { draft.fields = draft.fields.map { momentTyped($0, items: records.items, near: moment) } }
        draft.reading = "the JSON array \(records.path)/item (\(Plural.count(records.items.count, "item"))) of a script's POST"
        var name: String?
        if Set(methodNames).count == 1, let function = methodNames.first {
            name = commandName(function: function)
            if let name {
                let called = TerminalText.escaped(function)
                guesses.append(localized("the command is named '\(name)' from the function the call names ('\(called)')"))
            }
        }
        draft.summary = "\(name.map { $0.prefix(1).uppercased() + $0.dropFirst() } ?? "Records") (from a POST to \(url.path))"
        var call = RecordedAjax(
            draft: draft, name: name, reads: reads, json: json, form: form, sessionValues: sessionValues, guesses: guesses,
            exchange: exchange)
        for read in reads {
            let from = TerminalText.escaped(read.fetch)
            let xpath = TerminalText.escaped(read.xpath)
            if let regex = read.regex.map({ TerminalText.escaped($0) }) {
                call.guesses.append(
                    localized(
                        "read: \(read.name) from \(from) (\(xpath), regex \(regex)), the page that made the call: the session's value it sent"
                    ))
            } else {
                call.guesses.append(
                    localized("read: \(read.name) from \(from) (\(xpath)), the page that made the call: the session's value it sent"))
            }
        }
        call.draft.request = call.requestYAML
        return .success(call)
    }

    // MARK: Values

    /// Whether a value the call sent is the session's: one of the recording's secrets (a cookie,
    /// a token a page carries for its scripts), a parameter named as a session's, or a random
    /// token by its value (``TraceScrubber/looksLikeToken(_:)``). A course code, a term, a word
    /// or a number is none of these.
    static func isSessionBound(name: String, value: String, secrets: Set<String>) -> Bool {
        guard !value.isEmpty else { return false }
        if secrets.contains(value) { return true }
        let lowered = name.lowercased()
        if lowered.contains("csrf") || lowered.contains("xsrf") { return true }
        // A function's name (`markAllNotificationsRead`) is words, not a token: no digit, and
        // every word of three letters or more, where a random value's case changes break it
        // into scraps.
        if namesFunction(name) || !value.contains(where: \.isNumber) && words(of: value).allSatisfy({ $0.count >= 3 }) {
            return SessionInAddress.isSessionName(name)
        }
        return SessionInAddress.isSession(name: name, value: value) || TraceScrubber.looksLikeToken(value)
    }

    /// Whether a member's name says it names the function called: `methodname`, JSON-RPC's
    /// `method`, GraphQL's `operationName`, a form's `action` or `function`.
    static func namesFunction(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["method", "methodname", "operationname", "operation", "function", "functionname", "action", "wsfunction"].contains(
            lowered)
    }

    /// A function's name as code writes it: letters, digits, `_`, `.`, `/`, `:` and `-`, no spaces.
    static func isIdentifier(_ value: String) -> Bool {
        value.count >= 3 && value.first?.isLetter == true
            && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.:/-".contains($0)) }
    }

    /// A command's name from the function a call names: the thing it gets
    /// (`core_course_get_enrolled_courses_by_timeline_classification` → `courses`, `getGrades` →
    /// `grades`, `listLoans` → `loans`): the last word after its verb and before a preposition,
    /// else its last word.
    static func commandName(function: String) -> String? {
        let words = words(of: function)
        let verbs: Set<String> = ["get", "list", "fetch", "read", "load", "search", "find", "query", "retrieve", "show", "view"]
        let prepositions: Set<String> = ["by", "for", "from", "with", "in", "of", "on", "since", "until", "and"]
        var object = words
        if let verb = words.lastIndex(where: { verbs.contains($0) }) { object = Array(words[(verb + 1)...]) }
        if let stop = object.firstIndex(where: { prepositions.contains($0) }) { object = Array(object[..<stop]) }
        guard let noun = object.last ?? words.last, NameSyntax.isCommandName(noun), !verbs.contains(noun) else { return nil }
        return noun
    }

    /// Verbs that say a call only reads: a call whose name's first verb is one of these may be a
    /// command, which runs again at every run.
    static let readingVerbs: Set<String> = [
        "get", "list", "search", "query", "fetch", "find", "load", "read", "view", "show", "retrieve", "lookup", "browse",
    ]

    /// Stems of verbs that say a call changes something, with the words made of them (`renew` →
    /// renewal, renewed; `subscri` → subscribe, subscription). A stem of five letters or more is
    /// met by any word it begins; a shorter one only as itself or with an ending (`sets`, `saved`:
    /// `settings` is a page, and `address` is no `add`).
    static let changingStems: [String] = [
        "set", "add", "put", "pay", "buy", "mark", "sav", "send", "post", "join", "edit", "updat", "delet", "remov", "submit",
        "creat", "renew", "toggl", "cancel", "reserv", "request", "enrol", "purchas", "write", "upload", "store", "insert",
        "approv", "reject", "accept", "declin", "confirm", "subscri", "unsubscri", "dismiss", "complet", "extend", "extens",
        "reset", "clear", "restor", "modif", "replac", "execut", "trigger", "apply", "withdraw", "transfer", "revok", "invit",
        "enabl", "disabl", "activat", "deactivat", "respond", "reply", "upvot", "downvot",
    ]

    /// Endings a short stem is met with: `set` → sets; `save` → saved, saving (stem `sav`).
    static let endings: Set<String> = ["", "s", "es", "e", "ed", "d", "ing", "al", "als", "ion", "ions"]

    /// Whether a word is made of a verb that changes something.
    static func isChanging(_ word: String) -> Bool {
        changingStems.contains { stem in
            guard word.hasPrefix(stem) else { return false }
            return stem.count >= 5 || endings.contains(String(word.dropFirst(stem.count)))
        }
    }

    /// Why a call is no command because it may change something, or nil when it only reads: each
    /// function it names and its address's path, every segment, split into words (camelCase,
    /// snake_case, dashes). A name with a reading verb (`get`, `list`, `search`…) before what it
    /// reads reads, whatever its component or object is called (`core_enrol_get_users_courses`,
    /// `core_course_get_enrolled_courses_by_timeline_classification`); else a word made of a verb
    /// that changes something (`mark`, `renewal`, `dismiss`) says it does not
    /// (`core_message_mark_all_notifications_as_read`, `/api/loans/31000103/renewal`). A name of
    /// nouns alone (`/api/grades`) reads. A command runs again at every run, so a doubtful call is
    /// left out, with why, for an action (which asks) to do by hand.
    ///
    /// The risk that remains: a verb in no list (another language's, a product's coinage) reads
    /// as a noun, and its call becomes a command.
    static func changingVerb(functions: [String], url: URL) -> String? {
        let segments = url.pathComponents.filter { $0 != "/" && !TraceScrubber.looksLikeToken($0) }
        for name in functions + [segments.joined(separator: "/")] {
            let words = words(of: name).filter { !$0.allSatisfy(\.isNumber) }
            // A reading verb followed by what it reads; a last word `read` is a state (`…_as_read`).
            if let verb = words.firstIndex(where: { readingVerbs.contains($0) }), verb < words.count - 1 { continue }
            if let word = words.first(where: isChanging) { return word }
        }
        return nil
    }

    /// A name's words, lowercased: split at `_`, `.`, `/`, `-` and between a lowercase and an
    /// uppercase letter (`getGrades` → get, grades).
    static func words(of function: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in function {
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { words.append(current.lowercased()) }
                current = ""
            } else if character.isUppercase, let last = current.last, last.isLowercase {
                words.append(current.lowercased())
                current = String(character)
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    /// Every scalar in a JSON value, with the key it stands under (an array's values under the
    /// array's key), as text; strings apart from numbers. Booleans and nulls are left as they are.
    static func leaves(_ value: Any, key: String = "") -> [(key: String, value: String, isString: Bool)] {
        switch value {
        case let object as [String: Any]:
            return object.sorted { $0.key < $1.key }.flatMap { leaves($0.value, key: $0.key) }
        case let array as [Any]:
            return array.flatMap { leaves($0, key: key) }
        case let string as String:
            return [(key, string, true)]
        case let number as NSNumber:
            // Only whole numbers are templated (a boolean's 1 or 0 is too short to be a day).
            let text = number.stringValue
            return text.allSatisfy(\.isASCIIDigit) ? [(key, text, false)] : []
        default:
            return []
        }
    }

    /// How a JSON text may write a string's content: as is, with `/` escaped, and with every
    /// non-ASCII character as `\u` escapes.
    static func jsonWritten(_ value: String) -> [String] {
        let plain = String(JSONString.quoted(value).dropFirst().dropLast())
        var forms = [plain, plain.replacingOccurrences(of: "/", with: "\\/")]
        let ascii = plain.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u%04x", $0.value) }.joined()
        if ascii != plain { forms.append(ascii) }
        return Array(Set(forms))
    }

    /// A number that is the start of a day (a zone's midnight: a whole quarter hour) within 36
    /// hours of the recording's moment, in seconds or milliseconds since 1970: what an API that
    /// asks "from when" is given (Moodle's `timesortfrom`). A moment that is no day's start
    /// ("now") is not: it stays as recorded.
    static func dayStart(_ value: String, near moment: Date) -> (seconds: Int, milliseconds: Bool)? {
        guard value.count >= 9, value.count <= 13, let number = Int(value) else { return nil }
        let now = Int(moment.timeIntervalSince1970)
        for (seconds, milliseconds) in [(number, false), (number / 1000, true)] where !milliseconds || number % 1000 == 0 {
            if abs(seconds - now) <= 36 * 3600, seconds % 900 == 0 { return (seconds, milliseconds) }
        }
        return nil
    }

    /// A field whose every value is a whole number of seconds since 1970 within five years of
    /// the recording's moment (Moodle's `timesort`, a due date an API sends as a number) as
    /// `type: datetime, format: unix`: a moment, so that the command's dates reach `today:` and
    /// the calendar. An identifier that happens to be such a number would be read as a date too:
    /// a guess, marked as one.
    static func momentTyped(_ field: DraftDataRecipe.Field, items: [[String: Any]], near moment: Date) -> DraftDataRecipe.Field {
        let key = items.first { item in item.keys.contains { RecordedPage.elementName($0) == field.xpath } }?.keys.first {
            RecordedPage.elementName($0) == field.xpath
        }
        guard let key else { return field }
        let now = moment.timeIntervalSince1970
        let values = items.compactMap { $0[key] }
        let isMoment = values.allSatisfy { value in
            guard let number = value as? NSNumber, !(number === NSNumber(value: true) || number === NSNumber(value: false)),
                let seconds = Int(number.stringValue)
            else { return value is NSNull }
            return abs(Double(seconds) - now) <= 5 * 365 * 86400
        }
        guard isMoment, values.contains(where: { $0 is NSNumber }) else { return field }
        var typed = field
        typed.type = "datetime"
        typed.format = "unix"
        typed.guesses = ["seconds since 1970 near the recording's day: a moment"]
        return typed
    }

    // MARK: The answer's records

    /// The answer's list of records: the largest array of objects that carry data (two scalar
    /// members or more; an envelope `{"error": false, "data": …}` carries one), the deeper on a
    /// tie (a batch's one answer wraps one list of records). Nil: no records (a log call's
    /// `{"error": false, "data": []}`, an error's answer).
    static func recordsPath(_ json: Any) -> (path: String, items: [[String: Any]])? {
        var best: (path: String, items: [[String: Any]], depth: Int)?
        func visit(_ value: Any, path: String, depth: Int) {
            if let array = value as? [Any] {
                let objects = array.compactMap { $0 as? [String: Any] }
                let scalars = Set(objects.flatMap { $0.filter { $0.value is String || $0.value is NSNumber }.keys })
                if !objects.isEmpty, objects.count == array.count, scalars.count >= 2,
                    objects.count > (best?.items.count ?? 0) || objects.count == best?.items.count && depth > best!.depth
                {
                    best = (path, objects, depth)
                }
                for item in array { visit(item, path: path + "/item", depth: depth + 1) }
            } else if let object = value as? [String: Any] {
                for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                    visit(member, path: path + "/" + RecordedPage.elementName(key), depth: depth + 1)
                }
            }
        }
        visit(json, path: "/json", depth: 0)
        return best.map { ($0.path, $0.items) }
    }

    // MARK: The page that made the call

    /// The page the call was made from: the page load its `Referer` names, else the one its
    /// `_initiator` names, else the last page loaded before it; nil when none kept its body.
    static func initiatingPage(of index: Int, in archive: HTTPArchive) -> HTTPArchive.Exchange? {
        let call = archive.exchanges[index]
        let pages = archive.exchanges[..<index].filter { $0.isPageLoad && $0.isHTML && $0.body != nil && $0.status == 200 }
        func page(at address: URL?) -> HTTPArchive.Exchange? {
            guard let address else { return nil }
            let wanted = address.absoluteString.split(separator: "#").first.map(String.init) ?? address.absoluteString
            return pages.last { $0.url.absoluteString == wanted }
        }
        let referer = call.header("Referer", in: call.requestHeaders).flatMap { URL(string: $0) }
        return page(at: referer) ?? page(at: call.initiator) ?? pages.last { $0.url.origin == call.url.origin }
    }

    /// Where a page shows `value`: an attribute (`<meta name="csrf-token" content="…">`,
    /// `<input name="sesskey" value="…">`) by its element's name or id, else the text of an
    /// element (a script's `"sesskey":"…"`) by the text just before the value, as a regex whose
    /// group is the value. Checked by reading the page as a run would: the XPath's first node,
    /// then the regex, must give the value.
    static func locate(_ value: String, in document: Document) -> (xpath: String, regex: String?)? {
        let literal = Template.xpathLiteral(value)
        func reads(_ xpath: String, _ regex: String?) -> Bool {
            guard let first = try? document.evaluate("string(\(xpath))").stringValue else { return false }
            guard let regex else { return first == value }
            guard let pattern = try? NSRegularExpression(pattern: regex),
                let match = pattern.firstMatch(in: first, range: NSRange(first.startIndex..., in: first)), match.numberOfRanges > 1,
                let range = Range(match.range(at: 1), in: first)
            else { return false }
            return String(first[range]) == value
        }
        for element in (try? document.select("//*[@*[. = \(literal)]]")) ?? [] {
            guard let attribute = element.attributes.first(where: { $0.value == value })?.name else { continue }
            for key in ["name", "id", "property", "itemprop"] {
                guard let identity = element.attribute(key), !identity.isEmpty, identity != value else { continue }
                let xpath = "//\(element.name)[@\(key)=\(Template.xpathLiteral(identity))]/@\(attribute)"
                if reads(xpath, nil) { return (xpath, nil) }
            }
        }
        for element in (try? document.select("//*[text()[contains(., \(literal))]]")) ?? [] {
            let text = element.text
            guard let range = text.range(of: value) else { continue }
            let prefix = prefix(before: range.lowerBound, in: text)
            guard !prefix.isEmpty else { continue }
            let after = text[range.upperBound...].first
            let group: String
            if let after, !(after.isLetter || after.isNumber), !after.isWhitespace {
                group = "([^" + NSRegularExpression.escapedPattern(for: String(after)).replacingOccurrences(of: "]", with: "\\]") + "]+)"
            } else {
                var extra = Set(value.filter { !($0.isLetter || $0.isNumber) })
                extra.remove("]")
                group = "([A-Za-z0-9" + extra.sorted().map { "\\" + String($0) }.joined() + "]+)"
            }
            let xpath = "//\(element.name)[contains(., \(Template.xpathLiteral(prefix)))]"
            let regex = NSRegularExpression.escapedPattern(for: prefix) + group
            if reads(xpath, regex) { return (xpath, regex) }
        }
        return nil
    }

    /// The text before a value that names it: back to the word before it and the punctuation
    /// between (`"sesskey":"`, `token = '`), at most 40 characters.
    static func prefix(before index: String.Index, in text: String) -> String {
        var start = index
        var sawWord = false
        var count = 0
        while start > text.startIndex, count < 40 {
            let previous = text.index(before: start)
            let character = text[previous]
            let isWord = character.isLetter || character.isNumber || character == "_" || character == "-"
            if sawWord, !isWord, character.isWhitespace || ",;{}()[]<>".contains(character) { break }
            if character.isNewline { break }
            if isWord { sawWord = true }
            start = previous
            count += 1
        }
        return sawWord ? String(text[start..<index]) : ""
    }
}
