import CLibXML2
import Foundation
import Localization
import Synchronization
import WebEncoding

/// A parsed HTML or XML document, owned by Swift.
///
/// Pages from a portal are untrusted. Both parsers run with the network off and without
/// entity substitution, so a page can neither make unitool fetch anything nor blow up in memory
/// through nested entities. The HTML parser recovers from broken markup as a browser does.
public final class Document: @unchecked Sendable {
    // libxml2 documents are safe to read from several threads once built; nothing mutates them.
    let pointer: xmlDocPtr
    /// The address the document came from; relative links are resolved against it.
    public let url: String?

    /// The encoding the page was decoded from, in the WHATWG Encoding Standard's name
    /// (`Shift_JIS` for a page labelled `sjis`, `windows-1252` for `ISO-8859-1`). A form on the
    /// page is sent in it.
    public let encoding: WebEncoding
    /// What settled the encoding: a byte order mark, the recipe, the HTTP header, the page itself.
    public let encodingSource: EncodingSniffer.Source
    /// How many byte sequences were not valid in that encoding; each is U+FFFD in the text.
    public let decodingErrors: Int

    /// Parses HTML the way a browser would: decoded as the Encoding Standard says (byte order
    /// mark, then `charsetOverride`, then `httpCharset`, then the `<meta>` prescan, then UTF-8),
    /// with undecodable bytes as U+FFFD, and broken markup repaired, never rejected.
    ///
    /// - Parameters:
    ///   - httpCharset: the charset of the HTTP `Content-Type`, if the server sent one.
    ///   - charsetOverride: the recipe's `charset:`, for a portal that labels its pages wrongly.
    public convenience init(html bytes: [UInt8], url: String? = nil, encoding httpCharset: String? = nil, charsetOverride: String? = nil)
        throws
    {
        let (sniffed, decoded) = Self.decode(bytes, as: .html, httpCharset: httpCharset, charsetOverride: charsetOverride)
        // The text is UTF-8 now; the page's own <meta charset> must not make libxml2 decode it again.
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)
        let utf8 = decoded.utf8
        let parsed: htmlDocPtr? = utf8.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                    htmlReadMemory(chars, Int32(buffer.count), url, "UTF-8", options)
                }
            }
        }
        guard let parsed, !utf8.isEmpty else {
            if let parsed { xmlFreeDoc(parsed) }
            throw LibXMLError.unparsable(kind: "HTML", detail: LibXML.lastErrorMessage() ?? localized("the page is empty"))
        }
        self.init(parsed: parsed, url: url, sniffed: sniffed, decodingErrors: decoded.errors)
    }

    /// Parses HTML held in a Swift string.
    public convenience init(html: String, url: String? = nil) throws {
        try self.init(html: Array(html.utf8), url: url, charsetOverride: "UTF-8")
    }

    /// Parses well-formed XML (RSS, Atom, SAML). Entities are neither loaded nor expanded.
    ///
    /// Decoded as browsers decode XML: byte order mark, then `charsetOverride`, then the HTTP
    /// charset, then the XML declaration's `encoding`, then UTF-8; with the same labels as HTML.
    public convenience init(xml bytes: [UInt8], url: String? = nil, encoding httpCharset: String? = nil, charsetOverride: String? = nil)
        throws
    {
        let (sniffed, decoded) = Self.decode(bytes, as: .xml, httpCharset: httpCharset, charsetOverride: charsetOverride)
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_IGNORE_ENC.rawValue)
        let utf8 = decoded.utf8
        let parsed: xmlDocPtr? = utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                xmlReadMemory(chars, Int32(buffer.count), url, "UTF-8", options)
            }
        }
        guard let parsed else {
            throw LibXMLError.unparsable(kind: "XML", detail: LibXML.lastErrorMessage() ?? localized("not well-formed"))
        }
        if Self.declaresEntities(parsed) {
            xmlFreeDoc(parsed)
            throw LibXMLError.unparsable(
                kind: "XML",
                detail: localized(
                    "it declares entities of its own (<!ENTITY> in its DOCTYPE), which unitool does not accept: one entity referenced many times can make a small feed as large as memory"
                )
            )
        }
        self.init(parsed: parsed, url: url, sniffed: sniffed, decodingErrors: decoded.errors)
    }

    /// Decodes the bytes as a browser would (`EncodingSniffer`), before libxml2 sees them.
    private static func decode(
        _ bytes: [UInt8], as markup: EncodingSniffer.Markup, httpCharset: String?, charsetOverride: String?
    ) -> (sniffed: (encoding: WebEncoding, source: EncodingSniffer.Source, bomLength: Int), decoded: WebEncoding.Decoded) {
        LibXML.initialise()
        return EncodingSniffer(markup: markup, headerLabel: httpCharset, overrideLabel: charsetOverride).decode(bytes)
    }

    /// A parsed document and how its bytes were decoded; `-v` hears of bytes that were not valid.
    private init(
        parsed: xmlDocPtr, url: String?, sniffed: (encoding: WebEncoding, source: EncodingSniffer.Source, bomLength: Int),
        decodingErrors: Int
    ) {
        self.pointer = parsed
        self.url = url
        self.encoding = sniffed.encoding
        self.encodingSource = sniffed.source
        self.decodingErrors = decodingErrors
        LibXML.report(decodingErrors: decodingErrors, encoding: sniffed.encoding, source: sniffed.source, url: url)
    }

    /// True when the document's DOCTYPE declares general or parameter entities.
    ///
    /// The parser never substitutes them (no `XML_PARSE_NOENT`), but each reference stays in the
    /// tree and expands whenever text is read: a 50 KB feed with one 20 KB entity referenced
    /// 10,000 times reads as 200 MB, again for every field. libxml2 2.9 has no amplification limit
    /// for that (`xmlCtxtSetMaxAmplification` came in 2.11), so such documents are refused. A
    /// DOCTYPE that only names an external DTD, as old RSS feeds do, is fine: it is never loaded.
    private static func declaresEntities(_ document: xmlDocPtr) -> Bool {
        for subset in [document.pointee.intSubset, document.pointee.extSubset] {
            guard let subset else { continue }
            if subset.pointee.entities != nil || subset.pointee.pentities != nil { return true }
        }
        return false
    }

    public convenience init(xml: String, url: String? = nil) throws {
        try self.init(xml: Array(xml.utf8), url: url)
    }

    deinit {
        if let xpathContext { xmlXPathFreeContext(xpathContext) }
        xmlFreeDoc(pointer)
    }

    /// One XPath context per document, made on first use: making one registers every XPath
    /// function in a fresh hash table, which cost more than most evaluations themselves.
    /// Guarded by `xpathLock`: one evaluation at a time per document.
    nonisolated(unsafe) private var xpathContext: xmlXPathContextPtr?
    private let xpathLock = NSLock()

    /// Runs `body` with the document's XPath context, one caller at a time.
    func withXPathContext<T>(_ body: (xmlXPathContextPtr) throws -> T) throws -> T {
        xpathLock.lock()
        defer { xpathLock.unlock() }
        if xpathContext == nil { xpathContext = xmlXPathNewContext(pointer) }
        guard let context = xpathContext else { throw LibXMLError.invalidXPath(expression: "", detail: localized("out of memory")) }
        return try body(context)
    }

    private convenience init(taking pointer: xmlDocPtr, url: String?) {
        self.init(parsed: pointer, url: url, sniffed: (.utf8, .defaultUTF8, 0), decodingErrors: 0)
    }

    /// The page as markup with every form value emptied (`<input value>`, `<textarea>` text):
    /// what can be saved to disk for a recipe author without keeping tokens, SAML messages or
    /// anything the user typed. The document itself is not changed.
    public func markupWithoutFormValues() -> String {
        markup(removingFormValues: true)
    }

    /// The page as UTF-8 markup, whatever encoding it came in: characters written as
    /// characters (never `&#12450;`), and an HTML page's `<meta charset>` saying UTF-8, so that
    /// the text reads right in an editor and parses back to the same document.
    public func markup(removingFormValues: Bool = false) -> String {
        guard let copied = xmlCopyDoc(pointer, 1) else { return "" }
        let copy = Document(taking: copied, url: url)
        if removingFormValues {
            for node in (try? copy.select("//input[@value]")) ?? [] {
                xmlUnsetProp(node.pointer, "value")
            }
            for node in (try? copy.select("//textarea")) ?? [] {
                xmlNodeSetContent(node.pointer, "")
            }
        }
        var memory: UnsafeMutablePointer<xmlChar>?
        var size: Int32 = 0
        if copy.isHTML {
            copy.declareUTF8()
            htmlDocDumpMemoryFormat(copy.pointer, &memory, &size, 0)
        } else {
            xmlDocDumpMemoryEnc(copy.pointer, &memory, &size, "UTF-8")
        }
        guard let memory else { return "" }
        defer { unitool_xmlFree(memory) }
        return String(decoding: UnsafeBufferPointer(start: memory, count: Int(size)), as: UTF8.self)
    }

    /// Makes every charset declaration of this (copied) HTML document say UTF-8, adding one to
    /// `<head>` where there is none: libxml2 writes an HTML document in the encoding its
    /// `<meta>` names, and as ASCII with character references when it names none.
    private func declareUTF8() {
        for node in (try? select("//meta[@charset]")) ?? [] {
            xmlSetProp(node.pointer, "charset", "UTF-8")
        }
        let pragma = "//meta[translate(@http-equiv, 'CONTENTYP', 'contentyp') = 'content-type']"
        let pragmas = (try? select(pragma)) ?? []
        for node in pragmas {
            xmlSetProp(node.pointer, "content", "text/html; charset=UTF-8")
        }
        if pragmas.isEmpty, let root = xmlDocGetRootElement(pointer) {
            var head = (try? select("/html/head").first)?.pointer
            if head == nil {
                head = xmlNewDocNode(pointer, nil, "head", nil)
                if let first = root.pointee.children { xmlAddPrevSibling(first, head) } else { xmlAddChild(root, head) }
            }
            let meta = xmlNewDocNode(pointer, nil, "meta", nil)
            xmlNewProp(meta, "http-equiv", "Content-Type")
            xmlNewProp(meta, "content", "text/html; charset=UTF-8")
            if let first = head?.pointee.children { xmlAddPrevSibling(first, meta) } else { xmlAddChild(head, meta) }
        }
        if pointer.pointee.encoding != nil { unitool_xmlFree(UnsafeMutableRawPointer(mutating: pointer.pointee.encoding)) }
        pointer.pointee.encoding = UnsafePointer(xmlStrdup("UTF-8"))
    }

    /// True for a document from the HTML parser.
    var isHTML: Bool { pointer.pointee.type == XML_HTML_DOCUMENT_NODE }
    /// True for a document from the XML parser (a feed), false for an HTML page.
    public var isXML: Bool { !isHTML }

    /// The root element, `<html>` for any HTML page.
    public var root: Node? {
        guard let element = xmlDocGetRootElement(pointer) else { return nil }
        return Node(document: self, pointer: element)
    }

    /// Evaluates an XPath expression with the document as context.
    public func evaluate(_ expression: String, namespaces: [String: String] = [:]) throws -> XPathValue {
        try XPath.evaluate(expression, in: self, context: nil, namespaces: namespaces)
    }

    /// The nodes an XPath expression selects; an expression that yields a value is an error.
    public func select(_ expression: String, namespaces: [String: String] = [:]) throws -> [Node] {
        try evaluate(expression, namespaces: namespaces).nodes(for: expression)
    }

    /// The page's `<title>`, trimmed; used to describe a page in error messages.
    public var title: String? {
        guard let node = try? select("//title").first else { return nil }
        let text = node.normalizedText
        return text.isEmpty ? nil : text
    }
}

/// What went wrong inside libxml2, in words a recipe author can act on.
public enum LibXMLError: Error, Equatable, CustomStringConvertible, Sendable {
    case unparsable(kind: String, detail: String)
    case invalidXPath(expression: String, detail: String)
    case notANodeSet(expression: String)
    case xpathTooCostly(expression: String, limit: Int)

    public var description: String {
        switch self {
        case .unparsable(let kind, let detail):
            return localized("cannot parse the \(kind) document: \(detail)")
        case .invalidXPath(let expression, let detail):
            return localized("invalid XPath \"\(expression)\": \(detail)")
        case .xpathTooCostly(let expression, let limit):
            return localized(
                "XPath \"\(expression)\" was stopped after \(limit) steps: it costs too much on this page (nested // inside a predicate multiplies)"
            )
        case .notANodeSet(let expression):
            return localized("XPath \"\(expression)\" yields a value where a list of nodes was expected")
        }
    }
}

/// Process-wide libxml2 set-up, done once.
enum LibXML {
    private static let once: Void = {
        xmlInitParser()
        unitool_routeErrors { _, error in
            // Most pages raise some (libxml2 2.9 calls every HTML5 element an error); with no one
            // listening, no message is even made. Made for nobody, they were half of the CPU of a
            // busy JSON-RPC server (found with perf).
            guard LibXMLDiagnostics.isListening, let error, let message = error.pointee.message else { return }
            let text = String(cString: message).collapsingWhitespace()
            if !text.isEmpty, !LibXMLDiagnostics.isUnknownTag(text) {
                LibXMLDiagnostics.emit("libxml2: \(text) (line \(error.pointee.line))")
            }
        }
    }()

    static func initialise() { _ = once }

    /// Tells `-v` readers that a page had bytes its encoding cannot hold.
    static func report(decodingErrors: Int, encoding: WebEncoding, source: EncodingSniffer.Source, url: String?) {
        guard decodingErrors > 0 else { return }
        LibXMLDiagnostics.emit(
            "\(decodingErrors) byte sequence(s) of \(url ?? "the page") are not valid \(encoding.name) (chosen by \(source.rawValue)); shown as U+FFFD"
        )
    }

    /// The message of the last libxml2 error on this thread, without the trailing newline.
    static func lastErrorMessage() -> String? {
        guard let error = xmlGetLastError(), let message = error.pointee.message else { return nil }
        let text = String(cString: message).collapsingWhitespace()
        xmlResetLastError()
        return text.isEmpty ? nil : text
    }
}

/// Where libxml2's own messages and decoding problems go: never stderr, but to whatever the
/// front end sets here (unitool's log, seen with `-v`). Dropped until one is set.
/// The libxml2 in use, for `unitool version` and bug reports.
public enum LibXMLVersion {
    /// "2.9.14": libxml2 gives "20914" (major, then two digits each for minor and micro).
    public static var current: String {
        guard let raw = unitool_libxml2_version(), let number = Int(String(cString: raw)) else { return "unknown" }
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }
}

public enum LibXMLDiagnostics {
    private static let handler = Mutex<(@Sendable (String) -> Void)?>(nil)
    private static let listening = Atomic<Bool>(false)

    /// Sets the receiver of libxml2's messages for the whole process; nil drops them unmade.
    public static func setHandler(_ receive: (@Sendable (String) -> Void)?) {
        handler.withLock { $0 = receive }
        listening.store(receive != nil, ordering: .releasing)
    }

    /// Whether anyone receives the messages: checked before one is made.
    static var isListening: Bool { listening.load(ordering: .acquiring) }

    /// libxml2's "Tag main invalid": its HTML parser knows HTML 4's elements only, so every
    /// HTML5 element (`main`, `header`, `nav`, `time`, `template`) and custom element is named
    /// as an error on every page, and `-v` drowned in them. The element is parsed all the same;
    /// the message says nothing about the page. Pure.
    public static func isUnknownTag(_ message: String) -> Bool {
        let words = message.split(separator: " ")
        return words.count == 3 && words[0] == "Tag" && words[2] == "invalid"
    }

    static func emit(_ message: @autoclosure () -> String) {
        guard isListening, let receive = handler.withLock({ $0 }) else { return }
        receive(message())
    }
}
