import Foundation
import LibXML
import WebEncoding

/// A `<form>` and the request a browser would send for it.
///
/// The model follows the HTML standard's "constructing the entry list": hidden and text
/// inputs, checked checkboxes and radios, the selected options of a select, textareas, and only
/// the button that was clicked.
public struct HTMLForm: Sendable {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public var kind: String
    }

    public struct Button: Sendable {
        public var name: String?
        public var value: String
        public var formAction: String?
        public var formMethod: String?
        let node: Node
    }

    public var action: URL
    public var method: String
    public var id: String?
    /// Fields that are sent as they are, in document order.
    public var fields: [Field]
    public var buttons: [Button]
    /// Every named control, buttons included, so that a recipe's typo can be caught.
    public var controlNames: [String]
    /// The encoding a browser sends this form in, by the Encoding Standard's name: the first
    /// `accept-charset` label it knows, else the page's own encoding (UTF-8 for a UTF-16 page).
    public var charset: String?

    /// Builds the model from a `<form>` element of a parsed page.
    /// The page the form is on: where its submission comes from (`Origin`, `Referer`).
    public var pageURL: URL?

    public init(_ form: Node, pageURL: URL) throws {
        self.pageURL = pageURL
        let document = form.document
        let base =
            (try? document.select("//base[@href]").first?.attribute("href")).flatMap {
                URL(string: $0, relativeTo: pageURL)
            } ?? pageURL
        let actionText = form.attribute("action")?.trimmingWhitespace() ?? ""
        guard let action = actionText.isEmpty ? pageURL : URL(string: actionText, relativeTo: base)?.absoluteURL else {
            throw UniToolError(.layoutChanged, localized("the form's action '\(actionText)' is not a valid URL"))
        }
        self.action = action
        self.method = (form.attribute("method") ?? "get").uppercased() == "POST" ? "POST" : "GET"
        // The first label of accept-charset that browsers know, else the page's own encoding.
        let acceptCharset = form.attribute("accept-charset")?.split(whereSeparator: { $0 == " " || $0 == "," })
            .lazy.compactMap { WebEncoding(label: String($0)) }.first
        self.charset = (acceptCharset ?? document.encoding).outputEncoding.name
        self.id = form.attribute("id")
        self.base = base
        var fields: [Field] = []
        var buttons: [Button] = []
        var names: [String] = []
        for control in try form.select(".//input | .//select | .//textarea | .//button") {
            guard !control.hasAttribute("disabled") else { continue }
            let name = control.attribute("name")
            if let name, !name.isEmpty { names.append(name) }
            let type = (control.attribute("type") ?? (control.name == "button" ? "submit" : "text")).lowercased()
            let isButton = control.name == "button" || (control.name == "input" && ["submit", "image"].contains(type))
            if isButton {
                // <button type="button"> and type="reset" never submit.
                if type == "submit" || type == "image" {
                    buttons.append(
                        Button(
                            name: name, value: control.attribute("value") ?? "",
                            formAction: control.attribute("formaction"), formMethod: control.attribute("formmethod"),
                            node: control))
                }
                continue
            }
            switch control.name {
            case "select":
                guard let name, !name.isEmpty else { continue }
                let options = try control.select(".//option[not(@disabled)]")
                let selected = options.filter { $0.hasAttribute("selected") }
                let multiple = control.hasAttribute("multiple")
                let chosen = multiple ? selected : (selected.last.map { [$0] } ?? Array(options.prefix(1)))
                for option in chosen {
                    fields.append(Field(name: name, value: option.attribute("value") ?? option.normalizedText, kind: "select"))
                }
            case "textarea":
                guard let name, !name.isEmpty else { continue }
                fields.append(Field(name: name, value: control.text, kind: "textarea"))
            default:
                guard let name, !name.isEmpty else { continue }
                switch type {
                case "checkbox", "radio":
                    if control.hasAttribute("checked") {
                        fields.append(Field(name: name, value: control.attribute("value") ?? "on", kind: type))
                    }
                case "file", "reset", "button":
                    continue
                default:
                    fields.append(Field(name: name, value: control.attribute("value") ?? "", kind: type))
                }
            }
        }
        self.fields = fields
        self.buttons = buttons
        self.controlNames = names
    }

    private let base: URL

    /// The request for this form with some fields set and one button clicked.
    ///
    /// A value for a name the form does not have is added, as a script on the page would.
    /// Without a button, the first submit button is used, as pressing Enter does.
    public func submission(values: [(name: String, value: String)], clicking clicked: Node? = nil) throws
        -> FormSubmission
    {
        var entries = fields.map { (name: $0.name, value: $0.value) }
        for (name, value) in values {
            if let index = entries.firstIndex(where: { $0.name == name }) {
                entries.removeAll { $0.name == name }
                entries.insert((name, value), at: min(index, entries.count))
            } else {
                entries.append((name, value))
            }
        }
        var target = action
        var method = self.method
        let button = clicked.map { node in buttons.first { $0.node == node } } ?? buttons.first
        if let clicked, button == nil {
            throw UniToolError(
                .layoutChanged, localized("the element chosen to submit the form (<\(clicked.name)>) is not a submit button of that form"))
        }
        if let button {
            if let name = button.name, !name.isEmpty { entries.append((name, button.value)) }
            if let formAction = button.formAction, let url = URL(string: formAction, relativeTo: base) {
                target = url.absoluteURL
            }
            if let formMethod = button.formMethod { method = formMethod.uppercased() == "POST" ? "POST" : "GET" }
        }
        var submission = FormSubmission(method: method, url: target, fields: entries)
        submission.charset = charset
        submission.pageURL = pageURL
        return submission
    }
}

/// A request built from a form. Its `description` never shows field values.
public struct FormSubmission: Sendable, CustomStringConvertible {
    public var method: String
    public var url: URL
    public var fields: [(name: String, value: String)]
    /// Fields that carry a password or a one-time code: a trace shows them as `<redacted>`.
    public var secretFieldNames: Set<String> = []
    /// The page the form was on, if known: the request's `Origin` and `Referer`.
    public var pageURL: URL?

    public init(method: String, url: URL, fields: [(name: String, value: String)]) {
        self.method = method
        self.url = url
        self.fields = fields
    }

    /// `application/x-www-form-urlencoded`, as browsers encode it.
    /// The charset the fields are sent in: the form's `accept-charset`, else the page's own.
    public var charset: String?

    public var encodedFields: String {
        let encoding = charset.flatMap { WebEncoding(label: $0) } ?? .utf8
        return fields.map { "\(Self.formEncode($0.name, encoding: encoding))=\(Self.formEncode($0.value, encoding: encoding))" }
            .joined(separator: "&")
    }

    /// The URL to request: for GET, the fields replace the action's query.
    public var requestURL: URL {
        guard method == "GET" else { return url }
        // An absolute URL always has components.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)!
        components.percentEncodedQuery = encodedFields.isEmpty ? nil : encodedFields
        return components.url ?? url
    }

    public var description: String {
        "\(method) \(url.redactedForLog) fields: \(fields.map(\.name).joined(separator: ", "))"
    }

    /// `application/x-www-form-urlencoded` in a given encoding, as a browser does it: the text's
    /// bytes in that encoding (the Encoding Standard's: Shift_JIS is Windows-31J), percent-encoded,
    /// spaces as `+`; a character the encoding cannot hold is sent as an HTML character reference
    /// (`&#12354;`), as browsers do.
    static func formEncode(_ text: String, encoding: WebEncoding = .utf8) -> String {
        let bytes = encoding.encodeForForm(text)
        var result = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                result.append(Character(UnicodeScalar(byte)))
            case UInt8(ascii: " "):
                result.append("+")
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }
}
