import Foundation
import LibXML

/// A form the person submitted after the login (renewed a loan, sent a purchase request), as an
/// `actions:` entry that asks before it sends (`ask: true`).
///
/// A pure reading of the recording, told by what the person did, never by a button's words (a
/// German or Japanese portal's form reads the same): the form they posted on a page of the
/// portal, the button they pressed, the fields they typed into (parameters), the value that
/// named the row they acted on (the argument), the portal's own "is this right?" page when the
/// answer was another form they sent on (`confirm_page:`), and what the result page shows that
/// the form's page did not (`success_when:` and its fields). Forms of the login and the notices
/// answered after it (`RecordedLogin`'s rules), forms that post themselves, and exports are none.
public struct RecordedAction: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var help: String?
        public var required: Bool
    }

    public struct Field: Sendable, Equatable {
        public var name: String
        public var xpath: String
    }

    public var name: String
    public var summary: String
    /// The page that carried the form, as recorded (session ids out of it).
    public var pageURL: URL
    /// The page the person came to the form's page from (the list a row was chosen on), if any.
    public var cameFrom: URL?
    public var fetch: String
    /// The positional argument (a loan's barcode), when a value of the form named the row.
    public var argument: String?
    public var form: String
    /// Fields to set: `{{parameter}}` for what the person typed, the value they chose otherwise.
    public var fill: [DraftRule.Value]
    public var submit: String?
    public var parameters: [Parameter]
    public var confirmForm: String?
    public var confirmSubmit: String?
    public var successWhen: String
    public var refusedWhen: String?
    public var fields: [Field]
    /// What the form was taken for, in words, for the report.
    public var reading: String
    /// What was guessed rather than read, one line each.
    public var guesses: [String]

    /// What became no action, and why, one line each (for the report's skipped list).
    public struct Reading: Sendable {
        public var actions: [RecordedAction] = []
        public var skipped: [String] = []
    }

    /// The actions of a recording: each form posted after the login, the attempt that led on.
    ///
    /// - Parameters:
    ///   - origins: the portal's origin and its services'; a form elsewhere is no action.
    ///   - secrets: the recording's secrets (a session key, a token): never a row's identity.
    ///   - isExportPost: the hook for `RecordedExport`: a POST whose answer shows an address (a
    ///     calendar's export URL) is an export, not an action, and is left to it.
    public static func read(
        _ login: RecordedLogin, origins: Set<String>, secrets: Set<String> = [],
        isExportPost: (HTTPArchive.Exchange) -> Bool = { _ in false }
    ) -> Reading {
        let loads = login.pageLoads
        let documents = loads.map(RecordedLogin.document)
        let protocolNames = Set(TraceScrubber.protocolFieldNames.map { $0.lowercased() })
        let typed = Set(login.typedSecrets)
        var reading = Reading()
        var consumed: Set<Int> = []
        var objections: [String: Document] = [:]
        guard login.donePage + 1 < loads.count else { return reading }
        for index in (login.donePage + 1)..<loads.count where !consumed.contains(index) {
            let post = loads[index]
            guard post.method == "POST", let posted = post.formFields, !posted.isEmpty, origins.contains(post.url.origin) else {
                continue
            }
            // A sign-on's messages (a service's SAML post) and anything carrying a password or a code are the login's.
            if posted.contains(where: { protocolNames.contains($0.0.lowercased()) || typed.contains($0.1) }) { continue }
            let before = index - 1
            guard loads[before].status == 200, let page = documents[before],
                let node = RecordedLogin.matchingForm(in: page, pageURL: loads[before].url, request: post, posted: posted)
            else { continue }
            let shown = RecipeDraft.shown(SessionInAddress.stripped(post.url).url)
            if isExportPost(post) { continue }
            let formXPath = Self.formXPath(node, pageURL: loads[before].url)
            // The page that carried the form: the last page opened (GET) that shows it; a form the
            // portal sent back with its objections was first opened there.
            guard
                let pageIndex = (0...before).reversed().first(where: { candidate in
                    candidate > login.donePage - 1 && loads[candidate].method == "GET" && loads[candidate].status == 200
                        && (try? documents[candidate]?.select(formXPath).isEmpty) == false
                }), let formPage = documents[pageIndex]
            else {
                reading.skipped.append(
                    localized("the form sent to \(shown): its page was not opened in the recording, so no action for it"))
                continue
            }
            // A form of each row (a holds list's cancel form per hold): the XPath matches them all
            // and the engine sends the first, so the row must be named by the hidden value that
            // tells them apart; without one, no action (it could act on another row).
            var row: (name: String, value: String)?
            let alike = (try? formPage.select(formXPath)) ?? []
            // A form of each row whose address names it (`/loans/31000103/renew`): the number
            // in the path is the argument, and the form is told by its address around it.
            let byPath = alike.count == 1 ? Self.pathRow(of: node, on: formPage, secrets: secrets) : nil
            if alike.count > 1 {
                guard let field = Self.rowField(among: alike, posted: posted, secrets: secrets) else {
                    let forms = alike.count
                    reading.skipped.append(
                        localized(
                            "the form sent to \(shown): its page has \(forms) forms like it (one a row) and no hidden value of theirs tells the row the person acted on, so an action could act on another row: no action for it"
                        )
                    )
                    continue
                }
                row = field
            }
            let controls = RecordedLogin.controls(of: node)
            let pressed = Self.pressed(in: controls, posted: posted)
            let visible = controls.contains { !["hidden", "submit", "image", "button", "reset"].contains($0.type) }
            if pressed == nil, !visible { continue }  // a form that posted itself
            // The answer, after its redirects.
            var answerIndex = index
            while (300..<400).contains(loads[answerIndex].status), answerIndex + 1 < loads.count { answerIndex += 1 }
            guard loads[answerIndex].status == 200, let answer = documents[answerIndex] else {
                reading.skipped.append(
                    localized("the form sent to \(shown): the recording holds no page it answered with, so no action for it"))
                continue
            }
            let key = SessionInAddress.stripped(loads[pageIndex].url).url.path + "#" + formXPath
            var result = answer
            var confirm: (form: String, submit: String?)?
            let next = answerIndex + 1
            if next < loads.count, loads[next].method == "POST", let nextPosted = loads[next].formFields,
                let confirmNode = RecordedLogin.matchingForm(
                    in: answer, pageURL: loads[answerIndex].url, request: loads[next], posted: nextPosted)
            {
                let confirmXPath = Self.formXPath(confirmNode, pageURL: loads[answerIndex].url)
                if confirmXPath == formXPath {
                    // The form came back (its objections, or "back" from its confirmation) and
                    // was sent again: that later attempt is the one learned.
                    objections[key] = answer
                    continue
                }
                // The portal's own "is this right?" page, and the button the person sent it with.
                consumed.insert(next)
                confirm = (
                    confirmXPath, Self.pressed(in: RecordedLogin.controls(of: confirmNode), posted: nextPosted).map(Self.buttonXPath)
                )
                var end = next
                while (300..<400).contains(loads[end].status), end + 1 < loads.count { end += 1 }
                guard loads[end].status == 200, let done = documents[end] else {
                    reading.skipped.append(
                        localized("the form sent to \(shown): the recording holds no page after its confirmation, so no action for it"))
                    continue
                }
                result = done
            }
            if (try? result.select(formXPath).isEmpty) == false {
                // Back on the form ("back" on the confirmation page): a later attempt is the one learned.
                if loads[(index + 1)...].contains(where: { $0.method == "POST" && $0.url.path == post.url.path }) { continue }
                reading.skipped.append(
                    localized(
                        "the form sent to \(shown): the portal showed it again and the recording ends there, so what a success looks like is unknown: no action for it"
                    )
                )
                objections[key] = nil
                continue
            }
            let notOn = [formPage] + (confirm == nil ? [] : [answer])
            guard let success = Self.marker(in: result, absentFrom: notOn) else {
                reading.skipped.append(
                    localized(
                        "the form sent to \(shown): its result page shows nothing its form's page did not, so unitool could not tell a success: no action for it"
                    )
                )
                continue
            }
            var action = Self.action(
                node: node, controls: controls, pressed: pressed, posted: posted, page: formPage,
                pageURL: SessionInAddress.stripped(loads[pageIndex].url).url, success: success, result: result, secrets: secrets,
                row: row, pathRow: byPath)
            if let confirm {
                action.confirmForm = confirm.form
                action.confirmSubmit = confirm.submit
                action.reading += "; the portal's confirmation page (\(confirm.form)) was sent on"
            }
            if let objection = objections[key], let refused = Self.marker(in: objection, absentFrom: [formPage]) {
                action.refusedWhen = refused
                action.guesses.append("refused_when: what the page the portal sent the form back with showed, \(refused)")
            } else {
                action.guesses.append(
                    "no refusal was recorded: a result page the portal refuses with matches no refused_when and is reported as a changed page"
                )
            }
            if pageIndex > 0, loads[pageIndex - 1].method == "GET", loads[pageIndex - 1].status == 200 {
                action.cameFrom = SessionInAddress.stripped(loads[pageIndex - 1].url).url
            }
            if let earlier = reading.actions.firstIndex(where: { $0.fetch == action.fetch && $0.form == action.form }) {
                reading.actions.remove(at: earlier)
            }
            reading.actions.append(action)
        }
        return reading
    }

    // MARK: The form

    /// A form's named controls, as ``RecordedLogin`` reads them for a login's forms.
    typealias Control = RecordedLogin.Control

    /// The button the person pressed: the submit control whose name (and value, when several
    /// share the name) the post carries, as the login's rules read it.
    static func pressed(in controls: [Control], posted: [(String, String)]) -> Control? {
        for (name, value) in posted {
            let buttons = controls.filter { $0.name == name && ["submit", "image"].contains($0.type) }
            guard !buttons.isEmpty, controls.filter({ $0.name == name }).count == buttons.count else { continue }
            return buttons.first { $0.value == value } ?? buttons.first
        }
        return nil
    }

    static func buttonXPath(_ button: Control) -> String {
        ".//\(button.tag)[@name=\(Template.xpathLiteral(button.name))]"
    }

    /// The form by what stays: its id, else its address (without a query, which may carry a
    /// session's token), else the names of its visible fields; never its place on the page.
    static func formXPath(_ node: Node, pageURL: URL) -> String {
        if let id = node.attribute("id"), !id.isEmpty { return "//form[@id=\(Template.xpathLiteral(id))]" }
        if let action = node.attribute("action"), !action.isEmpty {
            let path = String(action.split(whereSeparator: { $0 == "?" || $0 == ";" || $0 == "#" }).first ?? "")
            if !path.isEmpty {
                return path == action
                    ? "//form[@action=\(Template.xpathLiteral(action))]" : "//form[starts-with(@action, \(Template.xpathLiteral(path)))]"
            }
        }
        let names = RecordedLogin.controls(of: node).filter { !["hidden", "submit", "image", "button", "reset"].contains($0.type) }.map(
            \.name)
        let unique = names.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if unique.isEmpty { return "//form[@method=\(Template.xpathLiteral(node.attribute("method") ?? "post"))]" }
        return "//form" + unique.prefix(3).map { "[.//*[@name=\(Template.xpathLiteral($0))]]" }.joined()
    }

    static let textTypes: Set<String> = ["text", "email", "tel", "number", "search", "url", "date"]

    /// The row a form's address names among the page's forms of the same address but that one
    /// segment, a number (`/loans/31000103/renew` beside `/loans/31000104/renew`): the name of
    /// the segment before it, as written, and the form's XPath with the argument there.
    static func pathRow(of node: Node, on page: Document, secrets: Set<String>) -> (name: String, form: (String) -> String)? {
        guard let action = node.attribute("action"), !action.contains("?"), !action.contains("#") else { return nil }
        let segments = action.components(separatedBy: "/")
        let others = ((try? page.select("//form[@action]")) ?? []).compactMap { $0.attribute("action")?.components(separatedBy: "/") }
        for (index, segment) in segments.enumerated()
        where index > 0 && !segment.isEmpty && segment.allSatisfy(\.isASCIIDigit) && !secrets.contains(segment) {
            let rows = others.filter { other in
                other.count == segments.count && other[index].allSatisfy(\.isASCIIDigit) && !other[index].isEmpty
                    && other.indices.allSatisfy { $0 == index || other[$0] == segments[$0] }
            }
            guard Set(rows.map { $0[index] }).count > 1 else { continue }
            let before = segments[..<index].joined(separator: "/") + "/"
            let after = index + 1 < segments.count ? "/" + segments[(index + 1)...].joined(separator: "/") : ""
            let name = segments[index - 1].isEmpty ? "id" : segments[index - 1]
            return (
                name,
                { argument in
                    "//form[@action=concat(\(Template.xpathLiteral(before)), {{\(argument)}}, \(Template.xpathLiteral(after)))]"
                }
            )
        }
        return nil
    }

    /// The hidden field that names the row among forms alike (`reserve_id` in each hold's
    /// form): one whose value the person sent, that every such form carries, each with a value
    /// of its own. Never a secret or a token (a session key is the same in every form anyway).
    static func rowField(among forms: [Node], posted: [(String, String)], secrets: Set<String>) -> (name: String, value: String)? {
        for (name, value) in posted where !value.isEmpty && !secrets.contains(value) && !TraceScrubber.looksLikeToken(value) {
            let values = forms.map { form in
                ((try? form.select(".//input[@type='hidden'][@name=\(Template.xpathLiteral(name))]")) ?? []).map {
                    $0.attribute("value") ?? ""
                }
            }
            guard values.allSatisfy({ $0.count == 1 }) else { continue }
            let each = values.map { $0[0] }
            if Set(each).count == forms.count, each.contains(value) { return (name, value) }
        }
        return nil
    }

    /// The action for the form `node` on `page`, once its result is known.
    static func action(
        node: Node, controls: [Control], pressed: Control?, posted: [(String, String)], page: Document, pageURL: URL,
        success: String, result: Document, secrets: Set<String> = [], row: (name: String, value: String)? = nil,
        pathRow: (name: String, form: (String) -> String)? = nil
    ) -> RecordedAction {
        var guesses: [String] = []
        var form = formXPath(node, pageURL: pageURL)
        var fetch = SessionInAddress.stripped(pageURL).pathAndQuery
        var argument: String?
        var fill: [DraftRule.Value] = []
        var parameters: [Parameter] = []
        var taken = ActionSpec.reservedParameterNames
        let query = URLComponents(url: pageURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        // A row is named by an identifier (a barcode, an item number), never by this session's
        // key or a token, which the address and the form may both carry (Moodle's sesskey).
        func namesARow(_ value: String) -> Bool { !secrets.contains(value) && !TraceScrubber.looksLikeToken(value) }
        if let row {
            // The row among forms alike, by its hidden value (the address named it too, or not).
            let argumentName = Self.valueName(row.name, taken: taken)
            argument = argumentName
            taken.insert(argumentName)
            if query.contains(where: { $0.value == row.value }), let item = query.first(where: { $0.value == row.value }) {
                fetch = Self.address(pageURL, replacing: item.name, with: "{{\(argumentName)}}")
            }
            form += "[.//input[@name=\(Template.xpathLiteral(row.name))][@value={{\(argumentName)}}]]"
        } else if let pathRow {
            let argumentName = Self.valueName(pathRow.name, taken: taken)
            argument = argumentName
            taken.insert(argumentName)
            form = pathRow.form(argumentName)
        }
        for (name, value) in posted where !value.isEmpty {
            let matching = controls.filter { $0.name == name }
            guard let control = matching.first, !["submit", "image"].contains(control.type) else { continue }
            switch control.type {
            case "hidden" where argument == nil:
                // The row the person acted on: a value the form carries that the page's own
                // address named (`/renew?barcode=31000103`, the form's hidden barcode).
                guard namesARow(value), let item = query.first(where: { $0.value == value }) else { continue }
                let argumentName = Self.valueName(item.name, taken: taken)
                argument = argumentName
                taken.insert(argumentName)
                fetch = Self.address(pageURL, replacing: item.name, with: "{{\(argumentName)}}")
                form += "[.//input[@name=\(Template.xpathLiteral(name))][@value={{\(argumentName)}}]]"
            case "checkbox"
            where matching.count > 1 && argument == nil && namesARow(value)
                && !matching.contains(where: { $0.value == value && $0.checked }):
                // One row ticked among the form's rows: its value names the row.
                let argumentName = Self.valueName(name, taken: taken)
                argument = argumentName
                taken.insert(argumentName)
                fill.append(.init(name: name, value: "{{\(argumentName)}}"))
            case "checkbox", "radio":
                if !matching.contains(where: { $0.value == value && $0.checked }) { fill.append(.init(name: name, value: value)) }
            case _ where control.tag == "select":
                if value != control.value { fill.append(.init(name: name, value: value)) }
            case _ where textTypes.contains(control.type) || control.tag == "textarea":
                guard value != control.value else { continue }
                let parameterName = Self.valueName(name, taken: taken)
                taken.insert(parameterName)
                parameters.append(
                    Parameter(
                        name: parameterName, help: Self.label(of: control.node, in: page),
                        required: control.node.hasAttribute("required") || control.node.attribute("aria-required") == "true"))
                fill.append(.init(name: name, value: "{{\(parameterName)}}"))
            default:
                continue
            }
        }
        let typedCount = parameters.count
        // Every text field the person could type into is a parameter, also one they left empty.
        for control in controls where (textTypes.contains(control.type) || control.tag == "textarea") && control.value.isEmpty {
            guard !fill.contains(where: { $0.name == control.name }) else { continue }
            let parameterName = Self.valueName(control.name, taken: taken)
            taken.insert(parameterName)
            parameters.append(
                Parameter(
                    name: parameterName, help: Self.label(of: control.node, in: page),
                    required: control.node.hasAttribute("required") || control.node.attribute("aria-required") == "true"))
            fill.append(.init(name: control.name, value: "{{\(parameterName)}}"))
        }
        // The form's own order, as the person saw the fields.
        func place(_ name: String) -> Int { controls.firstIndex { $0.name == name } ?? controls.count }
        fill.sort { place($0.name) < place($1.name) }
        parameters.sort { first, second in
            place(fill.first { $0.value == "{{\(first.name)}}" }?.name ?? "")
                < place(fill.first { $0.value == "{{\(second.name)}}" }?.name ?? "")
        }
        let buttons = controls.filter { ["submit", "image"].contains($0.type) }
        if pressed == nil, buttons.count > 1 {
            guesses.append("the button pressed was not recorded (it has no name): the form's first button is pressed")
        }
        // What to report: the result's message, and each marked part of it.
        var fields = [Field(name: "message", xpath: success)]
        if let node = try? result.select(success).first {
            for part in (try? node.select(".//*[@class or @id]")) ?? [] where !part.normalizedText.isEmpty {
                let mark = part.attribute("id").flatMap { $0.isEmpty ? nil : $0 } ?? part.attribute("class") ?? ""
                let attribute = part.attribute("id").map { $0.isEmpty ? "class" : "id" } ?? "class"
                let name = Self.valueName(mark, taken: Set(fields.map(\.name)).union([argument ?? ""]))
                fields.append(Field(name: name, xpath: success + "//\(part.name)[@\(attribute)=\(Template.xpathLiteral(mark))]"))
            }
        }
        guesses.append(
            "success_when: what the result page showed that the form's page did not, \(success); fields: its text and marked parts")
        let formName =
            node.attribute("id").flatMap { $0.isEmpty ? nil : $0 }
            ?? node.attribute("action").flatMap { URL(string: $0, relativeTo: pageURL)?.lastPathComponent } ?? "submit"
        return RecordedAction(
            name: Self.commandName(formName), summary: RecordedPage.summary(page, fallback: formName), pageURL: pageURL, fetch: fetch,
            argument: argument, form: form, fill: fill, submit: pressed.map(buttonXPath), parameters: parameters, successWhen: success,
            refusedWhen: nil, fields: fields,
            reading: "the form \(form) on \(RecipeDraft.shown(pageURL))"
                + (argument.map { ", for the row its \($0) names" } ?? "")
                + (parameters.isEmpty
                    ? "" : ", \(Plural.count(typedCount, "field")) typed into (\(Plural.count(parameters.count, "parameter")))")
                + (pressed.map { "; button '\($0.name)'" } ?? ""),
            guesses: guesses)
    }

    /// The words that say what a field is: its `<label>`, else its placeholder or title.
    static func label(of control: Node, in page: Document) -> String? {
        var text: String?
        if let id = control.attribute("id"), !id.isEmpty {
            text = (try? page.select("//label[@for=\(Template.xpathLiteral(id))]").first?.normalizedText)
        }
        if text?.isEmpty ?? true { text = control.ancestor(named: "label")?.normalizedText }
        if text?.isEmpty ?? true {
            text = control.attribute("placeholder") ?? control.attribute("title") ?? control.attribute("aria-label")
        }
        let trimmed = text?.trimmingCharacters(in: CharacterSet(charactersIn: "*:：").union(.whitespaces))
        return trimmed.flatMap { $0.isEmpty ? nil : String($0.prefix(80)) }
    }

    /// An element the result page has and none of `others` has (the portal's "done" message),
    /// by its id or class, outside the page's chrome; else its main heading when that differs.
    static func marker(in result: Document, absentFrom others: [Document]) -> String? {
        let candidates =
            (try? result.select(
                "//body//*[@id or @class][not(ancestor-or-self::header or ancestor-or-self::nav or ancestor-or-self::footer or ancestor-or-self::form or self::script or self::style)]"
            )) ?? []
        for node in candidates where !node.normalizedText.isEmpty {
            var xpaths: [String] = []
            if let id = node.attribute("id"), !id.isEmpty { xpaths.append("//\(node.name)[@id=\(Template.xpathLiteral(id))]") }
            if let cls = node.attribute("class"), !cls.isEmpty { xpaths.append("//\(node.name)[@class=\(Template.xpathLiteral(cls))]") }
            for xpath in xpaths where others.allSatisfy({ (try? $0.select(xpath).isEmpty) == true }) {
                return xpath
            }
        }
        return nil
    }

    /// `name` as a value name (`^[a-z][a-z0-9_]*$`), not one of `taken`.
    static func valueName(_ name: String, taken: Set<String>) -> String {
        var result = ""
        for scalar in name.lowercased().unicodeScalars {
            let isWordCharacter =
                scalar.isASCII && (CharacterSet.lowercaseLetters.contains(scalar) || CharacterSet.decimalDigits.contains(scalar))
            result += isWordCharacter ? String(scalar) : (result.hasSuffix("_") || result.isEmpty ? "" : "_")
        }
        while result.hasSuffix("_") { result.removeLast() }
        if result.isEmpty || !(result.first?.isLetter ?? false) { result = "value" + (result.isEmpty ? "" : "_" + result) }
        var unique = result
        var number = 2
        while taken.contains(unique) {
            unique = "\(result)_\(number)"
            number += 1
        }
        return unique
    }

    /// `name` as an action's name (lowercase letters, digits and dashes).
    static func commandName(_ name: String) -> String {
        let value = valueName(name, taken: [])
        // A name of no ASCII letters (申請) has no word to give: the action is the form's submit.
        return value.hasPrefix("value") && !name.lowercased().hasPrefix("value") ? "submit" : value.replacingOccurrences(of: "_", with: "-")
    }

    /// The page's path and query with the value of `item` written as `template`.
    static func address(_ url: URL, replacing item: String, with template: String) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let items = components?.queryItems ?? []
        let path = components.map(\.percentEncodedPath).flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        components?.queryItems = nil
        let query = items.map { entry -> String in
            let name = entry.name.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? entry.name
            if entry.name == item { return "\(name)=\(template)" }
            return "\(name)=\((entry.value ?? "").addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")"
        }
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    // MARK: YAML

    /// The `actions:` section for `actions`, with what was read and guessed as comments.
    static func yaml(_ actions: [RecordedAction]) -> String {
        var text = "\n# Forms you sent in the recording. Each asks before it sends (ask: true; --yes answers for a script).\nactions:\n"
        for action in actions {
            text += "  # \(RecipeDraft.oneLine(action.reading))\n"
            for guess in action.guesses { text += "  # guess: \(RecipeDraft.oneLine(guess))\n" }
            text += "  \(action.name):\n"
            text += "    summary: \(RecipeScaffold.quoted(action.summary))\n"
            if let argument = action.argument { text += "    argument: \(argument)\n" }
            if !action.parameters.isEmpty {
                text += "    parameters:\n"
                for parameter in action.parameters {
                    var parts: [String] = []
                    if parameter.required { parts.append("required: true") }
                    if let help = parameter.help { parts.append("help: \(RecipeScaffold.quoted(help))") }
                    text += "      \(parameter.name): { \(parts.joined(separator: ", ")) }\n"
                }
            }
            text += "    ask: true\n"
            text += "    fetch: \(RecipeScaffold.quoted(action.fetch))\n"
            text += "    form: \(RecipeScaffold.quoted(action.form))\n"
            if !action.fill.isEmpty {
                text +=
                    "    fill: { \(action.fill.map { "\(RecipeScaffold.quoted($0.name)): \(RecipeScaffold.quoted($0.value))" }.joined(separator: ", ")) }\n"
            }
            if let submit = action.submit { text += "    submit: \(RecipeScaffold.quoted(submit))\n" }
            if let refused = action.refusedWhen { text += "    refused_when: \(RecipeScaffold.quoted(refused))\n" }
            if let confirm = action.confirmForm {
                text += "    confirm_page: { form: \(RecipeScaffold.quoted(confirm))"
                if let submit = action.confirmSubmit { text += ", submit: \(RecipeScaffold.quoted(submit))" }
                text += " }\n"
            }
            text += "    success_when: \(RecipeScaffold.quoted(action.successWhen))\n"
            text += "    fields:\n"
            for field in action.fields { text += "      \(field.name): { xpath: \(RecipeScaffold.quoted(field.xpath)) }\n" }
        }
        return text
    }
}

extension RecipeDraft {
    /// The recording's actions into the files: each into the data recipe of the page its form was
    /// on, else of the page the person came to that page from (the loans a renewal was chosen
    /// on), else a command of its own that lists the form's fields. The report names each and
    /// says that it asks before it sends.
    ///
    /// - Parameters:
    ///   - pages: the data commands written, with the address each reads.
    mutating func addActions(
        _ login: RecordedLogin, archive: HTTPArchive, origins: Set<String>, pages: [(command: String, url: URL)],
        taken: inout Set<String>
    ) {
        // A POST whose answer shows the user's own address is an export's command, not an action.
        func fields(_ exchange: HTTPArchive.Exchange) -> [String] { (exchange.formFields ?? []).map { "\($0.0)=\($0.1)" } }
        let found = RecordedAction.read(login, origins: origins, secrets: Set(secrets)) { post in
            archive.exchanges.indices.contains { index in
                let exchange = archive.exchanges[index]
                return exchange.method == "POST" && exchange.url == post.url && fields(exchange) == fields(post)
                    && RecordedExport.claims(index, in: archive, origins: origins)
            }
        }
        skipped += found.skipped
        func path(_ url: URL) -> String { SessionInAddress.stripped(url).url.absoluteString }
        var byCommand: [(command: String, actions: [RecordedAction])] = []
        var own: [(command: String, actions: [RecordedAction])] = []
        for var action in found.actions {
            // An action whose page or form only this session's secret names is left out, said
            // why, rather than stopping the whole import at the leak check.
            let alone = Self.personalScrubbed(RecordedAction.yaml([action]), personal: personalData, words: false)
            if let leak = leakReport(in: [File(path: "actions.yaml", data: Data(alone.utf8))]).first {
                skipped.append(
                    localized("\(action.reading): it would hold the recording's \(leak.kind), so no action for it (write it by hand)"))
                continue
            }
            let target =
                pages.first { path($0.url) == path(action.pageURL) }
                ?? action.cameFrom.flatMap { from in pages.first { path($0.url) == path(from) } }
            let command: String
            if let target {
                command = target.command
            } else if let existing = own.first(where: { $0.actions.contains { $0.fetch == action.fetch } }) {
                command = existing.command
            } else {
                guard action.pageURL.origin == login.portal.origin else {
                    skipped.append(
                        localized(
                            "\(action.reading): on a service's page that no command reads, so no action for it (record that service's page of records too)"
                        )
                    )
                    continue
                }
                command = Self.commandName(action.pageURL, heading: action.name, taken: taken)
                taken.insert(command)
            }
            let siblings = (byCommand.first { $0.command == command }?.actions ?? []) + (own.first { $0.command == command }?.actions ?? [])
            var name = action.name
            var number = 2
            while siblings.contains(where: { $0.name == name }) {
                name = "\(action.name)-\(number)"
                number += 1
            }
            action.name = name
            let usage =
                "\(command) \(action.name)" + (action.argument.map { " <\($0)>" } ?? "")
                + action.parameters.map { " --\($0.name) …" }.joined()
            recognised.append(
                localized(
                    "\(action.reading): the action '\(usage)', which shows what it will send and asks before it sends (ask: true; --yes for a script)"
                )
            )
            for guess in action.guesses { guessed.append("\(command) \(action.name): \(guess)") }
            if target != nil {
                if let index = byCommand.firstIndex(where: { $0.command == command }) {
                    byCommand[index].actions.append(action)
                } else {
                    byCommand.append((command, [action]))
                }
            } else if let index = own.firstIndex(where: { $0.command == command }) {
                own[index].actions.append(action)
            } else {
                own.append((command, [action]))
            }
        }
        for (command, actions) in byCommand {
            guard let index = files.firstIndex(where: { $0.path == "\(command).yaml" }) else { continue }
            let text = Self.personalScrubbed(RecordedAction.yaml(actions), personal: personalData, words: false)
            files[index].data.append(Data(text.utf8))
        }
        // A form on a page of no records: a command of its own, whose records are the form's
        // fields (what its action takes), beside the action.
        for (command, actions) in own {
            let first = actions[0]
            var text = """
                # Made by 'unitool recipes new --from-har' from the form you sent on \(Self.oneLine(first.pageURL.path)).
                # The command lists the form's fields; its action sends it.
                command: \(command)
                summary: \(RecipeScaffold.quoted(first.summary))
                fetch: \(RecipeScaffold.quoted(SessionInAddress.stripped(first.pageURL).pathAndQuery))
                rows: \(RecipeScaffold.quoted(first.form + "//*[@name][not(@type='hidden' or @type='submit' or self::button)]"))
                fields:
                  field: { xpath: "@name", required: true }

                """
            text += RecordedAction.yaml(actions)
            files.append(File(path: "\(command).yaml", data: Data(Self.personalScrubbed(text, personal: personalData, words: false).utf8)))
            commands.append(command)
            let shown = Self.shown(first.pageURL)
            recognised.append(localized("\(shown) has no records but a form you sent: the command '\(command)' lists its fields"))
            let noTable = Self.noTableLine(shown)
            skipped.removeAll { $0 == noTable }
            // Its fixture: the form's page as recorded, values and every secret taken out, so that
            // 'recipes test' checks the command against it.
            guard
                let load = login.pageLoads.last(where: {
                    $0.method == "GET" && SessionInAddress.stripped($0.url).url == first.pageURL
                }), let document = RecordedLogin.document(load)
            else { continue }
            let scrubber = TraceScrubber(secrets: secrets)
            let page = Self.scrubbed(document.markupWithoutFormValues(), scrubber: scrubber, personal: personalData)
            files.append(File(path: "Fixtures/\(command)/recorded.html", data: Data(page.utf8)))
            let address = Self.scrubbed(scrubber.scrubURL(first.pageURL.absoluteString), scrubber: scrubber, personal: personalData)
            let expectation =
                "{\n  \"url\": \(JSONString.quoted(address)),\n  \"content_type\": \"text/html; charset=utf-8\",\n  \"records\": null\n}\n"
            files.append(File(path: "Fixtures/\(command)/recorded.json", data: Data(expectation.utf8)))
        }
    }
}
