import CLibXML2
import Foundation

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

    /// Parses HTML the way a browser would: broken markup is repaired, never rejected.
    ///
    /// - Parameter encoding: the charset from the HTTP `Content-Type`, if the server sent one.
    ///   Without it, libxml2 reads the page's own `<meta charset>`, and falls back to UTF-8.
    public init(html bytes: [UInt8], url: String? = nil, encoding: String? = nil) throws {
        LibXML.initialise()
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue)
        let chosenEncoding = encoding ?? (Self.declaresCharset(bytes) ? nil : "UTF-8")
        let parsed: htmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(buffer.count, 1)) { chars in
                htmlReadMemory(chars, Int32(buffer.count), url, chosenEncoding, options)
            }
        }
        guard let parsed, !bytes.isEmpty else {
            if let parsed { xmlFreeDoc(parsed) }
            throw LibXMLError.unparsable(kind: "HTML", detail: LibXML.lastErrorMessage() ?? "the page is empty")
        }
        self.pointer = parsed
        self.url = url
    }

    /// Parses HTML held in a Swift string.
    public convenience init(html: String, url: String? = nil) throws {
        try self.init(html: Array(html.utf8), url: url, encoding: "UTF-8")
    }

    /// Parses well-formed XML (RSS, Atom, SAML). Entities are neither loaded nor expanded.
    public init(xml bytes: [UInt8], url: String? = nil) throws {
        LibXML.initialise()
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let parsed: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                xmlReadMemory(chars, Int32(buffer.count), url, nil, options)
            }
        }
        guard let parsed else {
            throw LibXMLError.unparsable(kind: "XML", detail: LibXML.lastErrorMessage() ?? "not well-formed")
        }
        if Self.declaresEntities(parsed) {
            xmlFreeDoc(parsed)
            throw LibXMLError.unparsable(
                kind: "XML",
                detail:
                    "it declares entities of its own (<!ENTITY> in its DOCTYPE), which unitool does not accept: one entity referenced many times can make a small feed as large as memory")
        }
        self.pointer = parsed
        self.url = url
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

    /// The charset the page was decoded from (`Shift_JIS`, `ISO-8859-2`, ...), as libxml2 settled
    /// it from the HTTP header or the page's `<meta>`. A form on the page is sent in it.
    public var encoding: String? {
        guard let name = pointer.pointee.encoding else { return nil }
        return String(cString: name)
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
        guard let context = xpathContext else { throw LibXMLError.invalidXPath(expression: "", detail: "out of memory") }
        return try body(context)
    }

    private init(taking pointer: xmlDocPtr, url: String?) {
        self.pointer = pointer
        self.url = url
    }

    /// The page as markup with every form value emptied (`<input value>`, `<textarea>` text):
    /// what can be saved to disk for a recipe author without keeping tokens, SAML messages or
    /// anything the user typed. The document itself is not changed.
    public func markupWithoutFormValues() -> String {
        guard let copied = xmlCopyDoc(pointer, 1) else { return "" }
        let copy = Document(taking: copied, url: url)
        for node in (try? copy.select("//input[@value]")) ?? [] {
            xmlUnsetProp(node.pointer, "value")
        }
        for node in (try? copy.select("//textarea")) ?? [] {
            xmlNodeSetContent(node.pointer, "")
        }
        var memory: UnsafeMutablePointer<xmlChar>?
        var size: Int32 = 0
        if copy.isHTML {
            htmlDocDumpMemory(copy.pointer, &memory, &size)
        } else {
            xmlDocDumpMemory(copy.pointer, &memory, &size)
        }
        guard let memory else { return "" }
        defer { unitool_xmlFree(memory) }
        return String(decoding: UnsafeBufferPointer(start: memory, count: Int(size)), as: UTF8.self)
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

    /// True when the first kilobyte names a charset, so libxml2 can pick the encoding itself.
    private static func declaresCharset(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        return head.contains("charset=") || head.contains("encoding=")
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
            return "cannot parse the \(kind) document: \(detail)"
        case .invalidXPath(let expression, let detail):
            return "invalid XPath \"\(expression)\": \(detail)"
        case .xpathTooCostly(let expression, let limit):
            return "XPath \"\(expression)\" was stopped after \(limit) steps: it costs too much on this page (nested // inside a predicate multiplies)"
        case .notANodeSet(let expression):
            return "XPath \"\(expression)\" yields a value where a list of nodes was expected"
        }
    }
}

/// Process-wide libxml2 set-up, done once.
enum LibXML {
    private static let once: Void = {
        xmlInitParser()
        unitool_silenceErrors()
    }()

    static func initialise() { _ = once }

    /// The message of the last libxml2 error on this thread, without the trailing newline.
    static func lastErrorMessage() -> String? {
        guard let error = xmlGetLastError(), let message = error.pointee.message else { return nil }
        let text = String(cString: message).collapsingWhitespace()
        xmlResetLastError()
        return text.isEmpty ? nil : text
    }
}
