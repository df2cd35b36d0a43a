import Foundation
import LibXML

/// The signed-in person as a page after the login names them ("Signed in as alice (Alice
/// Liddell)", "ようこそ taro さん", "Angemeldet als Max Mustermann (mm123)"): a command
/// (`whoami`) whose values are read out of that sentence. Pure: the pages in, the recipe out.
///
/// The evidence is the user id the person typed at the login: a short text element after the
/// login that contains it, as a word, is the sentence. A data table's cell, a form field and a
/// script are not. The sentence is split into values, never into the words around them: the
/// user id is one; a bracketed or quoted part, or what follows a colon, is a display name; a name
/// just before a bracketed user id is one too. What is left is literal text, which anchors each
/// value's regex, so that the recipe reads any user's sentence, not only the recorded one.
public struct RecordedIdentity: Sendable {
    /// A piece of the sentence: text the page writes for everyone, or a value of the person.
    public enum Part: Sendable, Equatable {
        case literal(String)
        /// `name` is the field's name; `pattern` what the value may be (`\S+?`, `.+?`).
        case value(name: String, pattern: String)
    }

    /// One field of the command: the value's name, its regex (the first group is the value), and
    /// the value as the recorded page showed it.
    public struct Value: Sendable, Equatable {
        public var name: String
        public var regex: String
        public var recorded: String
    }

    /// The sentence, split: its parts in order and a regex for each value.
    public struct Sentence: Sendable, Equatable {
        /// The sentence as the recorded page showed it (white space normalised).
        public var text: String
        public var parts: [Part]
        public var values: [Value]
        /// The sentence with its values named (`Signed in as {uid} ({name})`): what the report and
        /// the recipe's comments show, with no value of the person's in it.
        public var template: String {
            parts.map {
                switch $0 {
                case .literal(let text): return text
                case .value(let name, _): return "{\(name)}"
                }
            }.joined()
        }
    }

    /// The element's XPath: by its id or class, else by the sentence's literal words; never by
    /// position, never by the user id.
    public var xpath: String
    public var sentence: Sentence
    /// The page the sentence was first shown on.
    public var exchange: HTTPArchive.Exchange
    public var document: Document

    /// The display names the recorded sentence showed: the person's name, for the fixtures'
    /// scrubbing (they are personal data as much as the user name is).
    public var names: [String] { sentence.values.filter { $0.name != Self.userField }.map(\.recorded) }

    static let userField = "uid"
    /// A sentence naming the person is short: a status line, not a paragraph.
    static let maximumLength = 120

    // MARK: Finding it

    /// The first page after the login (`pages`, in order) that names the person signed in as
    /// `username`, and the element that does.
    public static func find(in pages: [HTTPArchive.Exchange], username: String) -> RecordedIdentity? {
        guard username.count >= 2 else { return nil }
        for exchange in pages where exchange.method == "GET" && exchange.status == 200 {
            guard let document = RecordedLogin.document(exchange), let found = element(in: document, username: username) else {
                continue
            }
            return RecordedIdentity(xpath: found.xpath, sentence: found.sentence, exchange: exchange, document: document)
        }
        return nil
    }

    /// The pages after the login that may name the person: the logged-in pages, not the login
    /// service's own (an IdP's attribute-release page lists the user id in a table of its own).
    public static func pages(after login: RecordedLogin) -> [HTTPArchive.Exchange] {
        let idp = login.identityProvider
        return login.pageLoads.dropFirst(login.donePage).filter { exchange in
            guard exchange.isHTML else { return false }
            let origin = exchange.url.origin
            if origin == idp.origin {
                if origin != login.portal.origin { return false }
                if idp.path.count > 1, exchange.url.path.hasPrefix(idp.path) { return false }
            }
            return true
        }
    }

    /// The element of `document` whose text is a sentence naming `username`, with its XPath.
    static func element(in document: Document, username: String) -> (xpath: String, sentence: Sentence)? {
        let excluded = ["script", "style", "noscript", "template", "select", "option", "textarea", "button", "title"]
        let filter = excluded.map { "ancestor-or-self::\($0)" }.joined(separator: " or ")
        guard let nodes = try? document.select("//body//*[not(\(filter))]") else { return nil }
        let holds = { (node: Node) in userRange(in: node.normalizedText, username: username) != nil }
        // The innermost elements that hold the user id, in page order.
        for node in nodes where holds(node) && !node.elementChildren.contains(where: holds) {
            // A data table's cell (its table has headers) is a record, not a sentence.
            if let cell = try? node.select("ancestor-or-self::*[self::td or self::th][1]"), !cell.isEmpty,
                let table = try? cell[0].select("ancestor::table[1][.//th or .//thead]"), !table.isEmpty
            {
                continue
            }
            // The element itself, then its ancestors, nearest first, while the text stays short.
            let ancestors = ((try? node.select("ancestor::*")) ?? []).reversed().filter { !["body", "html"].contains($0.name) }
            var chain: [(node: Node, sentence: Sentence)] = []
            for candidate in [node] + ancestors {
                let text = candidate.normalizedText
                guard text.count <= maximumLength else { break }
                if let sentence = split(text, username: username) { chain.append((candidate, sentence)) }
            }
            for (candidate, sentence) in chain {
                if let xpath = namedXPath(candidate, document: document, username: username) { return (xpath, sentence) }
            }
            for (candidate, sentence) in chain {
                if let xpath = literalXPath(candidate, sentence: sentence, document: document) { return (xpath, sentence) }
            }
        }
        return nil
    }

    /// `//p[@id='who']` or `//span[contains(concat(' ', normalize-space(@class), ' '), ' user ')]`,
    /// when it finds this element first and names no user.
    static func namedXPath(_ node: Node, document: Document, username: String) -> String? {
        var candidates: [String] = []
        if let id = node.attribute("id")?.trimmingWhitespace(), !id.isEmpty,
            id.range(of: username, options: .caseInsensitive) == nil
        {
            candidates.append("//\(node.name)[@id=\(Template.xpathLiteral(id))]")
        }
        for token in (node.attribute("class") ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        where token.range(of: username, options: .caseInsensitive) == nil {
            candidates.append(
                "//\(node.name)[contains(concat(' ', normalize-space(@class), ' '), \(Template.xpathLiteral(" \(token) ")))]")
        }
        return candidates.first { (try? document.select($0).first) == node }
    }

    /// `//h1[contains(normalize-space(.), 'ようこそ')]`: the element by the sentence's longest
    /// literal words, when it has neither id nor class to go by.
    static func literalXPath(_ node: Node, sentence: Sentence, document: Document) -> String? {
        let words = sentence.parts.compactMap { part -> String? in
            guard case .literal(let text) = part else { return nil }
            let trimmed = text.trimmingWhitespace()
            return trimmed.contains(where: \.isLetter) && !trimmed.contains(where: \.isNumber) ? trimmed : nil
        }
        guard let longest = words.max(by: { $0.count < $1.count }) else { return nil }
        let xpath = "//\(node.name)[contains(normalize-space(.), \(Template.xpathLiteral(longest)))]"
        return (try? document.select(xpath).first) == node ? xpath : nil
    }

    // MARK: Splitting the sentence

    /// Characters around a user id that make it part of another word (`jiro@example.ac.jp`).
    static let userBoundary = "A-Za-z0-9_@\\-"

    /// Where `username` stands in `text` as a word of its own: as typed first, else in capitals
    /// or in small letters as a whole (`JDOE` for `jdoe`), never as a capitalised word: "Alice"
    /// in "Welcome, Alice Example" is the person's given name, not the user id `alice`.
    static func userRange(in text: String, username: String) -> Range<String.Index>? {
        let escaped = NSRegularExpression.escapedPattern(for: username)
        let pattern = "(?<![\(userBoundary).])" + escaped + "(?![\(userBoundary)]|\\.[A-Za-z0-9])"
        for options: NSRegularExpression.Options in [[], [.caseInsensitive]] {
            guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else { return nil }
            let matches = regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
                .compactMap { Range($0.range, in: text) }
                .filter { options.isEmpty || text[$0] == text[$0].uppercased() || text[$0] == text[$0].lowercased() }
            // A user id that is a bracketed part of its own is the one ("Max Mustermann (max)").
            if let whole = matches.first(where: { range in enclosures(in: text).contains { $0.inner == range } }) { return whole }
            if let first = matches.first { return first }
        }
        return nil
    }

    /// The brackets and quotes a sentence sets a value in.
    static let enclosurePairs: [(Character, Character)] = [
        ("(", ")"), ("（", "）"), ("[", "]"), ("\"", "\""), ("“", "”"), ("„", "“"), ("«", "»"), ("「", "」"), ("『", "』"),
    ]

    /// Each bracketed or quoted part of `text`: the whole, and inside it the value (trimmed).
    static func enclosures(in text: String) -> [(whole: Range<String.Index>, inner: Range<String.Index>)] {
        var found: [(whole: Range<String.Index>, inner: Range<String.Index>)] = []
        for (open, close) in enclosurePairs {
            var index = text.startIndex
            while let start = text[index...].firstIndex(of: open) {
                let after = text.index(after: start)
                guard let end = text[after...].firstIndex(of: close) else { break }
                let inside = text[after..<end]
                let lower = inside.firstIndex { !$0.isWhitespace } ?? end
                let upper = inside.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? lower
                let whole = start..<text.index(after: end)
                if lower < upper, !found.contains(where: { $0.whole.overlaps(whole) }) { found.append((whole, lower..<upper)) }
                index = text.index(after: end)
            }
        }
        return found.sorted { $0.whole.lowerBound < $1.whole.lowerBound }
    }

    /// Words that follow a name as a courtesy (山田さん, 김민수 님): the page's text, not the name.
    static let honorifics: Set<String> = ["さん", "様", "さま", "殿", "くん", "君", "先生", "님", "씨", "先生様"]
    /// Lower-case words inside a name ("Ludwig van Beethoven", "María de la Cruz").
    static let nameParticles: Set<String> = [
        "van", "von", "der", "den", "de", "da", "di", "du", "del", "della", "la", "le", "ter", "zu", "y", "bin", "ibn", "al",
    ]

    /// `text` split into literal words and the person's values, with a regex for each value that
    /// reads it back from the text; nil when the text holds no user id, or only values (a cell
    /// showing just `alice` says nothing to anchor a regex to).
    public static func split(_ text: String, username: String) -> Sentence? {
        guard let user = userRange(in: text, username: username) else { return nil }
        let boxes = enclosures(in: text)
        let userBoxed = boxes.contains { $0.inner == user }
        var values: [(range: Range<String.Index>, name: String, pattern: String)] = [
            (user, userField, userBoxed ? ".+?" : "\\S+?")
        ]
        func free(_ range: Range<String.Index>) -> Bool { !values.contains { $0.range.overlaps(range) } }
        // Bracketed and quoted parts: the display name (a second one: name_2).
        for box in boxes where free(box.whole) && !(user.overlaps(box.whole)) {
            values.append((box.inner, values.count == 1 ? "name" : "name_\(values.count)", ".+?"))
        }
        // What follows a colon (not a time's, not an address's), up to the next value.
        if let colon = text.indices.first(where: { index in
            guard text[index] == ":" || text[index] == "：" else { return false }
            let next = text.index(after: index)
            let before = index > text.startIndex ? text[text.index(before: index)] : " "
            return !before.isNumber && (next == text.endIndex || !(text[next].isNumber || text[next] == "/"))
        }) {
            let after = text.index(after: colon)
            let stop =
                values.map(\.range.lowerBound).filter { $0 > colon }.min().map { limit in
                    boxes.first { $0.inner.lowerBound == limit }?.whole.lowerBound ?? limit
                } ?? text.endIndex
            if after < stop, let range = trimmed(after..<stop, in: text), free(range), text[range].contains(where: \.isLetter) {
                values.append((range, values.count == 1 ? "name" : "name_\(values.count)", ".+?"))
            }
        }
        // A name just before a bracketed user id: "Angemeldet als Max Mustermann (mm123)".
        if userBoxed, values.count == 1, let box = boxes.first(where: { $0.inner == user }),
            let range = nameBefore(box.whole.lowerBound, in: text), free(range)
        {
            values.append((range, "name", ".+?"))
        }
        values.sort { $0.range.lowerBound < $1.range.lowerBound }
        var parts: [Part] = []
        var index = text.startIndex
        for value in values {
            if index < value.range.lowerBound { parts.append(.literal(String(text[index..<value.range.lowerBound]))) }
            parts.append(.value(name: value.name, pattern: value.pattern))
            index = value.range.upperBound
        }
        if index < text.endIndex { parts.append(.literal(String(text[index...]))) }
        // Something the page writes for everyone must anchor the values.
        guard parts.contains(where: { if case .literal(let words) = $0 { words.contains(where: \.isLetter) } else { false } })
        else { return nil }
        var read: [Value] = []
        for value in values {
            let regex = pattern(parts, capturing: value.name)
            // Each regex must give back the recorded value: else the split was wrong.
            guard RecipeDraft.matches(regex, in: text).first == String(text[value.range]) else { return nil }
            read.append(Value(name: value.name, regex: regex, recorded: String(text[value.range])))
        }
        // The fields in the sentence's order, the user id first.
        read.sort { ($0.name == userField ? 0 : 1) < ($1.name == userField ? 0 : 1) }
        return Sentence(text: text, parts: parts, values: read)
    }

    /// `range` without white space at its ends; nil when nothing is left.
    static func trimmed(_ range: Range<String.Index>, in text: String) -> Range<String.Index>? {
        let part = text[range]
        guard let lower = part.firstIndex(where: { !$0.isWhitespace }), let last = part.lastIndex(where: { !$0.isWhitespace })
        else { return nil }
        return lower..<text.index(after: last)
    }

    /// The name written just before `end` (a bracket): the capitalised words and the particles
    /// between them, or up to two words of a script without case (山田 太郎), after a courtesy
    /// word (さん) that stays the page's text. It stops at a lower-case word ("als") and at a
    /// word ending in punctuation ("Welcome,").
    static func nameBefore(_ end: String.Index, in text: String) -> Range<String.Index>? {
        var words: [Range<String.Index>] = []
        var index = text.startIndex
        while index < end {
            guard let start = text[index..<end].firstIndex(where: { !$0.isWhitespace }) else { break }
            let stop = text[start..<end].firstIndex(where: \.isWhitespace) ?? end
            words.append(start..<stop)
            index = stop
        }
        while let last = words.last, honorifics.contains(String(text[last])) { words.removeLast() }
        var name: [Range<String.Index>] = []
        var uncased = 0
        for word in words.reversed() {
            let text = String(text[word])
            guard let first = text.first, !",:;!?、，：。".contains(text.last ?? " ") else { break }
            if first.isUppercase {
                name.insert(word, at: 0)
            } else if first.isLetter && !first.isLowercase {
                guard uncased < 2 else { break }
                uncased += 1
                name.insert(word, at: 0)
            } else if nameParticles.contains(text), !name.isEmpty {
                name.insert(word, at: 0)
            } else {
                break
            }
        }
        while let first = name.first, nameParticles.contains(String(text[first])) { name.removeFirst() }
        guard let first = name.first, let last = name.last else { return nil }
        return first.lowerBound..<last.upperBound
    }

    /// The sentence's regex with `name`'s value as its first group and the others skipped: the
    /// literal words escaped, any white space as `\s+`, any number as `[0-9]+` (a count or a date
    /// beside the name changes), anchored at both ends.
    static func pattern(_ parts: [Part], capturing name: String) -> String {
        var regex = "^"
        for part in parts {
            switch part {
            case .literal(let text):
                var chunk = ""
                var pendingSpace = false
                for character in text {
                    if character.isWhitespace {
                        pendingSpace = true
                        continue
                    }
                    if pendingSpace { chunk += "\\s+" }
                    pendingSpace = false
                    if character.isASCII && character.isNumber {
                        if !chunk.hasSuffix("[0-9]+") { chunk += "[0-9]+" }
                    } else {
                        chunk += NSRegularExpression.escapedPattern(for: String(character))
                    }
                }
                if pendingSpace { chunk += "\\s+" }
                regex += chunk
            case .value(let valueName, let pattern):
                regex += valueName == name ? "(\(pattern))" : "(?:\(pattern))"
            }
        }
        return regex + "$"
    }

    /// Whether the sentence's literal words hold a word of the person's `names` (a surname in
    /// "Grades of DOE-SMITH, Johanna (jdoe)"): such words are the person's, not the page's for
    /// everyone, so the sentence is no template (and its regex would carry the name). A text that
    /// holds the user id is this very sentence, not a name.
    public func literalsHold(anyOf names: [String], username: String) -> Bool {
        let literal = sentence.parts.compactMap { part -> String? in
            if case .literal(let text) = part { return text } else { return nil }
        }.joined(separator: " ")
        for name in names where Self.userRange(in: name, username: username) == nil {
            for word in name.split(whereSeparator: { $0.isWhitespace || ",()（）".contains($0) })
            where word.count >= 3 || word.count >= 2 && !word.allSatisfy(\.isASCII) {
                if RecipeDraft.wordPattern(String(word), caseInsensitive: true)?.firstMatch(
                    in: literal, range: NSRange(literal.startIndex..., in: literal)) != nil
                {
                    return true
                }
            }
        }
        return false
    }

    // MARK: The command

    /// The command's recipe, named `command`: one record, a field for each value.
    func draft(command: String) -> DraftDataRecipe {
        let stripped = SessionInAddress.stripped(exchange.url)
        let template = RecipeDraft.oneLine(sentence.template)
        let fields = sentence.values.map { value in
            DraftDataRecipe.Field(
                name: value.name, xpath: ".", regex: value.regex, key: value.name == Self.userField,
                guesses: [
                    value.name == Self.userField
                        ? "the user id signed in, as the sentence '\(template)' shows it"
                        : "the person's name, as the sentence '\(template)' shows it"
                ])
        }
        return DraftDataRecipe(
            command: command, summary: "Who is signed in, as the portal says", fetch: stripped.pathAndQuery, rows: xpath,
            fields: fields, reading: "the sentence \(xpath) naming the person signed in ('\(template)')", sourceURL: stripped.url,
            contentType: exchange.contentType, body: exchange.body ?? [], document: document)
    }
}
